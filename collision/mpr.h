// Minkowski Portal Refinement (MPR, G. Snethen, "XenoCollide", Game Programming Gems 7, 2008):
// penetration of two convex geoms along the ray from an interior point of their Minkowski
// difference through the origin. Fast mode's default narrowphase for general convex pairs.
//
// Outline, with M = A − B (support S_M(d) = S_A(d) − S_B(−d)) and v0 = c_A − c_B inside M:
//   1. Portal discovery: find a triangle (v1, v2, v3) of support points whose cone from v0
//      contains the ray v0 → origin. Any support point not past the origin along its direction
//      proves separation (no penetration). Polytope pairs may start from a guess of the normal
//      instead (mpr_start.h): another v0 and a small first portal around the guess.
//   2. Refinement: replace one portal vertex by the support point v4 along the portal normal n,
//      keeping the ray inside the cone, until v4 gets no further than `tolerance` beyond the
//      portal plane (or the iteration cap). The portal plane then (nearly) supports M.
//   3. Result: n from A towards B, depth = n · v1 (the origin's distance below the portal plane),
//      and the contact point: the origin's projection onto the portal, mapped through barycentric
//      coordinates to both geoms' support points, halfway between them.
// The depth is along the ray, not necessarily the minimal penetration (GJK+EPA refine that).
// Every loop is capped by max_iterations.
#pragma once

#include <cmath>

#include "collision/minkowski.h"
#include "collision/mpr_start.h"

namespace mjportal::collision {

struct MprResult {
  bool hit = false;         // the geoms overlap (origin inside M)
  bool converged = false;   // refinement met the tolerance before the iteration cap
  double depth = 0;         // penetration depth along normal (> 0 when hit)
  Vec3 normal = {0, 0, 0};  // unit, from geom A towards geom B
  Vec3 pos = {0, 0, 0};     // contact point, halfway between the geoms' surfaces
  Vec3 on_a = {0, 0, 0};    // witness point on geom A
  Vec3 on_b = {0, 0, 0};    // witness point on geom B
  // Smallest barycentric coordinate of the origin's projection on the final portal: negative
  // when the projection falls outside it (the portal's face is then not where the origin is
  // closest to the boundary).
  double barycentric_min = 1;
  int iterations = 0;   // support evaluations in the refinement phase
  bool seeded = false;  // the seeded triangle of MprPenetration's `start` was a portal as it stood
  // The final tetrahedron (interior point v0 and portal v1, v2, v3): it contains the origin when
  // hit, so EPA can start from it (absent when the ray met M's boundary in one support point).
  bool has_tetrahedron = false;
  MinkowskiVertex tetrahedron[4];
  // On a miss found by a support query: the query's direction n (not normalized), along which
  // the geoms' projections do not overlap (max_A n·a <= min_B n·b): a separating axis.
  Vec3 separating = {0, 0, 0};
  // On such a miss: the portal's support points so far and the one that proved it (1 to 4
  // points of M, the origin outside their hull), a simplex GJK can start from.
  int n_apart = 0;
  MinkowskiVertex apart[4];
};

// The points of M that MPR met and left behind, for a caller that wants more than the final
// tetrahedron: each vertex a portal (or a discovery triangle) dropped, and the last support point
// of a converged refinement. All lie on ∂M around the final portal, the latest nearest it, so
// their hull with the tetrahedron hugs ∂M there (HullProvesDepth, EPA's start). A ring: the
// kMprHistory latest are kept.
constexpr int kMprHistory = 16;

struct MprHistory {
  MinkowskiVertex point[kMprHistory];
  int count = 0;  // points met; the ring holds the last min(count, kMprHistory)

