// Contact manifolds by feature clipping: the contact patch of two convex geoms from their support
// features along the first contact's normal (fast mode's default multi-contact, as Box2D and Jolt
// build manifolds: reference face, incident face, Sutherland–Hodgman clipping).
//
// With n the first contact's unit normal (A towards B), each geom's support feature is the part of
// its surface within `band` of its supporting plane, A's along n and B's along −n:
//   sphere, ellipsoid   one point (strictly convex: the patch is the first contact)
//   capsule             the axis' end points pushed out by the radius: 2 when the axis lies
//                       within band of the plane, else the deeper one
//   cylinder            the cap's rim as a kCapSides-gon when the whole cap lies within band;
//                       else the side line (2 rim points) when the axis does; else 1 rim point
//   box                 the corners within band (1, 2, 3 or 4)
//   mesh                the hull vertices within band: on a face of more than
//                       kMaxFeaturePoints vertices (three or more in band), that face's vertices
//                       in band, read from the mesh's face table; else gathered by a
//                       breadth-first walk of the hull graph from the support vertex, up to the
//                       mesh's largest face (at most kMaxWalkPoints); beyond kMaxFeaturePoints,
//                       their extremes along kMaxFeaturePoints directions spread evenly in the
//                       plane; on fine hulls of small faces at most kFineFeaturePoints
// Both features are gathered first (a one-point feature ends the call before any projection), then
// taken into the frame (t1, t2, n); three or more points are made a convex polygon in the plane
// ⊥ n (2D hull, counter-clockwise about n; a cylinder's cap comes in that order); collinear ones a
// segment. Then, in that plane:
//   polygon–polygon   the flatter polygon (smaller height spread along n) is the reference;
//                     the other (incident) is clipped against each reference edge
//   polygon–segment   the segment is clipped against the polygon
//   segment–segment   the two ends of their overlap: for straight edges when nearly parallel
//                     (crossing: none); a capsule's or cylinder's side line at any angle,
//                     each end's distance raised by the surfaces' curvature (ClipSegmentPair)
//   with a point      none (the caller keeps its first contact)
// Projected points keep only in-plane coordinates (u, v) and height h along n; world points are
// rebuilt as u t1 + v t2 + h n only for the contacts written. Each clipped
// point x of the incident feature (on it: clipping interpolates u, v and h alike) gets
//   dist = h_B(x) − h_A(x), heights along n; the reference's height is its extreme plane (a
//   polygon) or its line interpolated at x (a segment)
// and the contact sits halfway between the two heights. Points with dist > margin are dropped.
// When the first contact is deeper than every clipped point, it joins them: a curved feature's
// deepest vertex lies inside the ring its spread extremes span (and a 2D hull drops interior
// points), so without it the patch could sit shallower than the overlap. Beyond `capacity`, the
// kept ones are the deepest (on a patch lying flat, the farthest along t1) and then the ones
// spanning the largest area.
// All normals are n. Every loop has a fixed bound; storage is on the stack.
#pragma once

#include <cmath>

#include "collision/contact.h"
#include "collision/minkowski.h"
#include "collision/support_field.h"

