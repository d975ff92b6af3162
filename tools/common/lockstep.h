// Steps two models of the same system side by side (stock MuJoCo and mjportal) and compares their
// state bit for bit after every step.
#pragma once

#include <mujoco/mujoco.h>

#include <string>

namespace mjportal::tools {

// The first field in which two simulations of the same system differ bitwise, or "" when none
// does. Compared: ncon, every contact (dist, pos, frame, geoms, flex/elem/vert, includemargin, mu,
// friction, solref, solreffriction, solimp, dim, exclude), nefc, qpos, qvel, act, qacc.
std::string FirstDifference(const mjModel* m1, const mjData* d1, const mjModel* m2,
                            const mjData* d2);

struct LockstepReport {
  int steps = 0;
  int first_divergence_step = -1;  // -1: bitwise identical throughout
  std::string first_divergence_field;
  double max_abs_dqpos = 0;  // largest |qpos_stock - qpos_plugin| over all steps
  double max_abs_dqvel = 0;
  double contacts_per_step = 0;         // mean ncon of the stock run
  double plugin_contacts_per_step = 0;  // mean ncon of the plugin run
  bool bitwise_identical() const { return first_divergence_step < 0; }
};

// Steps d_stock and d_plugin `steps` times from their current states, comparing after each step.
// Keeps stepping after a divergence so that the maximum differences cover the whole run.
LockstepReport RunLockstep(const mjModel* m_stock, mjData* d_stock, const mjModel* m_plugin,
                           mjData* d_plugin, int steps);

}  // namespace mjportal::tools
