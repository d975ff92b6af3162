// Per-mjData state of an mjportal instance, reached through d->plugin_data[instance].
#pragma once

#include <mujoco/mujoco.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <utility>

#include "batch/pair_cache.h"
#include "collision/convex_contact.h"
#include "plugin/config.h"
#include "plugin/entry_route.h"
#include "plugin/mesh_view.h"
#include "plugin/mjportal.h"
#include "plugin/separation_hints.h"
#include "plugin/support_fields.h"

namespace mjportal {

// The convex solvers' path counters, in the order of mjportal_solverCounts.
constexpr int kSolverCounterCount = MJPORTAL_SOLVER_COUNTERS;
// Each counter's name and its field in collision::ConvexCounters, in one table.
struct SolverCounter {
  const char* name;
  long collision::ConvexCounters::*field;
};
inline constexpr SolverCounter kSolverCounters[] = {
    {"gjk", &collision::ConvexCounters::gjk},
    {"mpr", &collision::ConvexCounters::mpr},
    {"epa", &collision::ConvexCounters::epa},
    {"epa_unconverged", &collision::ConvexCounters::epa_unconverged},
    {"epa_deep", &collision::ConvexCounters::epa_deep},
    {"epa_not_minimal", &collision::ConvexCounters::epa_not_minimal},
    {"perturbed", &collision::ConvexCounters::perturbed},
    {"bad_pose", &collision::ConvexCounters::bad_pose},
    {"clipped", &collision::ConvexCounters::clipped},
    {"core", &collision::ConvexCounters::core},
    {"face", &collision::ConvexCounters::face},
    {"along_normal", &collision::ConvexCounters::along_normal},
    {"newton", &collision::ConvexCounters::newton},
    {"axis_hint", &collision::ConvexCounters::axis_hint},
    {"shallower_exit", &collision::ConvexCounters::shallower_exit},
    {"uncertified", &collision::ConvexCounters::uncertified},
    {"hull_proof", &collision::ConvexCounters::hull_proof},
    {"seeded", &collision::ConvexCounters::seeded},
    {"axis_bound", &collision::ConvexCounters::axis_bound},
};
static_assert(sizeof(kSolverCounters) / sizeof(kSolverCounters[0]) == kSolverCounterCount,
              "MJPORTAL_SOLVER_COUNTERS must match the counter table");

class InstanceState {
 public:
  // `hint_pairs` > 0 keeps fast mode's separating axes for about that many pairs
  // (plugin/separation_hints.h); 0 keeps none.
  InstanceState(const Config& config, std::shared_ptr<const ModelSupportFields> fields,
                int hint_pairs = 0)
      : config_(config),
        fields_(std::move(fields)),
        hints_(hint_pairs > 0 ? std::make_unique<SeparationHints>(hint_pairs) : nullptr) {
    CountLiveInstance(1);
    if (NeedsPerCallLookup())
      CountPerCallState(1);
  }
  ~InstanceState() {
    if (NeedsPerCallLookup())
      CountPerCallState(-1);
    CountLiveInstance(-1);
  }
  InstanceState(const InstanceState&) = delete;
  InstanceState& operator=(const InstanceState&) = delete;

  const Config& config() const { return config_; }
  const ModelSupportFields* fields() const { return fields_.get(); }

  // Mesh geom g as fast mode's solvers see it: MuJoCo's mesh plus its support field, if any.
  collision::MeshView FastMeshView(const mjModel* m, int g) const {
    return FastMeshViewOf(m, g, fields_.get(), config_.support_refine);
  }

  // Adds one call's solver path counts.
  void AddSolverCounts(const collision::ConvexCounters& c) {
    for (int i = 0; i < kSolverCounterCount; ++i) {
      const long value = c.*kSolverCounters[i].field;
      if (value != 0)
        solver_[i].fetch_add(value, std::memory_order_relaxed);
    }
  }
  std::int64_t solver(int i) const { return solver_[i].load(); }

