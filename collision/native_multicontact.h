// Compat: MuJoCo 3.12's contact patch for box and mesh pairs (the multi-contact recovery after EPA
// in engine_collision_gjk.c), reproduced bit for bit.
//
// EPA's final face names up to three support vertices on each shape; with them each shape offers
// candidate face normals (the polygons around those vertices; box faces by corner bits). When a
// face of one shape is anti-parallel to a face of the other (cos < -0.996, ~5°), the two faces
// are clipped against each other (Sutherland–Hodgman against the first face's edge planes) and
// every clipped vertex below the first face becomes a contact, at most four (the largest-area
// quadrilateral of a longer polygon). When one side touches with an edge or a vertex only, its
// edges are tested for lying in the other's face (|cos| < 0.0888) and the edge is clipped
// instead. Nothing matching: EPA's single contact stands.
#pragma once

#include "collision/native_epa.h"

namespace mjportal::collision {

constexpr double kNativeFaceTol = 0.996;   // faces anti-parallel within ~5.1°
constexpr double kNativeEdgeTol = 0.0888;  // edge in face plane within ~5.1°

// Scratch of the patch recovery for a model's largest vertex degree and polygon (at least 3 and
// 4, what boxes need).
struct NativePatchScratch {
  int* idx1 = nullptr;  // candidate face ids, shape 1 / 2 (degree entries each)
  int* idx2 = nullptr;
  Vec3* n1 = nullptr;  // candidate face (or edge) directions, shape 1 / 2
  Vec3* n2 = nullptr;
  Vec3* endverts = nullptr;  // far ends of candidate edges
  Vec3* face1 = nullptr;     // the matched faces (polygon vertices)
  Vec3* face2 = nullptr;
  Vec3* polygon = nullptr;  // clipping buffers, 2 × polygon + 2 vertices each
  Vec3* clipped = nullptr;
  Vec3* pn = nullptr;  // clipping planes: normal and offset per edge of the clipping face
  double* pd = nullptr;
  int degree = 0;
  int poly = 0;
};

// Bytes NativePatchScratchIn needs.
constexpr unsigned long NativePatchScratchBytes(int degree, int poly) {
  return 2 * sizeof(int) * (degree + 1) + sizeof(Vec3) * (3 * degree + 2 * poly) +
         2 * sizeof(Vec3) * (2 * poly + 2) + sizeof(Vec3) * poly + sizeof(double) * poly + 64;
}

// Lays the scratch out in `memory` (8-byte aligned, NativePatchScratchBytes bytes).
MJP_HD inline NativePatchScratch NativePatchScratchIn(void* memory, int degree, int poly) {
  NativePatchScratch s;
  s.degree = degree;
  s.poly = poly;
  double* p = static_cast<double*>(memory);
  auto take_vec = [&p](int n) {
    Vec3* out = reinterpret_cast<Vec3*>(p);
    p += 3 * n;
    return out;
  };
  s.n1 = take_vec(degree);
  s.n2 = take_vec(degree);
  s.endverts = take_vec(degree);
  s.face1 = take_vec(poly);
  s.face2 = take_vec(poly);
  s.polygon = take_vec(2 * poly + 2);
  s.clipped = take_vec(2 * poly + 2);
  s.pn = take_vec(poly);
  s.pd = p;
  p += poly;
  s.idx1 = reinterpret_cast<int*>(p);
  s.idx2 = s.idx1 + degree + 1;
  return s;
}

// Area of quadrilateral a b c d (half the norm of the sum of its diagonals' crosses).
MJP_HD inline double NativeQuadArea(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 e = Cross(d - a, b - d);
  const Vec3 f = Cross(c - b, a - c);
  const Vec3 g = e + f;
  return 0.5 * std::sqrt(Dot(g, g));
}

// Largest-area quadrilateral of a convex polygon's vertices (rotating calipers style: advance d,
// then c, then b while the area grows, for each a). Loops are capped; they end long before on
// finite input.
MJP_HD inline void NativePolygonQuad(int res[4], const Vec3* poly, int nvert) {
  int a = 0, b = 1, c = 2, d = 3;
  res[0] = a, res[1] = b, res[2] = c, res[3] = d;
  double m = NativeQuadArea(poly[a], poly[b], poly[c], poly[d]);
  const int cap = 4 * nvert * nvert + 16;
  int steps = 0;
  for (; a < nvert; ++a) {
    while (steps++ < cap) {
      double m_next = NativeQuadArea(poly[a], poly[b], poly[c], poly[CyclicNext(d, nvert)]);
      if (m_next <= m) {
        break;
      }
      m = m_next;
      d = CyclicNext(d, nvert);
      res[0] = a, res[1] = b, res[2] = c, res[3] = d;
      while (steps++ < cap) {
        m_next = NativeQuadArea(poly[a], poly[b], poly[CyclicNext(c, nvert)], poly[d]);
        if (m_next <= m) {
          break;
        }
        m = m_next;
        c = CyclicNext(c, nvert);
        res[0] = a, res[1] = b, res[2] = c, res[3] = d;
      }
      while (steps++ < cap) {
        m_next = NativeQuadArea(poly[a], poly[CyclicNext(b, nvert)], poly[c], poly[d]);
        if (m_next <= m) {
          break;
        }
        m = m_next;
        b = CyclicNext(b, nvert);
        res[0] = a, res[1] = b, res[2] = c, res[3] = d;
      }
    }
    if (b == a) {
      b = CyclicNext(b, nvert);
      if (c == b) {
        c = CyclicNext(c, nvert);
        if (d == c) {
          d = CyclicNext(d, nvert);
        }
      }
    }
  }
}

// Plane through edge v1 v2 perpendicular to the face with normal n: unit normal, returns offset.
MJP_HD inline double NativeEdgePlane(Vec3* res, const Vec3& v1, const Vec3& v2, const Vec3& n) {
  const Vec3 v3 = v1 + n;
  *res = Cross(v2 - v1, v3 - v1);
  Normalize(*res);
  return Dot(*res, v1);
}

// p lies on the inner side of the plane through a with normal n (up to kMinVal).
MJP_HD MJP_INLINE bool NativeInside(const Vec3& a, const Vec3& n, const Vec3& p) {
  return Dot(p - a, n) > -kMinVal;
}

// Witness pair for clipped vertex v: w2 = v on shape 2's side, w1 = v moved by its depth below
// face (p, n) along dir. Returns the signed distance of v from the face.
MJP_HD inline double NativeWitnessOnFace(Vec3* w1, Vec3* w2, const Vec3& v, const Vec3& p,
                                         const Vec3& n, const Vec3& dir) {
  const double dist = Dot(v - p, n);
  const double s = -std::fabs(dist);
  *w1 = {v.x + s * dir.x, v.y + s * dir.y, v.z + s * dir.z};
  *w2 = v;
  return dist;
}

// Clips polygon face2 against the clipping face face1 (normal n) and writes the contacts.
MJP_HD inline void NativePolygonClip(NativeStatus* status, const Vec3* face1, int nface1,
                                     const Vec3* face2, int nface2, const Vec3& n, const Vec3& dir,
                                     const NativePatchScratch& scratch) {
  if (nface1 < 3) {
    return;
  }
  Vec3* polygon = scratch.polygon;
  Vec3* clipped = scratch.clipped;
  const int capacity = 2 * scratch.poly + 2;
  for (int i = 0; i < nface1; ++i) {
    scratch.pd[i] = NativeEdgePlane(&scratch.pn[i], face1[i], face1[i + 1 < nface1 ? i + 1 : 0], n);
  }
  int npolygon = nface2, nclipped = 0;
  for (int i = 0; i < nface2; ++i) {
    polygon[i] = face2[i];
  }

  // One clipping plane at a time.
  for (int e = 0; e < nface1; ++e) {
    for (int i = 0; i < npolygon; ++i) {
      const Vec3 p = polygon[i];
      const Vec3 q = i < npolygon - 1 ? polygon[i + 1] : polygon[0];
      const Vec3 pq = q - p;
      const bool inside1 = NativeInside(face1[e], scratch.pn[e], p);
      const bool inside2 = NativeInside(face1[e], scratch.pn[e], q);
      if (!inside1 && !inside2) {
        continue;
      }
      if (inside1 && inside2) {
        if (nclipped < capacity)
          clipped[nclipped++] = q;
        continue;
      }
      const double denom = Dot(scratch.pn[e], pq);
      if (denom != 0.0) {
        const double t = (scratch.pd[e] - Dot(scratch.pn[e], p)) / denom;
        if (t >= 0.0 && t <= 1.0 && nclipped < capacity) {
          clipped[nclipped++] = {p.x + t * pq.x, p.y + t * pq.y, p.z + t * pq.z};
        }
      }
      if (inside2 && nclipped < capacity) {
        clipped[nclipped++] = q;
      }
    }
    Vec3* swap = polygon;
    polygon = clipped;
    clipped = swap;
    npolygon = nclipped;
    nclipped = 0;
  }

  // Keep the vertices on or below the clipping face.
  const int m = npolygon;
  npolygon = 0;
  for (int i = 0; i < m; ++i) {
    if (Dot(polygon[i] - face1[0], n) <= 0) {
      if (npolygon != i) {
        polygon[npolygon] = polygon[i];
      }
      npolygon++;
    }
  }
  if (npolygon < 1) {
    return;
  }

  // More than four: the largest quadrilateral.
  if (status->max_contacts < 5 && npolygon > 4) {
    status->nx = 4;
    int quad[4];
    NativePolygonQuad(quad, polygon, npolygon);
    for (int i = 0; i < 4; ++i) {
      status->dist[i] =
          NativeWitnessOnFace(&status->x1[i], &status->x2[i], polygon[quad[i]], face1[0], n, dir);
    }
    return;
  }

  // An edge clipped to more than two points: its two farthest points.
  if (nface2 == 2 && npolygon > 2) {
    int best1 = 0, best2 = 1;
    double d = 0;
    for (int i = 0; i < npolygon; ++i) {
      for (int j = i + 1; j < npolygon; ++j) {
        const Vec3 diff = polygon[j] - polygon[i];
        const double d2 = Dot(diff, diff);
        if (d2 > d) {
          d = d2;
          best1 = i;
          best2 = j;
        }
      }
    }
    status->dist[0] =
        NativeWitnessOnFace(&status->x1[0], &status->x2[0], polygon[best1], face1[0], n, dir);
    status->dist[1] =
        NativeWitnessOnFace(&status->x1[1], &status->x2[1], polygon[best2], face1[0], n, dir);
    status->nx = 2;
    return;
  }

  if (npolygon > kNativeMaxWitness) {
    npolygon = kNativeMaxWitness;
  }
  for (int i = 0; i < npolygon; ++i) {
    status->dist[i] =
        NativeWitnessOnFace(&status->x1[i], &status->x2[i], polygon[i], face1[0], n, dir);
  }
  status->nx = npolygon;
}

// Up to two common entries of arr1[0..n) and arr2[0..m), in arr1's order.
MJP_HD inline int NativeCommon(int res[2], const int* arr1, const int* arr2, int n, int m) {
  int count = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      if (arr1[i] == arr2[j]) {
        res[count++] = arr1[i];
        if (count == 2)
          return 2;
      }
    }
  }
  return count;
}

