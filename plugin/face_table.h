// A mesh's face table (collision::MeshView::faces): its faces of more vertices than a support
// feature holds, found from any of their vertices, so that a contact feature gathers a large face
// lying flat by reading it instead of walking the hull graph across it.
#pragma once

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "collision/contact_manifold.h"

namespace mjportal {

// Whether polygon verts[0..count) (mesh-local ids into vert) runs around its boundary in order,
// either way round: every corner turns the same way in the polygon's plane (collinear corners
// allowed), which the feature's spread selection climbs along (contact_manifold.h).
inline bool InConvexOrder(const float* vert, const int* verts, int count) {
  const auto point = [&](int j) {
    const float* p = vert + 3 * verts[(j % count + count) % count];
    return collision::Vec3{p[0], p[1], p[2]};
  };
  // The polygon's normal from its first corner that turns, then every corner against it.
  collision::Vec3 normal = {0, 0, 0};
  double scale2 = 0;
  for (int j = 0; j < count; ++j) {
    const collision::Vec3 edge = point(j + 1) - point(j);
    scale2 = std::fmax(scale2, collision::Dot(edge, edge));
  }
  for (int j = 0; j < count && collision::Dot(normal, normal) <= 1e-18 * scale2 * scale2; ++j)
    normal = collision::Cross(point(j) - point(j - 1), point(j + 1) - point(j));
  if (!(collision::Dot(normal, normal) > 1e-18 * scale2 * scale2))
    return false;
  for (int j = 0; j < count; ++j) {
    const collision::Vec3 turn = collision::Cross(point(j) - point(j - 1), point(j + 1) - point(j));
    if (collision::Dot(turn, normal) < -1e-9 * scale2 * std::sqrt(collision::Dot(normal, normal)))
      return false;
  }
  return true;
}

// The corners (positions in verts) of the largest triangle on polygon verts[0..count): every
// triple up to kExhaustive corners (the first largest in index order), else corners a third of
// the boundary apart.
inline void LargestTriangle(const float* vert, const int* verts, int count, int corner[3]) {
  constexpr int kExhaustive = 96;
  corner[0] = 0, corner[1] = count / 3, corner[2] = 2 * count / 3;
  if (count > kExhaustive)
    return;
  const auto point = [&](int j) {
    const float* p = vert + 3 * verts[j];
    return collision::Vec3{p[0], p[1], p[2]};
  };
  double best = -1;
  for (int a = 0; a < count; ++a) {
    for (int b = a + 1; b < count; ++b) {
      for (int c = b + 1; c < count; ++c) {
        const collision::Vec3 cross = collision::Cross(point(b) - point(a), point(c) - point(a));
        const double area2 = collision::Dot(cross, cross);
        if (area2 > best) {
          best = area2;
          corner[0] = a, corner[1] = b, corner[2] = c;
        }
      }
    }
  }
}

// Mesh `id`'s table: per hull vertex (hull-local id) the offset of its largest such face, or -1;
// then each MuJoCo polygon (merged coplanar hull triangles) of more than kMaxFeaturePoints
// vertices as its vertex count, the hull-local ids of the corners of its largest inscribed
// triangle (LargestTriangle), and its vertices' hull-local ids in boundary order. Empty when the
// mesh has no hull graph or no such face. A polygon with a vertex off the hull, or not in
// boundary order, is left out (the feature walks the graph there).
inline std::vector<std::int32_t> BuildFaceTable(const mjModel* m, int id) {
  std::vector<std::int32_t> table;
  const int graphadr = m->mesh_graphadr[id];
  if (graphadr < 0)
    return table;
  const int numvert = m->mesh_graph[graphadr];
  const int* globalid = m->mesh_graph + graphadr + 2 + numvert;
  std::vector<int> hull_id(m->mesh_vertnum[id], -1);
  for (int i = 0; i < numvert; ++i)
    hull_id[globalid[i]] = i;
  table.assign(numvert, -1);
  bool any = false;
  for (int k = 0; k < m->mesh_polynum[id]; ++k) {
    const int poly = m->mesh_polyadr[id] + k;
    const int count = m->mesh_polyvertnum[poly];
    const int* verts = m->mesh_polyvert + m->mesh_polyvertadr[poly];
    bool on_hull = count > collision::kMaxFeaturePoints;
    for (int j = 0; j < count && on_hull; ++j)
      on_hull = hull_id[verts[j]] >= 0;
    if (!on_hull || !InConvexOrder(m->mesh_vert + 3 * m->mesh_vertadr[id], verts, count))
      continue;
    any = true;
    const std::int32_t face = static_cast<std::int32_t>(table.size());
    table.push_back(count);
    int corner[3];
    LargestTriangle(m->mesh_vert + 3 * m->mesh_vertadr[id], verts, count, corner);
    for (int j = 0; j < 3; ++j)
      table.push_back(hull_id[verts[corner[j]]]);
    for (int j = 0; j < count; ++j) {
      const int v = hull_id[verts[j]];
      table.push_back(v);
      if (table[v] < 0 || count > table[table[v]])
        table[v] = face;
    }
  }
  if (!any)
    table.clear();
  return table;
}

}  // namespace mjportal