namespace mjportal::collision {

constexpr int kMaxFeaturePoints = 16;  // points kept per support feature
constexpr int kMaxWalkPoints = 64;     // hull vertices a mesh's feature walk may gather
constexpr int kMaxFaceGather = 256;    // face vertices read from a face table (FaceFeature)
constexpr int kCapSides = 8;           // a cylinder cap as a regular polygon
constexpr int kMaxManifold = kMaxFeaturePoints * 2 + 2;
// Hull sizes whose feature walk runs branch-free with a bit set of visited ids (measured against
// the plain walk on bench-fast's mesh–mesh poses: 19-vertex hulls 3% slower, 89 2% faster, 247
// 6.5% faster; on 2,000-vertex hulls, whose features mostly fill all kMaxFeaturePoints, the
// whole call 7% faster).
constexpr int kBranchFreeWalk = 64;
constexpr int kVisitedBits = 4096;
// Hulls of more than kFineHull vertices whose faces are small (none above kMaxFeaturePoints
// vertices) are curved surfaces finely cut: a feature there is a cap the walk cuts short anyway
// (on 2,000-vertex hulls 81% of the features filled all 16 points), so the walk stops at
// kFineFeaturePoints, the support vertex and about its nearest ring. Measured on 2,000-vertex
// hulls: the whole mesh–mesh call 12% faster (2,859 -> 2,527 ns).
constexpr int kFineHull = 500;
constexpr int kFineFeaturePoints = 10;

// Height tolerance of a support feature, as a fraction of the geom's scale (GeomScale).
constexpr double kFeatureBand = 1e-3;

// A support feature's band for a geom of scale `scale`: kFeatureBand × scale plus `reach`, how
// far above the deepest point a point may lie and still be within the margin (margin − the first
// contact's dist), capped at a tenth of the scale.
MJP_HD inline double FeatureBand(double scale, double reach) {
  const double cap = 0.1 * scale;
  return kFeatureBand * scale + (reach < cap ? (reach > 0 ? reach : 0) : cap);
}

// The contact frame: unit normal n (A towards B) and the tangents t1, t2 (t1 × t2 = n).
struct ContactFrame {
  Vec3 n, t1, t2;
};

// A support feature in the contact frame: in-plane coordinates (u, v) = (t1 · p, t2 · p) and
// heights h = n · p of its points (a convex polygon, counter-clockwise about n, when ordered and
// count >= 3).
struct SupportFeature {
  int count = 0;
  double u[kMaxFeaturePoints], v[kMaxFeaturePoints], h[kMaxFeaturePoints];
};

// A support feature as gathered: its points in the geom's frame (`local`: meshes, boxes) or in
// the world, and whether they already form a convex polygon counter-clockwise about n (`ordered`:
// a cylinder's cap).
struct RawPoints {
  int count = 0;
  bool local = false;
  bool ordered = false;
  Vec3 p[kMaxFeaturePoints];
};

namespace manifold {

// Appends a point unless the feature is full.
MJP_HD MJP_INLINE void Add(RawPoints* r, const Vec3& p) {
  if (r->count < kMaxFeaturePoints)
    r->p[r->count++] = p;
}

// Adds to r the extreme points, along kMaxFeaturePoints directions spread evenly in the plane ⊥ d,
// of the `count` hull vertices ids[0..count) (hull-local ids): a face of more vertices than a
// feature holds, lying flat, kept as points that span all of it. The first points a walk reaches
// would cover only the part of the face nearest its start, and the start moves with the least
// tilt: a can standing on a 32-gon rocked on the half it got. `boundary`: the ids run around the
// face's boundary in order (either way round; a face table's faces), so that each direction's
// extreme is a climb along the boundary from the last one's (the score along a direction rises
// to its extreme and falls past it); else every point is scored against every direction.
MJP_HD inline void SpreadExtremes(const MeshView& mesh, const Vec3& d, const int* ids, int count,
                                  bool boundary, RawPoints* r) {
  Vec3 t1, t2;
  TangentFrame(d, &t1, &t2);
  // The directions turn by 2π / kMaxFeaturePoints each (a rotation applied step by step).
  const double step_cos = std::cos(2 * support_field::kPi / kMaxFeaturePoints);
  const double step_sin = std::sin(2 * support_field::kPi / kMaxFeaturePoints);
  double cu[kMaxFeaturePoints], cv[kMaxFeaturePoints];
  cu[0] = 1, cv[0] = 0;
  for (int k = 1; k < kMaxFeaturePoints; ++k) {
    cu[k] = cu[k - 1] * step_cos - cv[k - 1] * step_sin;
    cv[k] = cv[k - 1] * step_cos + cu[k - 1] * step_sin;
  }
  int winner[kMaxFeaturePoints] = {};
  const auto score = [&](int i, int k) {
    const Vec3 p = support_field::EntryPoint(mesh, ids[i]);
    return Dot(t1, p) * cu[k] + Dot(t2, p) * cv[k];
  };
  if (boundary) {
    // The first direction's extreme by a scan, then each next one climbed to, forward then back
    // (each climb at most count steps).
    double best = score(0, 0);
    for (int i = 1; i < count; ++i) {
      const double s = score(i, 0);
      winner[0] = s > best ? i : winner[0];
      best = s > best ? s : best;
    }
    for (int k = 1; k < kMaxFeaturePoints; ++k) {
      int i = winner[k - 1];
      double here = score(i, k);
      for (int step = 0; step < count; ++step) {
        const int next = i + 1 < count ? i + 1 : 0;
        const double s = score(next, k);
        if (!(s > here))
          break;
        i = next;
        here = s;
      }
      for (int step = 0; step < count; ++step) {
        const int prev = i > 0 ? i - 1 : count - 1;
        const double s = score(prev, k);
        if (!(s > here))
          break;
        i = prev;
        here = s;
      }
      winner[k] = i;
    }
  } else {
    // Each point scored against all directions in turn (independent running maxima, no chain
    // through the last winner's coordinates).
    double top_score[kMaxFeaturePoints] = {};
    for (int i = 0; i < count; ++i) {
      const Vec3 p = support_field::EntryPoint(mesh, ids[i]);
      const double u = Dot(t1, p), v = Dot(t2, p);
      for (int k = 0; k < kMaxFeaturePoints; ++k) {
        const double s = u * cu[k] + v * cv[k];
        const bool better = i == 0 || s > top_score[k];
        winner[k] = better ? i : winner[k];
        top_score[k] = better ? s : top_score[k];
      }
    }
  }
  // Each winner once, in direction order.
  for (int k = 0; k < kMaxFeaturePoints; ++k) {
    bool taken = false;
    for (int j = 0; j < k; ++j)
      taken |= winner[j] == winner[k];
    if (!taken)
      Add(r, support_field::EntryPoint(mesh, ids[winner[k]]));
  }
}

// The part of hull vertex `start`'s large face within the band along d (vertices at height >=
// floor), from the mesh's face table (MeshView::faces): added to r, or their extremes when more
// than a feature holds. A face cut by the band keeps an arc of its boundary, still in boundary
// order. False (r untouched) when the vertex has no such face, the face has more than
// kMaxFaceGather vertices, or fewer than three of them are in band (an edge or a vertex): the
// walk gathers those.
MJP_HD inline bool FaceFeature(const MeshView& mesh, const Vec3& d, int start, double floor,
                               RawPoints* r) {
  const int face = mesh.faces[start];
  if (face < 0 || mesh.faces[face] > kMaxFaceGather)
    return false;
  const int count = mesh.faces[face];
  const int* ids = mesh.faces + face + 4;  // after the count and the triangle's corners
  int in_band[kMaxFaceGather];
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    in_band[kept] = ids[i];
    kept += support_field::EntryDot(mesh, d, ids[i]) >= floor ? 1 : 0;
  }
  if (kept < 3)
    return false;
  if (kept <= kMaxFeaturePoints) {
    for (int i = 0; i < kept; ++i)
      Add(r, support_field::EntryPoint(mesh, in_band[i]));
  } else {
    SpreadExtremes(mesh, d, in_band, kept, true, r);
  }
  return true;
}

// The mesh's hull vertices within band of its supporting plane along local direction d (in the
// mesh frame): the support vertex's large face, as far as it lies in band, when the mesh has a
// face table and three or more of its vertices do; else a breadth-first walk of the hull graph
// from the support vertex (a scan without a graph).
MJP_HD inline void MeshFeature(const MeshView& mesh, const Vec3& d, double band, RawPoints* r) {
  r->local = true;
  if (mesh.graph == nullptr) {
    double top = -1e300;
    for (int i = 0; i < mesh.nvert; ++i) {
      const double h = DotVertex(d, mesh.vert, i);
      top = h > top ? h : top;
    }
    for (int i = 0; i < mesh.nvert; ++i) {
      if (DotVertex(d, mesh.vert, i) >= top - band)
        Add(r, MeshPoint(mesh.vert, i));
    }
    return;
  }
  const int numvert = mesh.graph[0];
  const int* vert_edgeadr = mesh.graph + 2;
  const int* edge_localid = mesh.graph + 2 + 2 * numvert;
  const int start = support_field::Climb(mesh, d, mesh.hint >= 0 ? mesh.hint : 0);
  const double top = support_field::EntryDot(mesh, d, start);
  const double floor = top - band;
  // A large face lying flat: read from the face table (a walk across it would visit every
  // vertex's neighbours).
  if (mesh.faces != nullptr && FaceFeature(mesh, d, start, floor, r))
    return;
  // The walk gathers up to the mesh's largest face (MeshView::feature_walk), less on fine hulls
  // of small faces.
  const int limit = mesh.feature_walk > kMaxWalkPoints      ? kMaxWalkPoints
                    : mesh.feature_walk > kMaxFeaturePoints ? mesh.feature_walk
                    : numvert > kFineHull                   ? kFineFeaturePoints
                                                            : kMaxFeaturePoints;
  int queue[kMaxWalkPoints + 1];
  int queued = 1;
  queue[0] = start;
  if (numvert >= kBranchFreeWalk && numvert <= kVisitedBits) {
    // Visited ids in a bit set, and each neighbour written after the queue and kept by
    // advancing the count: no branch on the band test or the visited test, which on finer hulls
    // the walk's order makes unpredictable (about half the neighbours are in band, most of them
    // seen). A rejected id left in the spare slot is overwritten. On coarse hulls few neighbours
    // are in band, the branches predict well, and the plain walk below is cheaper.
    unsigned long long visited[kVisitedBits / 64];
    for (int w = 0; w < (numvert + 63) >> 6; ++w)
      visited[w] = 0;
    visited[start >> 6] |= 1ull << (start & 63);
    for (int head = 0; head < queued; ++head) {
      const int current = queue[head];
      for (int e = vert_edgeadr[current]; edge_localid[e] >= 0 && queued < limit; ++e) {
        const int next = edge_localid[e];
        const unsigned long long bit = 1ull << (next & 63);
        const unsigned long long seen = visited[next >> 6] & bit;
        const unsigned long long fresh =
            (support_field::EntryDot(mesh, d, next) >= floor) & (seen == 0);
        queue[queued] = next;
        queued += static_cast<int>(fresh);
        visited[next >> 6] |= bit & (0 - fresh);
      }
    }
  } else {
    // The queue doubles as the visited set.
    for (int head = 0; head < queued; ++head) {
      const int current = queue[head];
      for (int e = vert_edgeadr[current]; edge_localid[e] >= 0 && queued < limit; ++e) {
        const int next = edge_localid[e];
        bool seen = false;
        for (int i = 0; i < queued; ++i)
          seen |= queue[i] == next;
        if (!seen && support_field::EntryDot(mesh, d, next) >= floor)
          queue[queued++] = next;
      }
    }
  }
  if (queued <= kMaxFeaturePoints) {
    for (int i = 0; i < queued; ++i)
      Add(r, support_field::EntryPoint(mesh, queue[i]));
    return;
  }
  // More than a feature holds (a face of many vertices lying flat, where the mesh has no face
  // table).
  SpreadExtremes(mesh, d, queue, queued, false, r);
}

// The raw support feature of geom g along `sign` × n (A: +1, B: −1; n unit).
MJP_HD inline void RawFeature(const ConvexGeom& geom, const Vec3& n, double sign, double band,
                              RawPoints* r) {
  const Vec3 dir = n * sign;
  const GeomView& g = geom.view;
  const double* size = g.size;
  const Vec3 pos = Load3(g.pos);
  const Vec3 axis = Column(g.mat, 2);
  switch (geom.type) {
    case ShapeType::kCapsule: {
      const double c = Dot(dir, axis);
      const Vec3 tip = pos + dir * size[0];
      const Vec3 half = axis * size[1];
      if (2 * size[1] * std::fabs(c) <= band) {
        Add(r, tip + half);
        Add(r, tip - half);
      } else {
        Add(r, c >= 0 ? tip + half : tip - half);
      }
      return;
    }
    case ShapeType::kCylinder: {
      const double c = Dot(dir, axis);
      const Vec3 cap = pos + axis * (c >= 0 ? size[1] : -size[1]);
      const Vec3 radial = dir - axis * c;
      const double radial_length = std::sqrt(Dot(radial, radial));
      if (2 * size[0] * radial_length <= band) {
        // The rim counter-clockwise about n: about the axis when the axis points along n, else
        // the reverse (the cap lies nearly flat in the plane ⊥ n, so the projection keeps the
        // turn).
        // The octagon's directions are constants (cos and sin of k·45°): no sincos per vertex.
        static_assert(kCapSides == 8, "the rim's direction table is an octagon's");
        const double h = 0.70710678118654752;  // √½
        const double cos_k[kCapSides] = {1, h, 0, -h, -1, -h, 0, h};
        const double sin_k[kCapSides] = {0, h, 1, h, 0, -h, -1, -h};
        const Vec3 x = Column(g.mat, 0) * size[0];
        const Vec3 y = Column(g.mat, 1) * (Dot(axis, n) > 0 ? size[0] : -size[0]);
        r->ordered = true;
        for (int k = 0; k < kCapSides; ++k)
          Add(r, cap + x * cos_k[k] + y * sin_k[k]);
        return;
      }
      const Vec3 rim = radial * (size[0] / radial_length);
      Add(r, cap + rim);
      if (2 * size[1] * std::fabs(c) <= band)
        Add(r, cap - axis * (c >= 0 ? 2 * size[1] : -2 * size[1]) + rim);
      return;
    }
    case ShapeType::kBox: {
      const Vec3 d = RotateT(g.mat, dir);
      const double top =
          std::fabs(d.x) * size[0] + std::fabs(d.y) * size[1] + std::fabs(d.z) * size[2];
      r->local = true;
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 q = {corner & 1 ? size[0] : -size[0], corner & 2 ? size[1] : -size[1],
                        corner & 4 ? size[2] : -size[2]};
        if (Dot(d, q) >= top - band)
          Add(r, q);
      }
      return;
    }
    case ShapeType::kMesh:
      if (g.mesh != nullptr && g.mesh->nvert > 0)
        MeshFeature(*g.mesh, RotateT(g.mat, dir), band, r);
      return;
    default:  // sphere, ellipsoid: strictly convex
      Add(r, SupportPoint(geom.type, g, dir));
      return;
  }
}

