#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// One thread per task; kept[i]: how many of its contacts the packing keeps.
__global__ void PassKernel(PassLaunch l, int* kept) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < l.ntask) {
    RunPassTask(l, i);
    kept[i] = l.count[i] > 0 ? l.count[i] : 0;
  }
}

// Task i's kept contacts from its slot to `packed` at offset[i] (exclusive sum of kept): the
// download then moves the contacts found, not ntask * kMaxTaskContacts slots.
__global__ void PackKernel(const Contact* slots, const int* kept, const int* offset, int ntask,
                           Contact* packed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < ntask) {
    for (int k = 0; k < kept[i]; ++k)
      packed[offset[i] + k] = slots[static_cast<long>(i) * kMaxTaskContacts + k];
  }
}

// Wall time of the pass's stages, summed over runs and printed when the pass goes
// (MJPORTAL_CUDA_TIMING=1): where a batched step's device time goes.
struct StageTimer {
  static constexpr int kStages = 4;  // upload, solve, pack, download
  bool on = false;
  cudaEvent_t mark[kStages + 1] = {};
  double ms[kStages] = {};
  long runs = 0, tasks = 0, contacts = 0;

  StageTimer() {
    const char* env = std::getenv("MJPORTAL_CUDA_TIMING");
    on = env != nullptr && env[0] == '1';
    for (int k = 0; on && k <= kStages; ++k)
      cudaEventCreate(&mark[k]);
  }
  ~StageTimer() {
    if (!on)
      return;
    std::fprintf(stderr,
                 "mjportal cuda pass: %ld runs, %ld tasks, %ld contacts; upload %.3f ms, solve "
                 "%.3f ms, pack %.3f ms, download %.3f ms\n",
                 runs, tasks, contacts, ms[0], ms[1], ms[2], ms[3]);
    for (int k = 0; k <= kStages; ++k)
      cudaEventDestroy(mark[k]);
  }
  void Mark(int k) {
    if (on)
      cudaEventRecord(mark[k]);
  }
  // After the last mark of a run: adds each stage's time.
  void Finish(int ntask, long ncontact) {
    if (!on)
      return;
    cudaEventSynchronize(mark[kStages]);
    for (int k = 0; k < kStages; ++k) {
      float t = 0;
      cudaEventElapsedTime(&t, mark[k], mark[k + 1]);
      ms[k] += t;
    }
    ++runs;
    tasks += ntask;
    contacts += ncontact;
  }
};

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
    if (e == cudaSuccess && src.faces != nullptr)
      e = faces_.Upload(src.faces, static_cast<size_t>(src.nface_entries));
    if (e == cudaSuccess && src.mesh_shape != nullptr)
      e = shapes_.Upload(src.mesh_shape, static_cast<size_t>(src.nmesh));
    // Mesh views pointing into the device arrays.
    std::vector<MeshView> views(src.ngeom);
    BuildMeshViews(src, vert_.ptr, graph_.ptr, fields_.ptr, faces_.ptr, shapes_.ptr, views.data());
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
    timer_.Mark(0);
    cudaError_t e = pos_.Upload(pos, poses * 3);
    if (e == cudaSuccess)
      e = mat_.Upload(mat, poses * 9);
    if (e == cudaSuccess)
      e = tasks_.Upload(tasks, ntask);
    if (e == cudaSuccess)
      e = slots_.Reserve(static_cast<size_t>(ntask) * kMaxTaskContacts);
    if (e == cudaSuccess)
      e = packed_.Reserve(static_cast<size_t>(ntask) * kMaxTaskContacts);
    if (e == cudaSuccess)
      e = count_.Reserve(ntask);
    if (e == cudaSuccess)
      e = kept_.Reserve(ntask);
    if (e == cudaSuccess)
      e = offset_.Reserve(ntask);
    // The scan's scratch.
    size_t scan_bytes = 0;
    if (e == cudaSuccess)
      e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, kept_.ptr, offset_.ptr, ntask);
    if (e == cudaSuccess)
      e = scan_scratch_.Reserve(scan_bytes);
    timer_.Mark(1);
    if (e == cudaSuccess) {
      const PassLaunch l = {model_, pos_.ptr, mat_.ptr, tasks_.ptr, ntask, slots_.ptr, count_.ptr};
      PassKernel<<<BlocksFor(ntask), kThreadsPerBlock>>>(l, kept_.ptr);
      e = cudaGetLastError();
    }
    timer_.Mark(2);
    if (e == cudaSuccess)
      e = cub::DeviceScan::ExclusiveSum(scan_scratch_.ptr, scan_bytes, kept_.ptr, offset_.ptr,
                                        ntask);
    if (e == cudaSuccess) {
      PackKernel<<<BlocksFor(ntask), kThreadsPerBlock>>>(slots_.ptr, kept_.ptr, offset_.ptr, ntask,
                                                         packed_.ptr);
      e = cudaGetLastError();
    }
    timer_.Mark(3);
    // Counts first: they say how many packed contacts to fetch.
    long total = 0;
    if (e == cudaSuccess)
      e = cudaMemcpy(count, count_.ptr, ntask * sizeof(int), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) {
      for (int i = 0; i < ntask; ++i)
        total += std::max(count[i], 0);
      if (total > 0)
        e = cudaMemcpy(contacts, packed_.ptr, static_cast<size_t>(total) * sizeof(Contact),
                       cudaMemcpyDeviceToHost);
    }
    timer_.Mark(4);
    if (e != cudaSuccess) {
      *why = std::string("CUDA pass failed: ") + cudaGetErrorString(e);
      return false;
    }
    timer_.Finish(ntask, total);
    return true;
  }

 private:
  PassModel model_;
  Buffer<int> geom_type_;
  Buffer<double> geom_size_;
  Buffer<float> vert_;
  Buffer<int> graph_;
  Buffer<std::int32_t> fields_, faces_;
  Buffer<collision::HullShape> shapes_;
  Buffer<MeshView> mesh_;
  Buffer<double> pos_, mat_;
  Buffer<DeviceTask> tasks_;
  Buffer<Contact> slots_, packed_;  // [ntask][kMaxTaskContacts], and packed in task order
  Buffer<int> count_, kept_, offset_;
  Buffer<unsigned char> scan_scratch_;
  StageTimer timer_;
};

}  // namespace

std::unique_ptr<DevicePass> DevicePass::Create(const DeviceModelSource& model, std::string* why) {
  auto pass = std::make_unique<CudaPass>();
  if (!pass->Init(model, why))
    return nullptr;
  return pass;
}

}  // namespace mjportal::cuda
