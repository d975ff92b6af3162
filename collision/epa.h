// EPA, the Expanding Polytope Algorithm (G. van den Bergen, "Proximity Queries and Penetration
// Depth Computation on 3D Game Objects", GDC 2001): the minimal penetration of two overlapping
// convex geoms, i.e. the point of ∂M closest to the origin for M = A − B.
//
// Start from a tetrahedron inside M that encloses the origin (GJK's last simplex or MPR's
// portal), or from a polytope grown from one (step 3(b)'s hull proof, convex_contact.h). Repeat:
// take the face closest to the origin, with outward unit normal n and distance δ; find
// w = S_M(n). If w·n − δ <= tolerance the face lies on ∂M (within tolerance) and δ is the
// depth. Otherwise w is added: the faces that see w are removed and the hole's rim (the horizon)
// is joined to w. The polytope stays convex and inside M, so δ only grows towards the depth.
//
// Robustness (as Jolt's and Bullet's EPA do it): faces know their neighbours, and the faces that
// see w are collected from the nearest face outwards across shared edges, so that they form one
// connected patch whose rim is one closed loop, also where rounding makes a face's visibility
// marginal (a global "sees w" test could remove faces apart from the patch and leave a polytope
// that is no longer a closed surface). An expansion is refused, and the search stops with the
// polytope as it is (converged = false), when the rim is not one loop or a new face lies nearer
// the origin than the nearest face did (impossible for a convex polytope that grew).
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
  int adj[3];   // the face across edge (v[e], v[e + 1 mod 3])
  Vec3 normal;  // outward unit normal
  double dist;  // normal · vertex: the face plane's distance from the origin
  bool alive;
};

// An edge of the hole's rim: the removed face's edge (from, to) and the kept face across it.
struct RimEdge {
  int from, to;
  int outside;
};

struct Polytope {
  MinkowskiVertex vert[kEpaMaxVertices];
  Face face[kEpaMaxFaces];
  int nvert = 0, nface = 0;
};

// The face (i, j, k) with its normal and distance (neighbours unset); false when degenerate.
MJP_HD inline bool MakeFace(const Polytope& poly, int i, int j, int k, Face* out) {
  const Vec3 a = poly.vert[i].v;
  Vec3 n = Cross(poly.vert[j].v - a, poly.vert[k].v - a);
  const double length = std::sqrt(Dot(n, n));
  if (!(length > 1e-300))
    return false;
  n = n * (1 / length);
  *out = {{i, j, k}, {-1, -1, -1}, n, Dot(n, a), true};
  return true;
}

// Index e of the edge (from, to) in face f (v[e] = from, v[e + 1] = to), or -1.
MJP_HD inline int EdgeIndex(const Face& f, int from, int to) {
  for (int e = 0; e < 3; ++e) {
    if (f.v[e] == from && f.v[(e + 1) % 3] == to)
      return e;
  }
  return -1;
}