// The raw points in the contact frame: u = t1 · p, v = t2 · p, h = n · p. Points in the geom's
// frame go through the frame's axes turned into it (one product per axis, no rotation to the
// world first).
MJP_HD inline void Project(const GeomView& g, const RawPoints& r, const ContactFrame& frame,
                           SupportFeature* f) {
  Vec3 t1 = frame.t1, t2 = frame.t2, n = frame.n;
  double o1 = 0, o2 = 0, on = 0;
  if (r.local) {
    const Vec3 pos = Load3(g.pos);
    t1 = RotateT(g.mat, frame.t1);
    t2 = RotateT(g.mat, frame.t2);
    n = RotateT(g.mat, frame.n);
    o1 = Dot(frame.t1, pos);
    o2 = Dot(frame.t2, pos);
    on = Dot(frame.n, pos);
  }
  for (int i = 0; i < r.count; ++i) {
    f->u[i] = Dot(t1, r.p[i]) + o1;
    f->v[i] = Dot(t2, r.p[i]) + o2;
    f->h[i] = Dot(n, r.p[i]) + on;
  }
  f->count = r.count;
}

// 2D cross product of (b − a) and (c − a).
MJP_HD MJP_INLINE double Cross2(double au, double av, double bu, double bv, double cu, double cv) {
  return (bu - au) * (cv - av) - (bv - av) * (cu - au);
}

