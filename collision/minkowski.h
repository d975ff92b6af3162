// The Minkowski difference M = A − B of two convex geoms, which the convex solvers (MPR, GJK, EPA)
// work on: A and B overlap exactly when M contains the origin, and their distance is M's distance
// from the origin. M is never built; it is reached through its support function
//     S_M(d) = S_A(d) − S_B(−d),
// keeping the two geom points each M point came from (the witness points of a contact).
#pragma once

#include <cmath>

#include "collision/support.h"

namespace mjportal::collision {

// A convex geom for the convex solvers: its shape type and its view.
struct ConvexGeom {
  ShapeType type;
  GeomView view;
};

// A point of M with the points of A and B it came from (v = a − b).
struct MinkowskiVertex {
  Vec3 v, a, b;
};

// The support point of M along world direction dir.
MJP_HD inline MinkowskiVertex MinkowskiSupport(const ConvexGeom& a, const ConvexGeom& b,
                                               const Vec3& dir) {
  MinkowskiVertex out;
  out.a = SupportPoint(a.type, a.view, dir);
  out.b = SupportPoint(b.type, b.view, -dir);
  out.v = out.a - out.b;
  return out;
}

// The witness points of p, a point in the plane of triangle (v1, v2, v3) of M: its barycentric
// coordinates applied to the geom points the vertices came from. weight_min < 0 when p lies
// outside the triangle, beyond the edge opposite vertex `weakest` (0, 1, 2: v1, v2, v3).
struct TriangleWitness {
  Vec3 on_a, on_b;
  double weight_min;
  int weakest;
};

MJP_HD inline TriangleWitness WitnessOnTriangle(const MinkowskiVertex& v1,
                                                const MinkowskiVertex& v2,
                                                const MinkowskiVertex& v3, const Vec3& p) {
  const Vec3 e1 = v2.v - v1.v, e2 = v3.v - v1.v, r = p - v1.v;
  const double d11 = Dot(e1, e1), d12 = Dot(e1, e2), d22 = Dot(e2, e2);
  const double dr1 = Dot(r, e1), dr2 = Dot(r, e2);
  const double det = d11 * d22 - d12 * d12;
  double l2 = 0, l3 = 0;
  if (det > 1e-300) {
    l2 = (d22 * dr1 - d12 * dr2) / det;
    l3 = (d11 * dr2 - d12 * dr1) / det;
  }
  const double l1 = 1 - l2 - l3;
  const int weakest = l1 < l2 ? (l1 < l3 ? 0 : 2) : (l2 < l3 ? 1 : 2);
  return {v1.a * l1 + v2.a * l2 + v3.a * l3, v1.b * l1 + v2.b * l2 + v3.b * l3,
          weakest == 0 ? l1 : (weakest == 1 ? l2 : l3), weakest};
}

// The overlap of A and B along unit direction n (A on the low side, B on the high side):
// max_A n·a − min_B n·b. Positive when the projections overlap; the translation along n that
// separates them.
MJP_HD inline double OverlapAlong(const ConvexGeom& a, const ConvexGeom& b, const Vec3& n) {
  return SupportExtent(a.type, a.view, n) + SupportExtent(b.type, b.view, -n);
}

// Two unit vectors completing unit n to an orthonormal frame (t1, t2, n), deterministic in n:
// t1 = n × (x or y axis, whichever is farther from n), normalized; t2 = n × t1.
MJP_HD inline void TangentFrame(const Vec3& n, Vec3* t1, Vec3* t2) {
  const Vec3 helper = std::fabs(n.x) < 0.57 ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  Vec3 t = Cross(n, helper);
  t = t * (1 / std::sqrt(Dot(t, t)));
  *t1 = t;
  *t2 = Cross(n, t);
}

// True when every coordinate of the geom's pose is finite (NaN or infinite poses get no contact).
MJP_HD inline bool FinitePose(const GeomView& g) {
  double sum = 0;
  for (int i = 0; i < 3; ++i)
    sum += g.pos[i] * 0;
  for (int i = 0; i < 9; ++i)
    sum += g.mat[i] * 0;
  return sum == 0;  // x * 0 is NaN exactly when x is NaN or infinite
}

// A length scale of the geom: the radius of a sphere enclosing it about its frame origin.
MJP_HD inline double GeomScale(const ConvexGeom& g) {
  const double* s = g.view.size;
  switch (g.type) {
    case ShapeType::kSphere:
      return s[0];
    case ShapeType::kCapsule:
      return s[0] + s[1];
    case ShapeType::kCylinder:
      return std::sqrt(s[0] * s[0] + s[1] * s[1]);
    case ShapeType::kEllipsoid:
      return s[0] > s[1] ? (s[0] > s[2] ? s[0] : s[2]) : (s[1] > s[2] ? s[1] : s[2]);
    case ShapeType::kBox:
      return std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    case ShapeType::kMesh:
      return g.view.mesh != nullptr ? g.view.mesh->rbound : 0.0;
    default:
      return 0.0;
  }
}

}  // namespace mjportal::collision