// Candidate face normals (world) of a mesh touching with 1, 2 or 3 vertices: the polygons shared
// by all of them.
MJP_HD inline int NativeMeshNormals(Vec3* res, int* resind, int dim, const NativeShape& s,
                                    const int vi[3]) {
  const NativeMesh& mesh = s.mesh;
  const int* polymap = mesh.polymap;
  auto normal_of = [&](int poly) {
    const double* n = mesh.polynormal + 3 * poly;
    return Rotate(s.mat, {n[0], n[1], n[2]});
  };
  if (dim == 3) {
    int edgeset[2], faceset[2];
    int n =
        NativeCommon(edgeset, polymap + mesh.polymapadr[vi[0]], polymap + mesh.polymapadr[vi[1]],
                     mesh.polymapnum[vi[0]], mesh.polymapnum[vi[1]]);
    if (n == 0)
      return 0;
    n = NativeCommon(faceset, edgeset, polymap + mesh.polymapadr[vi[2]], n, mesh.polymapnum[vi[2]]);
    if (n == 0)
      return 0;
    res[0] = normal_of(faceset[0]);
    resind[0] = faceset[0];
    return 1;
  }
  if (dim == 2) {
    int edgeset[2];
    const int n =
        NativeCommon(edgeset, polymap + mesh.polymapadr[vi[0]], polymap + mesh.polymapadr[vi[1]],
                     mesh.polymapnum[vi[0]], mesh.polymapnum[vi[1]]);
    for (int i = 0; i < n; ++i) {
      res[i] = normal_of(edgeset[i]);
      resind[i] = edgeset[i];
    }
    return n;
  }
  if (dim == 1) {
    const int adr = mesh.polymapadr[vi[0]], num = mesh.polymapnum[vi[0]];
    for (int i = 0; i < num; ++i) {
      res[i] = normal_of(polymap[adr + i]);
      resind[i] = polymap[adr + i];
    }
    return num;
  }
  return 0;
}

