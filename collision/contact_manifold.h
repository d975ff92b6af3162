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
//   mesh                the hull vertices within band, gathered by a breadth-first walk of the
//                       hull graph from the support vertex (at most kMaxFeaturePoints)
// Three or more points are made a convex polygon in the plane ⊥ n (2D hull, counter-clockwise
// about n); collinear ones a segment. Then, in that plane:
//   polygon–polygon   the flatter polygon (smaller height spread along n) is the reference;
//                     the other (incident) is clipped against each reference edge
//   polygon–segment   the segment is clipped against the polygon
//   segment–segment   nearly parallel: the two ends of their overlap; crossing: none
//   with a point      none (the caller keeps its first contact)
// Each clipped point x of the incident feature (a 3D point on it) gets
//   dist = h_B(x) − h_A(x), heights along n; the reference's height is its extreme plane (a
//   polygon) or its line interpolated at x (a segment)
// and the contact sits halfway between the two heights. Points with dist > margin are dropped;
// beyond `capacity`, the kept ones are the deepest and then the ones spanning the largest area.
// All normals are n. Every loop has a fixed bound; storage is on the stack.
#pragma once

#include <cmath>

#include "collision/contact.h"
#include "collision/minkowski.h"
#include "collision/support_field.h"

namespace mjportal::collision {

constexpr int kMaxFeaturePoints = 16;  // points kept per support feature
constexpr int kCapSides = 8;           // a cylinder cap as a regular polygon
constexpr int kMaxManifold = kMaxFeaturePoints * 2 + 2;

// A support feature: its points in world coordinates (a convex polygon, counter-clockwise about
// n, when count >= 3) with their 2D coordinates in the plane ⊥ n and heights along n.
struct SupportFeature {
  int count = 0;
  Vec3 p[kMaxFeaturePoints];
  double u[kMaxFeaturePoints], v[kMaxFeaturePoints];  // in-plane coordinates (t1, t2)
  double h[kMaxFeaturePoints];                        // n · p
};

namespace manifold {

// Appends a point unless the feature is full.
MJP_HD inline void Add(SupportFeature* f, const Vec3& p) {
  if (f->count < kMaxFeaturePoints)
    f->p[f->count++] = p;
}

// The mesh's hull vertices within band of its supporting plane along local direction d: a
// breadth-first walk of the hull graph from the support vertex (a scan without a graph).
MJP_HD inline void MeshFeature(const GeomView& g, const Vec3& d, double band, SupportFeature* f) {
  const MeshView& mesh = *g.mesh;
  const auto world = [&](int vertex) {
    const float* q = mesh.vert + 3 * vertex;
    const Vec3 local = {static_cast<double>(q[0]), static_cast<double>(q[1]),
                        static_cast<double>(q[2])};
    return Rotate(g.mat, local) + Load3(g.pos);
  };
  if (mesh.graph == nullptr) {
    double top = -1e300;
    for (int i = 0; i < mesh.nvert; ++i) {
      const double h = DotVertex(d, mesh.vert, i);
      top = h > top ? h : top;
    }
    for (int i = 0; i < mesh.nvert; ++i) {
      if (DotVertex(d, mesh.vert, i) >= top - band)
        Add(f, world(i));
    }
    return;
  }
  const int numvert = mesh.graph[0];
  const int* vert_edgeadr = mesh.graph + 2;
  const int* edge_localid = mesh.graph + 2 + 2 * numvert;
  const int start = support_field::Climb(mesh, d, mesh.hint >= 0 ? mesh.hint : 0);
  const double top = support_field::EntryDot(mesh, d, start);
  // Queue of hull-local ids within band; it doubles as the visited set.
  int queue[kMaxFeaturePoints];
  int queued = 1;
  queue[0] = start;
  for (int head = 0; head < queued; ++head) {
    const int current = queue[head];
    for (int e = vert_edgeadr[current]; edge_localid[e] >= 0 && queued < kMaxFeaturePoints; ++e) {
      const int next = edge_localid[e];
      bool seen = false;
      for (int i = 0; i < queued; ++i)
        seen |= queue[i] == next;
      if (!seen && support_field::EntryDot(mesh, d, next) >= top - band)
        queue[queued++] = next;
    }
  }
  for (int i = 0; i < queued; ++i)
    Add(f, Rotate(g.mat, support_field::EntryPoint(mesh, queue[i])) + Load3(g.pos));
}

// The raw support feature of geom g along world direction dir (unit), unordered.
MJP_HD inline void RawFeature(const ConvexGeom& geom, const Vec3& dir, double band,
                              SupportFeature* f) {
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
        Add(f, tip + half);
        Add(f, tip - half);
      } else {
        Add(f, c >= 0 ? tip + half : tip - half);
      }
      return;
    }
    case ShapeType::kCylinder: {
      const double c = Dot(dir, axis);
      const Vec3 cap = pos + axis * (c >= 0 ? size[1] : -size[1]);
      const Vec3 radial = dir - axis * c;
      const double radial_length = std::sqrt(Dot(radial, radial));
      if (2 * size[0] * radial_length <= band) {
        const Vec3 x = Column(g.mat, 0), y = Column(g.mat, 1);
        for (int k = 0; k < kCapSides; ++k) {
          const double angle = 2 * support_field::kPi * k / kCapSides;
          Add(f, cap + (x * std::cos(angle) + y * std::sin(angle)) * size[0]);
        }
        return;
      }
      const Vec3 rim = radial * (size[0] / radial_length);
      Add(f, cap + rim);
      if (2 * size[1] * std::fabs(c) <= band)
        Add(f, cap - axis * (c >= 0 ? 2 * size[1] : -2 * size[1]) + rim);
      return;
    }
    case ShapeType::kBox: {
      const Vec3 d = RotateT(g.mat, dir);
      const double top =
          std::fabs(d.x) * size[0] + std::fabs(d.y) * size[1] + std::fabs(d.z) * size[2];
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 local = {corner & 1 ? size[0] : -size[0], corner & 2 ? size[1] : -size[1],
                            corner & 4 ? size[2] : -size[2]};
        if (Dot(d, local) >= top - band)
          Add(f, Rotate(g.mat, local) + pos);
      }
      return;
    }
    case ShapeType::kMesh:
      if (g.mesh != nullptr && g.mesh->nvert > 0)
        MeshFeature(g, RotateT(g.mat, dir), band, f);
      return;
    default:  // sphere, ellipsoid: strictly convex
      Add(f, SupportPoint(geom.type, g, dir));
      return;
  }
}

