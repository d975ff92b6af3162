// mj_geomDistance goes through the same table with a large margin (a distance query): for every
// geom pair of every bundled model, stock and compat give bitwise-equal distances and fromto
// segments, from the same state.
#include <cstring>
#include <string>

#include "tests/fixture.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

class GeomDistanceTest : public MujocoTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(GeomDistanceTest, CompatMatchesStock) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr stock = tools::LoadStock(GetParam(), &error);
  ASSERT_TRUE(stock) << error;
  tools::ModelPtr plugin = tools::LoadWithPlugin(GetParam(), {{"mode", "compat"}}, &error);
  ASSERT_TRUE(plugin) << error;
  tools::DataPtr d_stock(mj_makeData(stock.get()));
  tools::DataPtr d_plugin(mj_makeData(plugin.get()));
  for (int i = 0; i < 200; ++i) {
    mj_step(stock.get(), d_stock.get());
    mj_step(plugin.get(), d_plugin.get());
  }

  int ours = 0;
  const mjModel* m = plugin.get();
  for (int g1 = 0; g1 < m->ngeom; ++g1) {
    for (int g2 = g1 + 1; g2 < m->ngeom; ++g2) {
      const int t1 = std::min(m->geom_type[g1], m->geom_type[g2]);
      const int t2 = std::max(m->geom_type[g1], m->geom_type[g2]);
      ours += api.routesToKernel(m, t1, t2) == 1;
      mjtNum fromto_stock[6] = {}, fromto_plugin[6] = {};
      const mjtNum dist_stock =
          mj_geomDistance(stock.get(), d_stock.get(), g1, g2, 10.0, fromto_stock);
      const mjtNum dist_plugin = mj_geomDistance(m, d_plugin.get(), g1, g2, 10.0, fromto_plugin);
      ASSERT_EQ(std::memcmp(&dist_stock, &dist_plugin, sizeof(mjtNum)), 0)
          << "geoms " << g1 << ", " << g2;
      ASSERT_EQ(std::memcmp(fromto_stock, fromto_plugin, sizeof(fromto_stock)), 0)
          << "geoms " << g1 << ", " << g2;
    }
  }
  EXPECT_GT(ours, 0);
}

INSTANTIATE_TEST_SUITE_P(BundledModels, GeomDistanceTest, ::testing::ValuesIn(BundledModels()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return ModelName(param_info.param);
                         });

}  // namespace
}  // namespace mjportal::testing
