// One task of the batched pass on flat model and pose arrays: what each CUDA thread runs
// (cuda/batch_pass.cu), and what the host emulation of the device pass runs in a loop
// (cuda/batch_pass_host.cc), so that the data layout is tested without a GPU.
#pragma once

#include "collision/convex_contact.h"
#include "collision/pair_kernels.h"
#include "cuda/batch_pass.h"

namespace mjportal::cuda {

// The model as the pass sees it: arrays in the pass's memory, and per geom the mesh view the
// plugin builds for its mode (FastMeshView: with the support field in fast mode, and warm start
// for the convex solver; the analytic kernels read only the field).
struct PassModel {
  int ngeom = 0;
  const int* geom_type = nullptr;
  const double* geom_size = nullptr;
  const collision::MeshView* mesh = nullptr;  // [ngeom]
  collision::ConvexSettings settings;
};

struct PassLaunch {
  PassModel model;
  const double* pos;  // [nworld][ngeom][3]
  const double* mat;  // [nworld][ngeom][9]
  const DeviceTask* tasks;
  int ntask;
  collision::Contact* contacts;  // [ntask][kMaxTaskContacts]
  int* count;                    // [ntask]; -1 for a non-finite pose
};

// Task i: the plugin's dispatch (collision_table.cc) on the task's world's poses, into slot i.
MJP_HD inline void RunPassTask(const PassLaunch& l, int i) {
  using collision::ShapeType;
  const DeviceTask t = l.tasks[i];
  const long base = static_cast<long>(t.world) * l.model.ngeom;
  const int type1 = l.model.geom_type[t.g1], type2 = l.model.geom_type[t.g2];
  const int mesh = static_cast<int>(ShapeType::kMesh);
  collision::Contact* out = l.contacts + static_cast<long>(i) * kMaxTaskContacts;
  const collision::GeomView geom1 = {l.pos + 3 * (base + t.g1), l.mat + 9 * (base + t.g1),
                                     l.model.geom_size + 3 * t.g1,
                                     type1 == mesh ? l.model.mesh + t.g1 : nullptr};
  const collision::GeomView geom2 = {l.pos + 3 * (base + t.g2), l.mat + 9 * (base + t.g2),
                                     l.model.geom_size + 3 * t.g2,
                                     type2 == mesh ? l.model.mesh + t.g2 : nullptr};
  if (!t.convex) {
    l.count[i] = collision::CollidePair(static_cast<ShapeType>(type1),
                                        static_cast<ShapeType>(type2), geom1, geom2, t.margin, out);
    return;
  }
  // The convex solver warms its mesh support within the call: private copies of the views.
  collision::MeshView mesh1, mesh2;
  collision::ConvexGeom a = {static_cast<ShapeType>(type1), geom1};
  collision::ConvexGeom b = {static_cast<ShapeType>(type2), geom2};
  if (type1 == mesh) {
    mesh1 = l.model.mesh[t.g1];
    a.view.mesh = &mesh1;
  }
  if (type2 == mesh) {
    mesh2 = l.model.mesh[t.g2];
    b.view.mesh = &mesh2;
  }
  collision::ConvexCounters counters;
  const int n =
      collision::CollideConvex(a, b, l.model.settings, t.margin, out, t.capacity, &counters);
  l.count[i] = counters.bad_pose != 0 ? -1 : n;
}

// The per-geom mesh views of `source` with their arrays at `vert`, `graph`, `fields`, `faces`
// and `shapes` (device or host copies of MuJoCo's mesh_vert, mesh_graph, the support fields, the
// face tables and the hull shapes). Writes ngeom views.
inline void BuildMeshViews(const DeviceModelSource& source, const float* vert, const int* graph,
                           const std::int32_t* fields, const std::int32_t* faces,
                           const collision::HullShape* shapes, collision::MeshView* views) {
  for (int g = 0; g < source.ngeom; ++g) {
    views[g] = collision::MeshView{};
    const int mesh = source.geom_mesh[g];
    if (mesh < 0)
      continue;
    const int graphadr = source.mesh_graphadr[mesh];
    const int count = source.mesh_vertnum[mesh];
    collision::MeshView v{};
    v.vert = vert + 3L * source.mesh_vertadr[mesh];
    v.nvert = count;
    v.graph = graphadr < 0 ? nullptr : graph + graphadr;
    v.hillclimb = graphadr >= 0 && count >= 10;  // MuJoCo's rule (plugin/mesh_view.h)
    v.rbound = source.geom_rbound[g];
    v.warm_start = true;
    if (source.mesh_shape != nullptr)
      v.shape = shapes + mesh;
    if (source.mesh_feature_walk != nullptr)
      v.feature_walk = source.mesh_feature_walk[mesh];
    if (source.faces != nullptr && source.faces_offset[mesh] >= 0)
      v.faces = faces + source.faces_offset[mesh];
    if (source.fields != nullptr && source.field_offset[mesh] >= 0) {
      v.field = fields + source.field_offset[mesh];
      v.field_res = source.field_res;
      v.field_refine = source.field_refine;
      if (graphadr >= 0)  // the hull's vertex count, from the host's copy of the graph
        v.warm_cos2 = collision::support_field::WarmConeCos2(source.mesh_graph[graphadr]);
    }
    views[g] = v;
  }
}

}  // namespace mjportal::cuda