// 2D cross product of (b − a) and (c − a).
MJP_HD MJP_INLINE double Cross2(double au, double av, double bu, double bv, double cu, double cv) {
  return (bu - au) * (cv - av) - (bv - av) * (cu - au);
}

// Orders the feature in the plane (t1, t2): a counter-clockwise convex polygon (Andrew's monotone
// chain), or its two extreme points when collinear within `flat` (an area-like tolerance).
MJP_HD inline void OrderFeature(SupportFeature* f, const Vec3& n, const Vec3& t1, const Vec3& t2,
                                double flat) {
  const int count = f->count;
  for (int i = 0; i < count; ++i) {
    f->u[i] = Dot(t1, f->p[i]);
    f->v[i] = Dot(t2, f->p[i]);
    f->h[i] = Dot(n, f->p[i]);
  }
  if (count < 3)
    return;
  // Sort by (u, v): insertion sort on an index list.
  int order[kMaxFeaturePoints];
  for (int i = 0; i < count; ++i) {
    int j = i;
    for (; j > 0; --j) {
      const int o = order[j - 1];
      if (f->u[o] < f->u[i] || (f->u[o] == f->u[i] && f->v[o] <= f->v[i]))
        break;
      order[j] = o;
    }
    order[j] = i;
  }
  // Lower then upper hull; points turning by less than `flat` are dropped as collinear.
  int hull[2 * kMaxFeaturePoints];
  int k = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const int base = k;
    for (int s = 0; s < count; ++s) {
      const int i = pass == 0 ? order[s] : order[count - 1 - s];
      while (k >= base + 2 && Cross2(f->u[hull[k - 2]], f->v[hull[k - 2]], f->u[hull[k - 1]],
                                     f->v[hull[k - 1]], f->u[i], f->v[i]) <= flat)
        --k;
      hull[k++] = i;
    }
    --k;  // the last point starts the other chain
  }
  SupportFeature ordered;
  const int n_hull = k < 2 ? 2 : k;
  for (int i = 0; i < n_hull; ++i) {
    const int src = k < 2 ? order[i == 0 ? 0 : count - 1] : hull[i];
    ordered.p[i] = f->p[src];
    ordered.u[i] = f->u[src];
    ordered.v[i] = f->v[src];
    ordered.h[i] = f->h[src];
  }
  ordered.count = n_hull;
  *f = ordered;
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

