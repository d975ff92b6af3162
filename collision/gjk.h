// GJK distance (E. Gilbert, D. Johnson, S. Keerthi, "A fast procedure for computing the distance
// between complex objects in three-dimensional space", IEEE J. Robotics and Automation, 1988):
// the distance between two convex geoms as the distance of their Minkowski difference M = A − B
// from the origin. Fast mode uses it for separated pairs (margins, distance queries) and as the
// overlap test in front of EPA.
//
// Iteration: keep a simplex (1..4 points of M) and v, its point closest to the origin.
//   w = S_M(−v). Every x in M has x·v >= w·v, so w·v/|v| is a lower bound on the distance and
//   |v| an upper bound. Stop when they agree within `tolerance`, when the lower bound exceeds
//   `cutoff` (farther apart than the caller cares about), or when the simplex encloses the origin
//   (overlap). Otherwise add w and reduce the simplex to the smallest face holding the new closest
//   point (C. Ericson, "Real-Time Collision Detection", 2005, §5.1.2 and §5.1.5: Voronoi regions
//   of segments and triangles; a tetrahedron tests each face that separates the origin from the
//   opposite vertex).
// Every loop is capped by max_iterations.
#pragma once

#include <cmath>

#include "collision/minkowski.h"

namespace mjportal::collision {

struct GjkSimplex {
  MinkowskiVertex p[4];
  int n = 0;
};

enum class GjkStatus {
  kSeparated,     // distance, on_a and on_b hold the closest points
  kBeyondCutoff,  // the distance exceeds the cutoff (distance holds a lower bound)
  kOverlap,       // the origin is in M (or within numerical reach of it)
};

struct GjkResult {
  GjkStatus status = GjkStatus::kOverlap;
  double distance = 0;
  Vec3 on_a = {0, 0, 0}, on_b = {0, 0, 0};
  int iterations = 0;
  bool converged =
      false;           // kSeparated: the bounds met the tolerance (else: cap or numerical floor)
  double lower = 0;    // kSeparated: the best lower bound on the distance (distance: the upper)
  GjkSimplex simplex;  // the last simplex; a tetrahedron around the origin on kOverlap when n == 4
};

namespace gjk {

// Closest point to the origin on a simplex, with the sub-simplex that holds it.
struct Closest {
  Vec3 point;
  double weight[4];  // barycentric weights over the kept vertices
  int keep[4];       // indices (into the input) of the kept vertices
  int n;
};

MJP_HD inline Closest OnPoint(const MinkowskiVertex* p, int i) {
  Closest c;
  c.point = p[i].v;
  c.weight[0] = 1;
  c.keep[0] = i;
  c.n = 1;
  return c;
}

MJP_HD inline Closest OnEdge(const MinkowskiVertex* p, int i, int j, double t) {
  Closest c;
  c.point = p[i].v + (p[j].v - p[i].v) * t;
  c.weight[0] = 1 - t;
  c.weight[1] = t;
  c.keep[0] = i;
  c.keep[1] = j;
  c.n = 2;
  return c;
}

// Segment p[i] p[j].
MJP_HD inline Closest OnSegment(const MinkowskiVertex* p, int i, int j) {
  const Vec3 ab = p[j].v - p[i].v;
  const double length2 = Dot(ab, ab);
  const double t = length2 > 0 ? -Dot(p[i].v, ab) / length2 : 0;
  if (t <= 0)
    return OnPoint(p, i);
  if (t >= 1)
    return OnPoint(p, j);
  return OnEdge(p, i, j, t);
}

// Triangle p[i] p[j] p[k] (Ericson's vertex, edge and face regions for the query point 0).
MJP_HD inline Closest OnTriangle(const MinkowskiVertex* p, int i, int j, int k) {
  const Vec3 a = p[i].v, b = p[j].v, c = p[k].v;
  const Vec3 ab = b - a, ac = c - a;
  const double d1 = -Dot(ab, a), d2 = -Dot(ac, a);
  if (d1 <= 0 && d2 <= 0)
    return OnPoint(p, i);
  const double d3 = -Dot(ab, b), d4 = -Dot(ac, b);
  if (d3 >= 0 && d4 <= d3)
    return OnPoint(p, j);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0)
    return OnEdge(p, i, j, d1 / (d1 - d3));
  const double d5 = -Dot(ab, c), d6 = -Dot(ac, c);
  if (d6 >= 0 && d5 <= d6)
    return OnPoint(p, k);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0)
    return OnEdge(p, i, k, d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return OnEdge(p, j, k, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double total = va + vb + vc;
  if (!(total > 0)) {  // degenerate (collinear) triangle: its best edge
    Closest best = OnSegment(p, i, j);
    const Closest e2 = OnSegment(p, i, k), e3 = OnSegment(p, j, k);
    if (Dot(e2.point, e2.point) < Dot(best.point, best.point))
      best = e2;
    if (Dot(e3.point, e3.point) < Dot(best.point, best.point))
      best = e3;
    return best;
  }
  const double v = vb / total, w = vc / total;
  Closest out;
  out.point = a + ab * v + ac * w;
  out.weight[0] = 1 - v - w;
  out.weight[1] = v;
  out.weight[2] = w;
  out.keep[0] = i;
  out.keep[1] = j;
  out.keep[2] = k;
  out.n = 3;
  return out;
}

// Tetrahedron p[0..3]: the closest point over the faces that separate the origin from the
// opposite vertex; *inside is set when no face does (the origin is enclosed).
MJP_HD inline Closest OnTetrahedron(const MinkowskiVertex* p, bool* inside) {
  constexpr int kFaces[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
  Closest best;
  double best_norm2 = -1;
  // A flat (or nearly flat) tetrahedron encloses nothing: its face signs are rounding noise.
  const Vec3 e1 = p[1].v - p[0].v, e2 = p[2].v - p[0].v, e3 = p[3].v - p[0].v;
  const double volume6 = std::fabs(Dot(e1, Cross(e2, e3)));
  const bool flat = !(volume6 > 1e-12 * std::sqrt(Dot(e1, e1) * Dot(e2, e2) * Dot(e3, e3)));
  *inside = !flat;
  for (const auto& f : kFaces) {
    const Vec3 a = p[f[0]].v;
    const Vec3 normal = Cross(p[f[1]].v - a, p[f[2]].v - a);
    const double origin_side = -Dot(normal, a);
    const double vertex_side = Dot(normal, p[f[3]].v - a);
    // Outside this face when the origin and the opposite vertex are on different sides (every
    // face is a candidate when the tetrahedron is flat).
    if (flat || origin_side * vertex_side < 0) {
      *inside = false;
      const Closest c = OnTriangle(p, f[0], f[1], f[2]);
      const double norm2 = Dot(c.point, c.point);
      if (best_norm2 < 0 || norm2 < best_norm2) {
        best = c;
        best_norm2 = norm2;
      }
    }
  }
  return best;
}

// Replaces the simplex with the sub-simplex kept by c.
MJP_HD inline void Keep(GjkSimplex& s, const Closest& c) {
  MinkowskiVertex kept[4];
  for (int i = 0; i < c.n; ++i)
    kept[i] = s.p[c.keep[i]];
  for (int i = 0; i < c.n; ++i)
    s.p[i] = kept[i];
  s.n = c.n;
}

}  // namespace gjk

// Distance between geoms a and b (see the outline). `tolerance` is the absolute accuracy of the
// distance; `cutoff` the distance beyond which the answer is only "farther than cutoff".
// `start` (optional): the first support direction, e.g. a separating direction another solver
// found (its support point of M is then near the closest one). `seed` (optional): points of M
// to start from instead, e.g. MPR's portal and the support that proved the geoms apart (the
// origin must lie outside their hull; a seed that encloses it is ignored).
MJP_HD inline GjkResult GjkDistance(const ConvexGeom& a, const ConvexGeom& b, int max_iterations,
                                    double tolerance, double cutoff, const Vec3* start = nullptr,
                                    const GjkSimplex* seed = nullptr) {
  GjkResult result;
  GjkSimplex& s = result.simplex;
  gjk::Closest closest;
  double weights[4] = {1, 0, 0, 0};
  bool seeded = false;
  if (seed != nullptr && seed->n > 0) {
    // The seed's point closest to the origin, and the face holding it.
    s = *seed;
    bool inside = false;
    if (s.n == 4)
      closest = gjk::OnTetrahedron(s.p, &inside);
    else if (s.n == 3)
      closest = gjk::OnTriangle(s.p, 0, 1, 2);
    else if (s.n == 2)
      closest = gjk::OnSegment(s.p, 0, 1);
    else
      closest = gjk::OnPoint(s.p, 0);
    seeded = !inside;
    if (seeded) {
      gjk::Keep(s, closest);
      for (int i = 0; i < 4; ++i) {
        weights[i] = i < closest.n ? closest.weight[i] : 0;
        closest.keep[i] = i;
      }
    }
  }
  if (!seeded) {
    // Start from the support point of M = A − B along b − a: M's centre is a − b, so this is
    // the side of M facing the origin (the far side would cost an extra iteration).
    Vec3 dir = start != nullptr ? *start : Load3(b.view.pos) - Load3(a.view.pos);
    if (!(Dot(dir, dir) > 0))
      dir = {1, 0, 0};
    s.p[0] = MinkowskiSupport(a, b, dir);
    s.n = 1;
    closest = gjk::OnPoint(s.p, 0);
  }

  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    const Vec3 v = closest.point;
    const double v2 = Dot(v, v);
    if (!(v2 > 1e-30)) {
      result.status = GjkStatus::kOverlap;  // the origin is (numerically) on the simplex
      return result;
    }
    const MinkowskiVertex w = MinkowskiSupport(a, b, -v);
    const double vw = Dot(v, w.v);
    const double v_norm = std::sqrt(v2);
    const double lower = vw / v_norm;
    result.lower = lower > result.lower ? lower : result.lower;
    if (vw > cutoff * v_norm) {
      result.status = GjkStatus::kBeyondCutoff;
      result.distance = lower;
      return result;
    }
    if (v_norm - lower <= tolerance) {
      result.converged = true;  // upper and lower bounds agree
      break;
    }
    s.p[s.n++] = w;
    bool inside = false;
    if (s.n == 4) {
      closest = gjk::OnTetrahedron(s.p, &inside);
    } else if (s.n == 3) {
      closest = gjk::OnTriangle(s.p, 0, 1, 2);
    } else {
      closest = gjk::OnSegment(s.p, 0, 1);
    }
    if (inside) {
      result.status = GjkStatus::kOverlap;
      return result;
    }
    if (!(Dot(closest.point, closest.point) < v2)) {
      // No progress (numerical floor): keep the previous simplex and its answer.
      --s.n;
      closest =
          gjk::Closest{v, {weights[0], weights[1], weights[2], weights[3]}, {0, 1, 2, 3}, s.n};
      break;
    }
    gjk::Keep(s, closest);
    for (int i = 0; i < 4; ++i) {
      weights[i] = i < closest.n ? closest.weight[i] : 0;
      closest.keep[i] = i;
    }
  }

  // Closest points from the barycentric weights of the final simplex.
  result.status = GjkStatus::kSeparated;
  result.on_a = {0, 0, 0};
  result.on_b = {0, 0, 0};
  for (int i = 0; i < s.n; ++i) {
    result.on_a = result.on_a + s.p[i].a * weights[i];
    result.on_b = result.on_b + s.p[i].b * weights[i];
  }
  result.distance = std::sqrt(Dot(closest.point, closest.point));
  return result;
}

}  // namespace mjportal::collision
