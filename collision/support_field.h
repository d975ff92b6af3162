// Support fields: precomputed support vertices of a convex mesh on a latitude–longitude grid of
// directions, so that a support query costs O(1) in the vertex count (fast mode).
//
// Grid (res × res cells): cell (i, j) holds the direction
//     θ_i = 2π i / res − π,   φ_j = π j / res,   d_ij = (sin φ cos θ, sin φ sin θ, cos φ)
// and the index of the mesh vertex maximizing d_ij · v. A query for d computes continuous cell
// coordinates from θ = atan2(d_y, d_x), φ = atan2(|d_xy|, d_z) (fast_atan2.h), evaluates the
// vertices of the four surrounding cells and keeps the largest d · v (reporting how many distinct
// vertices tie for it). Cells are 2π/res apart, so the looked-up vertex can miss a narrow feature;
// with refinement on, a hill climb on the hull graph from it reaches the exact extreme vertex
// (convexity: a local maximum on the hull is global) — when no tie count is wanted, straight from
// the corner cell's vertex, skipping the four-cell evaluation.
//
// Whole patches: the directions between four neighbouring grid points (a patch) mostly lie inside
// one vertex's normal cone, where that vertex is the answer for every direction of the patch. The
// build proves this per patch (CertifyPatches) and flags the patch's corner entry; a query landing
// in a flagged patch answers from the entry alone — the same vertex the evaluation and the climb
// would return, without either.
//
// Memory: one int32 per cell (180² cells: 127 KiB per distinct mesh). Storage is the caller's.
#pragma once

#include <cmath>
#include <cstdint>

#include "collision/fast_atan2.h"
#include "collision/mesh_support.h"

namespace mjportal::collision {

struct SupportFieldView {
  int res;                // cells per axis
  const int32_t* vertex;  // [res * res] winner of cell (i, j) at i * res + j: hull-local id when
                          // the mesh has a hull graph, else vertex index; | kWholePatch when the
                          // patch from (i, j) to (i + 1, j + 1) has that winner throughout
};

namespace support_field {

constexpr double kPi = 3.14159265358979323846;

// Entry flag of a certified patch, and the mask that leaves the vertex.
constexpr int32_t kWholePatch = int32_t{1} << 30;
constexpr int32_t kEntryMask = kWholePatch - 1;

// Angular slack (radians) by which a patch is enlarged before it is certified: covers the
// error of the query's angles (FastAtan2: 4e-8) and their rounding.
constexpr double kPatchSlack = 1e-6;

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
      // The best neighbour kept by selects, not a branch the hull's shape makes unpredictable.
      const int candidate = edge_localid[e];
      const double value = dot(d, candidate);
      const bool better = value > best;
      next = better ? candidate : next;
      best = better ? value : best;
    }
    if (next == current) {
      break;
    }
    current = next;
  }
  return current;
}

// cos² of the warm cone's half-angle for a hull of n vertices: a query whose direction turned by
// less than it since the last answer climbs from there instead of looking up the field. A climb
// costs a neighbour scan per vertex it passes, and n vertices spread over the sphere of
// directions are about √(4π/n) apart, so the cone spans a fixed number of vertex spacings:
// sin² of the half-angle = kWarmConeSpacings² · 4π / n, at most 1/4 (30°, where coarse hulls
// sit: measured on 247-vertex hulls, 45° was 3% slower). Measured on 2,000-vertex hulls: 3.5
// spacings (16°) 5% faster than 30°; 2 to 3.5 within the noise of each other.
constexpr double kWarmConeSpacings2 = 12;  // (3.5 spacings)²
MJP_HD inline double WarmConeCos2(int hull_vertices) {
  const double sin2 = hull_vertices > 0 ? kWarmConeSpacings2 * 4 * kPi / hull_vertices : 0.25;
  return 1 - (sin2 < 0.25 ? sin2 : 0.25);
}

// Entry `entry`'s vertex (hull-local id with a graph), widened: from the widened hull-local copy
// when the mesh has one (no id map), else MuJoCo's float vertex.
MJP_HD inline Vec3 EntryPoint(const MeshView& mesh, int entry) {
  if (mesh.hull_vert != nullptr && mesh.graph != nullptr) {
    const double* v = mesh.hull_vert + 3 * entry;
    return {v[0], v[1], v[2]};
  }
  return MeshPoint(mesh.vert, VertexOf(mesh, entry));
}