// Unit directions of the mesh edges leaving a touching vertex (dim 1): the edge to the previous
// vertex in each polygon around it; far ends in endverts.
MJP_HD inline int NativeMeshEdgeNormals(Vec3* res, Vec3* endverts, int dim, const NativeShape& s,
                                        const Vec3 v[3], int v1i) {
  if (dim == 1) {
    const NativeMesh& mesh = s.mesh;
    const int adr = mesh.polymapadr[v1i], num = mesh.polymapnum[v1i];
    for (int i = 0; i < num; ++i) {
      const int poly = mesh.polymap[adr + i];
      const int vadr = mesh.polyvertadr[poly], nvert = mesh.polyvertnum[poly];
      res[i] = {0, 0, 0};
      endverts[i] = v[0];
      for (int j = 0; j < nvert; ++j) {
        if (mesh.polyvert[vadr + j] == v1i) {
          const int k = j == 0 ? nvert - 1 : j - 1;
          endverts[i] = NativeToWorld(s, MeshPoint(mesh.vert, mesh.polyvert[vadr + k]));
          res[i] = endverts[i] - v[0];
          Normalize(res[i]);
          break;
        }
      }
    }
    return num;
  }
  return 0;
}

// A box face whose normal lies within ~5° of direction n, if any.
MJP_HD inline int NativeBoxNormalAlong(Vec3* res, int* resind, const double* mat, const Vec3& n) {
  Vec3 local = RotateT(mat, n);
  local = local * (1 / std::sqrt(Dot(local, local)));
  const Vec3 normals[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (int i = 0; i < 6; ++i) {
    if (Dot(local, normals[i]) > kNativeFaceTol) {
      res[0] = Rotate(mat, normals[i]);
      resind[0] = i;
      return 1;
    }
  }
  return 0;
}

// Candidate face normals of a box touching with 1, 2 or 3 corners (bit i of a corner id: +axis
// i): the faces all of them share; when that is not exactly one face (resp. two for an edge), the
// face facing along dir.
MJP_HD inline int NativeBoxNormals(Vec3* res, int* resind, int dim, const NativeShape& s,
                                   const int vi[3], const Vec3& dir) {
  const double* mat = s.mat;
  const int v1 = vi[0], v2 = vi[1], v3 = vi[2];
  if (dim == 3) {
    int c = 0;
    const int x = ((v1 & 1) && (v2 & 1) && (v3 & 1)) - (!(v1 & 1) && !(v2 & 1) && !(v3 & 1));
    const int y = ((v1 & 2) && (v2 & 2) && (v3 & 2)) - (!(v1 & 2) && !(v2 & 2) && !(v3 & 2));
    const int z = ((v1 & 4) && (v2 & 4) && (v3 & 4)) - (!(v1 & 4) && !(v2 & 4) && !(v3 & 4));
    res[0] = Rotate(mat, {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)});
    if (x)
      resind[c++] = 0;
    if (y)
      resind[c++] = 2;
    if (z)
      resind[c++] = 4;
    if (x + y + z == -1)
      resind[0]++;
    return c == 1 ? 1 : NativeBoxNormalAlong(res, resind, mat, dir);
  }
  if (dim == 2) {
    int c = 0;
    const int x = ((v1 & 1) && (v2 & 1)) - (!(v1 & 1) && !(v2 & 1));
    const int y = ((v1 & 2) && (v2 & 2)) - (!(v1 & 2) && !(v2 & 2));
    const int z = ((v1 & 4) && (v2 & 4)) - (!(v1 & 4) && !(v2 & 4));
    if (x) {
      res[0] = Rotate(mat, {static_cast<double>(x), 0, 0});
      resind[c++] = x > 0 ? 0 : 1;
    }
    if (y) {
      res[c] = Rotate(mat, {0, static_cast<double>(y), 0});
      resind[c++] = y > 0 ? 2 : 3;
    }
    if (z) {
      res[1] = Rotate(mat, {0, 0, static_cast<double>(z)});  // MuJoCo writes slot 1 here
      resind[c++] = z > 0 ? 4 : 5;
    }
    return c == 2 ? 2 : NativeBoxNormalAlong(res, resind, mat, dir);
  }
  if (dim == 1) {
    const double x = (v1 & 1) ? 1 : -1, y = (v1 & 2) ? 1 : -1, z = (v1 & 4) ? 1 : -1;
    res[0] = Rotate(mat, {x, 0, 0});
    res[1] = Rotate(mat, {0, y, 0});
    res[2] = Rotate(mat, {0, 0, z});
    resind[0] = x > 0 ? 0 : 1;
    resind[1] = y > 0 ? 2 : 3;
    resind[2] = z > 0 ? 4 : 5;
    return 3;
  }
  return 0;
}

