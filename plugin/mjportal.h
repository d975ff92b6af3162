/* mjportal: C API of libmjportal.so, beside the MuJoCo plugin "mjportal.collision".
 *
 * Loading the library (mj_loadPluginLibrary, or simulate's mujoco_plugin/ folder) registers the
 * plugin and routes MuJoCo's narrowphase table through mjportal. These functions let programs and
 * tests reach what the library keeps: the original table entries and per-instance call counts. */
#ifndef MJPORTAL_PLUGIN_MJPORTAL_H_
#define MJPORTAL_PLUGIN_MJPORTAL_H_

#include <mujoco/mujoco.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MJPORTAL_API __attribute__((visibility("default")))
#else
#define MJPORTAL_API
#endif

#define MJPORTAL_PLUGIN_NAME "mjportal.collision"
#define MJPORTAL_PINNED_MUJOCO_VERSION 3012000

/* 1 when the library replaced the mjCOLLISIONFUNC entries with its dispatchers, else 0 (for
 * example when the running MuJoCo differs from the headers the library was built with). */
MJPORTAL_API int mjportal_hookInstalled(void);

/* The table entry MuJoCo had for (type1, type2) before the library installed its dispatcher:
 * MuJoCo's own collider, the oracle for compat mode. NULL for an empty entry or bad types. */
MJPORTAL_API mjfCollision mjportal_originalCollision(int type1, int type2);

/* 1 when the model's mjportal instance answers (type1, type2) with mjportal's own kernels (the
 * same pair types in both modes; compat may still hand a call with settings its port does not
 * take, ccd_iterations < 1, to MuJoCo), 0 when it delegates to MuJoCo's original; -1 when m has no
 * mjportal instance. */
MJPORTAL_API int mjportal_routesToKernel(const mjModel* m, int type1, int type2);

/* Narrowphase call counts of d's mjportal instance since its creation or the last reset of the
 * counts, per type pair (row-major [mjNGEOMTYPES][mjNGEOMTYPES]): `ours` answered by mjportal
 * kernels, `delegated` by MuJoCo's originals. Counting requires the config key stats="true".
 * Returns 0 on success, -1 when d has no mjportal instance or counting is off. */
MJPORTAL_API int mjportal_pairCounts(const mjModel* m, const mjData* d, long long* ours,
                                     long long* delegated);

/* Fast mode's convex-solver path counts of d's instance (stats="true"): how often GJK, MPR and
 * EPA ran, why EPA took over (MPR unconverged, deep contact, a shallower frame axis), perturbed
 * multi-contact re-solves, calls refused for a non-finite pose, patches from clipping and GJK runs
 * on a sphere's or capsule's core, and EPA hand-offs answered by a box face or cylinder cap
 * instead or, on curved pairs, by MPR re-run along the best normal, Newton runs on
 * sphere/ellipsoid pairs, calls ended by a separating axis from the pair's previous call, and
 * cylinder–box answers replaced by a shallower exit, and Newton minima deeper than it certifies
 * (the general solvers then ran as well), and polytope pairs whose depth the hull of MPR's
 * points proved when its final tetrahedron did not (no EPA), and polytope pairs whose MPR took
 * the portal seeded by a guess of the normal as it stood, and calls ended by a bound on the gap
 * along the previous call's separating axis from how far the geoms moved since. Writes the first
 * min(capacity, N) of the library's N counters in that order into counts (names:
 * mjportal_solverCounterName; counts may be NULL when capacity is 0) and returns N, or -1 when d
 * has no instance, counting is off or capacity is negative. N is MJPORTAL_SOLVER_COUNTERS for the
 * library this header came with; a newer library may count more paths, and writes no more than
 * capacity. */
#define MJPORTAL_SOLVER_COUNTERS 19
MJPORTAL_API int mjportal_solverCounts(const mjModel* m, const mjData* d, long long* counts,
                                       int capacity);
MJPORTAL_API const char* mjportal_solverCounterName(int i);

/* Bytes of support fields d's instance shares with the other mjData of its model (fast mode; 0
 * in compat mode or without large meshes); -1 when d has no mjportal instance. */
MJPORTAL_API long long mjportal_supportFieldBytes(const mjModel* m, const mjData* d);

