// Box–box contact: separating-axis test over the 15 candidate axes, then either one edge–edge
// contact or a clipped face manifold.
//
// Outline (the structure MuJoCo 3.12 uses, which compat mode reproduces bit for bit):
//   1. In box 1's frame: R = R1ᵀR2 (box 2's axes), p21 = R1ᵀ(c2 - c1), p12 = R2ᵀ(c1 - c2).
//   2. Separation along each face normal of either box and along each normalized edge cross
//      product e_i × (R2 e_j); any separation beyond the margin (plus rounding slack proportional
//      to the box sizes) means no contact. The largest separation wins; an edge axis must beat
//      the best face by a relative bias, and an edge within ~8° of the best face that is not 5%
//      deeper gives way to the face (faces give multi-point manifolds that keep stacks still).
//   3. Edge axis: closest points of the two supporting edges (both sign choices tried where an
//      axis component is too small to pick a corner), one contact at their midpoint.
//   4. Face axis: the incident box's face most opposed to the reference normal, as a quad in the
//      reference face's frame (x, y in the face plane, z the height above it), clipped by the four
//      side planes of the reference face (Sutherland–Hodgman); every clipped vertex within the
//      margin that is not a near-duplicate becomes a contact, halfway between the surfaces.
#pragma once

#include <cmath>

#include "collision/contact.h"

namespace mjportal::collision {
namespace box_box {

// Rounding scales (multiples of double epsilon magnitudes; see the outline).
constexpr double kSeparationSlack = 1e-13;  // times the summed half-sizes
constexpr double kParallelSin2 = 1e-16;     // sin² below which an edge cross axis is noise
constexpr double kAmbiguousSign = 1e-9;     // axis component below which a corner is ambiguous
constexpr double kDuplicate2 = 1e-14;       // squared relative radius of duplicate clip vertices
constexpr double kEdgeBias = 1e-6;          // relative edge penalty on near-ties with a face
constexpr double kMaxValue = 1e10;          // "infinite" separation / distance
constexpr int kMaxVertices = 12;            // clip buffer capacity (a clipped quad has <= 8)

// A polygon in reference-face coordinates (x, y in plane, z height).
struct Polygon {
  double v[kMaxVertices][3];
  int count;
};

// Clips `in` by the half-plane sign·v[coord] <= limit into `out`. Returns false (and leaves out
// untouched) when every vertex is already inside, so the caller keeps using `in`.
MJP_HD inline bool ClipHalfPlane(const Polygon& in, Polygon& out, int coord, double sign,
                                 double limit) {
  double d[kMaxVertices];
  bool all_inside = true;
  for (int k = 0; k < in.count; ++k) {
    d[k] = sign * in.v[k][coord] - limit;
    all_inside &= d[k] <= 0;
  }
  if (all_inside) {
    return false;
  }
  out.count = 0;
  for (int k = 0; k < in.count; ++k) {
    const int next = CyclicNext(k, in.count);
    const double* p = in.v[k];
    const double dp = d[k], dq = d[next];

    // Keep p when inside.
    if (dp <= 0 && out.count < kMaxVertices) {
      double* o = out.v[out.count++];
      o[0] = p[0];
      o[1] = p[1];
      o[2] = p[2];
    }

    // Add the crossing point when the edge p→q strictly crosses the plane.
    if (((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) && out.count < kMaxVertices) {
      const double* q = in.v[next];
      const double t = dp / (dp - dq);
      double* o = out.v[out.count++];
      o[0] = p[0] + t * (q[0] - p[0]);
      o[1] = p[1] + t * (q[1] - p[1]);
      o[2] = p[2] + t * (q[2] - p[2]);
    }
  }
  return true;
}

// Unit edge-cross axis e_i × (R e_j) in box 1's frame (component i is zero).
MJP_HD inline Vec3 EdgeAxis(const double* rot, int i, int j) {
  const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
  Vec3 axis = {0.0, 0.0, 0.0};
  Set(axis, i1, -rot[3 * i2 + j]);
  Set(axis, i2, rot[3 * i1 + j]);
  Normalize(axis);
  return axis;
}

}  // namespace box_box

// Box (geom 1) against box (geom 2, sizes = half-extents). Returns 0–8 contacts.
MJP_HD inline int CollideBoxBox(const GeomView& box1, const GeomView& box2, double margin,
                                Contact* out) {
  using namespace box_box;
  const double* s1 = box1.size;
  const double* s2 = box2.size;
  const double* m1 = box1.mat;
  const double* m2 = box2.mat;

  // 1. Relative frame: rot = R1ᵀR2 (row-major), centres in each other's frame.
  const Vec3 p21 = RotateT(m1, Load3(box2.pos) - Load3(box1.pos));
  const Vec3 p12 = RotateT(m2, Load3(box1.pos) - Load3(box2.pos));
  double rot[9], rot_abs[9];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      rot[3 * r + c] = m1[r] * m2[c] + m1[3 + r] * m2[3 + c] + m1[6 + r] * m2[6 + c];
    }
  }
  for (int k = 0; k < 9; ++k) {
    rot_abs[k] = std::fabs(rot[k]);
  }
  const double pos21[3] = {p21.x, p21.y, p21.z};
  const double pos12[3] = {p12.x, p12.y, p12.z};

