// Signed distance of two smooth, strictly convex geoms (spheres and ellipsoids) by Newton's method
// on the sphere of directions: fast mode's solver for sphere–ellipsoid and ellipsoid–ellipsoid,
// for a sphere or ellipsoid against a box corner (see kMaxCornerSwitches), and for an ellipsoid
// against a capsule or a cylinder (the axis segment a box's edge of zero width, swept by a sphere
// or a disk). Ellipsoid–mesh: smooth_mesh_contact.h, on these pieces.
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
// farther apart than the margin.
//
// When a local minimum is the global one: h may have several local minima (a thin ellipsoid
// across a box's corner has one on the edge and one on the corner). A strict local minimum n0
// with value o is global when o <= 0, or when o <= ρ_A + ρ_B, the sum of the geoms' least
// curvature radii (CertifiedDepth; a box's is 0). Eroding A by o_A <= ρ_A and B by o_B <= ρ_B,
// o_A + o_B = o, leaves convex bodies with support functions h_A − o_A and h_B − o_B (their
// radii of curvature stay >= 0), so h − o is the support function of a convex body and
// {x : h(x) <= o |x|} is a convex cone: the directions with h <= o form a connected set, which
// n0 (strict, h(n0) = o) could only share with a deeper minimum by not being isolated. For
// o <= 0 the cone is convex without erosion. Deeper, against an ellipsoid, the minimum is still
// the global one when the ellipsoid's witness is the nearest surface point to the other geom's
// (smooth::CertifyByFoot, Eberly's root test). Any other deeper converged minimum is reported as
// kUncertified: the caller runs its general solvers too and keeps the shallower answer.
#pragma once

#include <cmath>

#include "collision/minkowski.h"