// Unit directions of the three box edges leaving a touching corner (dim 1); far ends in endverts.
MJP_HD inline int NativeBoxEdgeNormals(Vec3* res, Vec3* endverts, int dim, const NativeShape& s,
                                       const Vec3 v[3], int v1i) {
  if (dim == 1) {
    const double x = (v1i & 1) ? s.size.x : -s.size.x;
    const double y = (v1i & 2) ? s.size.y : -s.size.y;
    const double z = (v1i & 4) ? s.size.z : -s.size.z;
    const Vec3 ends[3] = {{-x, y, z}, {x, -y, z}, {x, y, -z}};
    for (int i = 0; i < 3; ++i) {
      endverts[i] = NativeToWorld(s, ends[i]);
      res[i] = endverts[i] - v[0];
      Normalize(res[i]);
    }
    return 3;
  }
  return 0;
}

// World corners of box face idx (0/1: ±x, 2/3: ±y, 4/5: ±z), in MuJoCo's winding.
MJP_HD inline int NativeBoxFace(Vec3* res, const NativeShape& s, int idx) {
  const double x = s.size.x, y = s.size.y, z = s.size.z;
  const Vec3 corners[6][4] = {{{x, y, z}, {x, y, -z}, {x, -y, -z}, {x, -y, z}},
                              {{-x, y, -z}, {-x, y, z}, {-x, -y, z}, {-x, -y, -z}},
                              {{-x, y, -z}, {x, y, -z}, {x, y, z}, {-x, y, z}},
                              {{-x, -y, z}, {x, -y, z}, {x, -y, -z}, {-x, -y, -z}},
                              {{-x, y, z}, {x, y, z}, {x, -y, z}, {-x, -y, z}},
                              {{x, y, -z}, {-x, y, -z}, {-x, -y, -z}, {x, -y, -z}}};
  if (idx < 0 || idx > 5) {
    return 0;
  }
  for (int i = 0; i < 4; ++i) {
    res[i] = NativeToWorld(s, corners[idx][i]);
  }
  return 4;
}

