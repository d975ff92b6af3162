// Support fields on MuJoCo-compiled meshes (hull graphs from MuJoCo's compiler): with refinement
// the answer is the brute-force extreme vertex exactly; without, it is within the grid's angular
// resolution. Meshes: the 8-, 40- and 120-vertex hulls of models/mesh_pile.xml.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "collision/support_field.h"
#include "plugin/mesh_view.h"
#include "tests/fixture.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

using collision::DotVertex;
using collision::MeshView;
using collision::Vec3;

class SupportFieldTest : public MujocoTest, public ::testing::WithParamInterface<int> {};

TEST_P(SupportFieldTest, RefinedIsExactUnrefinedWithinGridResolution) {
  const int res = GetParam();
  std::string error;
  tools::ModelPtr m = tools::LoadStock(ModelsDir() + "/mesh_pile.xml", &error);
  ASSERT_TRUE(m) << error;
  std::mt19937_64 rng(99);
  std::normal_distribution<double> gauss;
  int meshes = 0;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] != mjGEOM_MESH)
      continue;
    ++meshes;
    const MeshView mesh = MeshViewOf(m.get(), g);
    std::vector<int32_t> entries(res * res);
    collision::BuildSupportField(mesh, res, entries.data());
    const collision::SupportFieldView field = {res, entries.data()};

    // Angular cell size bounds how far the unrefined vertex can fall short along d (unit).
    const double cell = 2 * collision::support_field::kPi / res;
    const double slack = 2 * mesh.rbound * (1 - std::cos(2 * cell)) + 2 * mesh.rbound * 2 * cell;
    for (int c = 0; c < 2000; ++c) {
      Vec3 d = {gauss(rng), gauss(rng), gauss(rng)};
      if (c % 50 == 0)
        d = {0, 0, c % 100 ? 1.0 : -1.0};  // the poles
      collision::Normalize(d);
      double best = -1e300;
      for (int i = 0; i < mesh.nvert; ++i)
        best = std::max(best, DotVertex(d, mesh.vert, i));
      int ties = 0;
      const int exact = collision::QuerySupportField(field, mesh, d, true, &ties);
      ASSERT_EQ(DotVertex(d, mesh.vert, exact), best) << "res " << res << " case " << c;
      ASSERT_GE(ties, 1);
      const int rough = collision::QuerySupportField(field, mesh, d, false, &ties);
      ASSERT_GE(DotVertex(d, mesh.vert, rough), best - slack) << "res " << res << " case " << c;
    }
  }
  EXPECT_GE(meshes, 3);
}

INSTANTIATE_TEST_SUITE_P(Resolutions, SupportFieldTest, ::testing::Values(8, 32, 180));

// Fast mode's climbs read a widened hull-local copy of the vertices (the layout of
// ModelSupportFields::hull: x, y, z per hull-local id): from any start vertex and random
// directions, the same answer as the climb on MuJoCo's float vertices through the graph's id map.
TEST_F(MujocoTest, WidenedHullClimbsIdentically) {
  std::string error;
  tools::ModelPtr m = tools::LoadStock(ModelsDir() + "/mesh_pile.xml", &error);
  ASSERT_TRUE(m) << error;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> gauss;
  int meshes = 0;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] != mjGEOM_MESH || m->mesh_graphadr[m->geom_dataid[g]] < 0)
      continue;
    ++meshes;
    const MeshView plain = MeshViewOf(m.get(), g);
    const int numvert = plain.graph[0];
    std::vector<double> hull;
    for (int i = 0; i < numvert; ++i) {
      for (int k = 0; k < 3; ++k)
        hull.push_back(plain.vert[3 * plain.graph[2 + numvert + i] + k]);
    }
    MeshView widened = plain;
    widened.hull_vert = hull.data();
    for (int c = 0; c < 4000; ++c) {
      const Vec3 d = {gauss(rng), gauss(rng), gauss(rng)};
      const int start = c % numvert;
      ASSERT_EQ(collision::support_field::Climb(widened, d, start),
                collision::support_field::Climb(plain, d, start))
          << "geom " << g << " case " << c << " d " << d.x << " " << d.y << " " << d.z;
    }
  }
  EXPECT_GE(meshes, 3);
}

}  // namespace
}  // namespace mjportal::testing
