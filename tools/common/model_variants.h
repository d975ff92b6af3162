// Loads one MJCF file as the two models a comparison needs: stock (any mjportal instance removed
// through mjSpec) and plugin (an mjportal instance with the requested config). Users compare
// existing models without editing them.
//
// How the instance gets in: MuJoCo's mjs_setPluginAttributes takes a C++ std::map across the
// library boundary, which is not ABI-safe against the wheel's libmujoco (it is built with another
// C++ standard library; the call crashes). So the <extension> element is added to the file's text
// instead, and the edited text is served under the file's own path through an mjVFS overlay:
// includes and assets still resolve from the file's folder, and every other byte is the user's.
// An instance the file already declares (in the main file) is replaced, its config keys kept
// unless `config` overrides them.
#pragma once

#include <mujoco/mujoco.h>

#include <map>
#include <memory>
#include <string>

namespace mjportal::tools {

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

// Config keys and values for the injected (or overridden) mjportal instance, e.g. {"mode",
// "compat"}. Keys the file already sets and `config` does not name are kept.
using PluginConfig = std::map<std::string, std::string>;

// Compiles `path` with an mjportal instance configured by `config`. nullptr and *error on failure.
ModelPtr LoadWithPlugin(const std::string& path, const PluginConfig& config, std::string* error);

// Compiles `path` with every mjportal instance removed. nullptr and *error on failure.
ModelPtr LoadStock(const std::string& path, std::string* error);

}  // namespace mjportal::tools
