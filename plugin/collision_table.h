// MuJoCo's narrowphase table, taken over: the original entries are saved once, and every non-empty
// entry is replaced by an mjportal dispatcher for its type pair.
#pragma once

#include <mujoco/mujoco.h>

namespace mjportal {

// Saves the current mjCOLLISIONFUNC entries and writes the dispatchers. Called once, from the
// library's load-time constructor, before any model can step with the plugin.
void InstallCollisionTable();

bool CollisionTableInstalled();

class InstanceState;

// mjportal's answer for geoms (g1, g2) (MuJoCo's order: type1 <= type2) at `margin` in the
// instance's mode, written to con; -1 when the mode delegates the pair to MuJoCo (the batched
// pass leaves those to the step).
int ComputeOurs(const mjModel* m, mjData* d, InstanceState* state, mjPreContact* con, int g1,
                int g2, mjtNum margin);

// How the instance's mode answers the pair of geoms (g1, g2) (MuJoCo's order).
enum class PairRoute { kDelegated, kKernel, kConvex };
PairRoute RoutePair(const mjModel* m, const InstanceState* state, int g1, int g2);

// MuJoCo's entry for (type1, type2) as it was before installation; nullptr for empty entries.
mjfCollision OriginalCollision(int type1, int type2);

}  // namespace mjportal
