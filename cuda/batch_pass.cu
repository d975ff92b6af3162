#include <cuda_runtime.h>

#include <vector>

#include "cuda/batch_pass.h"
#include "cuda/launch.h"
#include "cuda/pass_task.h"

namespace mjportal::cuda {
namespace {

using collision::Contact;
using collision::MeshView;

// Per-thread stack for the convex solvers (EPA's polytope, the manifold's clip buffers).
constexpr size_t kStackBytes = 32 * 1024;

// One thread per task.
__global__ void PassKernel(PassLaunch l) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < l.ntask) {
    RunPassTask(l, i);
  }
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
    std::vector<MeshView> views(src.ngeom);
    BuildMeshViews(src, vert_.ptr, graph_.ptr, fields_.ptr, views.data());
    if (e == cudaSuccess)
      e = mesh_.Upload(views.data(), views.size());
    if (e != cudaSuccess) {
      *why = std::string("CUDA setup failed: ") + cudaGetErrorString(e);
      return false;
    }
    model_.ngeom = src.ngeom;
    model_.geom_type = geom_type_.ptr;
    model_.geom_size = geom_size_.ptr;
    model_.mesh = mesh_.ptr;
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
      const PassLaunch l = {model_, pos_.ptr,      mat_.ptr,  tasks_.ptr,
                            ntask,  contacts_.ptr, count_.ptr};
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
  PassModel model_;
  Buffer<int> geom_type_;
  Buffer<double> geom_size_;
  Buffer<float> vert_;
  Buffer<int> graph_;
  Buffer<std::int32_t> fields_;
  Buffer<MeshView> mesh_;
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