// The raw feature (three or more points) ordered in the plane: a counter-clockwise convex polygon
// (Andrew's monotone chain), or its two extreme points when collinear within `flat` (an area-like
// tolerance).
MJP_HD inline void OrderFeature(const SupportFeature& raw, double flat, SupportFeature* out) {
  const int count = raw.count;
  // Sort by (u, v), ties by index: each point's rank counts the points before it, each pair
  // compared once and with no data-dependent branch (the points arrive in walk order, which a
  // comparison sort mispredicts).
  int rank[kMaxFeaturePoints] = {};
  for (int i = 1; i < count; ++i) {
    for (int j = 0; j < i; ++j) {
      // j (the earlier index) goes first unless i's key is strictly smaller.
      const int i_first =
          int(raw.u[i] < raw.u[j]) | (int(raw.u[i] == raw.u[j]) & int(raw.v[i] < raw.v[j]));
      rank[j] += i_first;
      rank[i] += i_first ^ 1;
    }
  }
  int order[kMaxFeaturePoints];
  for (int i = 0; i < count; ++i)
    order[rank[i]] = i;
  // Lower then upper hull; points turning by less than `flat` are dropped as collinear.
  int hull[2 * kMaxFeaturePoints];
  int k = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const int base = k;
    for (int s = 0; s < count; ++s) {
      const int i = pass == 0 ? order[s] : order[count - 1 - s];
      while (k >= base + 2 && Cross2(raw.u[hull[k - 2]], raw.v[hull[k - 2]], raw.u[hull[k - 1]],
                                     raw.v[hull[k - 1]], raw.u[i], raw.v[i]) <= flat)
        --k;
      hull[k++] = i;
    }
    --k;  // the last point starts the other chain
  }
  const int n_hull = k < 2 ? 2 : k;
  for (int i = 0; i < n_hull; ++i) {
    const int src = k < 2 ? order[i == 0 ? 0 : count - 1] : hull[i];
    out->u[i] = raw.u[src];
    out->v[i] = raw.v[src];
    out->h[i] = raw.h[src];
  }
  out->count = n_hull;
}