// A candidate contact: in-plane coordinates, signed distance and midpoint.
struct Candidate {
  double u, v, dist;
  Vec3 pos;
};

// The reference feature's height at (u, v): its extreme plane (polygon: A's highest, B's lowest
// point along n) or its line (segment), interpolated.
MJP_HD inline double ReferenceHeight(const SupportFeature& ref, bool ref_is_a, double u, double v) {
  if (ref.count == 2) {
    const double du = ref.u[1] - ref.u[0], dv = ref.v[1] - ref.v[0];
    const double length2 = du * du + dv * dv;
    double t = length2 > 0 ? ((u - ref.u[0]) * du + (v - ref.v[0]) * dv) / length2 : 0;
    t = Clip(t, 0.0, 1.0);
    return ref.h[0] + (ref.h[1] - ref.h[0]) * t;
  }
  double extreme = ref.h[0];
  for (int i = 1; i < ref.count; ++i)
    extreme = ref_is_a ? (ref.h[i] > extreme ? ref.h[i] : extreme)
                       : (ref.h[i] < extreme ? ref.h[i] : extreme);
  return extreme;
}

// Points at parameters lo and hi of the incident segment (3D and in-plane).
MJP_HD inline int SegmentPoints(const SupportFeature& inc, double lo, double hi, Vec3* out_p,
                                double* out_u, double* out_v) {
  const double ts[2] = {lo, hi};
  for (int k = 0; k < 2; ++k) {
    out_p[k] = inc.p[0] + (inc.p[1] - inc.p[0]) * ts[k];
    out_u[k] = inc.u[0] + (inc.u[1] - inc.u[0]) * ts[k];
    out_v[k] = inc.v[0] + (inc.v[1] - inc.v[0]) * ts[k];
  }
  return 2;
}