/* Sets the counts of d's mjportal instance to zero. */
MJPORTAL_API void mjportal_resetPairCounts(const mjModel* m, mjData* d);

/* The batched engine (batch/batch_engine.h): what one mjportal_batchStep call measured. */
typedef struct mjportalBatchStats_ {
  double kinematics_s;   /* wall seconds in phase (a): every world's kinematics */
  double pass_s;         /* phase (b): the batched pass (candidates and narrowphase) */
  double step_s;         /* phase (c): every world's mj_step, served from the caches */
  long long world_steps; /* worlds x steps */
  long long contacts;    /* d->ncon summed over world steps */
  long long candidates;  /* candidate pairs found by the pass */
  long long cached;      /* pairs the pass computed and cached */
  long long hits;        /* narrowphase calls answered from a cache */
  long long misses;      /* calls for pairs mjportal answers that were not cached (computed) */
  int device;            /* 1 when the pass ran on the CUDA device, 0 on the CPU */
} mjportalBatchStats;

/* Adds the figures of one mjportal_batchStep call to a running total (device: the latest). */
static inline void mjportal_addBatchStats(mjportalBatchStats* total,
                                          const mjportalBatchStats* add) {
  total->kinematics_s += add->kinematics_s;
  total->pass_s += add->pass_s;
  total->step_s += add->step_s;
  total->world_steps += add->world_steps;
  total->contacts += add->contacts;
  total->candidates += add->candidates;
  total->cached += add->cached;
  total->hits += add->hits;
  total->misses += add->misses;
  total->device = add->device;
}

/* The batched pass's cache counts of d's instance: narrowphase calls answered from the cache
 * (*hits) and calls for pairs mjportal answers that were not (*misses), since the last
 * mjportal_batchStep call began (or since the mjData was made, for in-step mode). Returns 0, or -1
 * when d has no mjportal instance. */
MJPORTAL_API int mjportal_cacheCounts(const mjModel* m, const mjData* d, long long* hits,
                                      long long* misses);

/* Steps the nworld mjData in d (all made from m, whose mjportal instance configures the pass)
 * nstep times with the batched pass on nthread threads (the caller's included). Trajectories are
 * bitwise those of plain mj_step. Writes *stats (may be NULL). Returns 0, or -1 when m has no
 * mjportal instance or an argument is invalid. */
MJPORTAL_API int mjportal_batchStep(const mjModel* m, mjData** d, int nworld, int nstep,
                                    int nthread, mjportalBatchStats* stats);

#ifdef __cplusplus
}

#include <vector>

namespace mjportal {

/* N worlds of one model stepped K steps at a time with the batched engine (C++ over
 * mjportal_batchStep; link against libmjportal). The worlds are made from m and owned here;
 * set their states through world(i) before stepping.
 *
 *   mjportal::BatchRollout rollout(m, 64, 8);
 *   rollout.Step(1000);
 *   double x = rollout.world(3)->qpos[0];
 */
class BatchRollout {
 public:
  BatchRollout(const mjModel* m, int nworld, int nthread) : m_(m), nthread_(nthread) {
    for (int i = 0; i < nworld; ++i) {
      worlds_.push_back(mj_makeData(m));
    }
  }
  ~BatchRollout() {
    for (mjData* d : worlds_) {
      mj_deleteData(d);
    }
  }
  BatchRollout(const BatchRollout&) = delete;
  BatchRollout& operator=(const BatchRollout&) = delete;

  int size() const { return static_cast<int>(worlds_.size()); }
  mjData* world(int i) { return worlds_[i]; }

  /* nstep steps of every world; adds this call's figures to stats(). False when m has no
   * mjportal instance. */
  bool Step(int nstep) {
    mjportalBatchStats s = {};
    if (mjportal_batchStep(m_, worlds_.data(), size(), nstep, nthread_, &s) != 0) {
      return false;
    }
    mjportal_addBatchStats(&stats_, &s);
    return true;
  }
  const mjportalBatchStats& stats() const { return stats_; }

 private:
  const mjModel* m_;
  int nthread_;
  std::vector<mjData*> worlds_;
  mjportalBatchStats stats_ = {};
};

}  // namespace mjportal
#endif
#endif /* MJPORTAL_PLUGIN_MJPORTAL_H_ */
