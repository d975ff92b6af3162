#include "tools/common/plugin_api.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>

#include "plugin/mjportal.h"

namespace mjportal::tools {
namespace {

template <typename F>
bool Resolve(void* handle, const char* name, F* out, std::string* error) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  if (*out == nullptr) {
    *error = std::string("symbol '") + name + "' missing from the mjportal library";
  }
  return *out != nullptr;
}

}  // namespace

const PluginApi* LoadPluginApi(const std::string& path, std::string* error) {
  static std::mutex mutex;
  static PluginApi api;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) {
    return &api;
  }

  // Load as users do; a second dlopen of the same file only hands back its handle.
  if (access(path.c_str(), R_OK) != 0) {
    *error = "cannot read the mjportal library '" + path + "'";
    return nullptr;
  }
  mj_loadPluginLibrary(path.c_str());
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) {
    *error = "cannot load '" + path + "': " + dlerror();
    return nullptr;
  }
  const bool ok = Resolve(handle, "mjportal_hookInstalled", &api.hookInstalled, error) &&
                  Resolve(handle, "mjportal_originalCollision", &api.originalCollision, error) &&
                  Resolve(handle, "mjportal_routesToKernel", &api.routesToKernel, error) &&
                  Resolve(handle, "mjportal_pairCounts", &api.pairCounts, error) &&
                  Resolve(handle, "mjportal_resetPairCounts", &api.resetPairCounts, error) &&
                  Resolve(handle, "mjportal_solverCounts", &api.solverCounts, error) &&
                  Resolve(handle, "mjportal_solverCounterName", &api.solverCounterName, error) &&
                  Resolve(handle, "mjportal_supportFieldBytes", &api.supportFieldBytes, error) &&
                  Resolve(handle, "mjportal_cacheCounts", &api.cacheCounts, error) &&
                  Resolve(handle, "mjportal_batchStep", &api.batchStep, error);
  if (!ok) {
    return nullptr;
  }
  if (!mjp_getPlugin(MJPORTAL_PLUGIN_NAME, nullptr)) {
    *error = "plugin '" MJPORTAL_PLUGIN_NAME "' is not registered after loading '" + path + "'";
    return nullptr;
  }
  loaded = true;
  return &api;
}

std::string DefaultPluginPath() {
  if (const char* env = std::getenv("MJPORTAL_PLUGIN_PATH"); env && env[0]) {
    return env;
  }
  char exe[PATH_MAX] = "";
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  const std::string path = n > 0 ? std::string(exe, n) : std::string();
  const std::string bin = path.substr(0, path.find_last_of('/'));
  const std::string installed = bin + "/mujoco_plugin/libmjportal.so";
  if (access(installed.c_str(), R_OK) == 0) {
    return installed;
  }
  return bin.substr(0, bin.find_last_of('/')) + "/lib/libmjportal.so";
}

}  // namespace mjportal::tools
