// Whether the dispatcher may answer an analytic pair without finding the calling model's instance.
//
// The analytic kernels (plane–*, sphere–*, capsule–*, box–box) return MuJoCo 3.12's answers bit
// for bit in both modes (the oracle tests prove it per pair type), so for them the instance only
// matters through per-call state: call counting (stats="true"), a batched pass's cache and the
// CUDA in-step pass. While at least one mjportal instance lives and none of the live ones needs
// per-call state, the dispatcher answers those pairs straight from the kernel, skipping the
// lookup that would otherwise be a third of the cheapest calls; every model, with or without an
// instance, gets the same bits it would get from MuJoCo. With no instance alive, every call goes
// to MuJoCo's original.
#pragma once

#include <atomic>

namespace mjportal {

// Written under a lock by the counters below; read (relaxed) on every analytic-pair call.
inline std::atomic<bool> analytic_pairs_direct{false};

inline bool AnalyticPairsDirect() {
  return analytic_pairs_direct.load(std::memory_order_relaxed);
}

// One more (+1) or one fewer (-1) live mjportal instance.
void CountLiveInstance(int delta);

// One more (+1) or one fewer (-1) live instance or active cache that needs the per-call lookup.
void CountPerCallState(int delta);

}  // namespace mjportal
