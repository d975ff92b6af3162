// Where MPR starts on a pair of polytopes (boxes and convex meshes): an interior point of
// M = A − B and a first portal placed from a guess of the contact normal, instead of the geom
// centres and the classic discovery.
//
// The guess. Each geom is approximated by an ellipsoid with shape matrix Q = R diag(e²) Rᵀ (a
// box's inscribed ellipsoid; a mesh's hull's half-extents along its frame axes); where the
// centre line u (A towards B) leaves the ellipsoid of Q_A + Q_B, its normal n ∝ (Q_A + Q_B)⁻¹ u
// guesses the contact normal (smooth::ShapeNormal; exact for two spheres).
//
// The interior point. MPR's ray runs from v0 through the origin; v0 = c_A − c_B gives the centre
// line, whose exit from M is slanted wherever n and u differ, so MPR settles on a face of M that
// need not be the minimal one. Any v0 = p_A − p_B with p_A inside A and p_B inside B is a point
// of M: with each geom's inner radius ρ (a ball about its frame origin inside it: a box's least
// half-extent, a mesh's least distance from its origin to a hull face plane), v0 moves towards
// the line through the origin along n by up to 0.9 (ρ_A + ρ_B), shared in proportion to the radii.
//
// The seeded portal. Classic discovery starts from the support along the ray and two supports
// perpendicular to it: a portal spanning much of M, which refinement then halves face by face
// (8–13 rounds on hulls of 200–2,000 vertices). Instead, three supports along directions tilted
// from n by `tilt` (radians, as a tangent), 120° apart, span a small portal around n's support;
// when the ray passes inside their cone it is a valid MPR portal (three support points
// of M whose cone from v0 holds the ray) and refinement starts there (4–6 rounds). Otherwise the
// classic discovery's loop walks on from the triangle (a side the ray passes inside is its base
// edge), one support per step, instead of starting over. A support point that fails to pass the
// origin along its direction proves the geoms apart, as in the classic discovery. The tilt follows
// the finer hull's vertex spacing, √(4π / n) for n vertices on a sphere: 0.8 of it, at least 0.1
// (bench-fast's mesh–mesh rows ran fastest near there: 200-vertex hulls 0.15–0.2, 2,000-vertex
// hulls 0.1). None of this decides an answer: MPR's result is still a portal that supports M, and
// every test after it (convergence, the depth proofs, EPA) is unchanged.
#pragma once

#include <cmath>

#include "collision/minkowski.h"
#include "collision/smooth_contact.h"
#include "collision/support_field.h"

