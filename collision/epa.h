// EPA, the Expanding Polytope Algorithm (G. van den Bergen, "Proximity Queries and Penetration
// Depth Computation on 3D Game Objects", GDC 2001): the minimal penetration of two overlapping
// convex geoms, i.e. the point of ∂M closest to the origin for M = A − B.
//
// Start from a tetrahedron inside M that encloses the origin (GJK's last simplex or MPR's
// portal). Repeat: take the face closest to the origin, with outward unit normal n and distance
// δ; find w = S_M(n). If w·n − δ <= tolerance the face lies on ∂M (within tolerance) and δ is the
// depth. Otherwise w is added: every face that sees w is removed and the hole's rim (the horizon)
// is joined to w. The polytope stays convex and inside M, so δ only grows towards the depth.
//
// Storage is fixed (kEpaMaxVertices, kEpaMaxFaces) and every loop is capped; when the polytope is
// full or max_iterations is reached, the closest face so far is the answer (converged = false).
#pragma once

#include <cmath>

#include "collision/minkowski.h"

namespace mjportal::collision {

constexpr int kEpaMaxVertices = 64;
constexpr int kEpaMaxFaces = 2 * kEpaMaxVertices;

struct EpaResult {
  bool ok = false;          // a depth was found (false: degenerate start, caller keeps its answer)
  bool converged = false;   // met the tolerance
  double depth = 0;         // minimal penetration depth
  Vec3 normal = {0, 0, 0};  // unit, from A towards B
  Vec3 on_a = {0, 0, 0}, on_b = {0, 0, 0};  // witness points
  int iterations = 0;
};

namespace epa {

struct Face {
  int v[3];     // vertex indices, counter-clockwise seen from outside
  Vec3 normal;  // outward unit normal
  double dist;  // normal · vertex: the face plane's distance from the origin
  bool alive;
};

struct Edge {
  int from, to;
};

struct Polytope {
  MinkowskiVertex vert[kEpaMaxVertices];
  Face face[kEpaMaxFaces];
  int nvert = 0, nface = 0;
};

// The face (i, j, k) with its normal and distance; false when the face is degenerate.
MJP_HD inline bool MakeFace(const Polytope& poly, int i, int j, int k, Face* out) {
  const Vec3 a = poly.vert[i].v;
  Vec3 n = Cross(poly.vert[j].v - a, poly.vert[k].v - a);
  const double length = std::sqrt(Dot(n, n));
  if (!(length > 1e-300))
    return false;
  n = n * (1 / length);
  *out = {{i, j, k}, n, Dot(n, a), true};
  return true;
}

// Adds edge (from, to) to the horizon, or cancels it against its reverse (shared by two removed
// faces, so interior to the hole). False when the horizon is full.
MJP_HD inline bool ToggleEdge(Edge* edges, int* nedge, int from, int to) {
  for (int e = 0; e < *nedge; ++e) {
    if (edges[e].from == to && edges[e].to == from) {
      edges[e] = edges[--*nedge];
      return true;
    }
  }
  if (*nedge == kEpaMaxFaces)
    return false;
  edges[(*nedge)++] = {from, to};
  return true;
}

// Index of the live face closest to the origin.
MJP_HD inline int ClosestFace(const Polytope& poly) {
  int closest = -1;
  for (int f = 0; f < poly.nface; ++f) {
    if (poly.face[f].alive && (closest < 0 || poly.face[f].dist < poly.face[closest].dist))
      closest = f;
  }
  return closest;
}

}  // namespace epa

// Penetration of overlapping geoms a and b from the tetrahedron `start` (which must enclose the
// origin). max_iterations caps the expansion; tolerance is the stopping distance.
MJP_HD inline EpaResult EpaPenetration(const ConvexGeom& a, const ConvexGeom& b,
                                       const MinkowskiVertex start[4], int max_iterations,
                                       double tolerance) {
  using epa::Face;
  EpaResult result;
  epa::Polytope poly;
  for (int i = 0; i < 4; ++i)
    poly.vert[i] = start[i];
  poly.nvert = 4;

  // Tetrahedron faces, wound so that each normal points away from the opposite vertex.
  constexpr int kFaces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
  for (const auto& f : kFaces) {
    Face face;
    if (!epa::MakeFace(poly, f[0], f[1], f[2], &face))
      return result;
    if (Dot(face.normal, poly.vert[f[3]].v) > face.dist) {
      if (!epa::MakeFace(poly, f[0], f[2], f[1], &face))
        return result;
    }
    if (face.dist < -tolerance)
      return result;  // the origin is outside the start tetrahedron
    poly.face[poly.nface++] = face;
  }

  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    const Face& near = poly.face[epa::ClosestFace(poly)];
    const MinkowskiVertex w = MinkowskiSupport(a, b, near.normal);
    if (Dot(w.v, near.normal) - near.dist <= tolerance) {
      result.converged = true;
      break;
    }
    if (poly.nvert == kEpaMaxVertices)
      break;

    // Faces that see w leave; their rim is the horizon. Nothing changes until the new faces are
    // known to be valid and to fit.
    epa::Edge horizon[kEpaMaxFaces];
    int nedge = 0, nremoved = 0;
    bool fits = true;
    for (int f = 0; f < poly.nface && fits; ++f) {
      const Face& face = poly.face[f];
      if (face.alive && Dot(face.normal, w.v - poly.vert[face.v[0]].v) > 0) {
        ++nremoved;
        for (int e = 0; e < 3 && fits; ++e)
          fits = epa::ToggleEdge(horizon, &nedge, face.v[e], face.v[(e + 1) % 3]);
      }
    }
    const int wi = poly.nvert;
    poly.vert[wi] = w;
    Face added[kEpaMaxFaces];
    for (int e = 0; e < nedge && fits; ++e)
      fits = epa::MakeFace(poly, horizon[e].from, horizon[e].to, wi, &added[e]);
    const int free_slots = kEpaMaxFaces - poly.nface + nremoved;
    if (!fits || nedge > free_slots)
      break;

    // Commit: drop the visible faces, then fill dead slots (and the tail) with the new ones.
    for (int f = 0; f < poly.nface; ++f) {
      const Face& face = poly.face[f];
      if (face.alive && Dot(face.normal, w.v - poly.vert[face.v[0]].v) > 0)
        poly.face[f].alive = false;
    }
    ++poly.nvert;
    int slot = 0;
    for (int e = 0; e < nedge; ++e) {
      while (slot < poly.nface && poly.face[slot].alive)
        ++slot;
      poly.face[slot] = added[e];
      if (slot == poly.nface)
        ++poly.nface;
    }
  }

  // Depth, normal and witness points from the closest face: barycentric coordinates of the
  // origin's projection δ n on it.
  const Face& face = poly.face[epa::ClosestFace(poly)];
  const TriangleWitness witness = WitnessOnTriangle(poly.vert[face.v[0]], poly.vert[face.v[1]],
                                                    poly.vert[face.v[2]], face.normal * face.dist);
  result.ok = true;
  result.depth = face.dist;
  result.normal = face.normal;
  result.on_a = witness.on_a;
  result.on_b = witness.on_b;
  return result;
}

}  // namespace mjportal::collision
