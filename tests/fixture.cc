#include "tests/fixture.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "plugin/mjportal.h"

namespace mjportal::testing {
namespace {

std::mutex warnings_mutex;
std::vector<std::string> warnings;  // guarded by warnings_mutex

void FailingLogHandler(const mjLogMessage* msg) {
  if (msg->level == mjLOG_ERROR) {
    throw std::runtime_error(std::string("MuJoCo error: ") + msg->subject);
  }
  if (msg->level == mjLOG_WARNING) {
    std::lock_guard<std::mutex> lock(warnings_mutex);
    warnings.push_back(msg->subject);
  }
}

}  // namespace

void MujocoTest::SetUp() {
  TakeWarnings();
  previous_ = mju_setLogHandler(&FailingLogHandler);
}

void MujocoTest::TearDown() {
  mju_setLogHandler(previous_);
  for (const std::string& w : TakeWarnings()) {
    ADD_FAILURE() << "MuJoCo warning: " << w;
  }
}

std::vector<std::string> MujocoTest::TakeWarnings() {
  std::lock_guard<std::mutex> lock(warnings_mutex);
  std::vector<std::string> taken;
  taken.swap(warnings);
  return taken;
}

std::string PluginPath() {
  const char* env = std::getenv("MJPORTAL_PLUGIN_PATH");
  return env != nullptr && env[0] != '\0' ? env : MJPORTAL_PLUGIN_PATH;
}

std::string ModelsDir() {
  const char* env = std::getenv("MJPORTAL_MODELS_DIR");
  return env != nullptr && env[0] != '\0' ? env : MJPORTAL_MODELS_DIR;
}

const tools::PluginApi& LoadPlugin() {
  std::string error;
  const tools::PluginApi* api = tools::LoadPluginApi(PluginPath(), &error);
  if (api == nullptr || api->hookInstalled() != 1) {
    throw std::runtime_error("mjportal library unusable: " + error);
  }
  return *api;
}

std::vector<std::string> BundledModels() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(ModelsDir())) {
    if (entry.path().extension() == ".xml") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string ModelName(const std::string& path) {
  const std::string file = path.substr(path.find_last_of('/') + 1);
  return file.substr(0, file.find_last_of('.'));
}

}  // namespace mjportal::testing
