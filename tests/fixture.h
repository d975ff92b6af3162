// Test fixture that fails the test on any MuJoCo warning or error, plus helpers shared by the
// plugin tests (loading libmjportal.so, paths of the bundled models).
#pragma once

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "tools/common/plugin_api.h"

namespace mjportal::testing {

// While alive, turns MuJoCo warnings into test failures and MuJoCo errors into exceptions (so a
// test fails instead of the process exiting). Tests that expect a warning call ExpectWarnings().
class MujocoTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The warnings seen since the last call, cleared; they no longer fail the test.
  std::vector<std::string> TakeWarnings();

 private:
  mjfLogHandler previous_ = nullptr;
};

// Loads libmjportal.so by path (once per process) as users do, checks that the plugin registered
// and hooked the table, and returns its C API.
const tools::PluginApi& LoadPlugin();

// libmjportal.so and the models folder: $MJPORTAL_PLUGIN_PATH / $MJPORTAL_MODELS_DIR when set (a
// build carried to another machine, tools/gpu-check.sh), else the build tree's.
std::string PluginPath();
std::string ModelsDir();

// Absolute paths of every models/*.xml, sorted.
std::vector<std::string> BundledModels();

// "box_stack" for ".../models/box_stack.xml": test names for model-parameterized suites.
std::string ModelName(const std::string& path);

}  // namespace mjportal::testing
