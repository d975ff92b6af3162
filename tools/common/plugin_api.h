// The C API of libmjportal.so (plugin/mjportal.h), reached the way users load the library: by
// path through mj_loadPluginLibrary, then resolved with dlsym.
#pragma once

#include <mujoco/mujoco.h>

#include <string>

#include "plugin/mjportal.h"

namespace mjportal::tools {

struct PluginApi {
  int (*hookInstalled)(void);
  mjfCollision (*originalCollision)(int type1, int type2);
  int (*routesToKernel)(const mjModel* m, int type1, int type2);
  int (*pairCounts)(const mjModel* m, const mjData* d, long long* ours, long long* delegated);
  void (*resetPairCounts)(const mjModel* m, mjData* d);
  int (*solverCounts)(const mjModel* m, const mjData* d, long long* counts, int capacity);
  const char* (*solverCounterName)(int i);
  long long (*supportFieldBytes)(const mjModel* m, const mjData* d);
  int (*cacheCounts)(const mjModel* m, const mjData* d, long long* hits, long long* misses);
  int (*batchStep)(const mjModel* m, mjData** d, int nworld, int nstep, int nthread,
                   mjportalBatchStats* stats);
};

// Loads the library at `path` (once per process) and resolves its C API. Returns nullptr with
// *error when the library cannot be loaded, lacks a symbol, or did not register the plugin.
const PluginApi* LoadPluginApi(const std::string& path, std::string* error);

// The library path the tools use by default: $MJPORTAL_PLUGIN_PATH, else the build tree's
// lib/libmjportal.so or the install tree's bin/mujoco_plugin/libmjportal.so next to the running
// executable.
std::string DefaultPluginPath();

}  // namespace mjportal::tools
