// Capsule–box contact: the closest capsule segment point to the box becomes a sphere–box contact,
// and a second sphere further along the segment gives the second point of a resting capsule.
//
// Outline (MuJoCo 3.12's capsule–box, which compat mode reproduces bit for bit), in the box frame
// with the segment q(t) = p + t·a, t ∈ [-1, 1] (a = half-axis):
//   1. Closest feature. Each segment end that projects onto a face (clamped in at most one
//      coordinate) is a face candidate; every box edge is an edge candidate, solved as a 2x2
//      closest-point problem between the edge and the segment, each parameter clamped in turn.
//      The nearest candidate (squared distance) wins; an edge must be nearer by kMinVal.
//   2. Second point along the segment, by the kind of feature:
//      - box corner: pointing at or away from the corner: none; along an edge (the axis mostly
//        along it): as far as the edge reaches; else across a face, as far as the box reaches;
//      - middle of a box edge: only in a cross configuration, as far as the box reaches;
//      - face (segment end): as far as the segment stays over the face.
//   3. A sphere of the capsule radius at each chosen segment point, against the box.
#pragma once

#include <cmath>

#include "collision/sphere_box.h"

namespace mjportal::collision {

// Capsule (geom 1) against box (geom 2). Returns 0–2 contacts.
MJP_HD inline int CollideCapsuleBox(const GeomView& capsule, const GeomView& box, double margin,
                                    Contact* out) {
  const double* e = box.size;
  const double radius = capsule.size[0];
  const double half_length = capsule.size[1];

  // Capsule centre and axis in the box frame.
  const Vec3 p = RotateT(box.mat, Load3(capsule.pos) - Load3(box.pos));
  const Vec3 axis = RotateT(box.mat, Column(capsule.mat, 2));
  const Vec3 half_axis = axis * half_length;
  const double pa[3] = {p.x, p.y, p.z};
  const double ha[3] = {half_axis.x, half_axis.y, half_axis.z};
  const double ax3[3] = {axis.x, axis.y, axis.z};
  const int axis_octant = (ha[0] > 0 ? 1 : 0) + (ha[1] > 0 ? 2 : 0) + (ha[2] > 0 ? 4 : 0);

  // 1. Closest feature. kind: -3 / -1 face at segment end -1 / +1; 0..8 edge, 3·s1 + s2 with
  //    s1 the box-edge clamp (0 low end, 1 inside, 2 high end) and s2 the segment clamp.
  double best = margin + 2 * (radius + half_length + e[0] + e[1] + e[2]);
  double best_t = 0;       // segment parameter of the closest point
  double best_edge_s = 0;  // edge parameter of the closest point
  int kind = -4;           // none yet
  int face = -1;           // face candidates: the clamped coordinate, -1 when none
  int corner = 0;          // edge candidates: the nearest corner (bit k: + side of axis k)
  int edge = 0;            // edge candidates: the edge direction

  for (int end = -1; end <= 1; end += 2) {
    // Segment end, and its clamp to the box counting clamped coordinates.
    double q[3], clamped[3];
    int n_clamped = 0, clamped_axis = -1;
    for (int k = 0; k < 3; ++k) {
      q[k] = pa[k] + ha[k] * end;
      clamped[k] = q[k];
    }
    for (int k = 0; k < 3; ++k) {
      if (clamped[k] < -e[k]) {
        ++n_clamped;
        clamped_axis = k;
        clamped[k] = -e[k];
      } else if (clamped[k] > e[k]) {
        ++n_clamped;
        clamped_axis = k;
        clamped[k] = e[k];
      }
    }
    if (n_clamped > 1) {
      continue;
    }
    const Vec3 gap = {clamped[0] - q[0], clamped[1] - q[1], clamped[2] - q[2]};
    const double dist2 = Dot(gap, gap);
    if (dist2 < best) {
      best = dist2;
      best_t = end;
      kind = -2 + end;
      face = clamped_axis;
    }
  }

  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 8; ++i) {
      if ((i & (1 << j)) != 0) {
        continue;
      }
      // Edge along axis j through the middle of the corners i and i + 2^j.
      double start[3] = {((i & 1) ? 1 : -1) * e[0], ((i & 2) ? 1 : -1) * e[1],
                         ((i & 4) ? 1 : -1) * e[2]};
      start[j] = 0;
      const Vec3 to_edge = Vec3{start[0], start[1], start[2]} - p;
      const double d[3] = {to_edge.x, to_edge.y, to_edge.z};

      // Closest points of edge start + s·e_j·e[j] and segment p + t·a (normal equations).
      const double ma = e[j] * e[j];
      const double mb = -e[j] * ha[j];
      const double mc = half_length * half_length;
      const double u = -e[j] * d[j];
      const double v = Dot(half_axis, to_edge);
      const double det = ma * mc - mb * mb;
      if (std::fabs(det) < kMinVal) {
        continue;
      }
      const double inv_det = 1 / det;
      double s = (mc * u - mb * v) * inv_det;
      double t = (ma * v - mb * u) * inv_det;
      int s_clamp = 1, t_clamp = 1;
      if (s > 1) {
        s = 1;
        s_clamp = 2;
        t = (v - mb) * (1 / mc);
      } else if (s < -1) {
        s = -1;
        s_clamp = 0;
        t = (v + mb) * (1 / mc);
      }
      if (t > 1 || t < -1) {
        const bool high = t > 1;
        t = high ? 1 : -1;
        t_clamp = high ? 2 : 0;
        s = (high ? (u - mb) : (u + mb)) * (1 / ma);
        if (s > 1) {
          s = 1;
          s_clamp = 2;
        } else if (s < -1) {
          s = -1;
          s_clamp = 0;
        }
      }

      // Squared distance between the two points.
      Vec3 gap = to_edge + half_axis * -t;
      Set(gap, j, Get(gap, j) + e[j] * s);
      const double dist2 = Dot(gap, gap);
      const int code = s_clamp * 3 + t_clamp;
      if (dist2 < best - kMinVal) {
        best = dist2;
        best_t = t;
        best_edge_s = s;
        corner = i + (1 << j) * (code / 6);
        edge = j;
        kind = code;
      }
    }
  }
  if (kind == -4) {
    return 0;
  }

  // 2. Second point: an offset along the segment (in units of t), or none (below -3).
  double second = -4;
  if (kind >= 0 && kind / 3 != 1) {
    // Closest to a box corner: relative octant of the axis and the corner.
    int rel = axis_octant ^ corner;
    if (rel != 0 && rel != 7) {
      double sign = 0, to_end = 0, to_start = 0;
      if (rel == 1 || rel == 2 || rel == 4) {
        sign = 1;
        to_end = 1 - best_t;
        to_start = 1 + best_t;
      }
      if (rel == 3 || rel == 5 || rel == 6) {
        sign = -1;
        rel = 7 - rel;
        to_start = 1 - best_t;
        to_end = 1 + best_t;
      }
      const int k = rel == 1 ? 0 : (rel == 2 ? 1 : 2);
      const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
      if (ax3[k] * ax3[k] > 0.5) {
        // Along the edge through the corner, at most its length.
        second = to_end;
        const double reach = 2 * e[k] / std::fabs(ha[k]);
        if (reach < second)
          second = reach;
        second *= sign;
      } else {
        // Across a face, until the segment leaves the box.
        second = to_start;
        double reach = 2 * e[k1] / std::fabs(ha[k1]);
        if (reach < second)
          second = reach;
        reach = 2 * e[k2] / std::fabs(ha[k2]);
        if (reach < second)
          second = reach;
        second *= -sign;
      }
    }
  } else if (kind >= 0) {
    // Closest to the middle of a box edge: only a cross configuration has a second point.
    int rel = (axis_octant ^ corner) & (7 - (1 << edge));
    if (rel == 1 || rel == 2 || rel == 4) {
      const int k = edge;
      int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
      if (std::fabs(ax3[k1]) > std::fabs(ax3[k2])) {
        k1 = k2;
      }
      k2 = 3 - k - k1;
      double sign;
      if (rel & (1 << k2)) {
        sign = 1;
        second = 1 - best_t;
      } else {
        sign = -1;
        second = 1 + best_t;
      }
      double reach = 2 * e[k2] / std::fabs(ha[k2]);
      if (reach < second)
        second = reach;
      const double along_edge = (((axis_octant & (1 << k)) != 0) == ((rel & (1 << k2)) != 0))
                                    ? 1 - best_edge_s
                                    : 1 + best_edge_s;
      reach = e[k] * along_edge / std::fabs(ha[k]);
      if (reach < second)
        second = reach;
      second *= sign;
    }
  } else if (face != -1) {
    // Closest at a segment end over a face: the other end, clamped to where it leaves the box.
    const double sign = kind == -3 ? 1 : -1;
    second = 2;
    const Vec3 other = p + half_axis * -sign;
    const double o[3] = {other.x, other.y, other.z};
    for (int k = 0; k < 3; ++k) {
      if (k == face) {
        continue;
      }
      double reach = (e[k] - o[k]) / ha[k] * sign;
      if (reach > 0 && reach < second)
        second = reach;
      reach = (-e[k] - o[k]) / ha[k] * sign;
      if (reach > 0 && reach < second)
        second = reach;
    }
    second *= sign;
  }

  // 3. Spheres at the chosen segment points, back in the world frame.
  const Vec3 box_pos = Load3(box.pos);
  int count = CollideSphereBoxAt(margin, Rotate(box.mat, p + half_axis * best_t) + box_pos, radius,
                                 box, out);
  if (second > -3) {
    count +=
        CollideSphereBoxAt(margin, Rotate(box.mat, p + half_axis * (second + best_t)) + box_pos,
                           radius, box, out + count);
  }
  return count;
}

}  // namespace mjportal::collision
