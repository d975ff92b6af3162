// MuJoCo's original collision table, restored for a scope: the tests that compare against MuJoCo
// without the dispatchers (single-threaded; the table is process-wide).
#pragma once

#include <mujoco/mujoco.h>

#include <cstring>

#include "tools/common/plugin_api.h"

namespace mjportal::testing {

// Restores MuJoCo's original entries for its lifetime, then puts the dispatchers back.
class OriginalTableScope {
 public:
  explicit OriginalTableScope(const tools::PluginApi& api) {
    std::memcpy(saved_, mjCOLLISIONFUNC, sizeof(saved_));
    for (int i = 0; i < mjNGEOMTYPES; ++i) {
      for (int j = 0; j < mjNGEOMTYPES; ++j) {
        mjCOLLISIONFUNC[i][j] = api.originalCollision(i, j);
      }
    }
  }
  ~OriginalTableScope() { std::memcpy(mjCOLLISIONFUNC, saved_, sizeof(saved_)); }
  OriginalTableScope(const OriginalTableScope&) = delete;
  OriginalTableScope& operator=(const OriginalTableScope&) = delete;

 private:
  mjfCollision saved_[mjNGEOMTYPES][mjNGEOMTYPES];
};

}  // namespace mjportal::testing
