#include <cuda_runtime.h>

#include "cuda/launch.h"

#include "collision/pair_kernels.h"
#include "cuda/batch_pairs.h"

namespace mjportal::cuda {
namespace {

using collision::Contact;
using collision::GeomView;
using collision::kMaxPairContacts;
using collision::ShapeType;

__global__ void PairBatchKernel(PairBatch batch) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= batch.ntask) {
    return;
  }
  const PairTask task = batch.tasks[i];
  const GeomView geom1 = {batch.geom_pos + 3 * task.geom1, batch.geom_mat + 9 * task.geom1,
                          batch.geom_size + 3 * task.geom1};
  const GeomView geom2 = {batch.geom_pos + 3 * task.geom2, batch.geom_mat + 9 * task.geom2,
                          batch.geom_size + 3 * task.geom2};

  // Same dispatch and arithmetic as the host; results in the task's own slot (no atomics).
  Contact contacts[kMaxPairContacts];
  const int n =
      collision::CollidePair(static_cast<ShapeType>(task.type1), static_cast<ShapeType>(task.type2),
                             geom1, geom2, task.margin, contacts);
  double* out = batch.contacts + static_cast<long long>(i) * kMaxPairContacts * 10;
  for (int k = 0; k < n; ++k) {
    const Contact& c = contacts[k];
    const double values[10] = {c.dist,     c.pos.x,    c.pos.y,     c.pos.z,     c.normal.x,
                               c.normal.y, c.normal.z, c.tangent.x, c.tangent.y, c.tangent.z};
    for (int v = 0; v < 10; ++v) {
      out[10 * k + v] = values[v];
    }
  }
  batch.count[i] = n;
}

}  // namespace

int LaunchPairBatch(const PairBatch& batch, void* stream) {
  if (batch.ntask <= 0) {
    return 0;
  }
  PairBatchKernel<<<BlocksFor(batch.ntask), kThreadsPerBlock, 0,
                    static_cast<cudaStream_t>(stream)>>>(batch);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace mjportal::cuda