// Height spread of a feature along n.
MJP_HD inline double Spread(const SupportFeature& f) {
  double lo = f.h[0], hi = f.h[0];
  for (int i = 1; i < f.count; ++i) {
    lo = f.h[i] < lo ? f.h[i] : lo;
    hi = f.h[i] > hi ? f.h[i] : hi;
  }
  return hi - lo;
}

// A candidate contact: in-plane coordinates, signed distance and the midpoint's height.
struct Candidate {
  double u, v, dist, h;
};

// Candidates of a patch: the clipped points and the first contact.
constexpr int kMaxCandidates = kMaxManifold + 1;

// The reference polygon's height: its extreme plane along n (A's highest, B's lowest point).
MJP_HD inline double PolygonHeight(const SupportFeature& ref, bool ref_is_a) {
  double extreme = ref.h[0];
  for (int i = 1; i < ref.count; ++i)
    extreme = ref_is_a ? (ref.h[i] > extreme ? ref.h[i] : extreme)
                       : (ref.h[i] < extreme ? ref.h[i] : extreme);
  return extreme;
}

// The reference segment's height at (u, v): its line, interpolated at the projection of (u, v)
// (clamped to the segment).
MJP_HD inline double SegmentHeight(const SupportFeature& ref, double u, double v) {
  const double du = ref.u[1] - ref.u[0], dv = ref.v[1] - ref.v[0];
  const double length2 = du * du + dv * dv;
  double t = length2 > 0 ? ((u - ref.u[0]) * du + (v - ref.v[0]) * dv) / length2 : 0;
  t = Clip(t, 0.0, 1.0);
  return ref.h[0] + (ref.h[1] - ref.h[0]) * t;
}

// The clipped incident points: up to kMaxManifold, in frame coordinates.
struct ClippedPoints {
  int count = 0;
  double u[kMaxManifold], v[kMaxManifold], h[kMaxManifold];
};

// Points at parameters lo and hi of the incident segment.
MJP_HD inline void SegmentPoints(const SupportFeature& inc, double lo, double hi,
                                 ClippedPoints* out) {
  const double ts[2] = {lo, hi};
  for (int k = 0; k < 2; ++k) {
    out->u[k] = inc.u[0] + (inc.u[1] - inc.u[0]) * ts[k];
    out->v[k] = inc.v[0] + (inc.v[1] - inc.v[0]) * ts[k];
    out->h[k] = inc.h[0] + (inc.h[1] - inc.h[0]) * ts[k];
  }
  out->count = 2;
}

