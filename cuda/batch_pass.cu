#include <cuda_runtime.h>

#include <vector>

#include "collision/convex_contact.h"
#include "collision/pair_kernels.h"
#include "cuda/batch_pass.h"
#include "cuda/launch.h"

namespace mjportal::cuda {
namespace {

using collision::Contact;
using collision::ConvexGeom;
using collision::GeomView;
using collision::MeshView;
using collision::ShapeType;

// Per-thread stack for the convex solvers (EPA's polytope, the manifold's clip buffers).
constexpr size_t kStackBytes = 32 * 1024;

// Device copies of the model, and per geom the two mesh views the host builds (MeshViewOf for the
// analytic kernels; with the support field and warm start for the convex solver).
struct DeviceModel {
  int ngeom = 0;
  const int* geom_type = nullptr;
  const double* geom_size = nullptr;
  const MeshView* plain_mesh = nullptr;  // [ngeom]
  const MeshView* fast_mesh = nullptr;   // [ngeom]
  collision::ConvexSettings settings;
};

struct Launch {
  DeviceModel model;
  const double* pos;  // [nworld][ngeom][3]
  const double* mat;  // [nworld][ngeom][9]
  const DeviceTask* tasks;
  int ntask;
  Contact* contacts;  // [ntask][kMaxTaskContacts]
  int* count;         // [ntask]
};

// One task: the same dispatch as the plugin's (collision_table.cc), on the task's world's poses.
__global__ void PassKernel(Launch l) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= l.ntask) {
    return;
  }
  const DeviceTask t = l.tasks[i];
  const long base = static_cast<long>(t.world) * l.model.ngeom;
  const int type1 = l.model.geom_type[t.g1], type2 = l.model.geom_type[t.g2];
  Contact* out = l.contacts + static_cast<long>(i) * kMaxTaskContacts;
  const GeomView geom1 = {l.pos + 3 * (base + t.g1), l.mat + 9 * (base + t.g1),
                          l.model.geom_size + 3 * t.g1,
                          type1 == static_cast<int>(ShapeType::kMesh) ? l.model.plain_mesh + t.g1
                                                                        : nullptr};
  const GeomView geom2 = {l.pos + 3 * (base + t.g2), l.mat + 9 * (base + t.g2),
                          l.model.geom_size + 3 * t.g2,
                          type2 == static_cast<int>(ShapeType::kMesh) ? l.model.plain_mesh + t.g2
                                                                        : nullptr};
  if (!t.convex) {
    l.count[i] = collision::CollidePair(static_cast<ShapeType>(type1),
                                        static_cast<ShapeType>(type2), geom1, geom2, t.margin, out);
    return;
  }
  // The convex solver warms its mesh support per call: private copies of the views.
  MeshView mesh1, mesh2;
  ConvexGeom a = {static_cast<ShapeType>(type1), geom1};
  ConvexGeom b = {static_cast<ShapeType>(type2), geom2};
  if (geom1.mesh != nullptr) {
    mesh1 = l.model.fast_mesh[t.g1];
    a.view.mesh = &mesh1;
  }
  if (geom2.mesh != nullptr) {
    mesh2 = l.model.fast_mesh[t.g2];
    b.view.mesh = &mesh2;
  }
  collision::ConvexCounters counters;
  const int n =
      collision::CollideConvex(a, b, l.model.settings, t.margin, out, t.capacity, &counters);
  l.count[i] = counters.bad_pose != 0 ? -1 : n;
}

// Device buffer that frees itself.
template <typename T>
struct Buffer {
  T* ptr = nullptr;
  size_t size = 0;
  ~Buffer() { cudaFree(ptr); }
  cudaError_t Reserve(size_t n) {
    if (n <= size)
      return cudaSuccess;
    cudaFree(ptr);
    ptr = nullptr;
    size = 0;
    const cudaError_t e = cudaMalloc(&ptr, n * sizeof(T) + 1);
    if (e == cudaSuccess)
      size = n;
    return e;
  }
  cudaError_t Upload(const T* host, size_t n) {
    cudaError_t e = Reserve(n);
    if (e == cudaSuccess && n > 0)
      e = cudaMemcpy(ptr, host, n * sizeof(T), cudaMemcpyHostToDevice);
    return e;
  }
};