// Whether face f sees point w (w lies strictly outside its plane).
MJP_HD MJP_INLINE bool Sees(const Polytope& poly, const Face& f, const Vec3& w) {
  return Dot(f.normal, w - poly.vert[f.v[0]].v) > 0;
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

// Adds vertex w to the polytope, whose face `near` sees it: the faces that see w, connected to
// `near` across shared edges, are removed and their rim is joined to w by a fan of new faces,
// linked to each other and to the kept faces. False, with the polytope unchanged, when there is
// no room, the rim is not one simple loop, a new face is degenerate or one lies nearer the origin
// than `floor` less the tolerance (the nearest face's distance: a polytope that grew holds the
// ball it held, so only rounding that broke its convexity brings a face nearer).
MJP_HD inline bool Expand(Polytope* poly, int near, const MinkowskiVertex& w, double floor,
                          double tolerance) {
  if (poly->nvert == kEpaMaxVertices)
    return false;
  // The patch of faces seeing w, grown from `near` breadth first (each face is listed once);
  // the steps below walk this list, not every face.
  bool removed[kEpaMaxFaces] = {};
  int patch[kEpaMaxFaces];
  int npatch = 0;
  removed[near] = true;
  patch[npatch++] = near;
  for (int head = 0; head < npatch; ++head) {
    const Face& f = poly->face[patch[head]];
    for (int e = 0; e < 3; ++e) {
      const int g = f.adj[e];
      if (!removed[g] && Sees(*poly, poly->face[g], w.v)) {
        removed[g] = true;
        patch[npatch++] = g;
      }
    }
  }
  // Its rim: the patch's edges whose other face stays.
  RimEdge rim[kEpaMaxFaces];
  int nrim = 0;
  for (int p = 0; p < npatch; ++p) {
    const Face& face = poly->face[patch[p]];
    for (int e = 0; e < 3; ++e) {
      if (!removed[face.adj[e]]) {
        // The kept face must hold the edge reversed (it links to the new face through it).
        if (nrim == kEpaMaxFaces ||
            EdgeIndex(poly->face[face.adj[e]], face.v[(e + 1) % 3], face.v[e]) < 0)
          return false;
        rim[nrim++] = {face.v[e], face.v[(e + 1) % 3], face.adj[e]};
      }
    }
  }
  // One simple loop through all its edges: no vertex left twice, and in loop order (each edge
  // followed by the one leaving its end) the last one ends where the first begins.
  for (int k = 0; k < nrim; ++k) {
    for (int j = k + 1; j < nrim; ++j) {
      if (rim[j].from == rim[k].from)
        return false;
    }
  }
  for (int k = 0; k + 1 < nrim; ++k) {
    int next = -1;
    for (int j = k + 1; j < nrim && next < 0; ++j) {
      if (rim[j].from == rim[k].to)
        next = j;
    }
    if (next < 0)
      return false;
    const RimEdge swap = rim[k + 1];
    rim[k + 1] = rim[next];
    rim[next] = swap;
  }
  if (nrim < 3 || rim[nrim - 1].to != rim[0].from)
    return false;
  // The new faces and their slots: the removed faces' first, then the tail, then (the tail
  // full) faces left dead by earlier expansions (the removed ones are still alive here).
  int slot[kEpaMaxFaces];
  int nslot = 0;
  for (int p = 0; p < npatch && nslot < nrim; ++p)
    slot[nslot++] = patch[p];
  for (int f = poly->nface; f < kEpaMaxFaces && nslot < nrim; ++f)
    slot[nslot++] = f;
  for (int f = 0; f < poly->nface && nslot < nrim; ++f) {
    if (!poly->face[f].alive)
      slot[nslot++] = f;
  }
  if (nslot < nrim)
    return false;
  const int wi = poly->nvert;
  poly->vert[wi] = w;
  Face added[kEpaMaxFaces];
  for (int k = 0; k < nrim; ++k) {
    if (!MakeFace(*poly, rim[k].from, rim[k].to, wi, &added[k]) ||
        added[k].dist < floor - tolerance)
      return false;
    // Edge 0 faces the kept face, edge 1 (to, w) the next new face, edge 2 (w, from) the last.
    added[k].adj[0] = rim[k].outside;
    added[k].adj[1] = slot[(k + 1) % nrim];
    added[k].adj[2] = slot[(k + nrim - 1) % nrim];
  }
  // Commit: the removed faces die, the kept ones across the rim link to the new faces.
  for (int p = 0; p < npatch; ++p)
    poly->face[patch[p]].alive = false;
  for (int k = 0; k < nrim; ++k) {
    Face& outside = poly->face[rim[k].outside];
    outside.adj[EdgeIndex(outside, rim[k].to, rim[k].from)] = slot[k];
  }
  for (int k = 0; k < nrim; ++k) {
    poly->face[slot[k]] = added[k];
    if (slot[k] >= poly->nface)
      poly->nface = slot[k] + 1;
  }
  ++poly->nvert;
  return true;
}

// A start for EPA where GJK stopped with the origin on a segment or a triangle of its simplex
// (numerically on it: two geoms mirror-symmetric about a plane through the origin, as two boxes
// crossing at a corner with equal overlaps along both axes, whose M has the origin on an edge
// between two faces of equal depth; MPR's centre ray then runs along that edge and leaves no
// tetrahedron). The simplex (p[0..n)) is raised to a tetrahedron by support points of M off the
// segment's line, then off the triangle's plane, on the first side where M reaches beyond the
// tolerance. The origin then lies on the tetrahedron's boundary (a face at distance 0, which
// Begin accepts) and EPA expands from there. False when M shows no such point (flat).
MJP_HD inline bool RaiseToTetrahedron(const ConvexGeom& a, const ConvexGeom& b,
                                      MinkowskiVertex p[4], int* n, double tolerance) {
  // A support point of M along the first of the directions where it lies beyond p[0] by more
  // than the tolerance.
  const auto off = [&](const Vec3* dirs, int count, MinkowskiVertex* out) {
    for (int i = 0; i < count; ++i) {
      const MinkowskiVertex q = MinkowskiSupport(a, b, dirs[i]);
      if (Dot(dirs[i], q.v - p[0].v) > tolerance) {
        *out = q;
        return true;
      }
    }
    return false;
  };
  if (*n == 2) {
    const Vec3 d = p[1].v - p[0].v;
    const double length = std::sqrt(Dot(d, d));
    if (!(length > 0))
      return false;
    Vec3 t1, t2;
    TangentFrame(d * (1 / length), &t1, &t2);
    const Vec3 dirs[4] = {t1, -t1, t2, -t2};
    if (!off(dirs, 4, &p[2]))
      return false;
    *n = 3;
  }
  if (*n != 3)
    return false;
  Vec3 normal = Cross(p[1].v - p[0].v, p[2].v - p[0].v);
  const double length = std::sqrt(Dot(normal, normal));
  if (!(length > 0))
    return false;
  normal = normal * (1 / length);
  const Vec3 dirs[2] = {normal, -normal};
  if (!off(dirs, 2, &p[3]))
    return false;
  *n = 4;
  return true;
}

// The tetrahedron `start` as a linked polytope, each face wound outward; false when it is flat
// or the origin lies outside it (by more than the tolerance).
MJP_HD inline bool Begin(Polytope* poly, const MinkowskiVertex start[4], double tolerance) {
  for (int i = 0; i < 4; ++i)
    poly->vert[i] = start[i];
  poly->nvert = 4;
  poly->nface = 0;
  // Faces wound so that each normal points away from the opposite vertex.
  constexpr int kFaces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
  for (const auto& f : kFaces) {
    Face face;
    if (!MakeFace(*poly, f[0], f[1], f[2], &face))
      return false;
    if (Dot(face.normal, poly->vert[f[3]].v) > face.dist) {
      if (!MakeFace(*poly, f[0], f[2], f[1], &face))
        return false;
    }
    if (face.dist < -tolerance)
      return false;
    // Edge (v[e], v[e + 1]) is shared with the face without v[e + 2], the one opposite it:
    // face i is opposite vertex 3 − i (either winding).
    for (int e = 0; e < 3; ++e)
      face.adj[e] = 3 - face.v[(e + 2) % 3];
    poly->face[poly->nface++] = face;
  }
  return true;
}

// Whether the polytope proves `depth` minimal within the tolerance, growing it by known points of
// M (no support query) while it does not: the polytope lies in M and holds the origin, so M holds
// the ball around the origin out to its nearest face; once that face is at depth − tolerance
// or beyond, no exit from M is shallower. While the nearest face is nearer, the known point
// farthest beyond it (by more than the tolerance) is added through it, as EPA would add the
// support point along its normal. False when no known point is beyond the nearest face or Expand
// refuses one; the polytope then stays as grown, a start for EPA. Each point is added at most
// once (count <= 32).
MJP_HD inline bool ProveDepth(Polytope* poly, const MinkowskiVertex* points, int count,
                              double depth, double tolerance) {
  if (count > 32)
    count = 32;
  unsigned used = 0;
  for (int step = 0; step <= count; ++step) {
    const int near = ClosestFace(*poly);
    const Face& face = poly->face[near];
    if (face.dist >= depth - tolerance)
      return true;
    int best = -1;
    double beyond = tolerance;
    for (int k = 0; k < count; ++k) {
      const double height = Dot(face.normal, points[k].v) - face.dist;
      if (!(used >> k & 1u) && height > beyond) {
        beyond = height;
        best = k;
      }
    }
    if (best < 0 || !Expand(poly, near, points[best], face.dist, tolerance))
      return false;
    used |= 1u << best;
  }
  return false;
}

}  // namespace epa

