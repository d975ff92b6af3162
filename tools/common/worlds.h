// Many worlds (mjData) of one model with different initial states, for the batched engine's tests
// and mjportal-rollout: world w starts from the model's initial state with seeded velocities
// (world 0 keeps the model's own).
#pragma once

#include <mujoco/mujoco.h>

#include <cmath>
#include <vector>

#include "tools/common/model_variants.h"

namespace mjportal::tools {

// Adds world w's seeded velocity offsets (up to 0.05 per dof) to d->qvel.
inline void PerturbWorld(const mjModel* m, mjData* d, int w) {
  for (int i = 0; i < m->nv; ++i)
    d->qvel[i] += w == 0 ? 0 : 0.05 * std::sin(12.9898 * (w + 1) + 78.233 * (i + 1));
}

struct Worlds {
  std::vector<DataPtr> data;
  std::vector<mjData*> raw;  // the same, as MuJoCo's and mjportal's C APIs take them

  Worlds(const mjModel* m, int n) {
    for (int w = 0; w < n; ++w) {
      data.emplace_back(mj_makeData(m));
      PerturbWorld(m, data.back().get(), w);
      raw.push_back(data.back().get());
    }
  }
};

}  // namespace mjportal::tools
