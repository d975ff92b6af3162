// Signed distance of two smooth, strictly convex geoms (spheres and ellipsoids) by Newton's method
// on the sphere of directions: fast mode's solver for sphere–ellipsoid and ellipsoid–ellipsoid,
// and for a sphere or ellipsoid against a box corner (see kMaxCornerSwitches).
//
// With M = A − B and its support function h(n) = n · S_M(n), S_M(n) = S_A(n) − S_B(−n), the
// minimum of h over unit n is the penetration depth when M holds the origin and minus the
// distance otherwise (the signed distance of the origin to M's boundary): one smooth problem for
// both cases. On the sphere, with a tangent frame (t1, t2) at n,
//   gradient  g_i = t_i · S_M(n)                    (S_M's offset from the line along n)
//   Hessian   H_ij = t_i · (J_A(n) + J_B(−n)) t_j − h(n) δ_ij
// where J = ∂S/∂d is the support's curvature. For an ellipsoid with semi-axes E = diag(e) and
// rotation R, S(d) = R E û + p with u = E Rᵀ d, û = u/|u|, so J = R E (I − ûûᵀ) E Rᵀ / |u|
// (a sphere is e = (r, r, r)). Newton's step δ = −H⁻¹ g turns n to normalize(n + δ_1 t1 + δ_2 t2),
// damped (halved) when h grows and regularized when H is not positive definite. It stops when
// |g| <= tolerance: the depth's error is then second order, about |g|² / curvature radius.
//
// Early exit: h(n) >= min h for every n, so any iterate with h(n) < −margin proves the geoms are
// farther apart than the margin. Deep contacts (h beyond kSmoothDeep of the smaller scale) may
// have several local minima; the caller's general solvers (EPA) take them.
#pragma once

#include <cmath>

#include "collision/minkowski.h"

