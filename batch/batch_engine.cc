#include "batch/batch_engine.h"

#include <atomic>
#include <chrono>
#include <vector>

#include "batch/candidates.h"
#include "batch/thread_pool.h"
#include "plugin/collision_table.h"
#include "plugin/instance.h"

namespace mjportal {
namespace {

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Per-thread scratch of phase (b).
struct PassScratch {
  batch::CandidateScratch candidates;
  std::vector<batch::Candidate> list;
};

}  // namespace

int FillWorldCache(const mjModel* m, mjData* d, int* cached) {
  thread_local PassScratch scratch;
  *cached = 0;
  InstanceState* state = FindInstance(m, d);
  if (state == nullptr) {
    return 0;
  }
  batch::FindCandidates(m, d, &scratch.candidates, &scratch.list);
  PairCache& cache = state->cache();
  cache.Begin(state->config().max_collision_pairs);
  mjPreContact con[mjMAXCONPAIR];
  for (const batch::Candidate& c : scratch.list) {
    if (!AnswersPair(m, state, c.g1, c.g2) || !cache.Room()) {
      continue;
    }
    const int count = ComputeOurs(m, d, state, con, c.g1, c.g2, c.margin);
    if (count >= 0) {
      cache.Add(d, c.g1, c.g2, c.margin, con, count);
    }
  }
  cache.Finish();
  *cached = cache.size();
  if (cache.wanted() > cache.size() && state->FirstFullBuffer()) {
    mju_warning(
        "mjportal: the batched pass found %d candidate pairs in one world but "
        "max_collision_pairs is %d; the other pairs are computed during the step (set "
        "max_collision_pairs to at least %d to cache them all)",
        cache.wanted(), state->config().max_collision_pairs, cache.wanted());
  }
  return static_cast<int>(scratch.list.size());
}

bool BatchStep(const mjModel* m, mjData** d, int nworld, int nstep, int nthread,
               BatchStats* stats) {
  for (int w = 0; w < nworld; ++w) {
    if (FindInstance(m, d[w]) == nullptr) {
      return false;
    }
  }
  batch::ThreadPool pool(nthread < 1 ? 1 : nthread);
  std::vector<int> candidates(nworld), cached(nworld);
  // One warning per process when device=cuda asks for a backend this build lacks.
  static std::atomic<bool> warned_device{false};
  for (int w = 0; w < nworld; ++w) {
    InstanceState* state = FindInstance(m, d[w]);
    if (state->config().device == Device::kCuda && !warned_device.exchange(true)) {
      mju_warning(
          "mjportal: config key 'device' is 'cuda' but this build's batched pass has no CUDA "
          "backend yet; the CPU twin runs instead (reported once per process)");
    }
    state->cache().ResetCounts();
  }
  for (int step = 0; step < nstep; ++step) {
    const double t0 = Seconds();
    pool.Run(nworld, [&](int w) { mj_kinematics(m, d[w]); });
    const double t1 = Seconds();
    pool.Run(nworld, [&](int w) { candidates[w] = FillWorldCache(m, d[w], &cached[w]); });
    const double t2 = Seconds();
    pool.Run(nworld, [&](int w) {
      mj_step(m, d[w]);
      FindInstance(m, d[w])->cache().Close();
    });
    const double t3 = Seconds();
    stats->kinematics_s += t1 - t0;
    stats->pass_s += t2 - t1;
    stats->step_s += t3 - t2;
    for (int w = 0; w < nworld; ++w) {
      stats->contacts += d[w]->ncon;
      stats->candidates += candidates[w];
      stats->cached += cached[w];
    }
    stats->world_steps += nworld;
  }
  for (int w = 0; w < nworld; ++w) {
    const PairCache& cache = FindInstance(m, d[w])->cache();
    stats->hits += cache.hits();
    stats->misses += cache.misses();
  }
  return true;
}

}  // namespace mjportal