// World vertices of mesh polygon idx, in reverse order.
MJP_HD inline int NativeMeshFace(Vec3* res, const NativeShape& s, int idx) {
  const int adr = s.mesh.polyvertadr[idx], nvert = s.mesh.polyvertnum[idx];
  int j = 0;
  for (int i = nvert - 1; i >= 0; --i) {
    res[j++] = NativeToWorld(s, MeshPoint(s.mesh.vert, s.mesh.polyvert[adr + i]));
  }
  return nvert;
}

// First pair (i, j) of anti-parallel normals v[i], w[j].
MJP_HD inline bool NativeAlignedFaces(int res[2], const Vec3* v, int nv, const Vec3* w, int nw) {
  for (int i = 0; i < nv; ++i) {
    for (int j = 0; j < nw; ++j) {
      if (Dot(v[i], w[j]) < -kNativeFaceTol) {
        res[0] = i;
        res[1] = j;
        return true;
      }
    }
  }
  return false;
}

// First (edge j, face i) with the edge direction perpendicular to the face normal.
MJP_HD inline bool NativeAlignedFaceEdge(int res[2], const Vec3* edge, int nedge, const Vec3* face,
                                         int nface) {
  for (int i = 0; i < nface; ++i) {
    for (int j = 0; j < nedge; ++j) {
      if (std::fabs(Dot(edge[j], face[i])) < kNativeEdgeTol) {
        res[0] = j;
        res[1] = i;
        return true;
      }
    }
  }
  return false;
}