namespace mjportal::collision {

// Depth, as a fraction of the smaller geom's scale, beyond which Newton hands over.
constexpr double kSmoothDeep = 0.05;

MJP_HD inline bool IsSmoothConvex(ShapeType type) {
  return type == ShapeType::kSphere || type == ShapeType::kEllipsoid;
}

// Newton also runs with a box on one side (SmoothDistance): its support is a corner, flat within
// the corner's normal cone, so a converged iterate is a corner contact and exact. When the corner
// flips along one axis the optimum is on that edge: n is then kept perpendicular to the axis and
// Newton runs in one dimension, with the edge (its midpoint) as the box's support; converged with
// the other geom's deepest point over the edge, it is an exact edge contact. Face optima (corners
// flipping along two axes) and anything else hand over.
constexpr int kMaxCornerSwitches = 4;

enum class SmoothStatus {
  kContact,  // converged within the margin: dist, normal and witness points hold
  kBeyond,   // proven farther apart than the margin
  kHandOff,  // deep, or not converged within the iteration cap: use the general solvers
};

struct SmoothResult {
  SmoothStatus status = SmoothStatus::kHandOff;
  double dist = 0;  // signed distance (negative: penetration)
  Vec3 normal = {0, 0, 0}, on_a = {0, 0, 0}, on_b = {0, 0, 0};
  int iterations = 0;
};

namespace smooth {

// A support point with the curvature form t_i · J t_j in the tangent frame (t1, t2); for a box,
// which corner (bits of the local sign pattern; -1 for smooth geoms).
struct CurvedSupport {
  Vec3 point;
  double j11, j12, j22;
  int corner;
};

// d is a unit direction and (t1, t2) a unit tangent frame at it.
MJP_HD inline CurvedSupport Support(const ConvexGeom& g, const Vec3& d, const Vec3& t1,
                                    const Vec3& t2) {
  const double* size = g.view.size;
  if (g.type == ShapeType::kSphere) {
    // d is a unit direction here: r d, with curvature r in every tangent direction.
    return {Load3(g.view.pos) + d * size[0], size[0], 0, size[0], -1};
  }
  if (g.type == ShapeType::kBox) {
    // A corner: flat around it (J = 0) within its normal cone.
    const Vec3 dl = RotateT(g.view.mat, d);
    const Vec3 local = {dl.x >= 0 ? size[0] : -size[0], dl.y >= 0 ? size[1] : -size[1],
                        dl.z >= 0 ? size[2] : -size[2]};
    return {Rotate(g.view.mat, local) + Load3(g.view.pos), 0, 0, 0,
            (dl.x >= 0 ? 1 : 0) | (dl.y >= 0 ? 2 : 0) | (dl.z >= 0 ? 4 : 0)};
  }
  const Vec3 e = {size[0], size[1], size[2]};  // an ellipsoid's semi-axes
  const Vec3 dl = RotateT(g.view.mat, d);
  const Vec3 u = {e.x * dl.x, e.y * dl.y, e.z * dl.z};
  const double length = std::sqrt(Dot(u, u));
  const Vec3 uh = u * (1 / length);
  CurvedSupport out;
  out.corner = -1;
  out.point = Rotate(g.view.mat, {e.x * uh.x, e.y * uh.y, e.z * uh.z}) + Load3(g.view.pos);
  const Vec3 l1 = RotateT(g.view.mat, t1), l2 = RotateT(g.view.mat, t2);
  const Vec3 a1 = {e.x * l1.x, e.y * l1.y, e.z * l1.z}, a2 = {e.x * l2.x, e.y * l2.y, e.z * l2.z};
  const double p1 = Dot(uh, a1), p2 = Dot(uh, a2);
  out.j11 = (Dot(a1, a1) - p1 * p1) / length;
  out.j12 = (Dot(a1, a2) - p1 * p2) / length;
  out.j22 = (Dot(a2, a2) - p2 * p2) / length;
  return out;
}

}  // namespace smooth

// Signed distance of smooth geoms a and b (spheres, ellipsoids) as in the header; `margin` is the
// distance beyond which only kBeyond matters.
MJP_HD inline SmoothResult SmoothDistance(const ConvexGeom& a, const ConvexGeom& b,
                                          int max_iterations, double tolerance, double margin) {
  SmoothResult result;
  const double sa = GeomScale(a), sb = GeomScale(b);
  const double deep = kSmoothDeep * (sa < sb ? sa : sb);
  // Start along the centre line (any direction when the centres coincide).
  Vec3 n = Load3(b.view.pos) - Load3(a.view.pos);
  const double centre = std::sqrt(Dot(n, n));
  if (!(centre > 1e-12 * (sa + sb)))
    return result;
  n = n * (1 / centre);

  double h_last = 1e300;
  Vec3 n_last = n, step = {0, 0, 0};
  int corner = -2, switches = 0;
  // Edge mode (a box in the pair): n stays perpendicular to the box axis `edge` and turns only
  // about it; the box's support is then its edge, whose midpoint stands for it.
  const bool box_a = a.type == ShapeType::kBox, box_b = b.type == ShapeType::kBox;
  const ConvexGeom* box = box_a ? &a : (box_b ? &b : nullptr);
  int edge = -1;
  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    Vec3 t1, t2;
    Vec3 axis = {0, 0, 0};
    if (edge >= 0) {
      axis = Column(box->view.mat, edge);
      n = n - axis * Dot(n, axis);
      n = n * (1 / std::sqrt(Dot(n, n)));
      t1 = Cross(axis, n);
      t1 = t1 * (1 / std::sqrt(Dot(t1, t1)));
      t2 = Cross(n, t1);
    } else {
      TangentFrame(n, &t1, &t2);
    }
    smooth::CurvedSupport sa_n = smooth::Support(a, n, t1, t2);
    smooth::CurvedSupport sb_n = smooth::Support(b, -n, t1, t2);
    if (edge >= 0) {
      // The edge's midpoint (the corner moved back along the axis to the box's mid-plane), and
      // the corner bits that still matter.
      smooth::CurvedSupport& on_box = box_a ? sa_n : sb_n;
      on_box.point = on_box.point - axis * Dot(on_box.point - Load3(box->view.pos), axis);
      on_box.corner &= ~(1 << edge);
    }
    const Vec3 s = sa_n.point - sb_n.point;
    const double h = Dot(n, s);
    // A box corner that changes: one axis flipping is an edge optimum (enter edge mode); more
    // switches, or another axis flipping in edge mode, is a face or a far feature: hand over.
    const int now = sa_n.corner >= 0 ? sa_n.corner : sb_n.corner;
    if (now != corner) {
      if (corner != -2) {
        const int flipped = now ^ corner;
        const bool single = flipped != 0 && (flipped & (flipped - 1)) == 0;
        if (edge >= 0 || !single || ++switches > kMaxCornerSwitches)
          return result;
        edge = flipped == 1 ? 0 : (flipped == 2 ? 1 : 2);
        corner = now & ~flipped;
        h_last = 1e300;
        continue;  // restart this iterate on the edge
      }
      corner = now;
    }
    if (h < -margin) {
      result.status = SmoothStatus::kBeyond;
      return result;
    }
    if (h > h_last + tolerance) {
      // The step overshot: halve it from the last point.
      step = step * 0.5;
      n = n_last + step;
      n = n * (1 / std::sqrt(Dot(n, n)));
      continue;
    }
    const double g1 = Dot(t1, s), g2 = edge >= 0 ? 0.0 : Dot(t2, s);
    if (g1 * g1 + g2 * g2 <= tolerance * tolerance) {
      if (h > deep)
        return result;  // deep: possibly a local minimum only
      Vec3 on_a = sa_n.point, on_b = sb_n.point;
      if (edge >= 0) {
        // The contact lies on the edge only if the other geom's deepest point is over it; the
        // box's witness is the edge point beside that deepest point.
        const Vec3 other = box_a ? on_b : on_a;
        const double along = Dot(other - Load3(box->view.pos), axis);
        if (!(std::fabs(along) <= box->view.size[edge]))
          return result;
        (box_a ? on_a : on_b) = (box_a ? on_a : on_b) + axis * along;
      }
      result.status = SmoothStatus::kContact;
      result.dist = -h;
      result.normal = n;
      result.on_a = on_a;
      result.on_b = on_b;
      return result;
    }
    double d1, d2 = 0;
    if (edge >= 0) {
      // One dimension: Newton along t1 with the smooth side's curvature.
      const double floor = 1e-3 * std::fabs(sa_n.j11 + sb_n.j11) + 1e-300;
      double h11 = sa_n.j11 + sb_n.j11 - h;
      h11 = h11 < floor ? floor : h11;
      d1 = -g1 / h11;
    } else {
      // Newton's step in the tangent plane, H regularized to positive definite.
      double h11 = sa_n.j11 + sb_n.j11 - h, h12 = sa_n.j12 + sb_n.j12,
             h22 = sa_n.j22 + sb_n.j22 - h;
      const double mean = 0.5 * (h11 + h22);
      const double spread = std::sqrt(0.25 * (h11 - h22) * (h11 - h22) + h12 * h12);
      const double lowest = mean - spread, floor = 1e-3 * (std::fabs(mean) + spread) + 1e-300;
      if (lowest < floor) {
        h11 += floor - lowest;
        h22 += floor - lowest;
      }
      const double det = h11 * h22 - h12 * h12;
      d1 = -(h22 * g1 - h12 * g2) / det;
      d2 = -(h11 * g2 - h12 * g1) / det;
    }
    // At most half a radian per step.
    const double turn = std::sqrt(d1 * d1 + d2 * d2);
    if (turn > 0.5) {
      d1 *= 0.5 / turn;
      d2 *= 0.5 / turn;
    }
    h_last = h;
    n_last = n;
    step = t1 * d1 + t2 * d2;
    n = n + step;
    n = n * (1 / std::sqrt(Dot(n, n)));
  }
  return result;
}

}  // namespace mjportal::collision