// d · entry `entry`'s vertex, the same bits as DotVertex on MuJoCo's float vertex.
MJP_HD MJP_INLINE double EntryDot(const MeshView& mesh, const Vec3& d, int entry) {
  if (mesh.hull_vert != nullptr && mesh.graph != nullptr)
    return WidenedVertexDot{mesh.hull_vert}(d, entry);
  return DotVertex(d, mesh.vert, VertexOf(mesh, entry));
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

// Flags (kWholePatch) every patch whose corner vertex v is the strict maximizer of d·x for every
// direction d of the patch, enlarged by kPatchSlack. Since a local maximum on the hull graph is
// global, it suffices that d·(w − v) < 0 on the patch for each graph neighbour w of v. Bound: a
// unit d of the patch is within angle r of the patch centre c, r = hφ + sin φ_max · hθ (walk along
// the parallel, then the meridian; hθ, hφ the half extents), so d·g ≤ c·g + r|g| for g = w − v.
// Required: c·g + r|g| < −κ, κ = 1e-14 (|v| + |w|) covering the rounding of the compared dot
// products, so that the climb, evaluating them in floating point, picks v too.
inline void CertifyPatches(const MeshView& mesh, int res, int32_t* entries) {
  using support_field::kPatchSlack;
  using support_field::kPi;
  const int numvert = mesh.graph[0];
  const int* vert_edgeadr = mesh.graph + 2;
  const int* edge_localid = mesh.graph + 2 + 2 * numvert;
  const double half_theta = kPi / res + kPatchSlack, half_phi = kPi / (2 * res) + kPatchSlack;
  for (int j = 0; j < res; ++j) {
    // Patch row j: φ from φ_j to φ_j + π/res (the last row ends at the pole).
    const double phi_c = kPi * (j + 0.5) / res;
    const double lo = phi_c - half_phi, hi = phi_c + half_phi;
    const double sin_max = lo <= kPi / 2 && hi >= kPi / 2 ? 1.0
                                                          : std::fmax(std::sin(Clip(lo, 0.0, kPi)),
                                                                      std::sin(Clip(hi, 0.0, kPi)));
    const double radius = half_phi + sin_max * half_theta;
    const double sin_phi = std::sin(phi_c), cos_phi = std::cos(phi_c);
    // The patch centres' θ advance by 2π/res: rotate (cos θ, sin θ) by that angle per patch.
    const double step_cos = std::cos(2 * kPi / res), step_sin = std::sin(2 * kPi / res);
    double cos_theta = std::cos(kPi / res - kPi), sin_theta = std::sin(kPi / res - kPi);
    for (int i = 0; i < res; ++i) {
      const Vec3 c = {sin_phi * cos_theta, sin_phi * sin_theta, cos_phi};
      const double next_cos = cos_theta * step_cos - sin_theta * step_sin;
      sin_theta = sin_theta * step_cos + cos_theta * step_sin;
      cos_theta = next_cos;
      const int v = entries[i * res + j];
      const Vec3 pv = MeshPoint(mesh.vert, support_field::VertexOf(mesh, v));
      const double norm_v = std::sqrt(Dot(pv, pv));
      bool whole = true;
      for (int e = vert_edgeadr[v]; whole && edge_localid[e] >= 0; ++e) {
        const Vec3 pw = MeshPoint(mesh.vert, support_field::VertexOf(mesh, edge_localid[e]));
        const Vec3 g = pw - pv;
        const double kappa = 1e-14 * (norm_v + std::sqrt(Dot(pw, pw)));
        whole = Dot(c, g) + radius * std::sqrt(Dot(g, g)) < -kappa;
      }
      if (whole) {
        entries[i * res + j] |= support_field::kWholePatch;
      }
    }
  }
}

// Fills `entries` (res * res) for `mesh`: hull-local ids when the mesh has a hull graph (each cell
// climbs from its neighbour's winner: a few dot products per cell; then the whole patches are
// flagged), else vertex indices (a scan per cell).
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
  if (mesh.graph != nullptr) {
    CertifyPatches(mesh, res, entries);
  }
}

// The patch a direction falls in: θ's two grid columns (wrapping around) and φ's two grid rows
// (clamped at the poles); (is[0], js[0]) is the patch's corner entry.
struct FieldCell {
  int is[2];
  int js[2];
};

MJP_HD MJP_INLINE FieldCell LocateFieldCell(int res, const Vec3& d) {
  // θ and φ by FastAtan2 (within 4e-8 rad, inside the certification slack); φ = atan2(ρ, z)
  // keeps its accuracy at the poles, where acos(z / |d|) loses digits. Scaled by a product with
  // the cells per radian (no division).
  const double rho = std::sqrt(d.x * d.x + d.y * d.y);
  const double per_radian = res * (1 / support_field::kPi);
  double u = (FastAtan2(d.y, d.x) + support_field::kPi) * (0.5 * per_radian);
  double v = FastAtan2(rho, d.z) * per_radian;
  if (u != u || v != v) {  // a NaN direction (no finite pose gives one): any cell, no UB
    u = v = 0;
  }
  // FastAtan2 stays within [−π, π], so u, v ∈ [0, res]: θ = π wraps to column 0, φ = π clamps
  // to the last row. Compares instead of integer remainders (four divisions per query).
  int i0 = static_cast<int>(std::floor(u)), j0 = static_cast<int>(std::floor(v));
  i0 = i0 >= res ? i0 - res : i0;
  i0 = i0 < 0 ? 0 : (i0 >= res ? res - 1 : i0);
  j0 = j0 < 0 ? 0 : (j0 >= res ? res - 1 : j0);
  return {{i0, i0 + 1 == res ? 0 : i0 + 1}, {j0, j0 + 1 == res ? j0 : j0 + 1}};
}