  // Warns, the first time only (one warning per instance), that geoms g1 and g2 got no contact
  // because one has a non-finite pose.
  void WarnBadPose(int g1, int g2) {
    if (!warned_bad_pose_.exchange(true)) {
      mju_warning(
          "mjportal: geom %d or %d has a non-finite pose (NaN or infinite position or "
          "orientation); the pair gets no contact (reported once per mjData)",
          g1, g2);
    }
  }

  // Fast mode's per-pair separating axes (nullptr in compat).
  SeparationHints* hints() { return hints_.get(); }

  // The batched pass's answers for this mjData (batch/pair_cache.h).
  PairCache& cache() { return cache_; }
  // The batched engine's device copy of the model, shared by the mjData that used it (owned
  // here so that it lives as long as they do; batch/batch_engine.cc knows its type).
  std::shared_ptr<void>& device_slot() { return device_; }
  // In-step mode (device="cuda" stepped by plain mj_step): whether it is on (-1: not decided
  // yet), the lock that lets one call refill the cache while the others wait, and whether
  // mjportal_batchStep is driving this mjData (then its own fill applies).
  std::atomic<int>& in_step() { return in_step_; }
  std::shared_mutex& cache_mutex() { return cache_mutex_; }
  std::atomic<bool>& batch_driving() { return batch_driving_; }
  // True the first time only: one warning per instance for a full candidate buffer.
  bool FirstFullBuffer() { return !warned_full_buffer_.exchange(true); }

  // Counts one narrowphase call (relaxed atomics: MuJoCo's thread pool calls concurrently).
  void CountCall(int type1, int type2, bool ours) {
    auto& counter = ours ? ours_[type1][type2] : delegated_[type1][type2];
    counter.fetch_add(1, std::memory_order_relaxed);
  }

  std::int64_t ours(int type1, int type2) const { return ours_[type1][type2].load(); }
  std::int64_t delegated(int type1, int type2) const { return delegated_[type1][type2].load(); }
  void ResetCounts();

 private:
  // Call counting and the CUDA in-step pass need this instance's state on every call
  // (plugin/entry_route.h).
  bool NeedsPerCallLookup() const { return config_.stats || config_.device == Device::kCuda; }

  Config config_;
  std::shared_ptr<const ModelSupportFields> fields_;
  std::atomic<std::int64_t> solver_[kSolverCounterCount] = {};
  std::unique_ptr<SeparationHints> hints_;
  std::atomic<bool> warned_bad_pose_{false};
  std::atomic<bool> warned_full_buffer_{false};
  PairCache cache_;
  std::shared_ptr<void> device_;
  std::atomic<int> in_step_{-1};
  std::shared_mutex cache_mutex_;
  std::atomic<bool> batch_driving_{false};
  std::atomic<std::int64_t> ours_[mjNGEOMTYPES][mjNGEOMTYPES] = {};
  std::atomic<std::int64_t> delegated_[mjNGEOMTYPES][mjNGEOMTYPES] = {};
};

// The slot MuJoCo assigned to the mjportal plugin at registration (-1 before). Written once by
// the load-time constructor; read on every narrowphase call, so it is inline.
inline int plugin_slot = -1;
inline int PluginSlot() {
  return plugin_slot;
}

// Index of m's mjportal instance, or -1 when m has none.
inline int FindInstanceIndex(const mjModel* m) {
  const int slot = PluginSlot();
  for (int i = 0; i < m->nplugin; ++i) {
    if (m->plugin[i] == slot) {
      return i;
    }
  }
  return -1;
}

// State of d's mjportal instance, or nullptr when m has none or d was made without plugins (the
// compiler's internal mjData).
inline InstanceState* FindInstance(const mjModel* m, const mjData* d) {
  const int i = FindInstanceIndex(m);
  if (i < 0 || i >= d->nplugin || d->plugin_data == nullptr) {
    return nullptr;
  }
  return reinterpret_cast<InstanceState*>(d->plugin_data[i]);
}

}  // namespace mjportal