// Clips the incident polygon against each edge of the counter-clockwise reference polygon
// (Sutherland–Hodgman); clipped points stay on the incident polygon (3D interpolation). Returns
// the count written to out_p / out_u / out_v.
MJP_HD inline int ClipPolygon(const SupportFeature& ref, const SupportFeature& inc, Vec3* out_p,
                              double* out_u, double* out_v) {
  Vec3 p[2][kMaxManifold];
  double pu[2][kMaxManifold], pv[2][kMaxManifold];
  int count = inc.count, from = 0;
  for (int i = 0; i < count; ++i) {
    p[0][i] = inc.p[i];
    pu[0][i] = inc.u[i];
    pv[0][i] = inc.v[i];
  }
  for (int e = 0; e < ref.count && count > 0; ++e) {
    const int e1 = CyclicNext(e, ref.count), to = 1 - from;
    const double au = ref.u[e], av = ref.v[e], bu = ref.u[e1], bv = ref.v[e1];
    int kept = 0;
    // Each point's side of the clip line is computed once: step i reuses step i − 1's side of j.
    double sj = Cross2(au, av, bu, bv, pu[from][0], pv[from][0]);
    for (int i = 0; i < count && kept + 2 <= kMaxManifold; ++i) {
      const int j = CyclicNext(i, count);
      const double si = sj;
      sj = Cross2(au, av, bu, bv, pu[from][j], pv[from][j]);
      if (si >= 0) {  // inside: kept
        p[to][kept] = p[from][i], pu[to][kept] = pu[from][i], pv[to][kept] = pv[from][i];
        ++kept;
      }
      if ((si >= 0) != (sj >= 0)) {  // the edge crosses the clip line: its crossing point
        const double t = si / (si - sj);
        p[to][kept] = p[from][i] + (p[from][j] - p[from][i]) * t;
        pu[to][kept] = pu[from][i] + (pu[from][j] - pu[from][i]) * t;
        pv[to][kept] = pv[from][i] + (pv[from][j] - pv[from][i]) * t;
        ++kept;
      }
    }
    count = kept;
    from = to;
  }
  for (int i = 0; i < count; ++i) {
    out_p[i] = p[from][i];
    out_u[i] = pu[from][i];
    out_v[i] = pv[from][i];
  }
  return count;
}

// Clips the incident segment (points 0 and 1) to the counter-clockwise reference polygon: the
// parameter interval inside every edge's half-plane. Returns 0 or 2 points.
MJP_HD inline int ClipSegment(const SupportFeature& ref, const SupportFeature& inc, Vec3* out_p,
                              double* out_u, double* out_v) {
  double lo = 0, hi = 1;
  for (int e = 0; e < ref.count; ++e) {
    const int e1 = CyclicNext(e, ref.count);
    const double s0 = Cross2(ref.u[e], ref.v[e], ref.u[e1], ref.v[e1], inc.u[0], inc.v[0]);
    const double s1 = Cross2(ref.u[e], ref.v[e], ref.u[e1], ref.v[e1], inc.u[1], inc.v[1]);
    if (s0 < 0 && s1 < 0)
      return 0;
    if (s0 < 0) {
      const double t = s0 / (s0 - s1);
      lo = t > lo ? t : lo;
    } else if (s1 < 0) {
      const double t = s0 / (s0 - s1);
      hi = t < hi ? t : hi;
    }
  }
  if (!(hi >= lo))
    return 0;
  return SegmentPoints(inc, lo, hi, out_p, out_u, out_v);
}

