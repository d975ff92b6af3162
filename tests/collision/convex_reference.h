// Exact references for the convex solvers' tests: closed-form distances and depths for spheres,
// capsules and boxes, brute-force separating-axis depths for small convex hulls, and a dense
// direction sweep (refined locally) for curved shapes.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "collision/minkowski.h"

namespace mjportal::collision::reference {

// Closest distance between segments p1 + s d1 and p2 + t d2, s, t in [0, 1] (Ericson §5.1.9).
inline double SegmentDistance(const Vec3& p1, const Vec3& d1, const Vec3& p2, const Vec3& d2) {
  const Vec3 r = p1 - p2;
  const double a = Dot(d1, d1), e = Dot(d2, d2), f = Dot(d2, r);
  double s = 0, t = 0;
  if (a <= 1e-300 && e <= 1e-300) {
    s = t = 0;
  } else if (a <= 1e-300) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = Dot(d1, r);
    if (e <= 1e-300) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = Dot(d1, d2), denom = a * e - b * b;
      s = denom > 0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  const Vec3 d = (p1 + d1 * s) - (p2 + d2 * t);
  return std::sqrt(Dot(d, d));
}

// Signed distance from local point q to a box of half-extents e (negative inside).
inline double BoxPointDistance(const double* e, const Vec3& q) {
  const double d[3] = {std::fabs(q.x) - e[0], std::fabs(q.y) - e[1], std::fabs(q.z) - e[2]};
  double out = 0;
  for (double x : d)
    out += std::max(x, 0.0) * std::max(x, 0.0);
  return out > 0 ? std::sqrt(out) : std::max(d[0], std::max(d[1], d[2]));
}

// Minimal overlap over candidate axes, both signs: for polytopes with these face normals and edge
// directions it is the exact penetration depth (negative when separated along some axis).
inline double MinOverlap(const ConvexGeom& a, const ConvexGeom& b, const std::vector<Vec3>& axes) {
  double best = 1e300;
  for (const Vec3& axis : axes) {
    best = std::min(best, OverlapAlong(a, b, axis));
    best = std::min(best, OverlapAlong(a, b, -axis));
  }
  return best;
}

// Face normals and edge directions of the convex hull of `points` (brute force over triples, for
// hulls of a few dozen points): a triple is a face when every point lies on one side of its plane.
struct HullFeatures {
  std::vector<Vec3> normals;
  std::vector<Vec3> edges;
};
inline HullFeatures BruteForceHull(const std::vector<Vec3>& p) {
  HullFeatures out;
  const int n = static_cast<int>(p.size());
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      for (int k = j + 1; k < n; ++k) {
        Vec3 normal = Cross(p[j] - p[i], p[k] - p[i]);
        const double length = std::sqrt(Dot(normal, normal));
        if (length < 1e-12)
          continue;
        normal = normal * (1 / length);
        int above = 0, below = 0;
        for (int m = 0; m < n; ++m) {
          const double side = Dot(normal, p[m] - p[i]);
          above += side > 1e-12;
          below += side < -1e-12;
        }
        if (above > 0 && below > 0)
          continue;
        out.normals.push_back(normal);
        const Vec3 e[3] = {p[j] - p[i], p[k] - p[j], p[i] - p[k]};
        for (const Vec3& edge : e)
          out.edges.push_back(edge * (1 / std::sqrt(Dot(edge, edge))));
      }
    }
  }
  return out;
}

// Candidate separating axes of two hulls in world frames: face normals of each and the cross
// products of their edges.
inline std::vector<Vec3> HullAxes(const HullFeatures& ha, const double* mat_a,
                                  const HullFeatures& hb, const double* mat_b) {
  std::vector<Vec3> axes;
  for (const Vec3& n : ha.normals)
    axes.push_back(Rotate(mat_a, n));
  for (const Vec3& n : hb.normals)
    axes.push_back(Rotate(mat_b, n));
  for (const Vec3& ea : ha.edges) {
    for (const Vec3& eb : hb.edges) {
      Vec3 c = Cross(Rotate(mat_a, ea), Rotate(mat_b, eb));
      const double length = std::sqrt(Dot(c, c));
      if (length > 1e-9)
        axes.push_back(c * (1 / length));
    }
  }
  return axes;
}

