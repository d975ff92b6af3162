// Library entry: registers the "mjportal.collision" plugin and takes over MuJoCo's narrowphase
// table when the library is loaded; implements the C API of mjportal.h.
#include <mujoco/mujoco.h>

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "batch/batch_engine.h"
#include "plugin/collision_table.h"
#include "plugin/config.h"
#include "plugin/instance.h"
#include "plugin/mjportal.h"
#include "plugin/routing.h"
#include "plugin/support_fields.h"

namespace mjportal {
namespace {

// Version string of a MuJoCo version number (3012000 -> "3.12.0").
std::string VersionString(int version) {
  return std::to_string(version / 1000000) + "." + std::to_string(version / 1000 % 1000) + "." +
         std::to_string(version % 1000);
}

// Creates the per-mjData state, or refuses with a MuJoCo warning that says why (MuJoCo then fails
// mj_makeData, and the model compiler reports the warning as the error's detail).
int InitInstance(const mjModel* m, mjData* d, int instance) {
  if (!CollisionTableInstalled()) {
    mju_warning(
        "mjportal: libmjportal was built against MuJoCo %s but is running in MuJoCo %s; the "
        "narrowphase hook is not installed. Rebuild mjportal against the running MuJoCo.",
        VersionString(mjVERSION_HEADER).c_str(), VersionString(mj_version()).c_str());
    return -1;
  }
  std::string error;
  std::optional<Config> config = Config::FromModel(m, instance, &error);
  if (!config) {
    mju_warning("%s", error.c_str());
    return -1;
  }
  if (config->mode == Mode::kCompat && mjVERSION_HEADER != MJPORTAL_PINNED_MUJOCO_VERSION) {
    mju_warning(
        "mjportal: mode 'compat' reproduces MuJoCo %s bit for bit, but this build uses MuJoCo %s; "
        "use mode 'fast' or build against MuJoCo %s",
        VersionString(MJPORTAL_PINNED_MUJOCO_VERSION).c_str(),
        VersionString(mjVERSION_HEADER).c_str(),
        VersionString(MJPORTAL_PINNED_MUJOCO_VERSION).c_str());
    return -1;
  }
  // Fast mode's support fields: built once per model, shared by all of its mjData.
  std::shared_ptr<const ModelSupportFields> fields;
  if (config->mode == Mode::kFast) {
    fields = ModelSupportFields::Acquire(m, config->support_res);
  }
  // Fast mode keeps a separating axis per geom pair it meets (room for 4 per geom), unless the
  // coherence key turns that off.
  const int hint_pairs = config->mode == Mode::kFast && config->coherence ? 4 * m->ngeom : 0;
  auto* state = new (std::nothrow) InstanceState(*config, std::move(fields), hint_pairs);
  if (state == nullptr) {
    mju_warning("mjportal: out of memory creating the plugin instance");
    return -1;
  }
  d->plugin_data[instance] = reinterpret_cast<std::uintptr_t>(state);
  return 0;
}

void DestroyInstance(mjData* d, int instance) {
  delete reinterpret_cast<InstanceState*>(d->plugin_data[instance]);
  d->plugin_data[instance] = 0;
}

void RegisterPlugin() {
  mjpPlugin plugin;
  mjp_defaultPlugin(&plugin);
  plugin.name = MJPORTAL_PLUGIN_NAME;
  plugin.nattribute = static_cast<int>(kConfigKeys.size());
  plugin.attributes = kConfigKeys.data();
  plugin.capabilityflags = 0;  // narrowphase is reached through mjCOLLISIONFUNC, not a capability
  plugin.nstate = +[](const mjModel*, int) { return 0; };
  plugin.init = &InitInstance;
  plugin.destroy = &DestroyInstance;
  plugin.reset = +[](const mjModel*, mjtNum*, void*, int) {};
  plugin.compute = +[](const mjModel*, mjData*, int, int) {};
  plugin_slot = mjp_registerPlugin(&plugin);
}

}  // namespace
}  // namespace mjportal

