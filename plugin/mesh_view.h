// A mesh geom of an mjModel as the kernels see it (collision::MeshView).
#pragma once

#include <mujoco/mujoco.h>

#include "collision/contact.h"

namespace mjportal {

// Vertices, MuJoCo's hull graph (if compiled) and whether MuJoCo's support function climbs it
// (graph present and at least 10 vertices, MuJoCo's mjMESH_HILLCLIMB_MIN), for mesh geom g.
inline collision::MeshView MeshViewOf(const mjModel* m, int g) {
  constexpr int kHillclimbMinVertices = 10;
  const int id = m->geom_dataid[g];
  const int graphadr = m->mesh_graphadr[id];
  const int nvert = m->mesh_vertnum[id];
  return {m->mesh_vert + 3 * m->mesh_vertadr[id], nvert,
          graphadr < 0 ? nullptr : m->mesh_graph + graphadr,
          graphadr >= 0 && nvert >= kHillclimbMinVertices, m->geom_rbound[g]};
}

}  // namespace mjportal
