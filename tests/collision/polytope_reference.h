// The exact penetration depth of two convex polytopes (boxes, convex meshes of any size), as the
// tests' reference for fast mode's polytope pairs: the separating axis theorem over every face
// normal of both and every edge pair whose arcs cross on the Gauss map (Gregorius, "The Separating
// Axis Test between Convex Polyhedra", GDC 2013; only such edge pairs bound a face of A − B, so
// the others need no test). Support values are brute-force maxima over the vertices: nothing of
// the solvers under test is used.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "collision/vec3.h"

namespace mjportal::collision::reference {

// A convex polytope in its own frame: vertices, outward unit face normals, and its edges, each
// with the two faces that meet there.
struct Polytope {
  struct Edge {
    int v0, v1;  // vertex indices
    int f0, f1;  // face indices (normals)
  };
  std::vector<Vec3> vertices;
  std::vector<Vec3> normals;
  std::vector<Edge> edges;
};

// The polytope of a closed triangulated convex surface (a convex hull's triangles, in any
// winding): normals turned outward from the vertices' centroid; an edge per pair of triangles
// sharing two vertices.
inline Polytope PolytopeFromTriangles(const std::vector<Vec3>& vertices,
                                      const std::vector<int>& triangles) {
  Polytope p;
  p.vertices = vertices;
  Vec3 centroid = {0, 0, 0};
  for (const Vec3& v : vertices)
    centroid = centroid + v;
  centroid = centroid * (1.0 / static_cast<double>(vertices.size()));
  std::map<std::pair<int, int>, int> first_face;  // edge (low, high) -> the first face seen
  const int count = static_cast<int>(triangles.size() / 3);
  for (int t = 0; t < count; ++t) {
    const int* v = triangles.data() + 3 * t;
    Vec3 n = Cross(vertices[v[1]] - vertices[v[0]], vertices[v[2]] - vertices[v[0]]);
    const double length = std::sqrt(Dot(n, n));
    n = length > 0 ? n * (1 / length) : Vec3{0, 0, 0};
    if (Dot(n, vertices[v[0]] - centroid) < 0)
      n = -n;
    p.normals.push_back(n);
    for (int k = 0; k < 3; ++k) {
      const std::pair<int, int> key = std::minmax(v[k], v[(k + 1) % 3]);
      const auto found = first_face.find(key);
      if (found == first_face.end()) {
        first_face[key] = t;
      } else {
        p.edges.push_back({key.first, key.second, found->second, t});
      }
    }
  }
  return p;
}

// A box of half-extents e: 8 corners, 6 faces, 12 edges.
inline Polytope BoxPolytope(const double* e) {
  Polytope p;
  for (int i = 0; i < 8; ++i)
    p.vertices.push_back({i & 1 ? e[0] : -e[0], i & 2 ? e[1] : -e[1], i & 4 ? e[2] : -e[2]});
  for (int axis = 0; axis < 3; ++axis) {
    for (double sign : {-1.0, 1.0}) {
      Vec3 n = {0, 0, 0};
      Set(n, axis, sign);
      p.normals.push_back(n);  // face 2 * axis + (sign > 0)
    }
  }
  // Corners i and i | (1 << axis) differ along `axis`; their edge joins the faces of the other two
  // axes on the sides the corner lies on.
  for (int i = 0; i < 8; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      if (i & (1 << axis))
        continue;
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      p.edges.push_back({i, i | (1 << axis), 2 * u + ((i >> u) & 1), 2 * w + ((i >> w) & 1)});
    }
  }
  return p;
}

// A polytope placed in the world: vertices and face normals rotated by mat (row-major, columns
// the local axes) and translated by pos.
struct PlacedPolytope {
  const Polytope* shape;
  std::vector<Vec3> vertices, normals;
};

inline PlacedPolytope Place(const Polytope& p, const double* pos, const double* mat) {
  PlacedPolytope out{&p, {}, {}};
  for (const Vec3& v : p.vertices)
    out.vertices.push_back(Rotate(mat, v) + Load3(pos));
  for (const Vec3& n : p.normals)
    out.normals.push_back(Rotate(mat, n));
  return out;
}

// max_a n·a − min_b n·b by brute force over the vertices: the overlap of A and B along n (A low,
// B high).
inline double BruteOverlap(const PlacedPolytope& a, const PlacedPolytope& b, const Vec3& n) {
  double high = -1e300, low = 1e300;
  for (const Vec3& v : a.vertices)
    high = std::max(high, Dot(n, v));
  for (const Vec3& v : b.vertices)
    low = std::min(low, Dot(n, v));
  return high - low;
}

// Whether the Gauss-map arcs (a, b) of an edge of A and (c, d) of an edge of −B cross, with a
// little slack (an extra axis can only bound the depth from above, never below the truth).
inline bool ArcsCross(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  constexpr double kSlack = 1e-14;
  const Vec3 bxa = Cross(b, a), dxc = Cross(d, c);
  const double cba = Dot(c, bxa), dba = Dot(d, bxa);
  const double adc = Dot(a, dxc), bdc = Dot(b, dxc);
  return cba * dba < kSlack && adc * bdc < kSlack && cba * bdc > -kSlack;
}

// The penetration depth of A and B (> 0: overlapping; otherwise minus the largest gap along the
// candidate axes): the least overlap over the face normals of both and the crossing edge pairs'
// axes. `all_edge_pairs` skips the Gauss-map pruning (the reference's own check, on small hulls).
inline double PolytopeDepth(const PlacedPolytope& a, const PlacedPolytope& b,
                            bool all_edge_pairs = false) {
  double best = 1e300;
  const auto consider = [&](const Vec3& n) { best = std::min(best, BruteOverlap(a, b, n)); };
  for (const Vec3& n : a.normals)
    consider(n);
  for (const Vec3& n : b.normals)
    consider(-n);
  for (const Polytope::Edge& ea : a.shape->edges) {
    const Vec3 na0 = a.normals[ea.f0], na1 = a.normals[ea.f1];
    const Vec3 da = a.vertices[ea.v1] - a.vertices[ea.v0];
    for (const Polytope::Edge& eb : b.shape->edges) {
      if (!all_edge_pairs && !ArcsCross(na0, na1, -b.normals[eb.f0], -b.normals[eb.f1]))
        continue;
      Vec3 axis = Cross(da, b.vertices[eb.v1] - b.vertices[eb.v0]);
      const double length = std::sqrt(Dot(axis, axis));
      if (!(length > 1e-12 * std::sqrt(Dot(da, da))))
        continue;  // parallel edges: their faces' normals cover them
      axis = axis * (1 / length);
      consider(axis);
      consider(-axis);
    }
  }
  return best;
}

}  // namespace mjportal::collision::reference
