// Batched narrowphase on CUDA over flat arrays: one thread per candidate pair, the same kernels
// as the host (collision/). The full engine (prefetch, cache, rollout) builds on this entry.
#pragma once

namespace mjportal::cuda {

// One candidate pair: geom indices into the pose/size arrays, shape types, margin (+ gap).
struct PairTask {
  int geom1;
  int geom2;
  int type1;
  int type2;
  double margin;
};

// Device pointers. Output slot i holds up to kMaxPairContacts contacts of task i (10 doubles each,
// mjPreContact layout) and count[i] their number (-1: no kernel for this pair type).
struct PairBatch {
  const double* geom_pos;   // [ngeom][3]
  const double* geom_mat;   // [ngeom][9]
  const double* geom_size;  // [ngeom][3]
  const PairTask* tasks;    // [ntask]
  int ntask;
  double* contacts;  // [ntask][kMaxPairContacts][10]
  int* count;        // [ntask]
};

// Launches the batch on `stream` (a cudaStream_t, or nullptr for the default stream). Returns the
// CUDA error code of the launch (0 on success).
int LaunchPairBatch(const PairBatch& batch, void* stream);

}  // namespace mjportal::cuda