  // 2. Separating axes. code: 0..2 face of box 1, 3..5 face of box 2, 6 + 3i + j edge pair.
  const double slack = margin + kSeparationSlack * (s1[0] + s1[1] + s1[2] + s2[0] + s2[1] + s2[2]);
  double best = -kMaxValue;
  int code = -1;
  for (int i = 0; i < 3; ++i) {
    const double radius2 =
        rot_abs[3 * i] * s2[0] + rot_abs[3 * i + 1] * s2[1] + rot_abs[3 * i + 2] * s2[2];
    const double sep = std::fabs(pos21[i]) - s1[i] - radius2;
    if (sep > slack) {
      return 0;
    }
    if (sep > best) {
      best = sep;
      code = i;
    }
  }
  for (int j = 0; j < 3; ++j) {
    const double radius1 = rot_abs[j] * s1[0] + rot_abs[3 + j] * s1[1] + rot_abs[6 + j] * s1[2];
    const double sep = std::fabs(pos12[j]) - s2[j] - radius1;
    if (sep > slack) {
      return 0;
    }
    if (sep > best) {
      best = sep;
      code = 3 + j;
    }
  }
  const double best_face = best;
  const int face_code = code;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      // Edge cross axis (components i1, i2 in box 1's frame); skip near-parallel edges.
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      double a1 = -rot[3 * i2 + j];
      double a2 = rot[3 * i1 + j];
      const double norm2 = a1 * a1 + a2 * a2;
      if (norm2 < kParallelSin2) {
        continue;
      }
      const double inv = 1 / std::sqrt(norm2);
      a1 *= inv;
      a2 *= inv;

