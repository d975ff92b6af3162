// Compat: MuJoCo 3.12's native EPA (engine_collision_gjk.c), reproduced bit for bit.
//
// The Expanding Polytope Algorithm (van den Bergen, "Proximity queries and penetration depth
// computation on 3D game objects", GDC 2001): start from a polytope inside A - B that contains
// the origin (built from GJK's final simplex: a segment becomes a hexahedron around it, a
// triangle a double tetrahedron, a tetrahedron itself), then repeatedly take the face nearest
// to the origin, add the support point along its normal, remove the faces that point sees (the
// horizon walk) and fan new faces from it to the horizon. It ends when the support point rises
// less than the tolerance above that face (lower and upper bounds on the depth meet), on a
// repeated vertex for polytopes, or when the iterations run out.
//
// Faces live in caller-owned scratch (NativeEpaScratch); a face's three vertex ids are packed in
// 10 bits each, so the polytope holds at most 1,024 vertices (MuJoCo caps EPA at 1,000 steps).
#pragma once

#include "collision/native_gjk.h"

namespace mjportal::collision {

// EPA's iteration cap: min(ccd_iterations, 1000).
MJP_HD MJP_INLINE int NativeEpaIterations(int max_iterations) {
  return max_iterations < 1000 ? max_iterations : 1000;
}

// One polytope face: vertex ids packed (v1 | v2 << 10 | v3 << 20); neighbours across the edges
// (v1 v2), (v2 v3), (v3 v1); v the projection of the origin onto its plane (pointing out);
// dist2 = |v|²; index its slot in the candidate map (-1: not in it, -2: deleted).
struct NativeFace {
  int verts;
  int adj[3];
  Vec3 v;
  double dist2;
  int index;
};

// Scratch for one solve, sized for `iterations` (the model's ccd_iterations): vertices
// 5 + iterations, faces and map 6 × iterations, horizon 6 × iterations. map_dist2[i] mirrors
// faces[map[i]].dist2, so the nearest-face scan reads one contiguous array.
struct NativeEpaScratch {
  NativeVertex* verts = nullptr;
  NativeFace* faces = nullptr;
  int* map = nullptr;
  double* map_dist2 = nullptr;
  int* horizon_index = nullptr;
  int* horizon_edge = nullptr;
  int iterations = 0;
};

// Bytes of scratch for `iterations`, each array 8-byte aligned.
constexpr unsigned long NativeEpaScratchBytes(int iterations) {
  return sizeof(NativeVertex) * (5 + iterations) + sizeof(NativeFace) * 6 * iterations +
         sizeof(double) * (6 * iterations + 1) + 3 * sizeof(int) * (6 * iterations + 1) + 32;
}

// Lays the arrays of NativeEpaScratch out in `memory` (NativeEpaScratchBytes(iterations) bytes,
// 8-byte aligned).
MJP_HD inline NativeEpaScratch NativeEpaScratchIn(void* memory, int iterations) {
  NativeEpaScratch s;
  unsigned char* p = static_cast<unsigned char*>(memory);
  s.verts = reinterpret_cast<NativeVertex*>(p);
  p += sizeof(NativeVertex) * (5 + iterations);
  s.faces = reinterpret_cast<NativeFace*>(p);
  p += sizeof(NativeFace) * 6 * iterations;
  s.map_dist2 = reinterpret_cast<double*>(p);
  p += sizeof(double) * (6 * iterations + 1);
  s.map = reinterpret_cast<int*>(p);
  p += sizeof(int) * (6 * iterations + 1);
  s.horizon_index = reinterpret_cast<int*>(p);
  p += sizeof(int) * (6 * iterations + 1);
  s.horizon_edge = reinterpret_cast<int*>(p);
  s.iterations = iterations;
  return s;
}

// The expanding polytope.
struct NativePolytope {
  NativeEpaScratch mem;
  int nverts = 0;
  int nfaces = 0;
  int maxfaces = 0;
  int nmap = 0;
  int nedges = 0;  // horizon edges
  Vec3 center = {0, 0, 0};
  Vec3 w = {0, 0, 0};  // the point the horizon is seen from
};

MJP_HD MJP_INLINE void NativeUnpack(int packed, int out[3]) {
  out[0] = packed & 0x3FF;
  out[1] = packed >> 10 & 0x3FF;
  out[2] = packed >> 20 & 0x3FF;
}

MJP_HD MJP_INLINE int NativeInsertVertex(NativePolytope* pt, const NativeVertex& v) {
  const int n = pt->nverts++;
  pt->mem.verts[n] = v;
  return n;
}

// Support of A - B along d / |d| (along +x when |d| <= kMinVal), appended as a new vertex.
MJP_HD inline int NativeEpaSupport(NativePolytope* pt, NativeShape& a, NativeShape& b,
                                   const Vec3& d, double dnorm) {
  Vec3 dir = {1, 0, 0}, dir_neg = {-1, 0, 0};
  if (dnorm > kMinVal) {
    dir = {d.x / dnorm, d.y / dnorm, d.z / dnorm};
    dir_neg = dir * -1.0;
  }
  const int n = pt->nverts++;
  NativeSupport(&pt->mem.verts[n], a, b, dir, dir_neg);
  return n;
}

// Appends face (v1, v2, v3) with its neighbours; returns |v|², or 0 for a degenerate face.
MJP_HD inline double NativeAttachFace(NativePolytope* pt, int v1, int v2, int v3, int adj1,
                                      int adj2, int adj3) {
  NativeFace& face = pt->mem.faces[pt->nfaces++];
  face.verts = v1 + (v2 << 10) + (v3 << 20);
  face.adj[0] = adj1;
  face.adj[1] = adj2;
  face.adj[2] = adj3;
  const NativeVertex* verts = pt->mem.verts;
  if (NativeProjectOriginPlane(&face.v, verts[v3].vert, verts[v2].vert, verts[v1].vert)) {
    face.index = -1;
    face.dist2 = 0;
    return 0;
  }
  if (Dot(face.v, verts[v1].vert - pt->center) < 0) {
    face.v = face.v * -1.0;
  }
  face.dist2 = Dot(face.v, face.v);
  face.index = -1;
  return face.dist2;
}

// Removes a face from the candidate map (the last entry takes its slot) and marks it deleted.
MJP_HD MJP_INLINE void NativeDeleteFace(NativePolytope* pt, NativeFace* face) {
  if (face->index >= 0) {
    const int moved = pt->mem.map[--pt->nmap];
    pt->mem.map[face->index] = moved;
    pt->mem.map_dist2[face->index] = pt->mem.map_dist2[pt->nmap];
    pt->mem.faces[moved].index = face->index;
  }
  face->index = -2;
}

MJP_HD MJP_INLINE void NativeAddEdge(NativePolytope* pt, int face, int edge) {
  pt->mem.horizon_edge[pt->nedges] = edge;
  pt->mem.horizon_index[pt->nedges++] = face;
}

// The edge of `face` that starts at `vertex`.
MJP_HD MJP_INLINE int NativeEdgeOf(const NativeFace& face, int vertex) {
  int v[3];
  NativeUnpack(face.verts, v);
  if (v[0] == vertex)
    return 0;
  if (v[1] == vertex)
    return 1;
  return 2;
}

// Depth-first horizon walk entered through edge e: a face that w sees is deleted and its other
// two neighbours are visited; a face it does not see contributes the edge to the horizon.
// Returns whether `face` was visible. Depth is bounded by the face count.
MJP_HD inline bool NativeHorizonVisit(NativePolytope* pt, int face_id, int e) {
  NativeFace* face = &pt->mem.faces[face_id];
  if (Dot(face->v, pt->w) - face->dist2 > kMinVal) {
    int verts[3];
    NativeUnpack(face->verts, verts);
    NativeDeleteFace(pt, face);
    for (int k = 1; k < 3; ++k) {
      const int i = (e + k) % 3;
      const int adj = face->adj[i];
      NativeFace* adj_face = &pt->mem.faces[adj];
      if (adj_face->index > -2) {
        const int adj_edge = NativeEdgeOf(*adj_face, verts[(i + 1) % 3]);
        if (!NativeHorizonVisit(pt, adj, adj_edge)) {
          NativeAddEdge(pt, adj, adj_edge);
        }
      }
    }
    return true;
  }
  return false;
}

// The horizon of w seen from `face_id` (which w sees): delete it, walk its three neighbours.
MJP_HD inline void NativeHorizon(NativePolytope* pt, int face_id) {
  NativeFace* face = &pt->mem.faces[face_id];
  NativeDeleteFace(pt, face);
  int verts[3];
  NativeUnpack(face->verts, verts);
  for (int k = 0; k < 3; ++k) {
    const int adj = face->adj[k];
    const int adj_edge = NativeEdgeOf(pt->mem.faces[adj], verts[(k + 1) % 3]);
    if ((k == 0 || pt->mem.faces[adj].index > -2) && !NativeHorizonVisit(pt, adj, adj_edge)) {
      NativeAddEdge(pt, adj, adj_edge);
    }
  }
}

// Affine coordinates of p (in the triangle's plane) w.r.t. v1 v2 v3, from signed areas in the
// coordinate plane where the triangle's shadow is largest.
MJP_HD inline void NativeTriangleCoords(double lambda[3], const Vec3& v1, const Vec3& v2,
                                        const Vec3& v3, const Vec3& p) {
  double c[3];
  const double m_max = NativeTriangleAreas(v1, v2, v3, p, c);
  lambda[0] = c[0] / m_max;
  lambda[1] = c[1] / m_max;
  lambda[2] = c[2] / m_max;
}

// p lies in triangle v1 v2 v3 (non-negative coordinates, and within kMinVal of its plane).
MJP_HD inline bool NativeTriangleHasPoint(const Vec3& v1, const Vec3& v2, const Vec3& v3,
                                          const Vec3& p) {
  double lambda[3];
  NativeTriangleCoords(lambda, v1, v2, v3, p);
  if (lambda[0] < 0 || lambda[1] < 0 || lambda[2] < 0) {
    return false;
  }
  const Vec3 q = {v1.x * lambda[0] + v2.x * lambda[1] + v3.x * lambda[2],
                  v1.y * lambda[0] + v2.y * lambda[1] + v3.y * lambda[2],
                  v1.z * lambda[0] + v2.z * lambda[1] + v3.z * lambda[2]};
  const Vec3 diff = q - p;
  return std::sqrt(Dot(diff, diff)) < kMinVal;
}

// The origin and p3 lie strictly on the same side of the plane p0 p1 p2.
MJP_HD inline bool NativeSameSide(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& p3) {
  const Vec3 n = Cross(p1 - p0, p2 - p0);
  const double dot1 = Dot(n, p3 - p0);
  const double dot2 = Dot(n, p0 * -1.0);
  return (dot1 > 0 && dot2 > 0) || (dot1 < 0 && dot2 < 0);
}

// The origin lies inside tetrahedron p0 p1 p2 p3.
MJP_HD inline bool NativeTetraHasOrigin(const Vec3& p0, const Vec3& p1, const Vec3& p2,
                                        const Vec3& p3) {
  return NativeSameSide(p0, p1, p2, p3) && NativeSameSide(p1, p2, p3, p0) &&
         NativeSameSide(p2, p3, p0, p1) && NativeSameSide(p3, p0, p1, p2);
}

// Rotation by 120° about `axis` (Rodrigues, with sin 120° rounded to 11 digits as MuJoCo has it).
MJP_HD inline void NativeRotation120(double r[9], const Vec3& axis) {
  const double n = std::sqrt(Dot(axis, axis));
  const double u1 = axis.x / n, u2 = axis.y / n, u3 = axis.z / n;
  const double s = 0.86602540378;
  const double c = -0.5;
  r[0] = c + u1 * u1 * (1 - c);
  r[1] = u1 * u2 * (1 - c) - u3 * s;
  r[2] = u1 * u3 * (1 - c) + u2 * s;
  r[3] = u2 * u1 * (1 - c) + u3 * s;
  r[4] = c + u2 * u2 * (1 - c);
  r[5] = u2 * u3 * (1 - c) - u1 * s;
  r[6] = u1 * u3 * (1 - c) - u2 * s;
  r[7] = u2 * u3 * (1 - c) + u1 * s;
  r[8] = c + u3 * u3 * (1 - c);
}

// Whether the ray v1 → v2 passes through triangle v3 v4 v5: 1 / -1 when the three signed volumes
// agree (either orientation), 0 otherwise.
MJP_HD inline int NativeRayTriangle(const Vec3& v1, const Vec3& v2, const Vec3& v3, const Vec3& v4,
                                    const Vec3& v5) {
  const Vec3 d12 = v2 - v1, d13 = v3 - v1, d14 = v4 - v1, d15 = v5 - v1;
  const double vol1 = Dot(d13, Cross(d14, d12));
  const double vol2 = Dot(d14, Cross(d15, d12));
  const double vol3 = Dot(d15, Cross(d13, d12));
  if (vol1 >= 0 && vol2 >= 0 && vol3 >= 0)
    return 1;
  if (vol1 <= 0 && vol2 <= 0 && vol3 <= 0)
    return -1;
  return 0;
}

// EPA start-polytope results (MuJoCo's mjEPAStatus values).
enum NativeEpaStart : int {
  kNativeEpaOk = 0,
  kNativeEpaP2InvalidFaces = 1,
  kNativeEpaP2NonConvex = 2,
  kNativeEpaP2OriginOnFace = 3,
  kNativeEpaP3BadNormal = 4,
  kNativeEpaP3InvalidV4 = 5,
  kNativeEpaP3InvalidV5 = 6,
  kNativeEpaP3MissingOrigin = 7,
  kNativeEpaP3OriginOnFace = 8,
  kNativeEpaP4MissingOrigin = 9,
};

// Every attached face becomes a candidate.
MJP_HD MJP_INLINE void NativeMapAllFaces(NativePolytope* pt, int count) {
  for (int i = 0; i < count; ++i) {
    pt->mem.map[i] = i;
    pt->mem.map_dist2[i] = pt->mem.faces[i].dist2;
    pt->mem.faces[i].index = i;
  }
  pt->nmap = count;
}

// GJK's simplex shrinks to the triangle (v1, v2, v3) of the polytope; the polytope restarts.
MJP_HD MJP_INLINE void NativeRestartFromTriangle(NativePolytope* pt, NativeStatus* status, int v1,
                                                 int v2, int v3) {
  status->nsimplex = 3;
  status->simplex[0] = pt->mem.verts[v1];
  status->simplex[1] = pt->mem.verts[v2];
  status->simplex[2] = pt->mem.verts[v3];
  pt->nfaces = 0;
  pt->nverts = 0;
  pt->nmap = 0;
}

// Start polytope from a triangle: the triangle plus the support points along both normals.
MJP_HD inline int NativePolytope3(NativePolytope* pt, NativeStatus* status, NativeShape& a,
                                  NativeShape& b) {
  const Vec3 v1 = status->simplex[0].vert, v2 = status->simplex[1].vert,
             v3 = status->simplex[2].vert;
  pt->center = ((v1 + v2) + v3) * (1.0 / 3.0);
  const Vec3 n = Cross(v2 - v1, v3 - v1);
  const double n_norm = std::sqrt(Dot(n, n));
  if (n_norm < kMinVal) {
    return kNativeEpaP3BadNormal;
  }
  const Vec3 n_neg = n * -1.0;
  const int v1i = NativeInsertVertex(pt, status->simplex[0]);
  const int v2i = NativeInsertVertex(pt, status->simplex[1]);
  const int v3i = NativeInsertVertex(pt, status->simplex[2]);
  const int v5i = NativeEpaSupport(pt, a, b, n_neg, n_norm);
  const int v4i = NativeEpaSupport(pt, a, b, n, n_norm);
  const Vec3 v4 = pt->mem.verts[v4i].vert, v5 = pt->mem.verts[v5i].vert;
  if (NativeTriangleHasPoint(v1, v2, v3, v4)) {
    return kNativeEpaP3InvalidV4;
  }
  if (NativeTriangleHasPoint(v1, v2, v3, v5)) {
    return kNativeEpaP3InvalidV5;
  }
  if (status->dist[0] > 10 * kMinVal && !NativeTetraHasOrigin(v1, v2, v3, v4) &&
      !NativeTetraHasOrigin(v1, v2, v3, v5)) {
    return kNativeEpaP3MissingOrigin;
  }
  const double kMinDist = kMinVal * kMinVal;
  if (NativeAttachFace(pt, v4i, v1i, v2i, 1, 3, 2) < kMinDist ||
      NativeAttachFace(pt, v4i, v3i, v1i, 2, 4, 0) < kMinDist ||
      NativeAttachFace(pt, v4i, v2i, v3i, 0, 5, 1) < kMinDist ||
      NativeAttachFace(pt, v5i, v2i, v1i, 5, 0, 4) < kMinDist ||
      NativeAttachFace(pt, v5i, v1i, v3i, 3, 1, 5) < kMinDist ||
      NativeAttachFace(pt, v5i, v3i, v2i, 4, 2, 3) < kMinDist) {
    return kNativeEpaP3OriginOnFace;
  }
  NativeMapAllFaces(pt, 6);
  return kNativeEpaOk;
}

// Start polytope from a segment: a hexahedron of the segment's ends and three support points
// around it, 120° apart. A face through the origin restarts from that face as a triangle.
MJP_HD inline int NativePolytope2(NativePolytope* pt, NativeStatus* status, NativeShape& a,
                                  NativeShape& b) {
  const Vec3 v1 = status->simplex[0].vert, v2 = status->simplex[1].vert;
  pt->center = (v1 + v2) * 0.5;
  const Vec3 diff = v2 - v1;

  // The coordinate axis most perpendicular to the segment.
  double value = kNativeMaxLimit;
  int axis = 0;
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(Get(diff, i)) < value) {
      value = std::fabs(Get(diff, i));
      axis = i;
    }
  }
  Vec3 e = {0, 0, 0};
  Set(e, axis, 1);
  const Vec3 d1 = Cross(e, diff);
  double r[9];
  NativeRotation120(r, diff);
  const Vec3 d2 = Rotate(r, d1);
  const Vec3 d3 = Rotate(r, d2);

  const int v1i = NativeInsertVertex(pt, status->simplex[0]);
  const int v2i = NativeInsertVertex(pt, status->simplex[1]);
  const int v3i = NativeEpaSupport(pt, a, b, d1, std::sqrt(Dot(d1, d1)));
  const int v4i = NativeEpaSupport(pt, a, b, d2, std::sqrt(Dot(d2, d2)));
  const int v5i = NativeEpaSupport(pt, a, b, d3, std::sqrt(Dot(d3, d3)));
  const Vec3 v3 = pt->mem.verts[v3i].vert, v4 = pt->mem.verts[v4i].vert,
             v5 = pt->mem.verts[v5i].vert;

  const int faces[6][6] = {{v1i, v3i, v4i, 1, 3, 2}, {v1i, v5i, v3i, 2, 4, 0},
                           {v1i, v4i, v5i, 0, 5, 1}, {v2i, v4i, v3i, 5, 0, 4},
                           {v2i, v3i, v5i, 3, 1, 5}, {v2i, v5i, v4i, 4, 2, 3}};
  for (const auto& f : faces) {
    if (NativeAttachFace(pt, f[0], f[1], f[2], f[3], f[4], f[5]) < kMinVal * kMinVal) {
      NativeRestartFromTriangle(pt, status, f[0], f[1], f[2]);
      return NativePolytope3(pt, status, a, b);
    }
  }
  if (!NativeRayTriangle(v1, v2, v3, v4, v5)) {
    return kNativeEpaP2NonConvex;
  }
  NativeMapAllFaces(pt, 6);
  return kNativeEpaOk;
}

