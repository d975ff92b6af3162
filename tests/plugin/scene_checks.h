// Checks on a stepped scene shared by the fast-mode scene tests.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "collision/minkowski.h"
#include "plugin/mesh_view.h"

namespace mjportal::testing {

// Geom g as fast mode's solvers see it, at d's pose; a mesh (its view in *mesh) climbs its hull
// graph, so its support queries are exact.
inline collision::ConvexGeom SolverGeomOf(const mjModel* m, const mjData* d, int g,
                                          collision::MeshView* mesh) {
  collision::ConvexGeom geom = {static_cast<collision::ShapeType>(m->geom_type[g]),
                                {d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, m->geom_size + 3 * g}};
  if (m->geom_type[g] == mjGEOM_MESH) {
    *mesh = MeshViewOf(m, g);
    geom.view.mesh = mesh;
  }
  return geom;
}

// Deepest penetration among d's contacts (0 when none penetrates).
inline double DeepestPenetration(const mjData* d) {
  double deepest = 0;
  for (int i = 0; i < d->ncon; ++i)
    deepest = std::max(deepest, -d->contact[i].dist);
  return deepest;
}

// Each touching geom pair's deepest contact: (geom1, geom2) -> its index in d->contact.
inline std::map<std::pair<int, int>, int> DeepestContactPerPair(const mjData* d) {
  std::map<std::pair<int, int>, int> deepest;
  for (int i = 0; i < d->ncon; ++i) {
    const auto key = std::make_pair(d->contact[i].geom[0], d->contact[i].geom[1]);
    const auto it = deepest.find(key);
    if (it == deepest.end() || d->contact[i].dist < d->contact[it->second].dist)
      deepest[key] = i;
  }
  return deepest;
}

// Every qpos and qvel finite.
inline bool FiniteState(const mjModel* m, const mjData* d) {
  for (int i = 0; i < m->nq; ++i)
    if (!std::isfinite(d->qpos[i]))
      return false;
  for (int i = 0; i < m->nv; ++i)
    if (!std::isfinite(d->qvel[i]))
      return false;
  return true;
}

}  // namespace mjportal::testing