      // Support radii of both boxes along the axis, and the separation.
      const double radius1 = s1[i1] * std::fabs(a1) + s1[i2] * std::fabs(a2);
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double b1 = a1 * rot[3 * i1 + j1] + a2 * rot[3 * i2 + j1];
      const double b2 = a1 * rot[3 * i1 + j2] + a2 * rot[3 * i2 + j2];
      const double radius2 = s2[j1] * std::fabs(b1) + s2[j2] * std::fabs(b2);
      const double sep = std::fabs(a1 * pos21[i1] + a2 * pos21[i2]) - radius1 - radius2;
      if (sep > slack) {
        return 0;
      }
      if (sep - kEdgeBias * std::fabs(sep) > best && sep > best_face) {
        best = sep;
        code = 6 + 3 * i + j;
      }
    }
  }
  if (code < 0) {
    return 0;
  }

  // An edge nearly parallel to the best face that is not clearly deeper gives way to the face.
  if (code >= 6) {
    const Vec3 axis = EdgeAxis(rot, (code - 6) / 3, (code - 6) % 3);
    double face_dot;
    if (face_code < 3) {
      face_dot = std::fabs(Get(axis, face_code));
    } else {
      const int f = face_code - 3;
      face_dot = std::fabs(axis.x * rot[f] + axis.y * rot[3 + f] + axis.z * rot[6 + f]);
    }
    if (face_dot > 0.99 && best < best_face + 0.05 * std::fabs(best_face) + kMinVal) {
      code = face_code;
      best = best_face;
    }
  }

  // 3. Edge–edge: one contact between the closest points of the supporting edges.
  if (code >= 6) {
    const int i = (code - 6) / 3, j = (code - 6) % 3;
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;

    // Axis from box 1 towards box 2, and in box 2's frame.
    Vec3 axis = EdgeAxis(rot, i, j);
    if (Dot(axis, p21) < 0) {
      axis = {-axis.x, -axis.y, -axis.z};
    }
    const Vec3 axis2 = RotateT(rot, axis);

    // Components too small to choose a supporting corner: try both signs.
    int ambiguous1 = -1, ambiguous2 = -1;
    if (std::fabs(Get(axis, i1)) < kAmbiguousSign) {
      ambiguous1 = i1;
    } else if (std::fabs(Get(axis, i2)) < kAmbiguousSign) {
      ambiguous1 = i2;
    }
    if (std::fabs(Get(axis2, j1)) < kAmbiguousSign) {
      ambiguous2 = j1;
    } else if (std::fabs(Get(axis2, j2)) < kAmbiguousSign) {
      ambiguous2 = j2;
    }

    // Edge directions e_i (box 1) and d2 = R e_j (box 2); b = cosine between them.
    const Vec3 d2 = Column(rot, j);
    const double b = Get(d2, i);
    const double denom = 1 - b * b;

    // (MuJoCo leaves these uninitialized and reads them when no candidate is nearer than 1e10,
    // which takes a non-rotation matrix; that output is undefined, so no bits to match there.)
    Vec3 w1 = {0.0, 0.0, 0.0}, w2 = {0.0, 0.0, 0.0};
    double best_gap2 = kMaxValue;
    for (int v1 = 0; v1 < (ambiguous1 >= 0 ? 2 : 1); ++v1) {
      for (int v2 = 0; v2 < (ambiguous2 >= 0 ? 2 : 1); ++v2) {
        // Edge midpoints: box 1 supports +axis, box 2 supports -axis.
        Vec3 c1 = {0.0, 0.0, 0.0};
        Set(c1, i1, Get(axis, i1) >= 0 ? s1[i1] : -s1[i1]);
        Set(c1, i2, Get(axis, i2) >= 0 ? s1[i2] : -s1[i2]);
        if (ambiguous1 >= 0 && v1) {
          Set(c1, ambiguous1, -Get(c1, ambiguous1));
        }
        Vec3 corner2 = {0.0, 0.0, 0.0};
        Set(corner2, j1, Get(axis2, j1) >= 0 ? -s2[j1] : s2[j1]);
        Set(corner2, j2, Get(axis2, j2) >= 0 ? -s2[j2] : s2[j2]);
        if (ambiguous2 >= 0 && v2) {
          Set(corner2, ambiguous2, -Get(corner2, ambiguous2));
        }
        const Vec3 c2 = Rotate(rot, corner2) + p21;

        // Closest points of the segments c1 + s e_i and c2 + t d2, clamped in turn.
        const Vec3 e = c2 - c1;
        const double d1e = Get(e, i);
        const double d2e = Dot(d2, e);
        double s = denom < kMinVal ? 0 : (d1e - b * d2e) / denom;
        s = Clip(s, -s1[i], s1[i]);
        const double t = Clip(b * s - d2e, -s2[j], s2[j]);
        s = Clip(d1e + b * t, -s1[i], s1[i]);

        Vec3 q1 = c1;
        Set(q1, i, Get(q1, i) + s);
        const Vec3 q2 = c2 + d2 * t;
        const Vec3 gap = q2 - q1;
        const double gap2 = Dot(gap, gap);
        if (gap2 < best_gap2) {
          best_gap2 = gap2;
          w1 = q1;
          w2 = q2;
        }
      }
    }

    // Signed distance along the axis; contact at the witness midpoint.
    const double dist = Dot(w2 - w1, axis);
    if (dist > slack) {
      return 0;
    }
    const Vec3 mid = {0.5 * (w1.x + w2.x), 0.5 * (w1.y + w2.y), 0.5 * (w1.z + w2.z)};
    out[0].dist = dist;
    out[0].pos = Rotate(m1, mid) + Load3(box1.pos);
    out[0].normal = Rotate(m1, axis);
    out[0].tangent = {0.0, 0.0, 0.0};
    return 1;
  }

  // 4. Face: reference box owns the winning face (axis a), the other box is incident.
  const bool ref1 = code < 3;
  const int a = ref1 ? code : code - 3;
  const double* size_ref = ref1 ? s1 : s2;
  const double* size_inc = ref1 ? s2 : s1;
  const double* pos_ref = ref1 ? box1.pos : box2.pos;
  const double* mat_ref = ref1 ? m1 : m2;
  const double* pos_inc = ref1 ? pos21 : pos12;  // incident centre in the reference frame

  // Incident axes in the reference frame: rinc[3r + c] = component r of incident axis c.
  double rinc[9];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      rinc[3 * r + c] = ref1 ? rot[3 * r + c] : rot[3 * c + r];
    }
  }

  // Side of the reference face, and the incident face most opposed to its normal.
  const double side = pos_inc[a] >= 0 ? 1 : -1;
  int face = 0;
  for (int k = 1; k < 3; ++k) {
    if (std::fabs(rinc[3 * a + k]) > std::fabs(rinc[3 * a + face])) {
      face = k;
    }
  }
  const double face_sign = side * rinc[3 * a + face] > 0 ? -1 : 1;

  // Incident face as centre ± u ± v in (x, y, z) = (axis a+1, axis a+2, height above the face).
  const int ax = (a + 1) % 3, ay = (a + 2) % 3;
  const int fu = (face + 1) % 3, fv = (face + 2) % 3;
  double center[3], du[3], dv[3];
  for (int r = 0; r < 3; ++r) {
    const int c = r == 0 ? ax : (r == 1 ? ay : a);
    center[r] = pos_inc[c] + face_sign * size_inc[face] * rinc[3 * c + face];
    du[r] = size_inc[fu] * rinc[3 * c + fu];
    dv[r] = size_inc[fv] * rinc[3 * c + fv];
  }
  center[2] = side * center[2] - size_ref[a];
  du[2] *= side;
  dv[2] *= side;

  Polygon buffers[2];
  constexpr double kCornerSigns[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  for (int k = 0; k < 4; ++k) {
    const double su = kCornerSigns[k][0], sv = kCornerSigns[k][1];
    for (int r = 0; r < 3; ++r) {
      buffers[0].v[k][r] = center[r] + su * du[r] + sv * dv[r];
    }
  }
  buffers[0].count = 4;

  // Clip by the four side planes of the reference face.
  int current = 0;
  const int clip_coord[4] = {0, 0, 1, 1};
  const double clip_sign[4] = {1, -1, 1, -1};
  for (int plane = 0; plane < 4; ++plane) {
    const double limit = size_ref[clip_coord[plane] == 0 ? ax : ay];
    if (ClipHalfPlane(buffers[current], buffers[1 - current], clip_coord[plane], clip_sign[plane],
                      limit)) {
      current = 1 - current;
    }
  }
  const Polygon& clipped = buffers[current];

  // Keep vertices within the margin, dropping near-duplicates.
  double accepted[kMaxVertices][3];
  int count = 0;
  const double dupe2 = kDuplicate2 * (size_ref[ax] * size_ref[ax] + size_ref[ay] * size_ref[ay]);
  for (int k = 0; k < clipped.count; ++k) {
    const double* v = clipped.v[k];
    if (v[2] > margin) {
      continue;
    }
    bool duplicate = false;
    for (int q = 0; q < count; ++q) {
      const double dx = accepted[q][0] - v[0];
      const double dy = accepted[q][1] - v[1];
      if (dx * dx + dy * dy < dupe2) {
        duplicate = true;
        break;
      }
    }
    if (!duplicate) {
      accepted[count][0] = v[0];
      accepted[count][1] = v[1];
      accepted[count][2] = v[2];
      ++count;
    }
  }

  // Contacts: normal along ±a of the reference box (from box 1 to box 2), each point halfway
  // between the reference face and the incident surface.
  const double normal_sign = ref1 ? side : -side;
  const Vec3 normal = {normal_sign * mat_ref[a], normal_sign * mat_ref[3 + a],
                       normal_sign * mat_ref[6 + a]};
  for (int k = 0; k < count; ++k) {
    Vec3 local = {0.0, 0.0, 0.0};
    Set(local, ax, accepted[k][0]);
    Set(local, ay, accepted[k][1]);
    Set(local, a, side * (size_ref[a] + 0.5 * accepted[k][2]));
    out[k].dist = accepted[k][2];
    out[k].pos = Rotate(mat_ref, local) + Load3(pos_ref);
    out[k].normal = normal;
    out[k].tangent = {0.0, 0.0, 0.0};
  }
  return count;
}

}  // namespace mjportal::collision