// Start polytope from a tetrahedron; a face through the origin restarts from that face.
MJP_HD inline int NativePolytope4(NativePolytope* pt, NativeStatus* status, NativeShape& a,
                                  NativeShape& b) {
  const int v1 = NativeInsertVertex(pt, status->simplex[0]);
  const int v2 = NativeInsertVertex(pt, status->simplex[1]);
  const int v3 = NativeInsertVertex(pt, status->simplex[2]);
  const int v4 = NativeInsertVertex(pt, status->simplex[3]);
  const NativeVertex* verts = pt->mem.verts;
  pt->center = (((verts[v1].vert + verts[v2].vert) + verts[v3].vert) + verts[v4].vert) * 0.25;

  const int faces[4][6] = {
      {v1, v2, v3, 1, 3, 2}, {v1, v4, v2, 2, 3, 0}, {v1, v3, v4, 0, 3, 1}, {v4, v3, v2, 2, 0, 1}};
  for (const auto& f : faces) {
    if (NativeAttachFace(pt, f[0], f[1], f[2], f[3], f[4], f[5]) < kMinVal * kMinVal) {
      NativeRestartFromTriangle(pt, status, f[0], f[1], f[2]);
      return NativePolytope3(pt, status, a, b);
    }
  }
  if (!NativeTetraHasOrigin(verts[v1].vert, verts[v2].vert, verts[v3].vert, verts[v4].vert)) {
    return kNativeEpaP4MissingOrigin;
  }
  NativeMapAllFaces(pt, 4);
  return kNativeEpaOk;
}

