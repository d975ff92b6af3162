// Support fields: precomputed support vertices of a convex mesh on a latitude–longitude grid of
// directions, so that a support query costs O(1) in the vertex count (fast mode).
//
// Grid (res × res cells): cell (i, j) holds the direction
//     θ_i = 2π i / res − π,   φ_j = π j / res,   d_ij = (sin φ cos θ, sin φ sin θ, cos φ)
// and the index of the mesh vertex maximizing d_ij · v. A query for d computes continuous cell
// coordinates from θ = atan2(d_y, d_x), φ = acos(d_z / |d|), evaluates the vertices of the four
// surrounding cells and keeps the largest d · v (reporting how many distinct vertices tie for it).
// Cells are 2π/res apart, so the looked-up vertex can miss a narrow feature; with refinement on,
// a hill climb on the hull graph from it reaches the exact extreme vertex (convexity: a local
// maximum on the hull is global).
//
// Memory: one int32 per cell (180² cells: 127 KiB per distinct mesh). Storage is the caller's.
#pragma once

#include <cmath>
#include <cstdint>

#include "collision/mesh_support.h"

namespace mjportal::collision {

struct SupportFieldView {
  int res;                // cells per axis
  const int32_t* vertex;  // [res * res] winner of cell (i, j) at i * res + j: hull-local id when
                          // the mesh has a hull graph, else vertex index
};

namespace support_field {

constexpr double kPi = 3.14159265358979323846;

// Direction of cell (i, j).
MJP_HD inline Vec3 CellDirection(int res, int i, int j) {
  const double theta = 2 * kPi * i / res - kPi;
  const double phi = kPi * j / res;
  return {std::sin(phi) * std::cos(theta), std::sin(phi) * std::sin(theta), std::cos(phi)};
}

// Vertex index of an entry: hull-local ids map through the graph; without a graph entries are
// vertex indices already.
MJP_HD inline int VertexOf(const MeshView& mesh, int entry) {
  return mesh.graph == nullptr ? entry : mesh.graph[2 + mesh.graph[0] + entry];
}

// d · hull vertex `local` (a hull-local id): MuJoCo's float vertex through the graph's id map.
struct GraphVertexDot {
  const float* vert;
  const int* globalid;
  MJP_HD double operator()(const Vec3& d, int local) const {
    return DotVertex(d, vert, globalid[local]);
  }
};

// The same from a widened hull-local copy (x, y, z per id): no indirection, no conversions, the
// same products and sums bit for bit.
struct WidenedVertexDot {
  const double* hull;
  MJP_HD double operator()(const Vec3& d, int local) const {
    const double* v = hull + 3 * local;
    return d.x * v[0] + d.y * v[1] + d.z * v[2];
  }
};

// Hill climb on hull graph `graph` from hull-local id `start` to the id maximizing d·v; each step
// strictly increases d·v, so at most numvert steps.
template <typename VertexDot>
MJP_HD inline int ClimbGraph(const int* graph, const Vec3& d, int start, VertexDot dot) {
  const int numvert = graph[0];
  const int* vert_edgeadr = graph + 2;
  const int* edge_localid = graph + 2 + 2 * numvert;
  int current = start;
  double best = dot(d, current);
  for (int step = 0; step < numvert; ++step) {
    int next = current;
    for (int e = vert_edgeadr[current]; edge_localid[e] >= 0; ++e) {
      const double value = dot(d, edge_localid[e]);
      if (value > best) {
        best = value;
        next = edge_localid[e];
      }
    }
    if (next == current) {
      break;
    }
    current = next;
  }
  return current;
}

// From entry `start`, the entry maximizing d·v: a hill climb on the hull graph (on the widened
// copy when the mesh has one), or a scan of all vertices without a graph.
MJP_HD inline int Climb(const MeshView& mesh, const Vec3& d, int start) {
  if (mesh.graph == nullptr) {
    int hull = -1;
    const MeshView scan = {mesh.vert, mesh.nvert, nullptr, false, mesh.rbound};
    return MeshSupportVertex(scan, d, &hull);
  }
  if (mesh.hull_vert != nullptr) {
    return ClimbGraph(mesh.graph, d, start, WidenedVertexDot{mesh.hull_vert});
  }
  return ClimbGraph(mesh.graph, d, start,
                    GraphVertexDot{mesh.vert, mesh.graph + 2 + mesh.graph[0]});
}

}  // namespace support_field

// Fills `entries` (res * res) for `mesh`: hull-local ids when the mesh has a hull graph (each cell
// climbs from its neighbour's winner: a few dot products per cell), else vertex indices (a scan
// per cell).
inline void BuildSupportField(const MeshView& mesh, int res, int32_t* entries) {
  int previous = 0;
  for (int i = 0; i < res; ++i) {
    for (int j = 0; j < res; ++j) {
      const Vec3 d = support_field::CellDirection(res, i, j);
      const int start = j == 0 && i > 0 ? entries[(i - 1) * res] : previous;
      previous = support_field::Climb(mesh, d, mesh.graph == nullptr ? 0 : start);
      entries[i * res + j] = previous;
    }
  }
}

// Support vertex (index into mesh.vert) of `mesh` along local direction d, from its field.
// *ties receives how many distinct vertices of the four surrounding cells tie for the maximum;
// *entry_out (optional) the answer's entry (hull-local id with a graph).
// With `refine` the answer is the exact extreme vertex; without, the best of the four cells.
MJP_HD inline int QuerySupportField(const SupportFieldView& field, const MeshView& mesh,
                                    const Vec3& d, bool refine, int* ties,
                                    int* entry_out = nullptr) {
  using support_field::VertexOf;
  const int res = field.res;
  const double norm = std::sqrt(Dot(d, d));
  const double cos_phi = norm > 0 ? Clip(d.z / norm, -1.0, 1.0) : 1.0;
  const double u = (std::atan2(d.y, d.x) + support_field::kPi) * res / (2 * support_field::kPi);
  const double v = std::acos(cos_phi) * res / support_field::kPi;

  // The four surrounding cells: θ wraps around, φ clamps at the poles.
  const int i0 = static_cast<int>(std::floor(u)), j0 = static_cast<int>(std::floor(v));
  const int is[2] = {((i0 % res) + res) % res, (((i0 + 1) % res) + res) % res};
  const int js[2] = {j0 < 0 ? 0 : (j0 >= res ? res - 1 : j0),
                     j0 + 1 >= res ? res - 1 : (j0 + 1 < 0 ? 0 : j0 + 1)};
  int best = -1, distinct[4], n_distinct = 0;
  double best_value = -1e300;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      const int entry = field.vertex[is[a] * res + js[b]];
      const double value = DotVertex(d, mesh.vert, VertexOf(mesh, entry));
      if (value > best_value) {
        best_value = value;
        best = entry;
        n_distinct = 0;
      }
      if (value == best_value) {
        bool seen = false;
        for (int k = 0; k < n_distinct; ++k)
          seen |= distinct[k] == entry;
        if (!seen)
          distinct[n_distinct++] = entry;
      }
    }
  }
  *ties = n_distinct;
  const int entry = refine ? support_field::Climb(mesh, d, best) : best;
  if (entry_out != nullptr)
    *entry_out = entry;
  return VertexOf(mesh, entry);
}

}  // namespace mjportal::collision