  MJP_HD void Add(const MinkowskiVertex& v) {
    point[count % kMprHistory] = v;
    ++count;
  }
  MJP_HD int size() const { return count < kMprHistory ? count : kMprHistory; }
};

// Penetration of geoms a and b (see the outline). max_iterations caps each phase; tolerance is
// the refinement's stopping distance.
//
// With `ray` (a unit direction, A towards B), the ray runs along it instead: v0 = −ray × inset,
// a point of M just behind the origin (the caller's inset must be smaller than the origin's
// distance to M's boundary). Along a contact normal the ray leaves M where that normal is
// nearly M's own, which removes the centre ray's slant from the depth; the result then has no
// tetrahedron (v0 is no point of A − B's sampled vertices).
//
// With `history`, the points MPR leaves behind are kept there (MprHistory).
//
// With `start` (mpr_start.h; not with `ray`), v0 is its interior point and discovery first tries
// its seeded portal: three supports along directions tilted from its normal guess, 120° apart,
// handed to the classic discovery's loop (an edge with the ray on its inner side is its base
// edge and the third point its first candidate): the loop takes them as the portal when the ray
// passes inside their cone, else walks on from them.
MJP_HD inline MprResult MprPenetration(const ConvexGeom& a, const ConvexGeom& b, int max_iterations,
                                       double tolerance, const Vec3* ray = nullptr,
                                       double inset = 0, MprHistory* history = nullptr,
                                       const MprStart* start = nullptr) {
  using Vertex = MinkowskiVertex;
  MprResult result;

  // Interior point of M (the start's, behind the origin on the ray, or the centres'); nudged off
  // the origin when it lies there.
  Vertex v0;
  if (start != nullptr) {
    v0 = start->v0;
  } else if (ray != nullptr) {
    v0.v = *ray * -inset;
    v0.a = v0.v;
    v0.b = {0, 0, 0};
  } else {
    v0.a = Load3(a.view.pos);
    v0.b = Load3(b.view.pos);
    v0.v = v0.a - v0.b;
  }
  if (Dot(v0.v, v0.v) < 1e-30) {
    v0.v.x += 1e-10;
  }
  if (!(Dot(v0.v, v0.v) < 1e300)) {  // NaN or overflowing poses: no answer
    return result;
  }

  // 1. Portal discovery: from the seeded triangle when `start` gives one, else the classic one.
  Vec3 n = -v0.v;
  // A miss at a support query: its direction separates; the points so far seed GJK.
  auto miss = [&](const Vec3& axis, const Vertex* points, int count) {
    result.separating = axis;
    result.n_apart = count;
    for (int i = 0; i < count; ++i)
      result.apart[i] = points[i];
    return result;
  };
  Vertex v1, v2, v3;
  bool portal = false;
  // Discovery's loop below starts from a base edge (v1, v2), oriented so that the origin lies
  // on the side of the plane (v0, v1, v2) that n = (v1 − v0) × (v2 − v0) points to, and tests a
  // third point v3 against the two other sides; `have_v3` when that point is already at hand.
  bool have_v3 = false;
  if (start != nullptr) {
    // Three directions around the guess, 120° apart, tilted by `tilt`.
    const double tilt = start->tilt;
    Vec3 t1, t2;
    TangentFrame(start->normal, &t1, &t2);
    const double cos120 = -0.5 * tilt, sin120 = 0.8660254037844386 * tilt;
    const Vec3 dir[3] = {start->normal + t1 * tilt, start->normal + t1 * cos120 + t2 * sin120,
                         start->normal + t1 * cos120 - t2 * sin120};
    Vertex p[3];
    for (int k = 0; k < 3; ++k) {
      p[k] = MinkowskiSupport(a, b, dir[k]);
      if (Dot(p[k].v, dir[k]) <= 0)
        return miss(dir[k], p, k + 1);
    }
    // side[k]: the ray's side of the face (v0, p[k+1], p[k]) (indices mod 3). The triangle turned
    // so that some side is positive (as it is, else reversed) gives the loop its base edge, the
    // first such side's, and the third point as v3: the loop takes the triangle as the portal
    // when the other two sides hold too, else walks on from it. Every side zero (a degenerate
    // triangle): the classic start.
    const double side[3] = {Dot(Cross(p[1].v, p[0].v), v0.v), Dot(Cross(p[2].v, p[1].v), v0.v),
                            Dot(Cross(p[0].v, p[2].v), v0.v)};
    const bool as_is = side[0] > 0 || side[1] > 0 || side[2] > 0;
    for (int k = 0; k < 3 && !have_v3; ++k) {
      if ((as_is ? side[k] : -side[k]) > 0) {
        v1 = p[as_is ? k : (k + 1) % 3];
        v2 = p[as_is ? (k + 1) % 3 : k];
        v3 = p[(k + 2) % 3];
        have_v3 = true;
      }
    }
  }
  // Walking on from the seeded triangle, a new face (v0, vi, v3) can come out flat (v3 across v0
  // from vi, as opposite vertices of a centrally symmetric M are): its normal vanishes, and
  // discovery starts over the classic way.
  bool walking = have_v3;
  for (int pass = 0; pass < 2 && !portal; ++pass) {
    if (!have_v3) {
      n = -v0.v;
      v1 = MinkowskiSupport(a, b, n);
      if (Dot(v1.v, n) <= 0)
        return miss(n, &v1, 1);
      n = Cross(v1.v, v0.v);
      if (Dot(n, n) < 1e-30) {
        // The origin lies on the segment v0–v1: v1 is the answer along that line.
        const double length = std::sqrt(Dot(v1.v, v1.v));
        result.hit = true;
        result.converged = true;
        result.depth = length;
        result.normal = v1.v * (1 / length);
        result.pos = (v1.a + v1.b) * 0.5;
        result.on_a = v1.a;
        result.on_b = v1.b;
        return result;
      }
      v2 = MinkowskiSupport(a, b, n);
      if (Dot(v2.v, n) <= 0) {
        const Vertex points[2] = {v1, v2};
        return miss(n, points, 2);
      }
      n = Cross(v1.v - v0.v, v2.v - v0.v);
      if (Dot(n, v0.v) > 0) {
        const Vertex swap = v1;
        v1 = v2;
        v2 = swap;
        n = -n;
      }
    }
    bool flat = false;
    for (int it = 0; it < max_iterations && !portal && !flat; ++it) {
      if (!have_v3) {
        v3 = MinkowskiSupport(a, b, n);
        if (Dot(v3.v, n) <= 0) {
          const Vertex points[3] = {v1, v2, v3};
          return miss(n, points, 3);
        }
      }
      const bool seeded_v3 = have_v3;  // v3 is the seeded triangle's third point
      have_v3 = false;
      Vec3 edge;  // the new face's edge other than v3 − v0
      if (Dot(Cross(v1.v, v3.v), v0.v) < 0) {
        if (history != nullptr)
          history->Add(v2);
        v2 = v3;  // origin outside the face (v0, v1, v3)
        edge = v1.v - v0.v;
        n = Cross(edge, v3.v - v0.v);
      } else if (Dot(Cross(v3.v, v2.v), v0.v) < 0) {
        if (history != nullptr)
          history->Add(v1);
        v1 = v3;  // origin outside the face (v0, v3, v2)
        edge = v2.v - v0.v;
        n = Cross(v3.v - v0.v, edge);
      } else {
        portal = true;
        result.seeded = seeded_v3;
      }
      if (walking && !portal) {
        const Vec3 e3 = v3.v - v0.v;
        flat = !(Dot(n, n) > 1e-20 * Dot(edge, edge) * Dot(e3, e3));
      }
    }
    walking = false;
  }
  if (!portal) {
    return result;
  }

  // 2. Refinement. The support query takes the portal's normal unnormalized (a support point
  // does not depend on the direction's length), so the square root and division that give the
  // tolerance test its unit normal run beside the query, not before it.
  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    n = Cross(v2.v - v1.v, v3.v - v1.v);
    const double length = std::sqrt(Dot(n, n));
    if (!(length > 1e-300)) {
      break;  // degenerate portal: keep the last answer
    }
    const Vertex v4 = MinkowskiSupport(a, b, n);
    if (Dot(v4.v, n) < 0) {  // the supporting plane along n passes the origin: separated
      const Vertex points[4] = {v1, v2, v3, v4};
      return miss(n, points, 4);
    }
    if (Dot(v4.v - v1.v, n) <= tolerance * length) {
      result.converged = true;
      if (history != nullptr)
        history->Add(v4);
      break;
    }
    // Keep the ray inside the new portal: v4 replaces one vertex.
    const Vec3 c = Cross(v4.v, v0.v);
    const auto replace = [&](Vertex& slot) {
      if (history != nullptr)
        history->Add(slot);
      slot = v4;
    };
    if (Dot(v1.v, c) > 0) {
      if (Dot(v2.v, c) > 0) {
        replace(v1);
      } else {
        replace(v3);
      }
    } else if (Dot(v3.v, c) > 0) {
      replace(v2);
    } else {
      replace(v1);
    }
  }

  // 3. Depth, normal and contact point from the final portal.
  n = Cross(v2.v - v1.v, v3.v - v1.v);
  const double length = std::sqrt(Dot(n, n));
  if (!(length > 1e-300)) {
    return result;
  }
  n = n * (1 / length);
  const double depth = Dot(n, v1.v);
  if (!(depth >= 0)) {
    return result;  // origin not inside the portal's half-space
  }

  // Witness points of the origin's projection n·depth on the portal.
  const TriangleWitness witness = WitnessOnTriangle(v1, v2, v3, n * depth);

  result.hit = true;
  result.depth = depth;
  result.normal = n;
  result.pos = (witness.on_a + witness.on_b) * 0.5;
  result.on_a = witness.on_a;
  result.on_b = witness.on_b;
  result.barycentric_min = witness.weight_min;
  result.has_tetrahedron = ray == nullptr;
  result.tetrahedron[0] = v0;
  result.tetrahedron[1] = v1;
  result.tetrahedron[2] = v2;
  result.tetrahedron[3] = v3;
  return result;
}

}  // namespace mjportal::collision