// The radius of the curved surface a geom's two-point support feature runs along: a capsule's or
// a cylinder's side line (r); 0 for a box's or a mesh's edge.
MJP_HD inline double SideRadius(const ConvexGeom& g) {
  return g.type == ShapeType::kCapsule || g.type == ShapeType::kCylinder ? g.view.size[0] : 0;
}

// Segment–segment: the incident segment's part that lies along the reference (its parameters
// whose projections fall within the reference), as its two ends. Two straight edges (bend 0)
// touch along a line only when parallel (within about 1°: sin² ≤ 3e-4); crossing, they meet in
// the first contact's point alone (no points). A side line of radius r (a capsule's, a
// cylinder's) has its surface fall away from the contact plane as x²/2r at in-plane distance x
// from it, so where the incident line runs at in-plane distance w from the reference line the
// surfaces are farther apart than the lines by w²/2(r_A + r_B) (the least of x²/2r_A +
// (w − x)²/2r_B; second order in w). With bend = r_A + r_B > 0 the overlap's ends are taken at
// any angle, each moved halfway towards the reference line and its height moved away from the
// reference by that gap (`away`: +1 when the incident lies along +n from the reference, i.e. the
// reference is A's), so that the caller's distances carry it and drop the ends beyond the margin:
// two cylinders lying side by side with axes a few degrees apart touch along their length, not
// at one point.
MJP_HD inline void ClipSegmentPair(const SupportFeature& ref, const SupportFeature& inc,
                                   double bend, double away, ClippedPoints* out) {
  out->count = 0;
  const double ru = ref.u[1] - ref.u[0], rv = ref.v[1] - ref.v[0];
  const double iu = inc.u[1] - inc.u[0], iv = inc.v[1] - inc.v[0];
  const double rl2 = ru * ru + rv * rv, il2 = iu * iu + iv * iv;
  const double cross = ru * iv - rv * iu;
  if (!(rl2 > 0 && il2 > 0) || (!(bend > 0) && cross * cross > 3e-4 * rl2 * il2))
    return;
  // The incident ends' parameters along the reference; the incident's part within [0, 1].
  const double s0 = ((inc.u[0] - ref.u[0]) * ru + (inc.v[0] - ref.v[0]) * rv) / rl2;
  const double s1 = ((inc.u[1] - ref.u[0]) * ru + (inc.v[1] - ref.v[0]) * rv) / rl2;
  if (!(std::fabs(s1 - s0) > 1e-12))
    return;  // the incident runs across the reference's line: no length in common
  double lo = -s0 / (s1 - s0), hi = (1 - s0) / (s1 - s0);
  if (lo > hi) {
    const double swap = lo;
    lo = hi;
    hi = swap;
  }
  lo = lo < 0 ? 0 : lo;
  hi = hi > 1 ? 1 : hi;
  if (!(hi > lo))
    return;
  SegmentPoints(inc, lo, hi, out);
  for (int k = 0; k < 2 && bend > 0; ++k) {
    // w: the signed in-plane distance from the reference line, times |r|.
    const double w = ru * (out->v[k] - ref.v[0]) - rv * (out->u[k] - ref.u[0]);
    out->h[k] += away * w * w / (rl2 * 2 * bend);
    out->u[k] += 0.5 * w * rv / rl2;
    out->v[k] -= 0.5 * w * ru / rl2;
  }
}

// Clips the incident polygon against each edge of the counter-clockwise reference polygon
// (Sutherland–Hodgman); clipped points stay on the incident polygon (u, v and h interpolated
// alike).
MJP_HD inline void ClipPolygon(const SupportFeature& ref, const SupportFeature& inc,
                               ClippedPoints* out) {
  ClippedPoints p[2];
  int count = inc.count, from = 0;
  for (int i = 0; i < count; ++i) {
    p[0].u[i] = inc.u[i];
    p[0].v[i] = inc.v[i];
    p[0].h[i] = inc.h[i];
  }
  for (int e = 0; e < ref.count && count > 0; ++e) {
    const int e1 = CyclicNext(e, ref.count), to = 1 - from;
    const double au = ref.u[e], av = ref.v[e], bu = ref.u[e1], bv = ref.v[e1];
    const ClippedPoints& src = p[from];
    ClippedPoints& dst = p[to];
    int kept = 0;
    // Each point's side of the clip line is computed once: step i reuses step i − 1's side of j.
    double sj = Cross2(au, av, bu, bv, src.u[0], src.v[0]);
    for (int i = 0; i < count && kept + 2 <= kMaxManifold; ++i) {
      const int j = CyclicNext(i, count);
      const double si = sj;
      sj = Cross2(au, av, bu, bv, src.u[j], src.v[j]);
      if (si >= 0) {  // inside: kept
        dst.u[kept] = src.u[i], dst.v[kept] = src.v[i], dst.h[kept] = src.h[i];
        ++kept;
      }
      if ((si >= 0) != (sj >= 0)) {  // the edge crosses the clip line: its crossing point
        const double t = si / (si - sj);
        dst.u[kept] = src.u[i] + (src.u[j] - src.u[i]) * t;
        dst.v[kept] = src.v[i] + (src.v[j] - src.v[i]) * t;
        dst.h[kept] = src.h[i] + (src.h[j] - src.h[i]) * t;
        ++kept;
      }
    }
    count = kept;
    from = to;
  }
  for (int i = 0; i < count; ++i) {
    out->u[i] = p[from].u[i];
    out->v[i] = p[from].v[i];
    out->h[i] = p[from].h[i];
  }
  out->count = count;
}