// Witness points of a face: the origin's projection in the face's affine coordinates, applied to
// the two shapes' support points. Returns the signed distance (-depth).
MJP_HD inline double NativeEpaWitness(const NativePolytope& pt, const NativeFace& face, Vec3* x1,
                                      Vec3* x2) {
  int v[3];
  NativeUnpack(face.verts, v);
  const NativeVertex& a = pt.mem.verts[v[0]];
  const NativeVertex& b = pt.mem.verts[v[1]];
  const NativeVertex& c = pt.mem.verts[v[2]];
  double lambda[3];
  NativeTriangleCoords(lambda, a.vert, b.vert, c.vert, face.v);
  *x1 = NativeCombine(lambda, 3, a.vert1, b.vert1, c.vert1, c.vert1);
  *x2 = NativeCombine(lambda, 3, a.vert2, b.vert2, c.vert2, c.vert2);
  return -std::sqrt(face.dist2);
}

// Adds the face just attached to the candidate map when its distance lies within the bounds.
MJP_HD MJP_INLINE void NativeMapIfCandidate(NativePolytope* pt, double dist2, double lower2,
                                            double upper2) {
  if (dist2 >= lower2 && dist2 <= upper2) {
    const int i = pt->nmap++;
    pt->mem.map[i] = pt->nfaces - 1;
    pt->mem.map_dist2[i] = dist2;
    pt->mem.faces[pt->nfaces - 1].index = i;
  }
}

