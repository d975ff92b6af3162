#include "plugin/entry_route.h"

#include <mutex>

namespace mjportal {
namespace {

std::mutex route_mutex;
int live_instances = 0;
int per_call_state = 0;

// Republishes the route after a count changed (caller holds route_mutex).
void Publish() {
  analytic_pairs_direct.store(live_instances > 0 && per_call_state == 0, std::memory_order_relaxed);
}

}  // namespace

void CountLiveInstance(int delta) {
  std::lock_guard<std::mutex> lock(route_mutex);
  live_instances += delta;
  Publish();
}

void CountPerCallState(int delta) {
  std::lock_guard<std::mutex> lock(route_mutex);
  per_call_state += delta;
  Publish();
}

}  // namespace mjportal