// Clips the incident segment (points 0 and 1) to the counter-clockwise reference polygon: the
// parameter interval inside every edge's half-plane: 0 or 2 points.
MJP_HD inline void ClipSegment(const SupportFeature& ref, const SupportFeature& inc,
                               ClippedPoints* out) {
  out->count = 0;
  double lo = 0, hi = 1;
  for (int e = 0; e < ref.count; ++e) {
    const int e1 = CyclicNext(e, ref.count);
    const double s0 = Cross2(ref.u[e], ref.v[e], ref.u[e1], ref.v[e1], inc.u[0], inc.v[0]);
    const double s1 = Cross2(ref.u[e], ref.v[e], ref.u[e1], ref.v[e1], inc.u[1], inc.v[1]);
    if (s0 < 0 && s1 < 0)
      return;
    if (s0 < 0) {
      const double t = s0 / (s0 - s1);
      lo = t > lo ? t : lo;
    } else if (s1 < 0) {
      const double t = s0 / (s0 - s1);
      hi = t < hi ? t : hi;
    }
  }
  if (hi >= lo)
    SegmentPoints(inc, lo, hi, out);
}

// Depth range, as a fraction of a patch's extent, under which the patch counts as lying flat
// (Reduce): a tilt of about 1e-3 rad.
constexpr double kFlatPatch = 1e-3;

// The candidate a reduction keeps first (count >= 1): the deepest; on a patch lying flat (depths
// within kFlatPatch of its extent along u) the one farthest along u instead, so that the kept set
// follows positions, not the depths' rounding and the tilt that a soft contact's load gives:
// deepest-first chose another set as the load shifted and a can of 100 sides on a slab rocked.
// (The running extremes are kept as values: no reload through the winning index.)
MJP_HD inline int FirstKept(const Candidate* c, int count) {
  int deepest = 0, first_u = 0;
  double lo_dist = c[0].dist, hi_dist = c[0].dist, lo_u = c[0].u, hi_u = c[0].u;
  for (int i = 1; i < count; ++i) {
    const double dist = c[i].dist, u = c[i].u;
    deepest = dist < lo_dist ? i : deepest;
    lo_dist = dist < lo_dist ? dist : lo_dist;
    hi_dist = dist > hi_dist ? dist : hi_dist;
    first_u = u > hi_u ? i : first_u;
    hi_u = u > hi_u ? u : hi_u;
    lo_u = u < lo_u ? u : lo_u;
  }
  const bool flat = hi_dist - lo_dist <= kFlatPatch * (hi_u - lo_u);
  return flat ? first_u : deepest;
}

// Keeps at most `capacity` candidates (capacity >= 1): the deepest (on a flat patch, the farthest
// along u); the farthest from it; the
// one spanning the largest triangle with those two; the largest triangle on the other side of
// their line; then, one by one, the farthest from all kept.
MJP_HD inline int Reduce(Candidate* c, int count, int capacity) {
  if (count <= capacity)
    return count;
  int kept[kMaxManifold];
  bool used[kMaxCandidates] = {};
  int n = 0;
  const int first = FirstKept(c, count);
  kept[n++] = first;
  used[first] = true;
  double side = 0;  // sign of the third point's side of the first two's line
  while (n < capacity) {
    int best = -1;
    double score = 0;
    for (int i = 0; i < count; ++i) {
      if (used[i])
        continue;
      const Candidate& k0 = c[kept[0]];
      double s;
      if (n == 1) {
        s = (c[i].u - k0.u) * (c[i].u - k0.u) + (c[i].v - k0.v) * (c[i].v - k0.v);
      } else if (n <= 3) {
        const Candidate& k1 = c[kept[1]];
        const double area = Cross2(k0.u, k0.v, k1.u, k1.v, c[i].u, c[i].v);
        s = n == 2 ? std::fabs(area) : -side * area;
      } else {
        s = 1e300;
        for (int k = 0; k < n; ++k) {
          const Candidate& kk = c[kept[k]];
          const double d2 = (c[i].u - kk.u) * (c[i].u - kk.u) + (c[i].v - kk.v) * (c[i].v - kk.v);
          s = d2 < s ? d2 : s;
        }
      }
      if (best < 0 || s > score) {
        score = s;
        best = i;
      }
    }
    if (best < 0)
      break;
    if (n == 2) {
      const Candidate& k0 = c[kept[0]];
      const Candidate& k1 = c[kept[1]];
      side = Cross2(k0.u, k0.v, k1.u, k1.v, c[best].u, c[best].v) >= 0 ? 1 : -1;
    }
    kept[n++] = best;
    used[best] = true;
  }
  Candidate out[kMaxManifold];
  for (int i = 0; i < n; ++i)
    out[i] = c[kept[i]];
  for (int i = 0; i < n; ++i)
    c[i] = out[i];
  return n;
}

}  // namespace manifold

