// Whole trajectories: every bundled model, stock MuJoCo vs mjportal in compat mode from the same
// initial state, bitwise-equal contacts, qpos, qvel, act and qacc after every step; with sleeping
// islands off and on, MuJoCo's thread pool off and on.
//
// MJPORTAL_TRAJECTORY_STEPS sets the steps per run (default 1000).
#include <cstdlib>
#include <ostream>
#include <string>

#include "plugin/mjportal.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

int StepsFromEnv() {
  return static_cast<int>(EnvCount("MJPORTAL_TRAJECTORY_STEPS", 1000));
}

struct TrajectoryParam {
  std::string model;
  bool sleep;
  int threads;
};

void PrintTo(const TrajectoryParam& p, std::ostream* os) {
  *os << p.model << (p.sleep ? " sleep" : " awake") << " threads=" << p.threads;
}

class TrajectoryTest : public MujocoTest, public ::testing::WithParamInterface<TrajectoryParam> {};

TEST_P(TrajectoryTest, CompatIsBitwiseIdenticalToStock) {
  const tools::PluginApi& api = LoadPlugin();
  const TrajectoryParam& p = GetParam();
  std::string error;
  tools::ModelPtr stock = tools::LoadStock(p.model, &error);
  ASSERT_TRUE(stock) << error;
  tools::ModelPtr plugin =
      tools::LoadWithPlugin(p.model, {{"mode", "compat"}, {"stats", "true"}}, &error);
  ASSERT_TRUE(plugin) << error;
  for (mjModel* m : {stock.get(), plugin.get()}) {
    if (p.sleep)
      m->opt.enableflags |= mjENBL_SLEEP;
  }
  tools::DataPtr d_stock(mj_makeData(stock.get()));
  tools::DataPtr d_plugin(mj_makeData(plugin.get()));
  if (p.threads > 0) {
    mju_threadpool(d_stock.get(), p.threads);
    mju_threadpool(d_plugin.get(), p.threads);
  }

  const tools::LockstepReport report =
      tools::RunLockstep(stock.get(), d_stock.get(), plugin.get(), d_plugin.get(), StepsFromEnv());
  EXPECT_TRUE(report.bitwise_identical())
      << "first divergence at step " << report.first_divergence_step << " in "
      << report.first_divergence_field << "; max |dqpos| " << report.max_abs_dqpos;
  EXPECT_GT(report.contacts_per_step, 0) << "the model never touched anything";

  // mjportal answered some of the calls itself (every bundled model has such pairs).
  long long ours[mjNGEOMTYPES * mjNGEOMTYPES] = {};
  ASSERT_EQ(api.pairCounts(plugin.get(), d_plugin.get(), ours, nullptr), 0);
  long long total_ours = 0;
  for (long long n : ours)
    total_ours += n;
  EXPECT_GT(total_ours, 0);
}

std::vector<TrajectoryParam> AllRuns() {
  std::vector<TrajectoryParam> runs;
  for (const std::string& model : BundledModels()) {
    for (bool sleep : {false, true}) {
      for (int threads : {0, 3}) {
        runs.push_back({model, sleep, threads});
      }
    }
  }
  return runs;
}

std::string RunName(const ::testing::TestParamInfo<TrajectoryParam>& info) {
  std::string name = ModelName(info.param.model);
  name += info.param.sleep ? "_sleep" : "_awake";
  name += info.param.threads ? "_threads" + std::to_string(info.param.threads) : "_serial";
  return name;
}

INSTANTIATE_TEST_SUITE_P(BundledModels, TrajectoryTest, ::testing::ValuesIn(AllRuns()), RunName);

}  // namespace
}  // namespace mjportal::testing