// Keeps at most `capacity` candidates (capacity >= 1): the deepest; the farthest from it; the
// one spanning the largest triangle with those two; the largest triangle on the other side of
// their line; then, one by one, the farthest from all kept.
MJP_HD inline int Reduce(Candidate* c, int count, int capacity) {
  if (count <= capacity)
    return count;
  int kept[kMaxManifold];
  bool used[kMaxManifold] = {};
  int n = 0;
  int deepest = 0;
  for (int i = 1; i < count; ++i)
    deepest = c[i].dist < c[deepest].dist ? i : deepest;
  kept[n++] = deepest;
  used[deepest] = true;
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

// Height tolerance of a support feature, as a fraction of the geom's scale (GeomScale).
constexpr double kFeatureBand = 1e-3;

// The contact patch of geoms a and b touching along unit normal n (A towards B), as above. Each
// feature's band is kFeatureBand × its geom's scale plus `reach`: how far above the deepest point
// a point may lie and still be within the margin (the caller's margin − first dist, capped at a
// tenth of the scale). Writes at most `capacity` contacts, all with dist <= margin and normal n;
// returns the count (0 or 1: the caller keeps its first contact).
MJP_HD inline int ClipManifold(const ConvexGeom& a, const ConvexGeom& b, const Vec3& n,
                               double reach, double margin, Contact* out, int capacity) {
  using manifold::Candidate;
  const double scale_a = GeomScale(a), scale_b = GeomScale(b);
  const auto band = [reach](double scale) {
    const double cap = 0.1 * scale;
    return kFeatureBand * scale + (reach < cap ? (reach > 0 ? reach : 0) : cap);
  };
  SupportFeature fa, fb;
  manifold::RawFeature(a, n, band(scale_a), &fa);
  if (fa.count < 2)
    return 0;
  manifold::RawFeature(b, -n, band(scale_b), &fb);
  if (fb.count < 2)
    return 0;
  Vec3 t1, t2;
  TangentFrame(n, &t1, &t2);
  // Turns of less than 1e-10 of the scale squared are collinear.
  manifold::OrderFeature(&fa, n, t1, t2, 1e-10 * scale_a * scale_a);
  manifold::OrderFeature(&fb, n, t1, t2, 1e-10 * scale_b * scale_b);

  // Reference: a polygon (the flatter one when both are), else A's segment.
  bool ref_is_a;
  if (fa.count >= 3 && fb.count >= 3) {
    ref_is_a = manifold::Spread(fa) <= manifold::Spread(fb);
  } else {
    ref_is_a = fa.count >= 3 || fb.count < 3;
  }
  const SupportFeature& ref = ref_is_a ? fa : fb;
  const SupportFeature& inc = ref_is_a ? fb : fa;

  Vec3 p[kMaxManifold];
  double pu[kMaxManifold], pv[kMaxManifold];
  int count = 0;
  if (ref.count >= 3) {
    count = inc.count >= 3 ? manifold::ClipPolygon(ref, inc, p, pu, pv)
                           : manifold::ClipSegment(ref, inc, p, pu, pv);
  } else {
    // Segment–segment: the ends of their overlap when parallel within about 1°.
    const double ru = ref.u[1] - ref.u[0], rv = ref.v[1] - ref.v[0];
    const double iu = inc.u[1] - inc.u[0], iv = inc.v[1] - inc.v[0];
    const double rl2 = ru * ru + rv * rv, il2 = iu * iu + iv * iv;
    const double cross = ru * iv - rv * iu;
    if (!(rl2 > 0 && il2 > 0) || cross * cross > 3e-4 * rl2 * il2)
      return 0;
    // The incident ends' parameters along the reference; the incident's part within [0, 1].
    const double s0 = ((inc.u[0] - ref.u[0]) * ru + (inc.v[0] - ref.v[0]) * rv) / rl2;
    const double s1 = ((inc.u[1] - ref.u[0]) * ru + (inc.v[1] - ref.v[0]) * rv) / rl2;
    double lo = -s0 / (s1 - s0), hi = (1 - s0) / (s1 - s0);
    if (lo > hi) {
      const double swap = lo;
      lo = hi;
      hi = swap;
    }
    lo = lo < 0 ? 0 : lo;
    hi = hi > 1 ? 1 : hi;
    if (!(hi > lo))
      return 0;
    count = manifold::SegmentPoints(inc, lo, hi, p, pu, pv);
  }

  // Distances along n and the midpoints; beyond the margin dropped.
  Candidate c[kMaxManifold];
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    const double h_inc = Dot(n, p[i]);
    const double h_ref = manifold::ReferenceHeight(ref, ref_is_a, pu[i], pv[i]);
    const double dist = ref_is_a ? h_inc - h_ref : h_ref - h_inc;
    if (!(dist <= margin))
      continue;
    const Vec3 pos = p[i] + n * (ref_is_a ? -0.5 * dist : 0.5 * dist);
    c[kept++] = {pu[i], pv[i], dist, pos};
  }
  kept = manifold::Reduce(c, kept, capacity < kMaxManifold ? capacity : kMaxManifold);
  for (int i = 0; i < kept; ++i)
    out[i] = {c[i].dist, c[i].pos, n, {0, 0, 0}};
  return kept;
}

}  // namespace mjportal::collision