namespace mjportal::collision {

// MPR's start (MprPenetration's `start`): its interior point and the normal guess with the
// seeded portal's tilt.
struct MprStart {
  MinkowskiVertex v0;
  Vec3 normal;  // unit guess of the contact normal, A towards B
  double tilt;  // tangent of the seeded portal's tilt from `normal`
};

// A mesh's shape for MprStart, from its vertices (float[nvert][3], its frame) and MuJoCo's hull
// graph (nullptr: no inner radius): the half-extents max |v_k| along its frame axes, and the
// least distance from the frame origin (the mesh's centre of mass, inside its hull) to the plane
// of a hull triangle, 0 when the graph is absent or the origin is not strictly inside.
MJP_HD inline HullShape MeshShape(const float* vert, int nvert, const int* graph) {
  HullShape shape;
  double e[3] = {0, 0, 0};
  for (int i = 0; i < nvert; ++i) {
    for (int k = 0; k < 3; ++k)
      e[k] = std::fmax(e[k], std::fabs(static_cast<double>(vert[3 * i + k])));
  }
  shape.half_extent = {e[0], e[1], e[2]};
  if (graph == nullptr)
    return shape;
  // Hull graph: numvert, numface, vert_edgeadr, vert_globalid, edge_localid (numvert + 3 numface
  // entries), then each face's three global vertex ids.
  const int numvert = graph[0], numface = graph[1];
  const int* face = graph + 2 + 3 * numvert + 3 * numface;
  double least = INFINITY;
  for (int f = 0; f < numface; ++f) {
    const Vec3 p0 = MeshPoint(vert, face[3 * f]);
    const Vec3 n =
        Cross(MeshPoint(vert, face[3 * f + 1]) - p0, MeshPoint(vert, face[3 * f + 2]) - p0);
    const double length = std::sqrt(Dot(n, n));
    if (length > 0)
      least = std::fmin(least, std::fabs(Dot(n, p0)) / length);
  }
  shape.inner_radius = least > 0 && least < INFINITY ? least : 0;
  return shape;
}

namespace mpr_start {

// Fraction of the inner radii v0 may move, and the seeded portal's tilt (see the header).
constexpr double kInnerFraction = 0.9;
constexpr double kTiltPerSpacing = 0.8;
constexpr double kLeastTilt = 0.1;

// Half-extents and inner radius of a box or mesh geom; false for other shapes and meshes
// without a shape.
MJP_HD inline bool Shape(const ConvexGeom& g, double half_extent[3], double* inner_radius,
                         int* vertices) {
  if (g.type == ShapeType::kBox) {
    Store3(half_extent, Load3(g.view.size));
    *inner_radius = std::fmin(g.view.size[0], std::fmin(g.view.size[1], g.view.size[2]));
    *vertices = 8;
    return true;
  }
  if (g.type != ShapeType::kMesh || g.view.mesh == nullptr || g.view.mesh->shape == nullptr)
    return false;
  const MeshView& mesh = *g.view.mesh;
  Store3(half_extent, mesh.shape->half_extent);
  *inner_radius = mesh.shape->inner_radius;
  *vertices = mesh.graph != nullptr ? mesh.graph[0] : mesh.nvert;
  return half_extent[0] > 0 && half_extent[1] > 0 && half_extent[2] > 0;
}

}  // namespace mpr_start

// The start for polytope pair (a, b), or false when either geom has no shape (not a box or a
// mesh with MeshShape's data) or the centres coincide.
MJP_HD inline bool PolytopeMprStart(const ConvexGeom& a, const ConvexGeom& b, MprStart* start) {
  double ea[3], eb[3], ra, rb;
  int na, nb;
  if (!mpr_start::Shape(a, ea, &ra, &na) || !mpr_start::Shape(b, eb, &rb, &nb))
    return false;
  const Vec3 ca = Load3(a.view.pos), cb = Load3(b.view.pos);
  const Vec3 u = cb - ca;
  const double distance = std::sqrt(Dot(u, u));
  if (!(distance > 0 && distance < INFINITY))
    return false;
  double q[6] = {0, 0, 0, 0, 0, 0};
  smooth::AddShapeMatrix(a.view.mat, ea, q);
  smooth::AddShapeMatrix(b.view.mat, eb, q);
  const Vec3 n = smooth::ShapeNormal(q, u * (1 / distance));
  // v0 = c_A − c_B moved by −shift: shift = u's part across n (v0 then on the line along n),
  // capped by the inner balls.
  Vec3 shift = u - n * Dot(u, n);
  const double room = mpr_start::kInnerFraction * (ra + rb);
  const double length = std::sqrt(Dot(shift, shift));
  if (length > room)
    shift = shift * (room / length);
  const double share_a = ra + rb > 0 ? ra / (ra + rb) : 0.5;
  start->v0.a = ca + shift * share_a;
  start->v0.b = cb - shift * (1 - share_a);
  start->v0.v = start->v0.a - start->v0.b;
  start->normal = n;
  const int finer = na > nb ? na : nb;
  start->tilt = std::fmax(mpr_start::kLeastTilt,
                          mpr_start::kTiltPerSpacing * std::sqrt(4 * support_field::kPi / finer));
  return true;
}

}  // namespace mjportal::collision
