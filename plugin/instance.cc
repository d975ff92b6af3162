#include "plugin/instance.h"

namespace mjportal {
namespace {
int plugin_slot = -1;  // written once, by the load-time constructor
}  // namespace

int PluginSlot() { return plugin_slot; }
void SetPluginSlot(int slot) { plugin_slot = slot; }

void InstanceState::ResetCounts() {
  for (int i = 0; i < mjNGEOMTYPES; ++i) {
    for (int j = 0; j < mjNGEOMTYPES; ++j) {
      ours_[i][j].store(0);
      delegated_[i][j].store(0);
    }
  }
}

}  // namespace mjportal
