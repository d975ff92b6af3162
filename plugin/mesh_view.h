// A mesh geom of an mjModel as the kernels see it (collision::MeshView).
#pragma once

#include <mujoco/mujoco.h>

#include "collision/contact.h"
#include "collision/native_support.h"

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

// Vertex count of mesh `id`'s largest polygon (MuJoCo's merged coplanar hull faces; 0 without
// polygons): how far fast mode's contact patch walks the hull (MeshView::feature_walk).
inline int LargestPolygon(const mjModel* m, int id) {
  int largest = 0;
  for (int k = 0; k < m->mesh_polynum[id]; ++k) {
    const int count = m->mesh_polyvertnum[m->mesh_polyadr[id] + k];
    largest = count > largest ? count : largest;
  }
  return largest;
}

// Mesh geom g as MuJoCo 3.12's native convex path reads it: the hull graph and its 27 start
// vertices when support climbs (graph compiled, >= 10 vertices), and the hull polygons.
inline collision::NativeMesh NativeMeshOf(const mjModel* m, int g) {
  constexpr int kHillclimbMinVertices = 10;
  const int id = m->geom_dataid[g];
  const int graphadr = m->mesh_graphadr[id];
  const int vertadr = m->mesh_vertadr[id];
  const int polyadr = m->mesh_polyadr[id];
  collision::NativeMesh mesh;
  mesh.vert = m->mesh_vert + 3 * vertadr;
  mesh.nvert = m->mesh_vertnum[id];
  if (graphadr >= 0 && mesh.nvert >= kHillclimbMinVertices) {
    mesh.graph = m->mesh_graph + graphadr;
    mesh.extrema = m->mesh_extrema + 27 * id;
  }
  mesh.polynum = m->mesh_polynum[id];
  mesh.polymapadr = m->mesh_polymapadr + vertadr;
  mesh.polymapnum = m->mesh_polymapnum + vertadr;
  mesh.polymap = m->mesh_polymap;
  mesh.polynormal = m->mesh_polynormal + 3 * polyadr;
  mesh.polyvertadr = m->mesh_polyvertadr + polyadr;
  mesh.polyvertnum = m->mesh_polyvertnum + polyadr;
  mesh.polyvert = m->mesh_polyvert;
  return mesh;
}

}  // namespace mjportal
