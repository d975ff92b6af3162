// Config keys: defaults, validation messages (key, value, what is allowed), several models with
// different configs in one process.
#include <cstdio>
#include <fstream>
#include <string>

#include "plugin/mjportal.h"
#include "tests/fixture.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

std::string ModelXml(const std::string& config_xml) {
  return "<mujoco><extension><plugin plugin=\"mjportal.collision\"><instance name=\"np\">" +
         config_xml +
         "</instance></plugin></extension><worldbody><geom type=\"plane\" size=\"1 1 1\"/>"
         "<body pos=\"0 0 0.2\"><freejoint/><geom type=\"sphere\" size=\"0.1\"/></body>"
         "</worldbody></mujoco>";
}

// Compiles xml; returns the model or nullptr with the compiler's message in *error.
tools::ModelPtr Compile(const std::string& xml, std::string* error) {
  char buffer[2048] = "";
  mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, buffer, sizeof(buffer));
  if (!spec) {
    *error = buffer;
    return nullptr;
  }
  tools::ModelPtr m(mj_compile(spec, nullptr));
  if (!m)
    *error = mjs_getError(spec);
  mj_deleteSpec(spec);
  return m;
}

using ConfigTest = MujocoTest;

TEST_F(ConfigTest, DefaultModeIsFast) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr m = Compile(ModelXml(""), &error);
  ASSERT_TRUE(m) << error;
  EXPECT_STREQ(mj_getPluginConfig(m.get(), 0, "mode"), "");
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_PLANE, mjGEOM_SPHERE), 1);
  // Fast mode answers every convex pair, the general ones with its MPR/GJK/EPA solvers.
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_CAPSULE, mjGEOM_CYLINDER), 1);
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_CYLINDER, mjGEOM_MESH), 1);
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_MESH, mjGEOM_MESH), 1);
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_HFIELD, mjGEOM_BOX), 0);
}

TEST_F(ConfigTest, CompatAnswersTheGeneralConvexPairs) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr m = Compile(ModelXml("<config key=\"mode\" value=\"compat\"/>"), &error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_BOX, mjGEOM_BOX), 1);
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_CAPSULE, mjGEOM_CYLINDER), 1);
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_MESH, mjGEOM_MESH), 1);
  EXPECT_EQ(api.routesToKernel(m.get(), mjGEOM_HFIELD, mjGEOM_BOX), 0);
}

// Fast-mode keys: each bad value names the key, the value and what is allowed.
TEST_F(ConfigTest, FastModeKeysAreValidated) {
  LoadPlugin();
  struct Case {
    const char* key;
    const char* value;
    const char* allowed;
  };
  const Case cases[] = {
      {"ccd", "epa", "'auto', 'mpr', 'gjk'"},
      {"multicontact", "1", "'false', 'true'"},
      {"manifold", "sat", "'clip', 'perturb'"},
      {"device", "gpu", "'cpu', 'cuda'"},
      {"max_collision_pairs", "0", "integers from 1 to 16777216"},
      {"max_collision_pairs", "12k", "integers from 1 to 16777216"},
      {"support_refine", "on", "'false', 'true'"},
      {"coherence", "off", "'false', 'true'"},
      {"support_res", "7", "integers from 8 to 1024"},
      {"support_res", "1025", "integers from 8 to 1024"},
      {"support_res", "180x", "integers from 8 to 1024"},
  };
  for (const Case& c : cases) {
    std::string error;
    const std::string config =
        std::string("<config key=\"") + c.key + "\" value=\"" + c.value + "\"/>";
    EXPECT_FALSE(Compile(ModelXml(config), &error)) << c.key << "=" << c.value;
    EXPECT_NE(error.find(std::string("'") + c.key + "'"), std::string::npos) << error;
    EXPECT_NE(error.find(std::string("'") + c.value + "'"), std::string::npos) << error;
    EXPECT_NE(error.find(c.allowed), std::string::npos) << error;
  }
  std::string error;
  EXPECT_TRUE(Compile(ModelXml("<config key=\"ccd\" value=\"gjk\"/><config key=\"support_res\" "
                               "value=\"64\"/><config key=\"multicontact\" value=\"false\"/>"
                               "<config key=\"manifold\" value=\"perturb\"/>"
                               "<config key=\"coherence\" value=\"false\"/>"
                               "<config key=\"device\" value=\"cuda\"/>"
                               "<config key=\"max_collision_pairs\" value=\"64\"/>"),
                      &error))
      << error;
}

TEST_F(ConfigTest, BadModeNamesKeyValueAndAllowedValues) {
  LoadPlugin();
  std::string error;
  EXPECT_FALSE(Compile(ModelXml("<config key=\"mode\" value=\"turbo\"/>"), &error));
  EXPECT_NE(error.find("'mode'"), std::string::npos) << error;
  EXPECT_NE(error.find("'turbo'"), std::string::npos) << error;
  EXPECT_NE(error.find("'fast', 'compat'"), std::string::npos) << error;
}

