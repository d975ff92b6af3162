// The batched engine (DESIGN.md §6): steps many worlds (mjData) of one model, each step in three
// phases spread over a thread pool:
//   (a) kinematics of every world (geom poses, the same bits MuJoCo's step will compute);
//   (b) the batched pass: per world, candidate pairs (batch/candidates.h) and mjportal's answer
//       for each pair its mode answers, into the world's pair cache (batch/pair_cache.h);
//   (c) mj_step of every world: the dispatcher serves pairs from the cache when key and pose
//       bits match, and computes the rest on the spot.
// Phase (b) runs on the CUDA device (cuda/batch_pass.h: all worlds' pairs in one launch, the same
// kernels) when the instance says device="cuda" and a device is usable, else on the CPU twin (the
// same pass per world on the thread pool).
#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>

namespace mjportal {

struct BatchStats {
  double kinematics_s = 0;  // phase (a), wall seconds
  double pass_s = 0;        // phase (b)
  double step_s = 0;        // phase (c)
  std::int64_t world_steps = 0;
  std::int64_t contacts = 0;    // d->ncon summed over world steps
  std::int64_t candidates = 0;  // candidate pairs the pass found (all worlds, all steps)
  std::int64_t cached = 0;      // pairs the pass computed and cached
  std::int64_t hits = 0;        // dispatcher calls answered from the cache
  std::int64_t misses = 0;      // dispatcher calls for pairs mjportal answers, not in the cache
  bool device = false;          // phase (b) ran on the CUDA device
};

// Steps worlds d[0..nworld) of m `nstep` times with the batched pass, on `nthread` threads
// (>= 1, the caller's included). m must declare an mjportal instance and each d be made from m.
// Adds to *stats. Returns false (and does nothing) when m has no mjportal instance.
bool BatchStep(const mjModel* m, mjData** d, int nworld, int nstep, int nthread, BatchStats* stats);

class InstanceState;

// In-step mode, for device="cuda" stepped by plain mj_step (simulate: one world): the first call
// at a new simulation time, or one that finds its entry stale (poses moved since the last pass),
// refills the whole world's cache with one batched pass on the device, under a lock, so that one
// refill happens per step even under MuJoCo's thread pool; the other calls read the cache. Returns
// 1 with the pair's answer from the cache, 0 when the caller computes it (not a candidate), -1 when
// in-step mode is off (no usable device, warned once per model; or mjportal_batchStep is driving
// the mjData and its own cache applies).
int InStepLookup(const mjModel* m, mjData* d, InstanceState* state, int g1, int g2, mjtNum margin,
                 mjPreContact* con, int* count);

}  // namespace mjportal
