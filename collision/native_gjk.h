// Compat: MuJoCo 3.12's native GJK (engine_collision_gjk.c), reproduced bit for bit.
//
// GJK on the Minkowski difference A - B: x_k is the point of the current simplex closest to the
// origin (barycentric coordinates from the signed-volume sub-distance algorithm of Montanari,
// Petrinic and Barbieri, "Improving the GJK algorithm for faster and more reliable distance
// queries between convex objects", ToG 2017); each iteration adds the support point along -x_k
// and stops on the Frank–Wolfe duality gap <x_k, x_k - s_k> < tol²/2 (0 for meshes and boxes
// without margin, whose difference is a polytope), on stagnation, or when a separating plane is
// found. When only intersection matters and the simplex becomes a tetrahedron, a face-walking
// test (NativeGjkIntersect) decides containment of the origin.
//
// Every expression keeps MuJoCo's order of operations; comments say what, not how it is
// written there.
#pragma once

#include "collision/native_support.h"

namespace mjportal::collision {

// Largest finite double (MuJoCo's mjMAX_LIMIT in double precision).
constexpr double kNativeMaxLimit = 1.7976931348623157e308;
// MuJoCo's mjMAXVAL.
constexpr double kNativeMaxVal = 1e10;
// Witness slots a solve can report (the multi-contact recovery reports at most this many).
constexpr int kNativeMaxWitness = 8;

// A point of the Minkowski difference with the two support points it came from and their
// box-corner / mesh-vertex indices (-1 for smooth shapes).
struct NativeVertex {
  Vec3 vert;
  Vec3 vert1;
  Vec3 vert2;
  int index1;
  int index2;
};

// Warnings MuJoCo prints from inside its solver; the caller prints them.
enum NativeWarning : int {
  kNativeWarnNone = 0,
  kNativeWarnOriginOnFace = 1,  // "EPA: origin lies on affine hull of face"
  kNativeWarnOutOfFaces = 2,    // "EPA: out of memory for faces on expanding polytope"
};

// Settings and results of one solve (MuJoCo's mjCCDStatus).
struct NativeStatus {
  // results
  int separated = 0;
  double dist[kNativeMaxWitness] = {};
  Vec3 x1[kNativeMaxWitness] = {};
  Vec3 x2[kNativeMaxWitness] = {};
  int nx = 0;
  // settings
  int max_iterations = 0;
  double tolerance = 0;
  int max_contacts = 0;
  double dist_cutoff = 0;
  // bookkeeping
  int gjk_iterations = 0;
  NativeVertex simplex[4] = {};
  int nsimplex = 0;
  int warning = kNativeWarnNone;
};

// Both shapes are polytopes (meshes and boxes without margin): GJK and EPA then end in finitely
// many steps and use exact stopping tests.
MJP_HD MJP_INLINE bool NativeDiscrete(const NativeShape& a, const NativeShape& b) {
  if (a.margin != 0 || b.margin != 0) {
    return false;
  }
  const bool da = a.type == ShapeType::kMesh || a.type == ShapeType::kBox;
  const bool db = b.type == ShapeType::kMesh || b.type == ShapeType::kBox;
  return da && db;
}

// Support of A - B along dir (dir_neg = its opposite): each shape's point plus margin/2 along its
// direction, and the difference.
MJP_HD inline void NativeSupport(NativeVertex* v, NativeShape& a, NativeShape& b, const Vec3& dir,
                                 const Vec3& dir_neg) {
  v->vert1 = NativeSupportPoint(a, dir);
  if (a.margin > 0) {
    const double half = 0.5 * a.margin;
    v->vert1.x += dir.x * half;
    v->vert1.y += dir.y * half;
    v->vert1.z += dir.z * half;
  }
  v->vert2 = NativeSupportPoint(b, dir_neg);
  if (b.margin > 0) {
    const double half = 0.5 * b.margin;
    v->vert2.x += dir_neg.x * half;
    v->vert2.y += dir_neg.y * half;
    v->vert2.z += dir_neg.z * half;
  }
  v->vert = v->vert1 - v->vert2;
  v->index1 = a.vertindex;
  v->index2 = b.vertindex;
}

// Support along -x_k, normalized by multiplying with 1/|x_k|.
MJP_HD MJP_INLINE void NativeGjkSupport(NativeVertex* v, NativeShape& a, NativeShape& b,
                                        const Vec3& x, double x_norm) {
  const Vec3 dir_neg = x * (1 / x_norm);
  const Vec3 dir = dir_neg * -1.0;
  NativeSupport(v, a, b, dir, dir_neg);
}

// c[0] v[0] + ... + c[n-1] v[n-1], summed left to right.
MJP_HD MJP_INLINE Vec3 NativeCombine(const double* c, int n, const Vec3& v1, const Vec3& v2,
                                     const Vec3& v3, const Vec3& v4) {
  switch (n) {
    case 1:
      return {c[0] * v1.x, c[0] * v1.y, c[0] * v1.z};
    case 2:
      return {c[0] * v1.x + c[1] * v2.x, c[0] * v1.y + c[1] * v2.y, c[0] * v1.z + c[1] * v2.z};
    case 3:
      return {c[0] * v1.x + c[1] * v2.x + c[2] * v3.x, c[0] * v1.y + c[1] * v2.y + c[2] * v3.y,
              c[0] * v1.z + c[1] * v2.z + c[2] * v3.z};
    case 4:
      return {c[0] * v1.x + c[1] * v2.x + c[2] * v3.x + c[3] * v4.x,
              c[0] * v1.y + c[1] * v2.y + c[2] * v3.y + c[3] * v4.y,
              c[0] * v1.z + c[1] * v2.z + c[2] * v3.z + c[3] * v4.z};
    default:
      return {0, 0, 0};
  }
}

// Projection of the origin onto the plane through v1, v2, v3; tries the three vertex-anchored
// normals in turn until one has a non-zero offset and a length above kMinVal. Returns true when
// the triangle is degenerate (a zero normal).
MJP_HD inline bool NativeProjectOriginPlane(Vec3* res, const Vec3& v1, const Vec3& v2,
                                            const Vec3& v3) {
  const Vec3 d21 = v2 - v1, d31 = v3 - v1, d32 = v3 - v2;
  Vec3 n = Cross(d32, d21);
  double nv = Dot(n, v2);
  double nn = Dot(n, n);
  if (nn == 0) {
    return true;
  }
  if (nv != 0 && nn > kMinVal) {
    *res = n * (nv / nn);
    return false;
  }
  n = Cross(d21, d31);
  nv = Dot(n, v1);
  nn = Dot(n, n);
  if (nn == 0) {
    return true;
  }
  if (nv != 0 && nn > kMinVal) {
    *res = n * (nv / nn);
    return false;
  }
  n = Cross(d31, d32);
  nv = Dot(n, v3);
  nn = Dot(n, n);
  *res = n * (nv / nn);
  return false;
}

// Projection of the origin onto the line through v1, v2.
MJP_HD MJP_INLINE Vec3 NativeProjectOriginLine(const Vec3& v1, const Vec3& v2) {
  const Vec3 diff = v2 - v1;
  const double scale = -(Dot(v2, diff) / Dot(diff, diff));
  return {v2.x + scale * diff.x, v2.y + scale * diff.y, v2.z + scale * diff.z};
}

// 1 if both positive, -1 if both negative, else 0.
MJP_HD MJP_INLINE int NativeSameSign(double a, double b) {
  if (a > 0 && b > 0)
    return 1;
  if (a < 0 && b < 0)
    return -1;
  return 0;
}

// Barycentric coordinates of the point of segment s1 s2 closest to the origin: the projection,
// measured along the axis where the segment is longest; an outside projection gives (0, 1).
MJP_HD inline void NativeS1D(double lambda[2], const Vec3& s1, const Vec3& s2) {
  const Vec3 p = NativeProjectOriginLine(s1, s2);
  double mu_max = s1.x - s2.x;
  int axis = 0;
  double mu = s1.y - s2.y;
  if (std::fabs(mu) >= std::fabs(mu_max)) {
    mu_max = mu;
    axis = 1;
  }
  mu = s1.z - s2.z;
  if (std::fabs(mu) >= std::fabs(mu_max)) {
    mu_max = mu;
    axis = 2;
  }
  const double c1 = Get(p, axis) - Get(s2, axis);
  const double c2 = Get(s1, axis) - Get(p, axis);
  const bool inside = NativeSameSign(mu_max, c1) && NativeSameSign(mu_max, c2);
  lambda[0] = inside ? c1 / mu_max : 0;
  lambda[1] = inside ? c2 / mu_max : 1;
}

// Signed areas in the plane (x, y) of the triangle's projection, for the affine coordinates of p.
MJP_HD MJP_INLINE double NativeArea2(double px, double py, double ax, double ay, double bx,
                                     double by) {
  return px * ay + py * bx + ax * by - px * by - py * ax - bx * ay;
}

// The 2x2 minors of the triangle's coordinate matrix (with a row of ones); the largest one picks
// the coordinate plane to project onto. Returns the chosen minor and the two kept axes.
MJP_HD inline double NativeTriangleMinor(const Vec3& s1, const Vec3& s2, const Vec3& s3, int* x,
                                         int* y) {
  const double m14 =
      s2.y * s3.z - s2.z * s3.y - s1.y * s3.z + s1.z * s3.y + s1.y * s2.z - s1.z * s2.y;
  const double m24 =
      s2.x * s3.z - s2.z * s3.x - s1.x * s3.z + s1.z * s3.x + s1.x * s2.z - s1.z * s2.x;
  const double m34 =
      s2.x * s3.y - s2.y * s3.x - s1.x * s3.y + s1.y * s3.x + s1.x * s2.y - s1.y * s2.x;
  const double mu1 = std::fabs(m14), mu2 = std::fabs(m24), mu3 = std::fabs(m34);
  if (mu1 >= mu2 && mu1 >= mu3) {
    *x = 1;
    *y = 2;
    return m14;
  }
  if (mu2 >= mu3) {
    *x = 0;
    *y = 2;
    return m24;
  }
  *x = 0;
  *y = 1;
  return m34;
}

// Signed areas, in the coordinate plane of the triangle's largest shadow, of the triangles p v2 v3,
// p v3 v1 and p v1 v2 (c[0..2]); returns that plane's minor of v1 v2 v3 (their sum for p in the
// plane): c / minor are p's affine coordinates.
MJP_HD inline double NativeTriangleAreas(const Vec3& v1, const Vec3& v2, const Vec3& v3,
                                         const Vec3& p, double c[3]) {
  int x, y;
  const double m_max = NativeTriangleMinor(v1, v2, v3, &x, &y);
  const double px = Get(p, x), py = Get(p, y);
  c[0] = NativeArea2(px, py, Get(v2, x), Get(v2, y), Get(v3, x), Get(v3, y));
  c[1] = NativeArea2(px, py, Get(v3, x), Get(v3, y), Get(v1, x), Get(v1, y));
  c[2] = NativeArea2(px, py, Get(v1, x), Get(v1, y), Get(v2, x), Get(v2, y));
  return m_max;
}

// Barycentric coordinates of the point of triangle s1 s2 s3 closest to the origin: the plane
// projection when inside, else the best edge.
MJP_HD inline void NativeS2D(double lambda[3], const Vec3& s1, const Vec3& s2, const Vec3& s3) {
  Vec3 p;
  if (NativeProjectOriginPlane(&p, s1, s2, s3)) {
    NativeS1D(lambda, s1, s2);
    lambda[2] = 0;
    return;
  }
  double c[3];
  const double m_max = NativeTriangleAreas(s1, s2, s3, p, c);
  const int comp[3] = {NativeSameSign(m_max, c[0]), NativeSameSign(m_max, c[1]),
                       NativeSameSign(m_max, c[2])};
  if (comp[0] && comp[1] && comp[2]) {
    lambda[0] = c[0] / m_max;
    lambda[1] = c[1] / m_max;
    lambda[2] = c[2] / m_max;
    return;
  }

  // Outside: the closest of the edges opposite a coordinate with the wrong sign (in vertex order;
  // the first such edge is taken whatever its distance, as MuJoCo does).
  const Vec3* s[3] = {&s1, &s2, &s3};
  double dmin = kNativeMaxLimit;
  for (int k = 0; k < 3; ++k) {
    if (comp[k])
      continue;
    const int i = k == 0 ? 1 : 0, j = k == 2 ? 1 : 2;
    double edge[2];
    NativeS1D(edge, *s[i], *s[j]);
    const Vec3 q = NativeCombine(edge, 2, *s[i], *s[j], *s[j], *s[j]);
    const double d = Dot(q, q);
    if (k == 0 || d < dmin) {
      lambda[k] = 0;
      lambda[i] = edge[0];
      lambda[j] = edge[1];
      dmin = d;
    }
  }
}

// Barycentric coordinates of the point of tetrahedron s1..s4 closest to the origin: from the
// cofactors of [s1 s2 s3 s4; 1 1 1 1] when the origin is inside, else the best face (the face
// opposite s1 taken whatever its distance, as MuJoCo does).
MJP_HD inline void NativeS3D(double lambda[4], const Vec3& s1, const Vec3& s2, const Vec3& s3,
                             const Vec3& s4) {
  double c[4];
  c[0] = -Dot(s2, Cross(s3, s4));
  c[1] = Dot(s1, Cross(s3, s4));
  c[2] = -Dot(s1, Cross(s2, s4));
  c[3] = Dot(s1, Cross(s2, s3));
  const double m_det = c[0] + c[1] + c[2] + c[3];
  int comp[4];
  for (int k = 0; k < 4; ++k) {
    comp[k] = NativeSameSign(m_det, c[k]);
  }
  if (comp[0] && comp[1] && comp[2] && comp[3]) {
    for (int k = 0; k < 4; ++k) {
      lambda[k] = c[k] / m_det;
    }
    return;
  }

  const Vec3* s[4] = {&s1, &s2, &s3, &s4};
  double dmin = kNativeMaxLimit;
  for (int k = 0; k < 4; ++k) {
    if (comp[k])
      continue;
    int idx[3], n = 0;
    for (int v = 0; v < 4; ++v) {
      if (v != k)
        idx[n++] = v;
    }
    double face[3];
    NativeS2D(face, *s[idx[0]], *s[idx[1]], *s[idx[2]]);
    const Vec3 q = NativeCombine(face, 3, *s[idx[0]], *s[idx[1]], *s[idx[2]], *s[idx[2]]);
    const double d = Dot(q, q);
    if (k == 0 || d < dmin) {
      lambda[k] = 0;
      for (int m = 0; m < 3; ++m) {
        lambda[idx[m]] = face[m];
      }
      dmin = d;
    }
  }
}

// Sub-distance dispatch on the simplex size n.
MJP_HD inline void NativeSubdistance(double lambda[4], int n, const NativeVertex simplex[4]) {
  lambda[0] = lambda[1] = lambda[2] = lambda[3] = 0;
  switch (n) {
    case 4:
      NativeS3D(lambda, simplex[0].vert, simplex[1].vert, simplex[2].vert, simplex[3].vert);
      break;
    case 3:
      NativeS2D(lambda, simplex[0].vert, simplex[1].vert, simplex[2].vert);
      break;
    case 2:
      NativeS1D(lambda, simplex[0].vert, simplex[1].vert);
      break;
    default:
      lambda[0] = 1;
      break;
  }
}

// Unit normal of the face (v1, v2, v3) as (v3 - v1) × (v2 - v1) and the face's signed distance
// from the origin along it; kNativeMaxLimit when the normal cannot be formed.
MJP_HD inline double NativeSignedDistance(Vec3* normal, const NativeVertex& v1,
                                          const NativeVertex& v2, const NativeVertex& v3) {
  *normal = Cross(v3.vert - v1.vert, v2.vert - v1.vert);
  const double norm2 = Dot(*normal, *normal);
  if (norm2 > kMinVal * kMinVal && norm2 < kNativeMaxVal * kNativeMaxVal) {
    *normal = *normal * (1 / std::sqrt(norm2));
    return Dot(*normal, v1.vert);
  }
  return kNativeMaxLimit;
}

// Intersection test from GJK's tetrahedron: walk towards the origin by replacing the vertex
// opposite the face nearest to it. 1: the origin is inside (status->simplex holds the
// tetrahedron), 0: separated, -1: undecided (degenerate face or out of iterations).
MJP_HD inline int NativeGjkIntersect(NativeStatus* status, NativeShape& a, NativeShape& b) {
  NativeVertex simplex[4] = {status->simplex[0], status->simplex[1], status->simplex[2],
                             status->simplex[3]};
  int s[4] = {0, 1, 2, 3};
  int k = status->gjk_iterations;
  for (; k < status->max_iterations; ++k) {
    double dist[4];
    Vec3 normals[4];
    dist[0] = NativeSignedDistance(&normals[0], simplex[s[2]], simplex[s[1]], simplex[s[3]]);
    dist[1] = NativeSignedDistance(&normals[1], simplex[s[0]], simplex[s[2]], simplex[s[3]]);
    dist[2] = NativeSignedDistance(&normals[2], simplex[s[1]], simplex[s[0]], simplex[s[3]]);
    dist[3] = NativeSignedDistance(&normals[3], simplex[s[0]], simplex[s[1]], simplex[s[2]]);
    if (!dist[3] || !dist[2] || !dist[1] || !dist[0]) {
      status->gjk_iterations = k;
      return -1;
    }

    // The face nearest to the origin.
    int i = dist[0] < dist[1] ? 0 : 1;
    int j = dist[2] < dist[3] ? 2 : 3;
    const int index = dist[i] < dist[j] ? i : j;
    if (dist[index] > 0) {
      status->nsimplex = 4;
      for (int v = 0; v < 4; ++v) {
        status->simplex[v] = simplex[s[v]];
      }
      status->gjk_iterations = k;
      return 1;
    }

    // Replace the vertex opposite that face by the support along its normal.
    const Vec3 dir = normals[index];
    NativeSupport(&simplex[s[index]], a, b, dir, {-dir.x, -dir.y, -dir.z});
    if (Dot(normals[index], simplex[s[index]].vert) < 0) {
      status->nsimplex = 0;
      status->gjk_iterations = k;
      return 0;
    }

    // Keep the orientation: swap the two vertices after the replaced one.
    i = (index + 1) & 3;
    j = (index + 2) & 3;
    const int swap = s[i];
    s[i] = s[j];
    s[j] = swap;
  }
  status->gjk_iterations = k;
  return -1;
}

// Records a finished GJK run that proved separation (no witness points).
MJP_HD MJP_INLINE void NativeGjkSeparated(NativeStatus* status, int k) {
  status->separated = 1;
  status->gjk_iterations = k;
  status->nsimplex = 0;
  status->nx = 0;
  status->dist[0] = kNativeMaxLimit;
}

// GJK from the start points status->x1[0], x2[0] (the shapes' centres). On return: dist[0] the
// distance estimate (0 inside a tetrahedron, kNativeMaxLimit when separated and no distance was
// asked for), x1/x2 the witness points, simplex/nsimplex the final simplex for EPA.
MJP_HD inline void NativeGjk(NativeStatus* status, NativeShape& a, NativeShape& b) {
  const bool get_dist = status->dist_cutoff > 0;
  bool backup_gjk = !get_dist;
  NativeVertex* simplex = status->simplex;
  int n = 0;
  int k = 0;
  const int kmax = status->max_iterations;
  double lambda[4] = {0, 0, 0, 0};
  const double cutoff2 = status->dist_cutoff * status->dist_cutoff;
  const double tol2 = status->tolerance * status->tolerance;
  status->separated = 0;
  const bool discrete = NativeDiscrete(a, b);
  const double epsilon = discrete ? 0 : 0.5 * tol2;
  const double min_norm = discrete ? kMinVal : status->tolerance;

  Vec3 x = status->x1[0] - status->x2[0];
  double x_norm = std::sqrt(Dot(x, x));
  double x_norm_prev = 0;
  for (; k < kmax; ++k) {
    // Touching within tolerance, or stagnated.
    if (x_norm < min_norm || std::fabs(x_norm_prev - x_norm) < kMinVal) {
      break;
    }
    NativeGjkSupport(simplex + n, a, b, x, x_norm);
    const Vec3 s_k = simplex[n].vert;

    // Frank–Wolfe duality gap.
    if (Dot(x, x - s_k) < epsilon) {
      break;
    }

    // A separating plane through s_k.
    if (!get_dist) {
      if (Dot(x, s_k) > 0) {
        NativeGjkSeparated(status, k);
        return;
      }
    } else if (status->dist_cutoff < kNativeMaxLimit) {
      const double vs = Dot(x, s_k);
      if (vs > 0 && (vs * vs) >= cutoff2 * (x_norm * x_norm)) {
        NativeGjkSeparated(status, k);
        return;
      }
    }

    // A tetrahedron and only contact wanted: decide by the intersection walk.
    if (n == 3 && backup_gjk) {
      status->gjk_iterations = k;
      const int ret = NativeGjkIntersect(status, a, b);
      if (ret != -1) {
        status->nx = 0;
        status->separated = ret == 0;
        status->dist[0] = ret > 0 ? 0 : kNativeMaxLimit;
        return;
      }
      k = status->gjk_iterations;
      backup_gjk = false;
    }

    // Closest point of the simplex; drop the vertices with zero weight.
    NativeSubdistance(lambda, n + 1, simplex);
    n = 0;
    for (int i = 0; i < 4; ++i) {
      if (!lambda[i])
        continue;
      simplex[n] = simplex[i];
      lambda[n++] = lambda[i];
    }
    if (n < 1) {  // cannot happen with finite input
      NativeGjkSeparated(status, k);
      return;
    }
    x = NativeCombine(lambda, n, simplex[0].vert, simplex[1].vert, simplex[2].vert,
                      simplex[3].vert);
    x_norm_prev = x_norm;
    x_norm = std::sqrt(Dot(x, x));
    if (n == 4) {
      break;
    }
  }

  if (n > 0) {
    status->x1[0] = NativeCombine(lambda, n, simplex[0].vert1, simplex[1].vert1, simplex[2].vert1,
                                  simplex[3].vert1);
    status->x2[0] = NativeCombine(lambda, n, simplex[0].vert2, simplex[1].vert2, simplex[2].vert2,
                                  simplex[3].vert2);
  }

  // Final separation check along the last direction.
  NativeVertex probe;
  NativeGjkSupport(&probe, a, b, x, x_norm);
  if (Dot(x, probe.vert) > 0) {
    status->separated = 1;
  }
  if (n == 4 && status->separated == 0) {
    x_norm = 0;
  }
  status->nx = 1;
  status->gjk_iterations = k;
  status->nsimplex = n;
  status->dist[0] = x_norm;
}

}  // namespace mjportal::collision