namespace mjportal::collision {

MJP_HD inline bool IsSmoothConvex(ShapeType type) {
  return type == ShapeType::kSphere || type == ShapeType::kEllipsoid;
}

// The least radius of curvature of a geom's surface: r for a sphere or a capsule, e_min² / e_max
// for an ellipsoid (at the ends of its longest axis, across its shortest), 0 for anything with
// edges.
MJP_HD inline double LeastCurvatureRadius(const ConvexGeom& g) {
  const double* e = g.view.size;
  if (g.type == ShapeType::kSphere || g.type == ShapeType::kCapsule)
    return e[0];
  if (g.type != ShapeType::kEllipsoid)
    return 0;
  double lo = e[0], hi = e[0];  // compares, not fmin/fmax: those are library calls here
  for (int k = 1; k < 3; ++k) {
    lo = e[k] < lo ? e[k] : lo;
    hi = e[k] > hi ? e[k] : hi;
  }
  return lo * lo / hi;
}

// The depth up to which a strict local minimum of h is the global one (see the header).
MJP_HD inline double CertifiedDepth(const ConvexGeom& a, const ConvexGeom& b) {
  return LeastCurvatureRadius(a) + LeastCurvatureRadius(b);
}

// Newton also runs with a box on one side (SmoothDistance): its support is a corner, flat within
// the corner's normal cone, so a converged iterate is a corner contact and exact. When the corner
// flips along one axis the optimum is on that edge: n is then kept perpendicular to the axis and
// Newton runs in one dimension, with the edge (its midpoint) as the box's support; converged with
// the other geom's deepest point over the edge, it is an exact edge contact (past an end of the
// edge, Newton goes on from that end's corner). Corners flipping along two axes: the face across
// them (FaceOptimum). Anything else, or more than kMaxCornerSwitches feature changes, hands over.
// A capsule is such a box of half-extents (0, 0, h) (its axis segment: two corners, one edge)
// swept by a sphere of its radius r: its support is the segment's end plus r d, curved like the
// sphere's (J = r I), and its side contact is the segment's edge mode. A cylinder is the segment
// swept by a disk of radius r, the ellipsoid of semi-axes (r, r, 0): a rim point, curved along
// the rim only, and its side line in edge mode; along its axis (a cap face, FaceFirst's) the
// disk's support is not a point and Newton hands over.
constexpr int kMaxCornerSwitches = 4;
// Steps shortened (to a quarter, from the last iterate) when one flips the corner along two axes
// at once, or along a second axis on an edge, before handing over (measured on the bench's
// resting ellipsoid–box pairs: hand-overs to MPR 71 -> 39 per 1000 calls, and the answers of the
// cases that changed lie within 1e-7 of the reference's refined minimum where the hand-over's
// MPR + re-run along the best normal were off by up to 7e-7).
constexpr int kMaxFlipBacktracks = 3;

enum class SmoothStatus {
  kContact,      // converged within the margin: dist, normal and witness points hold
  kBeyond,       // proven farther apart than the margin (normal: the axis that proves it)
  kUncertified,  // converged to a local minimum deeper than CertifiedDepth (fields hold it)
  kHandOff,      // no answer (not converged within the iteration cap, a face or far feature)
};

struct SmoothResult {
  SmoothStatus status = SmoothStatus::kHandOff;
  double dist = 0;  // signed distance (negative: penetration)
  Vec3 normal = {0, 0, 0}, on_a = {0, 0, 0}, on_b = {0, 0, 0};
  int iterations = 0;
};

namespace smooth {

// A support point along a unit direction d; for a box, which corner (bits of the local sign
// pattern; -1 for smooth geoms); for an ellipsoid, what its curvature needs: û = u/|u| with
// u = E Rᵀ d, and 1/|u|.
struct CurvedSupport {
  Vec3 point;
  int corner;
  Vec3 uh;
  double inv_length;
  bool flat = false;  // a cylinder's support along its axis: a whole cap, no point
};

// Geoms whose support Newton tracks by corner: boxes, capsules and cylinders (see
// kMaxCornerSwitches).
MJP_HD inline bool HasCorners(ShapeType type) {
  return type == ShapeType::kBox || type == ShapeType::kCapsule || type == ShapeType::kCylinder;
}

// Half-extent k of a geom with corners: a box's size; a capsule's or a cylinder's axis segment,
// (0, 0, half-length).
MJP_HD inline double HalfExtent(const ConvexGeom& g, int k) {
  if (g.type == ShapeType::kCapsule || g.type == ShapeType::kCylinder)
    return k == 2 ? g.view.size[1] : 0.0;
  return g.view.size[k];
}

// A segment-swept geom (capsule, cylinder): its edge line is its axis.
MJP_HD inline bool SweptSegment(ShapeType type) {
  return type == ShapeType::kCapsule || type == ShapeType::kCylinder;
}

// An ellipsoid's support in its own frame along unit direction dl (semi-axes e): E û with
// u = E dl; *out receives û and 1/|u| for Curvature.
MJP_HD MJP_INLINE Vec3 EllipsoidFrameSupport(const double* e, const Vec3& dl, CurvedSupport* out) {
  const Vec3 u = {e[0] * dl.x, e[1] * dl.y, e[2] * dl.z};
  out->inv_length = 1 / std::sqrt(Dot(u, u));
  out->uh = u * out->inv_length;
  return {e[0] * out->uh.x, e[1] * out->uh.y, e[2] * out->uh.z};
}

MJP_HD MJP_INLINE CurvedSupport Support(const ConvexGeom& g, const Vec3& d) {
  const double* size = g.view.size;
  CurvedSupport out;
  out.corner = -1;
  if (g.type == ShapeType::kSphere) {
    out.point = Load3(g.view.pos) + d * size[0];  // r d (d is a unit direction here)
    return out;
  }
  if (g.type == ShapeType::kCapsule) {
    // The segment's end facing d (corner bit 2, the z axis's), plus r d.
    const Vec3 axis = Column(g.view.mat, 2);
    const bool up = Dot(d, axis) >= 0;
    out.point = Load3(g.view.pos) + axis * (up ? size[1] : -size[1]) + d * size[0];
    out.corner = up ? 4 : 0;
    return out;
  }
  const Vec3 dl = RotateT(g.view.mat, d);
  if (g.type == ShapeType::kCylinder) {
    // The end cap facing d (corner bit 2) and on its rim the disk's support: the ellipsoid's
    // formula with semi-axes (r, r, 0).
    const bool up = dl.z >= 0;
    out.corner = up ? 4 : 0;
    const Vec3 u = {size[0] * dl.x, size[0] * dl.y, 0};
    const double length = std::sqrt(Dot(u, u));
    if (!(length > 1e-9 * size[0])) {
      out.flat = true;
      out.uh = {0, 0, 0};
      out.inv_length = 0;
      out.point = Load3(g.view.pos) + Column(g.view.mat, 2) * (up ? size[1] : -size[1]);
      return out;
    }
    out.inv_length = 1 / length;
    out.uh = u * out.inv_length;
    out.point =
        Rotate(g.view.mat, {size[0] * out.uh.x, size[0] * out.uh.y, up ? size[1] : -size[1]}) +
        Load3(g.view.pos);
    return out;
  }
  if (g.type == ShapeType::kBox) {
    // A corner: flat around it (J = 0) within its normal cone.
    const Vec3 local = {dl.x >= 0 ? size[0] : -size[0], dl.y >= 0 ? size[1] : -size[1],
                        dl.z >= 0 ? size[2] : -size[2]};
    out.point = Rotate(g.view.mat, local) + Load3(g.view.pos);
    out.corner = (dl.x >= 0 ? 1 : 0) | (dl.y >= 0 ? 2 : 0) | (dl.z >= 0 ? 4 : 0);
    return out;
  }
  out.point = Rotate(g.view.mat, EllipsoidFrameSupport(size, dl, &out)) + Load3(g.view.pos);
  return out;
}

// The support of a sphere or an ellipsoid along unit direction d, both in its own frame (its
// centre the origin, its axes the frame's): Support without the rotations, the same bits.
MJP_HD MJP_INLINE CurvedSupport FrameSupport(const ConvexGeom& g, const Vec3& d) {
  CurvedSupport out;
  out.corner = -1;
  out.point = g.type == ShapeType::kSphere ? d * g.view.size[0]
                                           : EllipsoidFrameSupport(g.view.size, d, &out);
  return out;
}

// The ellipsoid's part of Curvature, the tangent frame (l1, l2) in the ellipsoid's frame and
// semi-axes e.
MJP_HD MJP_INLINE void EllipsoidFrameCurvature(const double* e, const CurvedSupport& sp,
                                               const Vec3& l1, const Vec3& l2, double* j11,
                                               double* j12, double* j22) {
  const Vec3 a1 = {e[0] * l1.x, e[1] * l1.y, e[2] * l1.z};
  const Vec3 a2 = {e[0] * l2.x, e[1] * l2.y, e[2] * l2.z};
  const double p1 = Dot(sp.uh, a1), p2 = Dot(sp.uh, a2);
  *j11 = (Dot(a1, a1) - p1 * p1) * sp.inv_length;
  *j12 = (Dot(a1, a2) - p1 * p2) * sp.inv_length;
  *j22 = (Dot(a2, a2) - p2 * p2) * sp.inv_length;
}

// The support's curvature form t_i · J t_j in the tangent frame (t1, t2) (unit, orthogonal):
// r δ_ij for a sphere or a capsule, 0 for a box corner, for an ellipsoid with a_i = E Rᵀ t_i
// (a_i · a_j − (û · a_i)(û · a_j)) / |u| (a cylinder's rim: E = diag(r, r, 0)). Only needed for
// a Newton step, so computed apart.
MJP_HD inline void Curvature(const ConvexGeom& g, const CurvedSupport& sp, const Vec3& t1,
                             const Vec3& t2, double* j11, double* j12, double* j22) {
  const double* size = g.view.size;
  if (g.type == ShapeType::kSphere || g.type == ShapeType::kCapsule) {
    *j11 = size[0];
    *j12 = 0;
    *j22 = size[0];
    return;
  }
  if (g.type == ShapeType::kBox) {
    *j11 = *j12 = *j22 = 0;
    return;
  }
  const bool rim = g.type == ShapeType::kCylinder;
  const double e[3] = {size[0], rim ? size[0] : size[1], rim ? 0.0 : size[2]};
  EllipsoidFrameCurvature(e, sp, RotateT(g.view.mat, t1), RotateT(g.view.mat, t2), j11, j12, j22);
}

// Curvature of a sphere or an ellipsoid with the tangent frame in its own frame (FrameSupport's
// companion: the same bits as Curvature on a geom at the origin, unrotated).
MJP_HD inline void FrameCurvature(const ConvexGeom& g, const CurvedSupport& sp, const Vec3& t1,
                                  const Vec3& t2, double* j11, double* j12, double* j22) {
  if (g.type == ShapeType::kSphere) {
    *j11 = *j22 = g.view.size[0];
    *j12 = 0;
    return;
  }
  EllipsoidFrameCurvature(g.view.size, sp, t1, t2, j11, j12, j22);
}

// Newton's step (d1, d2) in the tangent frame (t1, t2) for gradient (g1, g2), the supports'
// curvature form j (both geoms' together) and h = h(n): H = J − h I, regularized to positive
// definite (its least eigenvalue raised to 1e-3 of its scale); in edge mode one dimension along
// t1 (d2 = 0). At most half a radian.
MJP_HD inline void NewtonStep(double g1, double g2, double j11, double j12, double j22, double h,
                              bool edge, double* d1, double* d2) {
  *d2 = 0;
  if (edge) {
    const double floor = 1e-3 * std::fabs(j11) + 1e-300;
    double h11 = j11 - h;
    h11 = h11 < floor ? floor : h11;
    *d1 = -g1 / h11;
  } else {
    double h11 = j11 - h, h12 = j12, h22 = j22 - h;
    const double mean = 0.5 * (h11 + h22);
    const double spread = std::sqrt(0.25 * (h11 - h22) * (h11 - h22) + h12 * h12);
    const double lowest = mean - spread, floor = 1e-3 * (std::fabs(mean) + spread) + 1e-300;
    if (lowest < floor) {
      h11 += floor - lowest;
      h22 += floor - lowest;
    }
    const double inv_det = 1 / (h11 * h22 - h12 * h12);
    *d1 = -(h22 * g1 - h12 * g2) * inv_det;
    *d2 = -(h11 * g2 - h12 * g1) * inv_det;
  }
  const double turn = std::sqrt(*d1 * *d1 + *d2 * *d2);
  if (turn > 0.5) {
    *d1 *= 0.5 / turn;
    *d2 *= 0.5 / turn;
  }
}

// Adds R diag(e²) Rᵀ to the symmetric q = (xx, xy, xz, yy, yz, zz); R row-major (mat), its
// columns the axes along which e holds the semi-axes.
MJP_HD inline void AddShapeMatrix(const double* mat, const double e[3], double q[6]) {
  for (int k = 0; k < 3; ++k) {
    const double e2 = e[k] * e[k];
    const double x = mat[k], y = mat[3 + k], z = mat[6 + k];  // column k: the k-th axis
    q[0] += x * x * e2;
    q[1] += x * y * e2;
    q[2] += x * z * e2;
    q[3] += y * y * e2;
    q[4] += y * z * e2;
    q[5] += z * z * e2;
  }
}

// Adds g's shape matrix to q: e the semi-axes of an ellipsoid or of a box's inscribed ellipsoid,
// (r, r, r) for a sphere.
MJP_HD inline void AddShapeMatrix(const ConvexGeom& g, double q[6]) {
  const double* e = g.view.size;
  const double sphere[3] = {e[0], e[0], e[0]};
  AddShapeMatrix(g.view.mat, g.type == ShapeType::kSphere ? sphere : e, q);
}

// Newton's starting direction for centre line c (unit, from A to B): the normal where c leaves
// the ellipsoid with shape matrix Q = Q_A + Q_B, n ∝ Q⁻¹ c = adj(Q) c / det Q (det Q > 0). That
// ellipsoid's shape is the p = 1 member of the usual outer approximations of A ⊕ B, (1 + 1/p) Q_A
// + (1 + p) Q_B, up to scale (which leaves the normal alone); for two spheres n = c, the exact
// answer. On the bench's resting ellipsoid pairs it halves Newton's iterations (3.35 -> 1.81).
// The normal where unit line c leaves the ellipsoid of shape matrix q (symmetric, (xx, xy, xz,
// yy, yz, zz)): n ∝ q⁻¹ c = adj(q) c / det q; c itself when q is degenerate (flat).
MJP_HD inline Vec3 ShapeNormal(const double q[6], const Vec3& c) {
  const double a00 = q[3] * q[5] - q[4] * q[4], a01 = q[2] * q[4] - q[1] * q[5],
               a02 = q[1] * q[4] - q[2] * q[3], a11 = q[0] * q[5] - q[2] * q[2],
               a12 = q[1] * q[2] - q[0] * q[4], a22 = q[0] * q[3] - q[1] * q[1];
  const Vec3 n = {a00 * c.x + a01 * c.y + a02 * c.z, a01 * c.x + a11 * c.y + a12 * c.z,
                  a02 * c.x + a12 * c.y + a22 * c.z};
  const double length = std::sqrt(Dot(n, n));
  return length > 0 ? n * (1 / length) : c;  // a degenerate (flat) Q keeps the centre line
}

MJP_HD inline Vec3 StartDirection(const ConvexGeom& a, const ConvexGeom& b, const Vec3& c) {
  double q[6] = {0, 0, 0, 0, 0, 0};
  AddShapeMatrix(a, q);
  AddShapeMatrix(b, q);
  return ShapeNormal(q, c);
}

// The iterate's tangent frame (t1, t2) at n; in edge mode n is first turned into the plane
// perpendicular to the edge's unit axis, and t1 runs along the edge's arc (axis × n).
MJP_HD inline void IterateFrame(bool edge, const Vec3& axis, Vec3* n, Vec3* t1, Vec3* t2) {
  if (edge) {
    *n = *n - axis * Dot(*n, axis);
    *n = *n * (1 / std::sqrt(Dot(*n, *n)));
    *t1 = Cross(axis, *n);
    *t1 = *t1 * (1 / std::sqrt(Dot(*t1, *t1)));
    *t2 = Cross(*n, *t1);
  } else {
    TangentFrame(*n, t1, t2);
  }
}

// Back along the last step: the step scaled by `factor` from the last iterate, normalized.
MJP_HD inline void Retreat(const Vec3& n_last, double factor, Vec3* step, Vec3* n) {
  *step = *step * factor;
  *n = n_last + *step;
  *n = *n * (1 / std::sqrt(Dot(*n, *n)));
}

// Newton's step taken: n moved by `by` (in its tangent plane) and normalized; *step keeps it
// for Retreat.
MJP_HD inline void Advance(const Vec3& by, Vec3* step, Vec3* n) {
  *step = by;
  *n = *n + by;
  *n = *n * (1 / std::sqrt(Dot(*n, *n)));
}

// A converged iterate: the contact (or, deeper than `deep`, an uncertified local minimum) at
// depth h along n with the witness points.
MJP_HD inline void Converged(double h, double deep, const Vec3& n, const Vec3& on_a,
                             const Vec3& on_b, SmoothResult* result) {
  result->status = h > deep ? SmoothStatus::kUncertified : SmoothStatus::kContact;
  result->dist = -h;
  result->normal = n;
  result->on_a = on_a;
  result->on_b = on_b;
}

// 1/e per axis of a smooth geom (its semi-axes; a sphere's radius three times): E⁻¹ in its
// shape function f(x) = |E⁻¹ Rᵀ (x − p)|² (BoxStart, EdgeStart).
MJP_HD inline Vec3 InverseSemiAxes(const ConvexGeom& g) {
  const double* e = g.view.size;
  const bool sphere = g.type == ShapeType::kSphere;
  return {1 / e[0], 1 / (sphere ? e[0] : e[1]), 1 / (sphere ? e[0] : e[2])};
}

// The line x(z) = on_line + z·axis in the smooth geom g's shape space, where its shape function
// is f = |w + z u|²: w = E⁻¹ Rᵀ (on_line − p), u = E⁻¹ Rᵀ axis (E⁻¹ kept for ShapeNormalAt).
struct ShapeLine {
  Vec3 inv, w, u;
};
MJP_HD inline ShapeLine ShapeLineOf(const ConvexGeom& g, const Vec3& on_line, const Vec3& axis) {
  const Vec3 inv = InverseSemiAxes(g);
  const Vec3 xl = RotateT(g.view.mat, on_line - Load3(g.view.pos));
  const Vec3 vl = RotateT(g.view.mat, axis);
  return {
      inv, {xl.x * inv.x, xl.y * inv.y, xl.z * inv.z}, {vl.x * inv.x, vl.y * inv.y, vl.z * inv.z}};
}

// The unit direction of ∇f = R E⁻¹ `at` (up to a factor) at the point whose shape-space image is
// `at`, oriented from A to B (∇f points out of g); false, *n untouched, where ∇f vanishes.
MJP_HD inline bool ShapeNormalAt(const ConvexGeom& g, const ShapeLine& line, const Vec3& at,
                                 bool g_is_a, Vec3* n) {
  const Vec3& inv = line.inv;
  const Vec3 grad = Rotate(g.view.mat, {at.x * inv.x, at.y * inv.y, at.z * inv.z});
  const double length = std::sqrt(Dot(grad, grad));
  if (!(length > 0))
    return false;
  *n = grad * ((g_is_a ? 1 : -1) / length);
  return true;
}

// Edge mode's start, from the smooth geom g's shape function f: at the point of the edge's line
// (through `on_line`, along `axis`) where f is least, ∇f is perpendicular to the line and is the
// contact normal in the limit of the edge touching g (see BoxStart). *n is set from A to B (∇f
// points out of g), left alone where ∇f vanishes (the line through g's centre).
MJP_HD inline void EdgeStart(const ConvexGeom& g, const Vec3& on_line, const Vec3& axis,
                             bool g_is_a, Vec3* n) {
  const ShapeLine line = ShapeLineOf(g, on_line, axis);
  const Vec3 w = line.w - line.u * (Dot(line.w, line.u) / Dot(line.u, line.u));
  ShapeNormalAt(g, line, w, g_is_a, n);
}

// A face's contact: unit axis from A to B, the other geom's deepest point q towards the face,
// overlap h along the axis; the witness on the face is q moved across by h.
MJP_HD inline void FaceResult(const Vec3& axis, const Vec3& q, double h, bool face_a,
                              SmoothResult* result) {
  result->status = SmoothStatus::kContact;
  result->dist = -h;
  result->normal = axis;
  result->on_a = face_a ? q + axis * h : q;
  result->on_b = face_a ? q : q - axis * h;
}

// The contact of the box's face across axis k (oriented like n, from A to B) when it is a local
// minimum of h no higher than `reached`: the smooth geom's deepest point towards the face lies
// over the face, so every turn of n away from the face normal raises h (the box's support there
// is the face's edge or corner, n · which grows at first order). Separated, that point's height
// above the face is the distance itself. False (result untouched) otherwise.
MJP_HD inline bool FaceOptimum(const ConvexGeom& a, const ConvexGeom& b, const ConvexGeom& box,
                               int k, const Vec3& n, double reached, SmoothResult* result) {
  const bool box_a = &box == &a;
  Vec3 axis = Column(box.view.mat, k);
  if (Dot(axis, n) < 0)
    axis = -axis;
  const CurvedSupport sa = Support(a, axis), sb = Support(b, -axis);
  const double h = Dot(axis, sa.point - sb.point);
  if (!(h <= reached))
    return false;
  const Vec3 q = box_a ? sb.point : sa.point;  // the smooth geom's deepest point
  const Vec3 local = RotateT(box.view.mat, q - Load3(box.view.pos));
  const double c[3] = {local.x, local.y, local.z};
  for (int j = 0; j < 3; ++j) {
    if (j != k && !(std::fabs(c[j]) <= box.view.size[j]))
      return false;
  }
  FaceResult(axis, q, h, box_a, result);
  return true;
}

// Newton's start with a box in the pair. The box point x where the smooth geom's shape function
// f(x) = |E⁻¹ Rᵀ (x − p)|² is least is where the box would first touch the geom as the geom's
// level sets shrink onto its centre, and ∇f(x) is the normal of that touch: for a shallow
// contact x is the box's deepest corner or edge point, and ∇f(x) is within about depth /
// curvature radius of the contact normal (exact in the limit of touching). In the box frame
// f(y) = (y − y0)ᵀ P (y − y0) with P = Bᵀ R E⁻² Rᵀ B, a convex quadratic over |y_i| <= s_i,
// minimized by kBoxStartSweeps of coordinate descent (each step exact along its coordinate,
// clamped). Two or three coordinates on their bounds: an edge or a corner, *n is set (from A
// to B) and *free_axis is the edge's axis (-1 for a corner); returns how many. A point inside
// the box or on a face's interior says nothing about edges or corners: returns 0 or 1 and
// leaves *n alone (faces are FaceFirst's).
constexpr int kBoxStartSweeps = 3;

// BoxStart's answer for a swept segment (a capsule's or cylinder's axis, half-length s: a box of
// half-extents (0, 0, s)), in closed form: along the segment x(z) = c + z a the shape function
// is |w + z u|² with w = E⁻¹ Rᵀ (c − p) and u = E⁻¹ Rᵀ a, least at z = −(w·u) / (u·u) clamped
// to [−s, s], where the coordinate descent's first sweep lands (its other two coordinates are
// pinned at 0, so later sweeps only repeat it). The segment's two pinned axes count as bounds:
// returns 2 (edge mode along axis 2) inside it, 3 at an end.
MJP_HD inline int SegmentStart(const ConvexGeom& g, const ConvexGeom& segment, bool g_is_a, Vec3* n,
                               int* free_axis) {
  const double s = HalfExtent(segment, 2);
  const ShapeLine line = ShapeLineOf(g, Load3(segment.view.pos), Column(segment.view.mat, 2));
  double z = -Dot(line.w, line.u) / Dot(line.u, line.u);
  z = z > s ? s : (z < -s ? -s : z);
  const int bound = std::fabs(z) == s ? 3 : 2;
  *free_axis = bound == 3 ? -1 : 2;
  return ShapeNormalAt(g, line, line.w + line.u * z, g_is_a, n) ? bound : 0;
}

MJP_HD inline int BoxStart(const ConvexGeom& g, const ConvexGeom& box, bool g_is_a, Vec3* n,
                           int* free_axis) {
  if (SweptSegment(box.type))
    return SegmentStart(g, box, g_is_a, n, free_axis);
  const Vec3 inv = InverseSemiAxes(g);
  const double inv2[3] = {inv.x * inv.x, inv.y * inv.y, inv.z * inv.z};
  // The box axes in g's frame, L = Rᵀ B, give P_ij = Σ_k L_ki L_kj / e_k².
  Vec3 l[3];
  for (int j = 0; j < 3; ++j)
    l[j] = RotateT(g.view.mat, Column(box.view.mat, j));
  double p[3][3];
  for (int i = 0; i < 3; ++i) {
    for (int j = i; j < 3; ++j) {
      p[i][j] = p[j][i] =
          l[i].x * l[j].x * inv2[0] + l[i].y * l[j].y * inv2[1] + l[i].z * l[j].z * inv2[2];
    }
  }
  const Vec3 centre = RotateT(box.view.mat, Load3(g.view.pos) - Load3(box.view.pos));
  const double y0[3] = {centre.x, centre.y, centre.z};
  const double s[3] = {HalfExtent(box, 0), HalfExtent(box, 1), HalfExtent(box, 2)};
  // From the box point nearest g's centre, coordinate by coordinate.
  double y[3];
  for (int i = 0; i < 3; ++i)
    y[i] = y0[i] > s[i] ? s[i] : (y0[i] < -s[i] ? -s[i] : y0[i]);
  for (int sweep = 0; sweep < kBoxStartSweeps; ++sweep) {
    for (int i = 0; i < 3; ++i) {
      const double slope =
          p[i][0] * (y[0] - y0[0]) + p[i][1] * (y[1] - y0[1]) + p[i][2] * (y[2] - y0[2]);
      const double t = y[i] - slope / p[i][i];
      y[i] = t > s[i] ? s[i] : (t < -s[i] ? -s[i] : t);
    }
  }
  int bound = 0;
  *free_axis = -1;
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(y[i]) == s[i])
      ++bound;
    else
      *free_axis = i;
  }
  if (bound < 2)
    return bound;
  // ∇f points out of g (towards the box): n's direction when g is A.
  const double d[3] = {y[0] - y0[0], y[1] - y0[1], y[2] - y0[2]};
  const Vec3 grad = Rotate(box.view.mat, {p[0][0] * d[0] + p[0][1] * d[1] + p[0][2] * d[2],
                                          p[1][0] * d[0] + p[1][1] * d[1] + p[1][2] * d[2],
                                          p[2][0] * d[0] + p[2][1] * d[1] + p[2][2] * d[2]});
  const double length = std::sqrt(Dot(grad, grad));
  if (!(length > 0))
    return 0;
  *n = grad * ((g_is_a ? 1 : -1) / length);
  return bound;
}

}  // namespace smooth

