// Fast mode's convex solvers on bench-fast's own poses: resting pairs as in a settled pile (each
// pair moved to where MuJoCo's original starts reporting contact, then in or out by up to 1% of
// its reach). Every contact's depth must match the reference sweep refined from the solver's
// normal (tests/collision/convex_reference.h) within 1e-6 of the smallest geom size, with the
// solvers at a tight tolerance (ccd_tolerance 1e-10: at MuJoCo's default 1e-6, an absolute
// distance, the error is the tolerance's, as the README's accuracy paragraph measures). Meshes
// are solved twice: as MuJoCo compiles them (exact climbs, no start shape) and as the plugin's
// fast mode hands them over (support fields, warm-started climbs, hull shape).
//
// MJPORTAL_RESTING_CASES sets the poses per pair type (default 1024, bench-fast's count).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "collision/convex_contact.h"
#include "plugin/support_fields.h"
#include "tests/collision/convex_reference.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tests/plugin/scene_checks.h"
#include "tools/common/pair_scene.h"

namespace mjportal::testing {
namespace {

struct RestingPair {
  int type1, type2;
  int mesh_vertices = 0;  // cloud points per mesh (bench-fast's: 200, hulls of 89 vertices)
};

std::string RestingPairName(const ::testing::TestParamInfo<RestingPair>& param) {
  return std::string(tools::GeomTypeName(param.param.type1)) + "_" +
         tools::GeomTypeName(param.param.type2);
}

class FastRestingAccuracyTest : public MujocoTest,
                                public ::testing::WithParamInterface<RestingPair> {};

TEST_P(FastRestingAccuracyTest, DepthWithinOneMillionthOfTheSmallestSize) {
  const tools::PluginApi& api = LoadPlugin();
  const int t1 = GetParam().type1, t2 = GetParam().type2;
  const int count = static_cast<int>(EnvCount("MJPORTAL_RESTING_CASES", 1024));
  std::string error;
  tools::PairScene scene =
      tools::PairScene::Create(t1, t2, count, {}, &error, GetParam().mesh_vertices);
  ASSERT_TRUE(scene.ok()) << error;
  scene.RandomizeResting(20261202, api.originalCollision(t1, t2));
  const mjModel* m = scene.model();
  const mjData* d = scene.data();
  collision::ConvexSettings settings;
  settings.tolerance = 1e-10;
  settings.max_iterations = 100;
  const bool meshes = t1 == mjGEOM_MESH || t2 == mjGEOM_MESH;
  const std::shared_ptr<const ModelSupportFields> fields =
      meshes ? ModelSupportFields::Acquire(m, 180) : nullptr;
  long hits = 0, off = 0;
  double worst = 0;
  for (int solve = 0; solve < (meshes ? 2 * count : count); ++solve) {
    const tools::PairCase& c = scene.cases()[solve % count];
    collision::MeshView mesh_a, mesh_b;
    const collision::ConvexGeom a = SolverGeomOf(m, d, c.geom1, &mesh_a);
    const collision::ConvexGeom b = SolverGeomOf(m, d, c.geom2, &mesh_b);
    if (solve >= count) {  // the second round: fast mode's mesh views, fresh per call
      if (t1 == mjGEOM_MESH)
        mesh_a = FastMeshViewOf(m, c.geom1, fields.get(), true);
      if (t2 == mjGEOM_MESH)
        mesh_b = FastMeshViewOf(m, c.geom2, fields.get(), true);
    }
    collision::ConvexHit hit;
    collision::ConvexCounters counters;
    if (!collision::convex::Solve(a, b, settings, 0, &hit, &counters))
      continue;
    ++hits;
    collision::Vec3 start = hit.normal;
    const double depth = collision::reference::SweepMinOverlap(a, b, 2000, &start);
    // The smallest size of the primitives (a mesh's sizes are not its own: its hull's scale).
    double smallest = 1e300;
    for (const collision::ConvexGeom* g : {&a, &b}) {
      for (int k = 0; k < 3; ++k)
        smallest =
            std::min(smallest, g->type == collision::ShapeType::kMesh ? collision::GeomScale(*g)
                                                                      : g->view.size[k]);
    }
    const double error_fraction = std::fabs(-hit.dist - depth) / smallest;
    worst = std::max(worst, error_fraction);
    // Every pose is checked (a soak reports how many are off); the first few print a repro.
    if (!(error_fraction <= 1e-6) && ++off <= 3) {
      ADD_FAILURE() << "depth " << -hit.dist << " reference " << depth << "\n" << scene.Describe(c);
    }
  }
  EXPECT_GT(hits, count / 4);
  EXPECT_EQ(off, 0) << off << " of " << hits << " contacts beyond 1e-6 x the smallest size";
  std::printf("%ld contacts, %ld beyond the bound, worst error %.3g x the smallest size\n", hits,
              off, worst);
}

INSTANTIATE_TEST_SUITE_P(BenchPairs, FastRestingAccuracyTest,
                         ::testing::Values(RestingPair{mjGEOM_SPHERE, mjGEOM_ELLIPSOID},
                                           RestingPair{mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID},
                                           RestingPair{mjGEOM_ELLIPSOID, mjGEOM_BOX},
                                           RestingPair{mjGEOM_CAPSULE, mjGEOM_CYLINDER},
                                           RestingPair{mjGEOM_CYLINDER, mjGEOM_CYLINDER},
                                           RestingPair{mjGEOM_CYLINDER, mjGEOM_BOX},
                                           RestingPair{mjGEOM_CAPSULE, mjGEOM_ELLIPSOID},
                                           RestingPair{mjGEOM_ELLIPSOID, mjGEOM_CYLINDER},
                                           RestingPair{mjGEOM_ELLIPSOID, mjGEOM_MESH, 200},
                                           RestingPair{mjGEOM_CAPSULE, mjGEOM_MESH, 200},
                                           RestingPair{mjGEOM_CYLINDER, mjGEOM_MESH, 200}),
                         RestingPairName);

}  // namespace
}  // namespace mjportal::testing