// Distinct vertices among a face's three support ids (1, 2 or 3); a repeated first pair moves the
// third vertex into slot 2.
MJP_HD inline int NativeFeatureDim(int vi[3], Vec3 v[3]) {
  if (vi[0] == vi[1]) {
    if (vi[0] == vi[2])
      return 1;
    vi[1] = vi[2];
    v[1] = v[2];
    return 2;
  }
  return (vi[2] == vi[0] || vi[2] == vi[1]) ? 2 : 3;
}

// Normals of shape s's candidate faces (boxes and meshes only).
MJP_HD inline int NativeCandidateNormals(Vec3* res, int* resind, int dim, const NativeShape& s,
                                         const int vi[3], const Vec3& dir) {
  if (s.type == ShapeType::kBox)
    return NativeBoxNormals(res, resind, dim, s, vi, dir);
  if (s.type == ShapeType::kMesh)
    return NativeMeshNormals(res, resind, dim, s, vi);
  return 0;
}

// Unit directions of the edges leaving shape s's touching feature: the edge itself (dim 2), or the
// edges at a touching vertex (dim 1); far ends in endverts.
MJP_HD inline int NativeCandidateEdges(Vec3* res, Vec3* endverts, int dim, const NativeShape& s,
                                       const Vec3 v[3], int v1i) {
  if (dim == 2 && (s.type == ShapeType::kBox || s.type == ShapeType::kMesh)) {
    endverts[0] = v[1];
    res[0] = v[1] - v[0];
    Normalize(res[0]);
    return 1;
  }
  if (s.type == ShapeType::kBox)
    return NativeBoxEdgeNormals(res, endverts, dim, s, v, v1i);
  if (s.type == ShapeType::kMesh)
    return NativeMeshEdgeNormals(res, endverts, dim, s, v, v1i);
  return 0;
}

MJP_HD inline int NativeFaceOf(Vec3* res, const NativeShape& s, int idx) {
  if (s.type == ShapeType::kBox)
    return NativeBoxFace(res, s, idx);
  if (s.type == ShapeType::kMesh)
    return NativeMeshFace(res, s, idx);
  return 0;
}