namespace smooth {

// A minimum deeper than CertifiedDepth is still the global one when the ellipsoid g's witness y
// (in g's frame) is the nearest point of g's surface to the other geom's witness x = y + h n_in
// (n_in g's inward normal at y): every point x of the other geom bounds h(n) >= n·x + h_g(−n),
// whose least value over n is x's depth in g, so the pair's depth is at least x's, which is h
// when y is x's nearest surface point. It is when y's Lagrange parameter t = −h / |E⁻² y| (from
// y_i = e_i² x_i / (e_i² + t)) lies above −e_min²: the nearest point is given by the only root of
// Σ (e_i x_i / (e_i² + t))² = 1 there (D. Eberly, "Distance from a point to an ellipse, an
// ellipsoid, or a hyperellipsoid", 2013). Upgrades kUncertified to kContact then (t kept 0.1%
// clear of −e_min²: Newton's stationarity holds to the tolerance).
MJP_HD inline void CertifyByFoot(const ConvexGeom& g, bool g_is_a, SmoothResult* r) {
  if (r->status != SmoothStatus::kUncertified || g.type != ShapeType::kEllipsoid)
    return;
  const double* e = g.view.size;
  const Vec3 y = g_is_a ? r->on_a : r->on_b;
  const Vec3 normal = {y.x / (e[0] * e[0]), y.y / (e[1] * e[1]), y.z / (e[2] * e[2])};
  double lo = e[0];
  for (int k = 1; k < 3; ++k)
    lo = e[k] < lo ? e[k] : lo;
  if (-r->dist * 1.001 < lo * lo * std::sqrt(Dot(normal, normal)))
    r->status = SmoothStatus::kContact;
}

// A result found in the frame of a geom at `pos` with rotation `mat`, turned into the world.
MJP_HD inline void ResultToWorld(const double* pos, const double* mat, SmoothResult* r) {
  const Vec3 pg = Load3(pos);
  r->normal = Rotate(mat, r->normal);
  r->on_a = Rotate(mat, r->on_a) + pg;
  r->on_b = Rotate(mat, r->on_b) + pg;
}

// A pair placed in the frame of one of its geoms, g (at the origin, unrotated there): the other
// geom turned by R_gᵀ R_o and placed at R_gᵀ (p_o − p_g). The views point into this object;
// a() and b() are the pair in its order, Finish turns an answer found on them back.
struct FramedPair {
  double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, origin[3] = {0, 0, 0};
  double turn[9], place[3];
  ConvexGeom g, other;
  const double* world_pos;
  const double* world_mat;
  bool g_is_a;

