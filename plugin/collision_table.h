// MuJoCo's narrowphase table, taken over: the original entries are saved once, and every non-empty
// entry is replaced by an mjportal dispatcher for its type pair.
#pragma once

#include <mujoco/mujoco.h>

namespace mjportal {

// Saves the current mjCOLLISIONFUNC entries and writes the dispatchers. Called once, from the
// library's load-time constructor, before any model can step with the plugin.
void InstallCollisionTable();

bool CollisionTableInstalled();

// MuJoCo's entry for (type1, type2) as it was before installation; nullptr for empty entries.
mjfCollision OriginalCollision(int type1, int type2);

}  // namespace mjportal
