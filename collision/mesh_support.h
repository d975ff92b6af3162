// Support queries on convex meshes, the way MuJoCo 3.12's CCD support function answers them
// (compat): the vertex v maximizing d·v for a direction d in the mesh frame.
//
//   - exhaustive: scan all vertices, first strict maximum wins (start value -1e10);
//   - hill climbing: from hull vertex 0, move to any neighbour with a strictly larger d·v, in
//     edge order, until no neighbour improves. On a convex hull the local maximum is global.
// Dot products are d·(double)v, summed x, y, z.
#pragma once

#include "collision/contact.h"

namespace mjportal::collision {

// Iteration cap for hill climbing: each accepted step strictly increases d·v, so a climb visits
// each vertex at most once; the cap only guards against a corrupt graph.
MJP_HD inline int MaxClimbSteps(const MeshView& mesh) {
  return mesh.nvert + 1;
}

// Vertex i of the mesh, widened to double.
MJP_HD MJP_INLINE Vec3 MeshPoint(const float* vert, int i) {
  return {static_cast<double>(vert[3 * i]), static_cast<double>(vert[3 * i + 1]),
          static_cast<double>(vert[3 * i + 2])};
}

// d · vertex i of the mesh.
MJP_HD MJP_INLINE double DotVertex(const Vec3& d, const float* vert, int i) {
  return d.x * static_cast<double>(vert[3 * i]) + d.y * static_cast<double>(vert[3 * i + 1]) +
         d.z * static_cast<double>(vert[3 * i + 2]);
}

// Index (into vert) of the support vertex along `local_dir`. *hull_index receives what MuJoCo
// records for later neighbour walks: the hull-local id when climbing, the vertex index when
// scanning (MuJoCo stores both in one field). The climb starts from hull-local id `start` (MuJoCo's
// libccd path passes its previous answer). Returns -1 for an empty mesh.
MJP_HD inline int MeshSupportVertex(const MeshView& mesh, const Vec3& local_dir, int* hull_index,
                                    int start = 0) {
  if (!mesh.hillclimb) {
    double best = -1e10;
    int best_index = -1;
    for (int i = 0; i < mesh.nvert; ++i) {
      const double value = DotVertex(local_dir, mesh.vert, i);
      if (value > best) {
        best = value;
        best_index = i;
      }
    }
    *hull_index = best_index;
    return best_index;
  }

  // Hull graph: numvert, numface, vert_edgeadr, vert_globalid, edge_localid.
  const int numvert = mesh.graph[0];
  const int* vert_edgeadr = mesh.graph + 2;
  const int* vert_globalid = mesh.graph + 2 + numvert;
  const int* edge_localid = mesh.graph + 2 + 2 * numvert;

  int current = start;
  double best = DotVertex(local_dir, mesh.vert, vert_globalid[current]);
  bool changed = true;
  for (int step = 0; changed && step < MaxClimbSteps(mesh); ++step) {
    changed = false;
    for (int e = vert_edgeadr[current]; edge_localid[e] >= 0; ++e) {
      const int neighbour = edge_localid[e];
      const double value = DotVertex(local_dir, mesh.vert, vert_globalid[neighbour]);
      if (value > best) {
        best = value;
        current = neighbour;
        changed = true;
      }
    }
  }
  *hull_index = current;
  return vert_globalid[current];
}

}  // namespace mjportal::collision