// Load time: hook the table only when the running MuJoCo is the one the headers describe (the
// mjPreContact contract and table layout are version-specific); always register, so that models
// declaring the plugin load and then fail with a clear message instead of an unknown-plugin error.
mjPLUGIN_LIB_INIT(mjportal) {
  if (mj_version() == mjVERSION_HEADER) {
    mjportal::InstallCollisionTable();
  } else {
    mju_warning(
        "mjportal: built against MuJoCo %s but loaded into MuJoCo %s; narrowphase hook not "
        "installed",
        mjportal::VersionString(mjVERSION_HEADER).c_str(),
        mjportal::VersionString(mj_version()).c_str());
  }
  mjportal::RegisterPlugin();
}

// ---- C API -----------------------------------------------------------------------------------

extern "C" {

int mjportal_hookInstalled(void) {
  return mjportal::CollisionTableInstalled() ? 1 : 0;
}

mjfCollision mjportal_originalCollision(int type1, int type2) {
  return mjportal::OriginalCollision(type1, type2);
}

int mjportal_routesToKernel(const mjModel* m, int type1, int type2) {
  const int instance = mjportal::FindInstanceIndex(m);
  if (instance < 0) {
    return -1;
  }
  std::string error;
  std::optional<mjportal::Config> config = mjportal::Config::FromModel(m, instance, &error);
  if (!config || type1 < 0 || type2 < 0 || type1 >= mjNGEOMTYPES || type2 >= mjNGEOMTYPES) {
    return -1;
  }
  return mjportal::RoutesToKernel(type1, type2) ? 1 : 0;
}

int mjportal_pairCounts(const mjModel* m, const mjData* d, long long* ours, long long* delegated) {
  const mjportal::InstanceState* state = mjportal::FindInstance(m, d);
  if (state == nullptr || !state->config().stats) {
    return -1;
  }
  for (int i = 0; i < mjNGEOMTYPES; ++i) {
    for (int j = 0; j < mjNGEOMTYPES; ++j) {
      if (ours)
        ours[i * mjNGEOMTYPES + j] = state->ours(i, j);
      if (delegated)
        delegated[i * mjNGEOMTYPES + j] = state->delegated(i, j);
    }
  }
  return 0;
}

int mjportal_solverCounts(const mjModel* m, const mjData* d, long long* counts, int capacity) {
  const mjportal::InstanceState* state = mjportal::FindInstance(m, d);
  if (state == nullptr || !state->config().stats || capacity < 0 ||
      (counts == nullptr && capacity > 0)) {
    return -1;
  }
  // Never more than the caller's buffer holds: a caller built against an older header passes
  // the smaller capacity.
  for (int i = 0; i < mjportal::kSolverCounterCount && i < capacity; ++i) {
    counts[i] = state->solver(i);
  }
  return mjportal::kSolverCounterCount;
}

const char* mjportal_solverCounterName(int i) {
  return i >= 0 && i < mjportal::kSolverCounterCount ? mjportal::kSolverCounters[i].name : nullptr;
}

long long mjportal_supportFieldBytes(const mjModel* m, const mjData* d) {
  const mjportal::InstanceState* state = mjportal::FindInstance(m, d);
  if (state == nullptr) {
    return -1;
  }
  return state->fields() == nullptr ? 0 : static_cast<long long>(state->fields()->bytes());
}

int mjportal_cacheCounts(const mjModel* m, const mjData* d, long long* hits, long long* misses) {
  mjportal::InstanceState* state = mjportal::FindInstance(m, d);
  if (state == nullptr) {
    return -1;
  }
  *hits = state->cache().hits();
  *misses = state->cache().misses();
  return 0;
}

int mjportal_batchStep(const mjModel* m, mjData** d, int nworld, int nstep, int nthread,
                       mjportalBatchStats* stats) {
  if (m == nullptr || d == nullptr || nworld < 0 || nstep < 0) {
    return -1;
  }
  mjportal::BatchStats measured;
  if (!mjportal::BatchStep(m, d, nworld, nstep, nthread, &measured)) {
    return -1;
  }
  if (stats != nullptr) {
    *stats = {measured.kinematics_s, measured.pass_s,        measured.step_s, measured.world_steps,
              measured.contacts,     measured.candidates,    measured.cached, measured.hits,
              measured.misses,       measured.device ? 1 : 0};
  }
  return 0;
}

void mjportal_resetPairCounts(const mjModel* m, mjData* d) {
  if (mjportal::InstanceState* state = mjportal::FindInstance(m, d)) {
    state->ResetCounts();
  }
}

}  // extern "C"
