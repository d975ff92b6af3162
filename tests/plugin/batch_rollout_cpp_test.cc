// The C++ API of the batched engine (mjportal::BatchRollout in plugin/mjportal.h), used the way a
// C++ program linked against libmjportal uses it: worlds stepped together equal worlds stepped
// alone with mj_step, bitwise, and the statistics add up.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <string>

#include "plugin/mjportal.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"
#include "tools/common/worlds.h"

namespace {

TEST(BatchRolloutCpp, StepsLikePlainMjStep) {
  ASSERT_EQ(mjportal_hookInstalled(), 1);
  std::string error;
  const std::string model = std::string(MJPORTAL_MODELS_DIR) + "/mesh_pile.xml";
  mjportal::tools::ModelPtr m = mjportal::tools::LoadWithPlugin(model, {{"mode", "fast"}}, &error);
  ASSERT_TRUE(m) << error;
  mjportal::BatchRollout rollout(m.get(), 5, 2);
  mjportal::tools::Worlds reference(m.get(), 5);
  for (int w = 0; w < rollout.size(); ++w) {
    mjportal::tools::PerturbWorld(m.get(), rollout.world(w), w);
  }
  for (int chunk = 0; chunk < 4; ++chunk) {
    ASSERT_TRUE(rollout.Step(50));
    for (int w = 0; w < rollout.size(); ++w) {
      for (int k = 0; k < 50; ++k) {
        mj_step(m.get(), reference.raw[w]);
      }
      EXPECT_EQ(
          mjportal::tools::FirstDifference(m.get(), reference.raw[w], m.get(), rollout.world(w)),
          "")
          << "world " << w << " after " << 50 * (chunk + 1) << " steps";
    }
  }
  EXPECT_EQ(rollout.stats().world_steps, 5 * 200);
  EXPECT_EQ(rollout.stats().misses, 0);
  EXPECT_GT(rollout.stats().hits, 0);
}

TEST(BatchRolloutCpp, RefusesAModelWithoutInstance) {
  std::string error;
  const std::string model = std::string(MJPORTAL_MODELS_DIR) + "/mesh_pile.xml";
  mjportal::tools::ModelPtr m = mjportal::tools::LoadStock(model, &error);
  ASSERT_TRUE(m) << error;
  mjportal::BatchRollout rollout(m.get(), 2, 1);
  EXPECT_FALSE(rollout.Step(1));
}

}  // namespace
