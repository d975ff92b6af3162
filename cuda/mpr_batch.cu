#include <cuda_runtime.h>

#include "cuda/launch.h"

#include "cuda/mpr_batch.h"

namespace mjportal::cuda {
namespace {

__global__ void MprBatchKernel(MprBatch batch) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch.npair) {
    batch.results[i] = collision::MprPenetration(batch.geoms_a[i], batch.geoms_b[i],
                                                 batch.max_iterations, batch.tolerance);
  }
}

}  // namespace

int LaunchMprBatch(const MprBatch& batch, void* stream) {
  if (batch.npair <= 0) {
    return 0;
  }
  MprBatchKernel<<<BlocksFor(batch.npair), kThreadsPerBlock, 0,
                   static_cast<cudaStream_t>(stream)>>>(batch);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace mjportal::cuda