// The patch from EPA's face `face_id` of `pt` (status holds EPA's single contact, kept when no
// patch is found).
MJP_HD inline void NativeMultiContact(const NativePatchScratch& scratch, const NativePolytope& pt,
                                      int face_id, NativeStatus* status, const NativeShape& a,
                                      const NativeShape& b) {
  if (a.type == ShapeType::kMesh && !a.mesh.polynum)
    return;
  if (b.type == ShapeType::kMesh && !b.mesh.polynum)
    return;
  int verts[3];
  NativeUnpack(pt.mem.faces[face_id].verts, verts);
  int v1i[3], v2i[3];
  Vec3 v1[3], v2[3];
  for (int k = 0; k < 3; ++k) {
    const NativeVertex& v = pt.mem.verts[verts[k]];
    v1i[k] = v.index1;
    v2i[k] = v.index2;
    v1[k] = v.vert1;
    v2[k] = v.vert2;
  }
  int nface1 = NativeFeatureDim(v1i, v1);
  int nface2 = NativeFeatureDim(v2i, v2);
  const Vec3 dir = status->x2[0] - status->x1[0];
  const Vec3 dir_neg = status->x1[0] - status->x2[0];
  Vec3* n1 = scratch.n1;
  Vec3* n2 = scratch.n2;
  int nnorms1 = NativeCandidateNormals(n1, scratch.idx1, nface1, a, v1i, dir_neg);
  int nnorms2 = NativeCandidateNormals(n2, scratch.idx2, nface2, b, v2i, dir);

  // Face against face, else an edge of the lower-dimensional side lying in the other's face.
  int res[2];
  bool edge1 = false, edge2 = false;
  if (!NativeAlignedFaces(res, n1, nnorms1, n2, nnorms2)) {
    if (nface1 < 3 && nface1 <= nface2) {
      nnorms1 = NativeCandidateEdges(n1, scratch.endverts, nface1, a, v1, v1i[0]);
      if (!NativeAlignedFaceEdge(res, n1, nnorms1, n2, nnorms2))
        return;
      edge1 = true;
    } else if (nface2 < 3) {
      nnorms2 = NativeCandidateEdges(n2, scratch.endverts, nface2, b, v2, v2i[0]);
      if (!NativeAlignedFaceEdge(res, n2, nnorms2, n1, nnorms1))
        return;
      edge2 = true;
    } else {
      return;
    }
  }
  const int i = res[0], j = res[1];

  // The two features as polygons (an edge is a 2-gon).
  Vec3* face1 = scratch.face1;
  Vec3* face2 = scratch.face2;
  if (edge1) {
    face1[0] = v1[0];
    face1[1] = scratch.endverts[i];
    nface1 = 2;
  } else {
    nface1 = NativeFaceOf(face1, a, edge2 ? scratch.idx1[j] : scratch.idx1[i]);
  }
  if (edge2) {
    face2[0] = v2[0];
    face2[1] = scratch.endverts[i];
    nface2 = 2;
  } else {
    nface2 = NativeFaceOf(face2, b, scratch.idx2[j]);
  }

  if (edge1) {
    // Clip the edge of shape 1 by shape 2's face; the witness roles swap back afterwards.
    NativePolygonClip(status, face2, nface2, face1, nface1, n2[j], n2[j] * -1.0, scratch);
    for (int k = 0; k < status->nx; ++k) {
      const Vec3 tmp = status->x1[k];
      status->x1[k] = status->x2[k];
      status->x2[k] = tmp;
    }
    return;
  }
  if (edge2) {
    NativePolygonClip(status, face1, nface1, face2, nface2, n1[j], n1[j] * -1.0, scratch);
    return;
  }
  NativePolygonClip(status, face1, nface1, face2, nface2, n1[i], n2[j], scratch);
}

}  // namespace mjportal::collision
