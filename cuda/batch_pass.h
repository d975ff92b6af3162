// The CUDA backend of the batched pass (phase (b) of batch/batch_engine.h): every candidate pair of
// every world in one launch, one thread per pair, the same kernels as the host (collision/).
// Model data (sizes, meshes, hull graphs, support fields) goes to the device once; poses of all
// worlds once per step; each thread writes its own result slot, so the results come back in task
// order whatever the scheduling (no atomics).
//
// This header has no CUDA types: the plugin includes it in builds with and without nvcc, and
// DevicePass::Create answers nullptr (with a reason) where there is no backend or no device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collision/contact.h"
#include "collision/convex_contact.h"
#include "collision/pair_kernels.h"

namespace mjportal::cuda {

// The most contacts one pair may return: the larger of the analytic kernels' (box–box: 8) and
// the convex solver's.
constexpr int kMaxTaskContacts = collision::kMaxPairContacts > collision::kMaxConvexContacts
                                     ? collision::kMaxPairContacts
                                     : collision::kMaxConvexContacts;

// One pair of one world. `convex`: 1 for fast mode's convex solver, 0 for an analytic kernel.
struct DeviceTask {
  int world;
  int g1, g2;
  int convex;
  int capacity;  // the pair's slot in MuJoCo's buffer (mj_maxContact)
  double margin;
};

// What the device needs of the model, as flat host arrays (the plugin fills it from mjModel).
struct DeviceModelSource {
  int ngeom;
  const int* geom_type;       // [ngeom]
  const double* geom_size;    // [ngeom][3]
  const int* geom_mesh;       // [ngeom] mesh id, -1 for non-mesh geoms
  const double* geom_rbound;  // [ngeom]
  int nmesh;
  const float* mesh_vert;  // MuJoCo's mesh_vert, [nmeshvert][3]
  long nmeshvert;
  const int* mesh_vertadr;  // [nmesh]
  const int* mesh_vertnum;  // [nmesh]
  const int* mesh_graph;    // MuJoCo's mesh_graph
  long nmeshgraph;
  const int* mesh_graphadr;    // [nmesh], -1: none
  const std::int32_t* fields;  // support fields back to back (fast mode), or nullptr
  long nfield_entries;
  const long* field_offset;      // [nmesh], -1: none
  const int* mesh_feature_walk;  // [nmesh] MeshView::feature_walk (fast mode), or nullptr
  const std::int32_t* faces;     // face tables back to back (MeshView::faces), or nullptr
  long nface_entries;
  const long* faces_offset;                // [nmesh], -1: none
  const collision::HullShape* mesh_shape;  // [nmesh] MeshView::shape (fast mode), or nullptr
  int field_res;
  bool field_refine;
  collision::ConvexSettings settings;
};

class DevicePass {
 public:
  // Uploads the model; nullptr with *why when this build has no CUDA backend, no device is
  // visible, or an allocation fails.
  static std::unique_ptr<DevicePass> Create(const DeviceModelSource& model, std::string* why);
  // The same pass run on the host over the same flattened data (tests, machines without a GPU).
  static std::unique_ptr<DevicePass> CreateHostEmulation(const DeviceModelSource& model);
  virtual ~DevicePass() = default;

  // Runs `ntask` tasks on poses of `nworld` worlds (pos [nworld][ngeom][3], mat
  // [nworld][ngeom][9]). Writes count[i] (-1: non-finite pose) for every task and the contacts
  // packed in task order: task i's max(count[i], 0) contacts start at the sum of the earlier
  // tasks' (`contacts` holds ntask * kMaxTaskContacts). False with *why on a CUDA error.
  virtual bool Run(int nworld, const double* pos, const double* mat, const DeviceTask* tasks,
                   int ntask, collision::Contact* contacts, int* count, std::string* why) = 0;
};

}  // namespace mjportal::cuda
