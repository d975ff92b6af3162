// Batched MPR on CUDA: one thread per convex pair, the host's collision/mpr.h kernel.
#pragma once

#include "collision/mpr.h"

namespace mjportal::cuda {

// Device pointers: pairs[i] = {geom A, geom B} (their GeomView pointers are device pointers),
// results[i] receives the MPR answer of pair i.
struct MprBatch {
  const collision::ConvexGeom* geoms_a;
  const collision::ConvexGeom* geoms_b;
  int npair;
  int max_iterations;
  double tolerance;
  collision::MprResult* results;
};

// Launches the batch on `stream` (a cudaStream_t, or nullptr). Returns the launch's CUDA error.
int LaunchMprBatch(const MprBatch& batch, void* stream);

}  // namespace mjportal::cuda
