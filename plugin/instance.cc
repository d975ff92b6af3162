#include "plugin/instance.h"

namespace mjportal {
void InstanceState::ResetCounts() {
  for (int i = 0; i < mjNGEOMTYPES; ++i) {
    for (int j = 0; j < mjNGEOMTYPES; ++j) {
      ours_[i][j].store(0);
      delegated_[i][j].store(0);
    }
  }
  for (auto& counter : solver_) {
    counter.store(0);
  }
}

}  // namespace mjportal