// Penetration of overlapping geoms a and b from the polytope `poly` (inside M, around the
// origin; it grows in place). max_iterations caps the expansion; tolerance is the stopping
// distance.
MJP_HD inline EpaResult EpaPenetration(const ConvexGeom& a, const ConvexGeom& b,
                                       epa::Polytope* poly, int max_iterations, double tolerance) {
  using epa::Face;
  EpaResult result;
  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    const int near = epa::ClosestFace(*poly);
    const Face& face = poly->face[near];
    const MinkowskiVertex w = MinkowskiSupport(a, b, face.normal);
    if (Dot(w.v, face.normal) - face.dist <= tolerance) {
      result.converged = true;
      break;
    }
    if (!epa::Expand(poly, near, w, face.dist, tolerance))
      break;
  }

  // Depth, normal and witness points from the closest face: barycentric coordinates of the
  // origin's projection δ n on it.
  const Face& face = poly->face[epa::ClosestFace(*poly)];
  const TriangleWitness witness = WitnessOnTriangle(poly->vert[face.v[0]], poly->vert[face.v[1]],
                                                    poly->vert[face.v[2]], face.normal * face.dist);
  result.ok = true;
  result.depth = face.dist;
  result.normal = face.normal;
  result.on_a = witness.on_a;
  result.on_b = witness.on_b;
  return result;
}

// The same from the tetrahedron `start` (which must enclose the origin); not ok when it is
// degenerate or does not.
MJP_HD inline EpaResult EpaPenetration(const ConvexGeom& a, const ConvexGeom& b,
                                       const MinkowskiVertex start[4], int max_iterations,
                                       double tolerance) {
  epa::Polytope poly;
  if (!epa::Begin(&poly, start, tolerance))
    return EpaResult();
  return EpaPenetration(a, b, &poly, max_iterations, tolerance);
}

}  // namespace mjportal::collision
