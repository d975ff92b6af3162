// Per-mjData state of an mjportal instance, reached through d->plugin_data[instance].
#pragma once

#include <mujoco/mujoco.h>

#include <atomic>
#include <cstdint>

#include "plugin/config.h"

namespace mjportal {

class InstanceState {
 public:
  explicit InstanceState(const Config& config) : config_(config) {}

  const Config& config() const { return config_; }

  // Counts one narrowphase call (relaxed atomics: MuJoCo's thread pool calls concurrently).
  void CountCall(int type1, int type2, bool ours) {
    auto& counter = ours ? ours_[type1][type2] : delegated_[type1][type2];
    counter.fetch_add(1, std::memory_order_relaxed);
  }

  std::int64_t ours(int type1, int type2) const { return ours_[type1][type2].load(); }
  std::int64_t delegated(int type1, int type2) const { return delegated_[type1][type2].load(); }
  void ResetCounts();

 private:
  Config config_;
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