// Local pattern search for the smallest overlap around unit direction n (eight neighbours per
// step, steps halving down to 1e-10 rad).
inline double RefineMinOverlap(const ConvexGeom& a, const ConvexGeom& b, Vec3 n) {
  double best = OverlapAlong(a, b, n);
  for (double step = 0.05; step > 1e-10; step *= 0.5) {
    bool improved = true;
    for (int round = 0; improved && round < 200; ++round) {
      improved = false;
      const Vec3 helper = std::fabs(n.x) < 0.6 ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
      Vec3 t1 = Cross(n, helper);
      t1 = t1 * (1 / std::sqrt(Dot(t1, t1)));
      const Vec3 t2 = Cross(n, t1);
      const Vec3 tries[8] = {t1, -t1, t2, -t2, t1 + t2, t1 - t2, t2 - t1, -t1 - t2};
      for (const Vec3& t : tries) {
        Vec3 m = n + t * step;
        m = m * (1 / std::sqrt(Dot(m, m)));
        const double o = OverlapAlong(a, b, m);
        if (o < best) {
          best = o;
          n = m;
          improved = true;
        }
      }
    }
  }
  return best;
}

// Minimal overlap over all directions: a Fibonacci sweep of `count` directions, refined locally
// from the best of them and from `start` (when given: e.g. the solver's normal, so that the
// reference searches the basin the solver chose as well as the sweep's). Always >= the true
// minimum; equal to it when one of the searches reaches the global basin.
inline double SweepMinOverlap(const ConvexGeom& a, const ConvexGeom& b, int count = 4000,
                              const Vec3* start = nullptr) {
  const double golden = M_PI * (3 - std::sqrt(5.0));
  Vec3 best_n = {1, 0, 0};
  double best = 1e300;
  for (int i = 0; i < count; ++i) {
    const double z = 1 - 2 * (i + 0.5) / count, r = std::sqrt(1 - z * z);
    const Vec3 n = {r * std::cos(golden * i), r * std::sin(golden * i), z};
    const double o = OverlapAlong(a, b, n);
    if (o < best) {
      best = o;
      best_n = n;
    }
  }
  best = RefineMinOverlap(a, b, best_n);
  if (start != nullptr)
    best = std::min(best, RefineMinOverlap(a, b, *start));
  return best;
}

// Minimal overlap over the great circle of directions perpendicular to unit `axis`: `count`
// evenly spaced samples, then a one-dimensional search around the best (steps halving down to
// 1e-13 rad). Exact where the circle's minimum is the smallest sample's basin.
inline double CircleMinOverlap(const ConvexGeom& a, const ConvexGeom& b, const Vec3& axis,
                               int count = 4096) {
  const Vec3 helper = std::fabs(axis.x) < 0.6 ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  Vec3 p = Cross(axis, helper);
  p = p * (1 / std::sqrt(Dot(p, p)));
  const Vec3 q = Cross(axis, p);
  const auto along = [&](double t) {
    return OverlapAlong(a, b, p * std::cos(t) + q * std::sin(t));
  };
  double best = 1e300, best_t = 0;
  for (int i = 0; i < count; ++i) {
    const double t = 2 * M_PI * i / count, o = along(t);
    if (o < best) {
      best = o;
      best_t = t;
    }
  }
  for (double step = 2 * M_PI / count; step > 1e-13; step *= 0.5) {
    for (bool improved = true; improved;) {
      improved = false;
      for (double t : {best_t - step, best_t + step}) {
        const double o = along(t);
        if (o < best) {
          best = o;
          best_t = t;
          improved = true;
        }
      }
    }
  }
  return best;
}

// The penetration depth of an overlapping cylinder and box (their least overlap over all
// directions): the least of a refined sphere sweep, the cap normals and the great circles ⊥ the
// cylinder's axis and ⊥ each box axis (every curved patch of their Minkowski difference has its
// normals on one of those circles; the sphere sweep stands guard over that claim).
inline double CylinderBoxMinOverlap(const ConvexGeom& cyl, const ConvexGeom& box) {
  const Vec3 u = Column(cyl.view.mat, 2);
  double best = std::min({SweepMinOverlap(cyl, box, 4000), OverlapAlong(cyl, box, u),
                          OverlapAlong(cyl, box, -u), CircleMinOverlap(cyl, box, u)});
  for (int k = 0; k < 3; ++k)
    best = std::min(best, CircleMinOverlap(cyl, box, Column(box.view.mat, k)));
  return best;
}

}  // namespace mjportal::collision::reference
