// A model without an mjportal instance steps bit-identically with the library loaded: the same
// model is stepped once through the installed dispatchers and once with MuJoCo's original table
// restored (single-threaded: tests/plugin/original_table_scope.h), in lockstep.
#include <string>

#include "plugin/mjportal.h"
#include "tests/fixture.h"
#include "tests/plugin/original_table_scope.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

class StockPassthroughTest : public MujocoTest,
                             public ::testing::WithParamInterface<std::string> {};

TEST_P(StockPassthroughTest, ModelWithoutInstanceMatchesUnhookedMuJoCo) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr m = tools::LoadStock(GetParam(), &error);
  ASSERT_TRUE(m) << error;
  ASSERT_EQ(m->nplugin, 0);
  tools::DataPtr hooked(mj_makeData(m.get()));
  tools::DataPtr unhooked(mj_makeData(m.get()));

  for (int step = 1; step <= 500; ++step) {
    mj_step(m.get(), hooked.get());
    {
      OriginalTableScope original(api);
      mj_step(m.get(), unhooked.get());
    }
    const std::string field =
        tools::FirstDifference(m.get(), hooked.get(), m.get(), unhooked.get());
    ASSERT_EQ(field, "") << "diverged at step " << step;
  }
  EXPECT_GT(hooked->ncon, 0);
}

INSTANTIATE_TEST_SUITE_P(BundledModels, StockPassthroughTest, ::testing::ValuesIn(BundledModels()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return ModelName(param_info.param);
                         });

}  // namespace
}  // namespace mjportal::testing