  MJP_HD FramedPair(const ConvexGeom& g_world, const ConvexGeom& other_world, bool g_first)
      : g(g_world),
        other(other_world),
        world_pos(g_world.view.pos),
        world_mat(g_world.view.mat),
        g_is_a(g_first) {
    // Column j of R_gᵀ R_o: the other geom's axis j in g's frame.
    const double* rg = g_world.view.mat;
    for (int j = 0; j < 3; ++j) {
      const Vec3 axis = RotateT(rg, Column(other_world.view.mat, j));
      turn[j] = axis.x;
      turn[3 + j] = axis.y;
      turn[6 + j] = axis.z;
    }
    Store3(place, RotateT(rg, Load3(other_world.view.pos) - Load3(g_world.view.pos)));
    g.view.pos = origin;
    g.view.mat = identity;
    other.view.pos = place;
    other.view.mat = turn;
  }
  FramedPair(const FramedPair&) = delete;
  FramedPair& operator=(const FramedPair&) = delete;

  MJP_HD const ConvexGeom& a() const { return g_is_a ? g : other; }
  MJP_HD const ConvexGeom& b() const { return g_is_a ? other : g; }

  // An answer found on (a(), b()): certified by g's foot point where it can be, then turned
  // back into the world.
  MJP_HD void Finish(SmoothResult* r) const {
    CertifyByFoot(g, g_is_a, r);
    ResultToWorld(world_pos, world_mat, r);
  }
};

// Newton's support and curvature of geom g, in its own frame when `framed` (a sphere or an
// ellipsoid placed by FramedPair), else in the world.
MJP_HD MJP_INLINE CurvedSupport SupportOf(const ConvexGeom& g, bool framed, const Vec3& d) {
  return framed ? FrameSupport(g, d) : Support(g, d);
}
MJP_HD MJP_INLINE void CurvatureOf(const ConvexGeom& g, bool framed, const CurvedSupport& sp,
                                   const Vec3& t1, const Vec3& t2, double* j11, double* j12,
                                   double* j22) {
  if (framed) {
    FrameCurvature(g, sp, t1, t2, j11, j12, j22);
  } else {
    Curvature(g, sp, t1, t2, j11, j12, j22);
  }
}

// SmoothDistance's loop; `framed` 1 or 2 when a or b (an ellipsoid) is at the origin, unrotated.
MJP_HD inline SmoothResult DistanceIn(const ConvexGeom& a, const ConvexGeom& b, int framed,
                                      int max_iterations, double tolerance, double margin) {
  SmoothResult result;
  const double sa = GeomScale(a), sb = GeomScale(b);
  const double deep = CertifiedDepth(a, b);
  Vec3 n = Load3(b.view.pos) - Load3(a.view.pos);
  const double centre = std::sqrt(Dot(n, n));
  if (!(centre > 1e-12 * (sa + sb)))
    return result;  // nothing to go by when the centres coincide
  // Edge mode (a box in the pair): n stays perpendicular to the box axis `edge` and turns only
  // about it; the box's support is then its edge, whose midpoint stands for it.
  const bool box_a = smooth::HasCorners(a.type), box_b = smooth::HasCorners(b.type);
  const ConvexGeom* box = box_a ? &a : (box_b ? &b : nullptr);
  int edge = -1;
  // Start at the normal the box's least point predicts (BoxStart; on its edge if there), else
  // from the centre line turned towards the likely normal (StartDirection).
  if (box == nullptr || smooth::BoxStart(box_a ? b : a, *box, !box_a, &n, &edge) < 2) {
    edge = -1;
    n = smooth::StartDirection(a, b, n * (1 / centre));
  }

  double h_last = 1e300;
  Vec3 n_last = n, step = {0, 0, 0};
  int corner = -2, switches = 0, backtracks = 0;
  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    Vec3 t1, t2;
    const Vec3 axis = edge >= 0 ? Column(box->view.mat, edge) : Vec3{0, 0, 0};
    smooth::IterateFrame(edge >= 0, axis, &n, &t1, &t2);
    smooth::CurvedSupport sa_n = smooth::SupportOf(a, framed == 1, n);
    smooth::CurvedSupport sb_n = smooth::SupportOf(b, framed == 2, -n);
    if (sa_n.flat || sb_n.flat)
      return result;  // along a cylinder's axis: its cap face (FaceFirst's), not Newton's
    if (edge >= 0) {
      // The edge's midpoint (the corner moved back along the axis to the box's mid-plane), and
      // the corner bits that still matter.
      smooth::CurvedSupport& on_box = box_a ? sa_n : sb_n;
      on_box.point = on_box.point - axis * Dot(on_box.point - Load3(box->view.pos), axis);
      on_box.corner &= ~(1 << edge);
    }
    const Vec3 s = sa_n.point - sb_n.point;
    const double h = Dot(n, s);
    // A box corner that changes: one axis flipping is an edge optimum (enter edge mode); two
    // axes, or another axis flipping in edge mode, a face optimum (FaceOptimum, else hand over);
    // more switches than kMaxCornerSwitches, a far feature: hand over.
    const int now = sa_n.corner >= 0 ? sa_n.corner : sb_n.corner;
    if (now != corner) {
      if (corner != -2) {
        const int flipped = now ^ corner;
        const bool single = flipped != 0 && (flipped & (flipped - 1)) == 0;
        // A step that flips more than one axis of the corner (or, on an edge, any other axis)
        // may just be too long: retry a quarter of it from the last iterate, a few times, before
        // taking it for a face optimum.
        if ((edge >= 0 || !single) && h_last < 1e300 && backtracks < kMaxFlipBacktracks) {
          ++backtracks;
          smooth::Retreat(n_last, 0.25, &step, &n);
          continue;
        }
        if (edge >= 0 || !single) {
          // Two axes flipped together (or one beside the edge's): n crossed near the normal of
          // the box face across them; that face's contact, if it is a local minimum.
          const int across = edge >= 0 ? flipped | (1 << edge) : flipped;
          const int face = across == 3 ? 2 : (across == 5 ? 1 : (across == 6 ? 0 : -1));
          const double reached = h < h_last ? h : h_last;
          if (face >= 0 && box->type == ShapeType::kBox &&
              smooth::FaceOptimum(a, b, *box, face, n, reached + tolerance, &result) &&
              result.dist < -deep)
            result.status = SmoothStatus::kUncertified;  // as a converged iterate below
          return result;
        }
        if (++switches > kMaxCornerSwitches)
          return result;
        edge = flipped == 1 ? 0 : (flipped == 2 ? 1 : 2);
        corner = now & ~flipped;
        h_last = 1e300;
        // (A capsule's or a cylinder's edge line is its axis; its support point lies r off it.)
        const Vec3 on_line =
            smooth::SweptSegment(box->type) ? Load3(box->view.pos) : (box_a ? sa_n : sb_n).point;
        smooth::EdgeStart(box_a ? b : a, on_line, Column(box->view.mat, edge), !box_a, &n);
        continue;  // restart this iterate on the edge
      }
      corner = now;
    }
    if (h < -margin) {
      result.status = SmoothStatus::kBeyond;
      result.normal = n;  // a separating axis: the overlap along it is h < −margin
      return result;
    }
    if (h > h_last + tolerance) {
      smooth::Retreat(n_last, 0.5, &step, &n);  // the step overshot: halve it
      continue;
    }
    const double g1 = Dot(t1, s), g2 = edge >= 0 ? 0.0 : Dot(t2, s);
    if (g1 * g1 + g2 * g2 <= tolerance * tolerance) {
      Vec3 on_a = sa_n.point, on_b = sb_n.point;
      if (edge >= 0) {
        // The contact lies on the edge only if the other geom's deepest point is over it; the
        // box's witness is the edge point beside that deepest point.
        const Vec3 other = box_a ? on_b : on_a;
        const double along = Dot(other - Load3(box->view.pos), axis);
        if (!(std::fabs(along) <= smooth::HalfExtent(*box, edge))) {
          // Past the edge's end: go on from that end's corner, n turned off the edge's plane
          // just enough for the box's support to be that corner.
          if (!(along == along) || ++switches > kMaxCornerSwitches)
            return result;
          const double toward = (along > 0) == box_a ? 1e-6 : -1e-6;
          n = n + axis * toward;
          n = n * (1 / std::sqrt(Dot(n, n)));
          edge = -1;
          corner = -2;
          h_last = 1e300;
          continue;
        }
        (box_a ? on_a : on_b) = (box_a ? on_a : on_b) + axis * along;
      }
      smooth::Converged(h, deep, n, on_a, on_b, &result);
      return result;
    }
    // The curvature of both supports (B's along −n: its frame (t1, t2) serves as well, the
    // form being even in the tangents).
    double ja11, ja12, ja22, jb11, jb12, jb22;
    smooth::CurvatureOf(a, framed == 1, sa_n, t1, t2, &ja11, &ja12, &ja22);
    smooth::CurvatureOf(b, framed == 2, sb_n, t1, t2, &jb11, &jb12, &jb22);
    double d1, d2;
    smooth::NewtonStep(g1, g2, ja11 + jb11, ja12 + jb12, ja22 + jb22, h, edge >= 0, &d1, &d2);
    h_last = h;
    n_last = n;
    smooth::Advance(t1 * d1 + t2 * d2, &step, &n);
  }
  return result;
}

}  // namespace smooth

// Signed distance of a and b (see the header); `margin` is the distance beyond which only
// kBeyond matters. With an ellipsoid in the pair, solved in its frame (FramedPair): its support
// and curvature without rotations, the answer turned back.
MJP_HD inline SmoothResult SmoothDistance(const ConvexGeom& a, const ConvexGeom& b,
                                          int max_iterations, double tolerance, double margin) {
  const int framed =
      a.type == ShapeType::kEllipsoid ? 1 : (b.type == ShapeType::kEllipsoid ? 2 : 0);
  if (framed == 0)
    return smooth::DistanceIn(a, b, 0, max_iterations, tolerance, margin);
  const smooth::FramedPair pair(framed == 1 ? a : b, framed == 1 ? b : a, framed == 1);
  SmoothResult r =
      smooth::DistanceIn(pair.a(), pair.b(), framed, max_iterations, tolerance, margin);
  pair.Finish(&r);
  return r;
}

}  // namespace mjportal::collision