class CudaPass final : public DevicePass {
 public:
  bool Init(const DeviceModelSource& src, std::string* why) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      cudaGetLastError();  // clear the sticky "no device / no driver" status
      *why = "no CUDA device or driver is available";
      return false;
    }
    cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, kStackBytes);
    // Model arrays.
    const size_t nvert = static_cast<size_t>(src.nmeshvert) * 3;
    if (e == cudaSuccess)
      e = geom_type_.Upload(src.geom_type, src.ngeom);
    if (e == cudaSuccess)
      e = geom_size_.Upload(src.geom_size, static_cast<size_t>(src.ngeom) * 3);
    if (e == cudaSuccess)
      e = vert_.Upload(src.mesh_vert, nvert);
    if (e == cudaSuccess)
      e = graph_.Upload(src.mesh_graph, static_cast<size_t>(src.nmeshgraph));
    if (e == cudaSuccess && src.fields != nullptr)
      e = fields_.Upload(src.fields, static_cast<size_t>(src.nfield_entries));
    // Mesh views pointing into the device arrays.
    std::vector<MeshView> plain(src.ngeom), fast(src.ngeom);
    for (int g = 0; g < src.ngeom && e == cudaSuccess; ++g) {
      const int mesh = src.geom_mesh[g];
      if (mesh < 0)
        continue;
      const int graphadr = src.mesh_graphadr[mesh];
      const int count = src.mesh_vertnum[mesh];
      MeshView v{};
      v.vert = vert_.ptr + 3L * src.mesh_vertadr[mesh];
      v.nvert = count;
      v.graph = graphadr < 0 ? nullptr : graph_.ptr + graphadr;
      v.hillclimb = graphadr >= 0 && count >= 10;  // MuJoCo's rule (plugin/mesh_view.h)
      v.rbound = src.geom_rbound[g];
      plain[g] = v;
      v.warm_start = true;
      if (src.fields != nullptr && src.field_offset[mesh] >= 0) {
        v.field = fields_.ptr + src.field_offset[mesh];
        v.field_res = src.field_res;
        v.field_refine = src.field_refine;
      }
      fast[g] = v;
    }
    if (e == cudaSuccess)
      e = plain_.Upload(plain.data(), plain.size());
    if (e == cudaSuccess)
      e = fast_.Upload(fast.data(), fast.size());
    if (e != cudaSuccess) {
      *why = std::string("CUDA setup failed: ") + cudaGetErrorString(e);
      return false;
    }
    model_.ngeom = src.ngeom;
    model_.geom_type = geom_type_.ptr;
    model_.geom_size = geom_size_.ptr;
    model_.plain_mesh = plain_.ptr;
    model_.fast_mesh = fast_.ptr;
    model_.settings = src.settings;
    return true;
  }

  bool Run(int nworld, const double* pos, const double* mat, const DeviceTask* tasks, int ntask,
           Contact* contacts, int* count, std::string* why) override {
    if (ntask == 0)
      return true;
    const size_t poses = static_cast<size_t>(nworld) * model_.ngeom;
    cudaError_t e = pos_.Upload(pos, poses * 3);
    if (e == cudaSuccess)
      e = mat_.Upload(mat, poses * 9);
    if (e == cudaSuccess)
      e = tasks_.Upload(tasks, ntask);
    if (e == cudaSuccess)
      e = contacts_.Reserve(static_cast<size_t>(ntask) * kMaxTaskContacts);
    if (e == cudaSuccess)
      e = count_.Reserve(ntask);
    if (e == cudaSuccess) {
      const Launch l = {model_, pos_.ptr, mat_.ptr, tasks_.ptr, ntask, contacts_.ptr, count_.ptr};
      PassKernel<<<BlocksFor(ntask), kThreadsPerBlock>>>(l);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = cudaMemcpy(count, count_.ptr, ntask * sizeof(int), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
      e = cudaMemcpy(contacts, contacts_.ptr,
                     static_cast<size_t>(ntask) * kMaxTaskContacts * sizeof(Contact),
                     cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      *why = std::string("CUDA pass failed: ") + cudaGetErrorString(e);
      return false;
    }
    return true;
  }

 private:
  DeviceModel model_;
  Buffer<int> geom_type_;
  Buffer<double> geom_size_;
  Buffer<float> vert_;
  Buffer<int> graph_;
  Buffer<std::int32_t> fields_;
  Buffer<MeshView> plain_, fast_;
  Buffer<double> pos_, mat_;
  Buffer<DeviceTask> tasks_;
  Buffer<Contact> contacts_;
  Buffer<int> count_;
};

}  // namespace

std::unique_ptr<DevicePass> DevicePass::Create(const DeviceModelSource& model, std::string* why) {
  auto pass = std::make_unique<CudaPass>();
  if (!pass->Init(model, why))
    return nullptr;
  return pass;
}

}  // namespace mjportal::cuda