// The contact patch of geoms a and b touching at contact `first` (its normal n, A towards B), as
// above. Each feature's band is kFeatureBand × its geom's scale plus the reach: how far above the
// deepest point a point may lie and still be within the margin (margin − first.dist, capped at a
// tenth of the scale). Writes at most `capacity` contacts, all with dist <= margin and normal n;
// returns the count (0 or 1: the caller keeps its first contact).
MJP_HD inline int ClipManifold(const ConvexGeom& a, const ConvexGeom& b, const Contact& first,
                               double margin, Contact* out, int capacity) {
  using manifold::Candidate;
  const Vec3 n = first.normal;
  const double reach = margin - first.dist;
  const double scale_a = GeomScale(a), scale_b = GeomScale(b);
  RawPoints raw_a, raw_b;
  manifold::RawFeature(a, n, 1, FeatureBand(scale_a, reach), &raw_a);
  if (raw_a.count < 2)
    return 0;
  manifold::RawFeature(b, n, -1, FeatureBand(scale_b, reach), &raw_b);
  if (raw_b.count < 2)
    return 0;
  ContactFrame frame;
  frame.n = n;
  TangentFrame(n, &frame.t1, &frame.t2);
  // Each feature in the contact frame, ordered unless it came ordered or has only two points;
  // turns of less than 1e-10 of the scale squared are collinear.
  const auto in_frame = [&frame](const ConvexGeom& g, const RawPoints& raw, double scale,
                                 SupportFeature* f) {
    if (raw.ordered || raw.count < 3) {
      manifold::Project(g.view, raw, frame, f);
      return;
    }
    SupportFeature projected;
    manifold::Project(g.view, raw, frame, &projected);
    manifold::OrderFeature(projected, 1e-10 * scale * scale, f);
  };
  SupportFeature fa, fb;
  in_frame(a, raw_a, scale_a, &fa);
  in_frame(b, raw_b, scale_b, &fb);

  // Reference: a polygon (the flatter one when both are), else A's segment.
  bool ref_is_a;
  if (fa.count >= 3 && fb.count >= 3) {
    ref_is_a = manifold::Spread(fa) <= manifold::Spread(fb);
  } else {
    ref_is_a = fa.count >= 3 || fb.count < 3;
  }
  const SupportFeature& ref = ref_is_a ? fa : fb;
  const SupportFeature& inc = ref_is_a ? fb : fa;

  manifold::ClippedPoints p;
  if (ref.count >= 3) {
    if (inc.count >= 3) {
      manifold::ClipPolygon(ref, inc, &p);
    } else {
      manifold::ClipSegment(ref, inc, &p);
    }
  } else {
    manifold::ClipSegmentPair(ref, inc, manifold::SideRadius(a) + manifold::SideRadius(b),
                              ref_is_a ? 1 : -1, &p);
  }

  // Distances along n and the midpoints' heights; beyond the margin dropped.
  Candidate c[manifold::kMaxCandidates];
  int kept = 0;
  double deepest_clipped = 1e300;  // the least dist among the clipped points
  const bool ref_polygon = ref.count >= 3;
  const double polygon_height = ref_polygon ? manifold::PolygonHeight(ref, ref_is_a) : 0;
  for (int i = 0; i < p.count; ++i) {
    const double h_ref =
        ref_polygon ? polygon_height : manifold::SegmentHeight(ref, p.u[i], p.v[i]);
    const double dist = ref_is_a ? p.h[i] - h_ref : h_ref - p.h[i];
    if (!(dist <= margin))
      continue;
    deepest_clipped = dist < deepest_clipped ? dist : deepest_clipped;
    c[kept++] = {p.u[i], p.v[i], dist, p.h[i] + (ref_is_a ? -0.5 * dist : 0.5 * dist)};
  }
  // The first contact, when deeper than all of them beyond rounding (on a flat patch the clipped
  // corners carry its depth themselves).
  if (kept >= 1 && first.dist < deepest_clipped - 1e-12 * (scale_a + scale_b))
    c[kept++] = {Dot(frame.t1, first.pos), Dot(frame.t2, first.pos), first.dist, Dot(n, first.pos)};
  kept = manifold::Reduce(c, kept, capacity < kMaxManifold ? capacity : kMaxManifold);
  for (int i = 0; i < kept; ++i) {
    const Vec3 pos = frame.t1 * c[i].u + frame.t2 * c[i].v + n * c[i].h;
    out[i] = {c[i].dist, pos, n, {0, 0, 0}};
  }
  return kept;
}

}  // namespace mjportal::collision