TEST_F(ConfigTest, BadStatsValueIsRejected) {
  LoadPlugin();
  std::string error;
  EXPECT_FALSE(Compile(ModelXml("<config key=\"stats\" value=\"yes\"/>"), &error));
  EXPECT_NE(error.find("'stats'"), std::string::npos) << error;
  EXPECT_NE(error.find("'false', 'true'"), std::string::npos) << error;
}

TEST_F(ConfigTest, UnknownKeyIsRejectedByName) {
  LoadPlugin();
  std::string error;
  EXPECT_FALSE(Compile(ModelXml("<config key=\"speed\" value=\"high\"/>"), &error));
  EXPECT_NE(error.find("speed"), std::string::npos) << error;
}

// Two models in one process, compat and fast, each counted on its own instance.
TEST_F(ConfigTest, SeveralModelsWithDifferentConfigs) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr compat = Compile(
      ModelXml("<config key=\"mode\" value=\"compat\"/><config key=\"stats\" value=\"true\"/>"),
      &error);
  ASSERT_TRUE(compat) << error;
  tools::ModelPtr fast = Compile(ModelXml("<config key=\"mode\" value=\"fast\"/>"), &error);
  ASSERT_TRUE(fast) << error;
  tools::DataPtr d_compat(mj_makeData(compat.get()));
  tools::DataPtr d_fast(mj_makeData(fast.get()));
  for (int i = 0; i < 300; ++i) {
    mj_step(compat.get(), d_compat.get());
    mj_step(fast.get(), d_fast.get());
  }
  // Both use the (bit-exact) analytic kernel for plane-sphere, so they agree.
  EXPECT_EQ(tools::FirstDifference(compat.get(), d_compat.get(), fast.get(), d_fast.get()), "");
  long long ours[mjNGEOMTYPES * mjNGEOMTYPES] = {};
  ASSERT_EQ(api.pairCounts(compat.get(), d_compat.get(), ours, nullptr), 0);
  EXPECT_GT(ours[mjGEOM_PLANE * mjNGEOMTYPES + mjGEOM_SPHERE], 0);
  EXPECT_EQ(api.pairCounts(fast.get(), d_fast.get(), ours, nullptr), -1)  // stats off
      << "counting must be off by default";
  api.resetPairCounts(compat.get(), d_compat.get());
  ASSERT_EQ(api.pairCounts(compat.get(), d_compat.get(), ours, nullptr), 0);
  EXPECT_EQ(ours[mjGEOM_PLANE * mjNGEOMTYPES + mjGEOM_SPHERE], 0);
}

// mjportal-compare's injection path: a model without an instance gets one through mjSpec, with
// the requested config, and the stock variant drops an existing one.
TEST_F(ConfigTest, InjectionThroughSpec) {
  LoadPlugin();
  std::string error;
  const std::string path = ModelsDir() + "/sphere_on_plane.xml";
  tools::ModelPtr injected = tools::LoadWithPlugin(path, {{"mode", "compat"}}, &error);
  ASSERT_TRUE(injected) << error;
  ASSERT_EQ(injected->nplugin, 1);
  EXPECT_STREQ(mj_getPluginConfig(injected.get(), 0, "mode"), "compat");
  tools::ModelPtr stock = tools::LoadStock(path, &error);
  ASSERT_TRUE(stock) << error;
  EXPECT_EQ(stock->nplugin, 0);
}

// A file that declares its own instance: the plugin variant replaces it (keeping keys it does not
// override), the stock variant drops it.
TEST_F(ConfigTest, DeclaredInstanceIsReplacedOrDropped) {
  LoadPlugin();
  const std::string path = ::testing::TempDir() + "/mjportal_declared.xml";
  {
    std::ofstream out(path);
    out << "<mujoco model=\"declared\">\n  <extension>\n    <plugin plugin = 'mjportal.collision'>"
           "\n      <instance name=\"np\"><config key=\"stats\" value=\"true\"/>"
           "<config key=\"mode\" value=\"fast\"/></instance>\n    </plugin>\n  </extension>\n"
           "  <worldbody><geom type=\"plane\" size=\"1 1 1\"/></worldbody>\n</mujoco>\n";
  }
  std::string error;
  tools::ModelPtr plugin = tools::LoadWithPlugin(path, {{"mode", "compat"}}, &error);
  ASSERT_TRUE(plugin) << error;
  ASSERT_EQ(plugin->nplugin, 1);
  EXPECT_STREQ(mj_getPluginConfig(plugin.get(), 0, "mode"), "compat");
  EXPECT_STREQ(mj_getPluginConfig(plugin.get(), 0, "stats"), "true");
  tools::ModelPtr stock = tools::LoadStock(path, &error);
  ASSERT_TRUE(stock) << error;
  EXPECT_EQ(stock->nplugin, 0);
  std::remove(path.c_str());
}

TEST_F(ConfigTest, MissingFileIsAClearError) {
  LoadPlugin();
  std::string error;
  EXPECT_FALSE(tools::LoadWithPlugin("/nonexistent/model.xml", {}, &error));
  EXPECT_NE(error.find("/nonexistent/model.xml"), std::string::npos) << error;
}

}  // namespace
}  // namespace mjportal::testing