// EPA on a start polytope. Returns the id of the face that gives the depth (status: dist[0] =
// -depth, x1/x2 witness points, nx = 1), or -1 with nx = 0 and dist[0] = 0.
MJP_HD inline int NativeEpa(NativeStatus* status, NativePolytope* pt, NativeShape& a,
                            NativeShape& b) {
  double upper = kNativeMaxLimit, upper2 = kNativeMaxLimit, lower2;
  int face = -1, previous = -1;
  const bool discrete = NativeDiscrete(a, b);
  const double tolerance = discrete ? kMinVal : status->tolerance;
  const int kmax = NativeEpaIterations(status->max_iterations);
  for (int k = 0; k < kmax; ++k) {
    previous = face;

    // The candidate face nearest to the origin: the lower bound.
    lower2 = kNativeMaxLimit;
    const double* map_dist2 = pt->mem.map_dist2;
    const int nmap = pt->nmap;
    int nearest = -1;
    for (int i = 0; i < nmap; ++i) {
      if (map_dist2[i] < lower2) {
        nearest = i;
        lower2 = map_dist2[i];
      }
    }
    if (nearest >= 0) {
      face = pt->mem.map[nearest];
    }
    if (lower2 > upper2 || face < 0) {
      face = previous;
      break;
    }
    if (lower2 <= 0) {
      status->warning = kNativeWarnOriginOnFace;
      break;
    }

    // Support along its normal: the upper bound.
    const double lower = std::sqrt(lower2);
    const int wi = NativeEpaSupport(pt, a, b, pt->mem.faces[face].v, lower);
    const Vec3 w = pt->mem.verts[wi].vert;
    const double upper_k = Dot(pt->mem.faces[face].v, w) / lower;
    if (upper_k < upper) {
      upper = upper_k;
      upper2 = upper * upper;
    }
    if (upper - lower < tolerance) {
      if (k == 0 && upper < lower - 1e-10) {
        face = -1;
      }
      break;
    }

    // Polytopes: a support point seen before ends the expansion.
    if (discrete) {
      const NativeVertex& wv = pt->mem.verts[wi];
      int i = 0;
      const int nverts = pt->nverts - 1;
      for (; i < nverts; ++i) {
        if (wv.index1 == pt->mem.verts[i].index1 && wv.index2 == pt->mem.verts[i].index2) {
          break;
        }
      }
      if (i != nverts) {
        break;
      }
    }

    pt->w = w;
    NativeHorizon(pt, face);
    if (pt->nedges < 3) {
      face = -1;
      break;
    }
    const int nfaces = pt->nfaces, nedges = pt->nedges;
    if (nedges > pt->maxfaces - pt->nfaces) {
      status->warning = kNativeWarnOutOfFaces;
      break;
    }

    // Fan new faces from w to the horizon edges.
    for (int i = 0; i < nedges; ++i) {
      const int cur = nfaces + i;
      const int prev_face = i == 0 ? nfaces + nedges - 1 : cur - 1;
      const int next = nfaces + (i + 1) % nedges;
      const int hzn_index = pt->mem.horizon_index[i], hzn_edge = pt->mem.horizon_edge[i];
      NativeFace& hzn_face = pt->mem.faces[hzn_index];
      int hzn_verts[3];
      NativeUnpack(hzn_face.verts, hzn_verts);
      const int v1 = hzn_verts[hzn_edge], v2 = hzn_verts[(hzn_edge + 1) % 3];
      hzn_face.adj[hzn_edge] = cur;
      const double dist2 = NativeAttachFace(pt, wi, v2, v1, prev_face, hzn_index, next);
      if (dist2 == 0) {
        face = -1;
        break;
      }
      NativeMapIfCandidate(pt, dist2, lower2, upper2);
    }
    pt->nedges = 0;
    if (!pt->nmap || face < 0) {
      break;
    }
  }

  if (face >= 0) {
    status->dist[0] = NativeEpaWitness(*pt, pt->mem.faces[face], &status->x1[0], &status->x2[0]);
    status->nx = 1;
  } else {
    status->nx = 0;
    status->dist[0] = 0;
  }
  return face;
}

}  // namespace mjportal::collision