// Support vertex (index into mesh.vert) of `mesh` along local direction d, from its field.
// *ties (when given) receives how many distinct vertices of the four surrounding cells tie for
// the maximum (uncounted without: the support function has no use for it);
// *entry_out (optional) the answer's entry (hull-local id with a graph).
// With `refine` the answer is the exact extreme vertex (climbed from the corner entry, or with
// *ties wanted from the best of the four cells); without, the best of the four cells.
// A certified patch answers from its entry: the vertex both would return, with no tie.
MJP_HD MJP_INLINE int QuerySupportField(const SupportFieldView& field, const MeshView& mesh,
                                        const Vec3& d, bool refine, int* ties,
                                        int* entry_out = nullptr) {
  using support_field::VertexOf;
  const FieldCell cell = LocateFieldCell(field.res, d);
  const int32_t corner = field.vertex[cell.is[0] * field.res + cell.js[0]];
  if (corner & support_field::kWholePatch) {
    const int whole = corner & support_field::kEntryMask;
    if (ties != nullptr)
      *ties = 1;
    if (entry_out != nullptr)
      *entry_out = whole;
    return VertexOf(mesh, whole);
  }
  // Refined and no tie count wanted: the climb from the patch's corner entry, whose vertex wins
  // within a cell of d (short), and a local maximum is global: the four cells' values would only
  // pick where it starts (measured 2-4% faster per mesh-mesh call without them).
  if (refine && ties == nullptr) {
    const int entry = support_field::Climb(mesh, d, corner & support_field::kEntryMask);
    if (entry_out != nullptr)
      *entry_out = entry;
    return VertexOf(mesh, entry);
  }
  int best = -1, distinct[4], n_distinct = 0;
  double best_value = -1e300;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      const int entry =
          field.vertex[cell.is[a] * field.res + cell.js[b]] & support_field::kEntryMask;
      const double value = support_field::EntryDot(mesh, d, entry);
      if (value > best_value) {
        best_value = value;
        best = entry;
        n_distinct = 0;
      }
      if (ties != nullptr && value == best_value) {
        bool seen = false;
        for (int k = 0; k < n_distinct; ++k)
          seen |= distinct[k] == entry;
        if (!seen)
          distinct[n_distinct++] = entry;
      }
    }
  }
  if (ties != nullptr)
    *ties = n_distinct;
  const int entry = refine ? support_field::Climb(mesh, d, best) : best;
  if (entry_out != nullptr)
    *entry_out = entry;
  return VertexOf(mesh, entry);
}

namespace support_field {

// True when entry a's vertex comes before entry b's in the tie-break order of unrefined
// queries: larger d·v first, then larger t1·v, then larger t2·v, with t1 = (3, 5, 7) and
// t2 = (7, -3, 2) fixed off the axes and diagonals (distinct positions tied in all three differ
// along t1 × t2 and perpendicular to d, which no mesh of interest has).
MJP_HD inline bool BeatsWithTieBreak(const MeshView& mesh, const Vec3& d, int a, int b) {
  const Vec3 t1 = {3, 5, 7}, t2 = {7, -3, 2};
  const double da = EntryDot(mesh, d, a), db = EntryDot(mesh, d, b);
  if (da != db)
    return da > db;
  const double ta = EntryDot(mesh, t1, a), tb = EntryDot(mesh, t1, b);
  if (ta != tb)
    return ta > tb;
  return EntryDot(mesh, t2, a) > EntryDot(mesh, t2, b);
}

}  // namespace support_field

// Support vertex without refinement (support_refine = false), ties broken. Along a face's or an
// edge's normal several vertices of the four cells share the maximum, and which one wins would
// depend on the cells' order; GJK's simplex could then swap one tied vertex for another between
// iterations. When more than one distinct vertex ties, the answer is the first in the fixed
// tie-break order (the vertex a direction nudged from d towards t1, then t2, would pick among
// them): the same vertex for the same d. Untied, QuerySupportField's answer.
[[gnu::cold]] MJP_HD inline int UntiedFieldVertex(const SupportFieldView& field,
                                                  const MeshView& mesh, const Vec3& d,
                                                  int* entry_out) {
  int ties = 0, entry = -1;
  const int vertex = QuerySupportField(field, mesh, d, false, &ties, &entry);
  if (ties > 1) {
    const FieldCell cell = LocateFieldCell(field.res, d);
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        const int other =
            field.vertex[cell.is[a] * field.res + cell.js[b]] & support_field::kEntryMask;
        if (support_field::BeatsWithTieBreak(mesh, d, other, entry))
          entry = other;
      }
    }
  }
  *entry_out = entry;
  return ties > 1 ? support_field::VertexOf(mesh, entry) : vertex;
}

}  // namespace mjportal::collision
