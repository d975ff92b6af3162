// Fast mode on whole scenes: every bundled model runs with every convex pair answered by
// mjportal, finite states, no MuJoCo warning, and a deepest penetration within a bound of stock's;
// a 10-box pyramid stands for 10 s; a pile of 200-vertex meshes settles; mesh cans stand still;
// in a bin of 36 meshes each pair's deepest contact carries the hulls' overlap; in a bin of mixed
// shapes no pair stock MuJoCo touches is missed; a state steps to
// the same bits serially, on MuJoCo's thread pool and after another trajectory.
//
// MJPORTAL_FAST_STEPS sets the steps of the per-model runs (default 1500).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collision/vec3.h"
#include "plugin/mjportal.h"
#include "tests/can_mesh.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tests/plugin/scene_checks.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

class FastModeTest : public MujocoTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(FastModeTest, AnswersEveryConvexPairAndStaysCloseToStockPenetration) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr stock = tools::LoadStock(GetParam(), &error);
  ASSERT_TRUE(stock) << error;
  tools::ModelPtr fast =
      tools::LoadWithPlugin(GetParam(), {{"mode", "fast"}, {"stats", "true"}}, &error);
  ASSERT_TRUE(fast) << error;
  tools::DataPtr d_stock(mj_makeData(stock.get())), d_fast(mj_makeData(fast.get()));
  const int steps = static_cast<int>(EnvCount("MJPORTAL_FAST_STEPS", 1500));
  double deepest_stock = 0, deepest_fast = 0;
  for (int step = 0; step < steps; ++step) {
    mj_step(stock.get(), d_stock.get());
    mj_step(fast.get(), d_fast.get());
    ASSERT_TRUE(FiniteState(fast.get(), d_fast.get())) << "step " << step;
    deepest_stock = std::max(deepest_stock, DeepestPenetration(d_stock.get()));
    deepest_fast = std::max(deepest_fast, DeepestPenetration(d_fast.get()));
  }
  // Fast mode's contacts differ from stock's (other solver, more contacts), so trajectories
  // diverge; the bound is on how deep things sink.
  EXPECT_LE(deepest_fast, 2 * deepest_stock + 1e-3)
      << "stock's deepest penetration " << deepest_stock;

  // No convex pair (plane, sphere, capsule, ellipsoid, cylinder, box, mesh) was delegated.
  long long ours[mjNGEOMTYPES * mjNGEOMTYPES] = {}, delegated[mjNGEOMTYPES * mjNGEOMTYPES] = {};
  ASSERT_EQ(api.pairCounts(fast.get(), d_fast.get(), ours, delegated), 0);
  long long total_ours = 0;
  for (int t1 = mjGEOM_PLANE; t1 <= mjGEOM_MESH; ++t1) {
    for (int t2 = t1; t2 <= mjGEOM_MESH; ++t2) {
      if (t1 == mjGEOM_HFIELD || t2 == mjGEOM_HFIELD)
        continue;
      EXPECT_EQ(delegated[t1 * mjNGEOMTYPES + t2], 0) << t1 << "-" << t2;
      total_ours += ours[t1 * mjNGEOMTYPES + t2];
    }
  }
  EXPECT_GT(total_ours, 0);
}

// Fast mode's answers depend on the state alone (determinism): from one start, an mjData stepping
// serially, one on MuJoCo's thread pool (3 threads), one whose per-pair solver state (separation
// axes, support vertices) another trajectory left behind, and one of the model with that state
// off (coherence="false") all step to the same bits (contacts, qpos, qvel, act, qacc after every
// step).
TEST_P(FastModeTest, SameBitsSeriallyOnThreadsAndAfterAnotherTrajectory) {
  LoadPlugin();
  std::string error;
  tools::ModelPtr m = tools::LoadWithPlugin(GetParam(), {{"mode", "fast"}}, &error);
  ASSERT_TRUE(m) << error;
  const int steps = static_cast<int>(EnvCount("MJPORTAL_FAST_STEPS", 1500));
  tools::DataPtr serial(mj_makeData(m.get())), threaded(mj_makeData(m.get()));
  mju_threadpool(threaded.get(), 3);
  const tools::LockstepReport on_threads =
      tools::RunLockstep(m.get(), serial.get(), m.get(), threaded.get(), steps);
  EXPECT_TRUE(on_threads.bitwise_identical())
      << "thread pool: first divergence at step " << on_threads.first_divergence_step << " in "
      << on_threads.first_divergence_field;

  // The other trajectory: velocities perturbed (seeded), 300 steps; then the common start.
  tools::DataPtr fresh(mj_makeData(m.get())), reused(mj_makeData(m.get()));
  std::mt19937_64 rng(20261205);
  std::normal_distribution<double> gauss;
  for (int i = 0; i < m->nv; ++i)
    reused->qvel[i] = 0.05 * gauss(rng);
  for (int step = 0; step < 300; ++step)
    mj_step(m.get(), reused.get());
  const int spec = mjSTATE_INTEGRATION;
  std::vector<mjtNum> start(mj_stateSize(m.get(), spec));
  mj_getState(m.get(), fresh.get(), start.data(), spec);
  mj_setState(m.get(), reused.get(), start.data(), spec);
  const tools::LockstepReport after_other =
      tools::RunLockstep(m.get(), fresh.get(), m.get(), reused.get(), steps);
  EXPECT_TRUE(after_other.bitwise_identical())
      << "after another trajectory: first divergence at step " << after_other.first_divergence_step
      << " in " << after_other.first_divergence_field;
  EXPECT_GT(after_other.contacts_per_step, 0) << "the model never touched anything";

  tools::ModelPtr stateless =
      tools::LoadWithPlugin(GetParam(), {{"mode", "fast"}, {"coherence", "false"}}, &error);
  ASSERT_TRUE(stateless) << error;
  tools::DataPtr kept(mj_makeData(m.get())), none(mj_makeData(stateless.get()));
  const tools::LockstepReport without_axes =
      tools::RunLockstep(m.get(), kept.get(), stateless.get(), none.get(), steps);
  EXPECT_TRUE(without_axes.bitwise_identical())
      << "coherence off: first divergence at step " << without_axes.first_divergence_step << " in "
      << without_axes.first_divergence_field;
}

std::string FastRunName(const ::testing::TestParamInfo<std::string>& run) {
  return ModelName(run.param);
}

INSTANTIATE_TEST_SUITE_P(BundledModels, FastModeTest, ::testing::ValuesIn(BundledModels()),
                         FastRunName);

using FastModeScenes = MujocoTest;

// A bundled model in fast mode (fails the test when it does not load).
tools::ModelPtr LoadFast(const char* name) {
  std::string error;
  tools::ModelPtr m = tools::LoadWithPlugin(ModelsDir() + "/" + name, {{"mode", "fast"}}, &error);
  EXPECT_TRUE(m) << error;
  return m;
}

// The solver counters' C API (mjportal_solverCounts): on the 200-vertex mesh pile it returns the
// library's counter count, writes no more than the caller's capacity (a buffer from an older
// header), names every counter and nothing past them, counts MPR runs and seeded portals, and
// answers -1 with counting off.
TEST_F(FastModeScenes, SolverCountsHonourTheCallersCapacity) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr m = tools::LoadWithPlugin(ModelsDir() + "/mesh200_pile.xml",
                                            {{"mode", "fast"}, {"stats", "true"}}, &error);
  ASSERT_TRUE(m) << error;
  tools::DataPtr d(mj_makeData(m.get()));
  for (int step = 0; step < 300; ++step)
    mj_step(m.get(), d.get());

  constexpr int kSentinel = -7;
  long long all[MJPORTAL_SOLVER_COUNTERS + 1];
  std::fill(all, all + MJPORTAL_SOLVER_COUNTERS + 1, kSentinel);
  ASSERT_EQ(api.solverCounts(m.get(), d.get(), all, MJPORTAL_SOLVER_COUNTERS),
            MJPORTAL_SOLVER_COUNTERS);
  EXPECT_EQ(all[MJPORTAL_SOLVER_COUNTERS], kSentinel);
  long long first_two[3] = {kSentinel, kSentinel, kSentinel};
  ASSERT_EQ(api.solverCounts(m.get(), d.get(), first_two, 2), MJPORTAL_SOLVER_COUNTERS);
  EXPECT_EQ(first_two[0], all[0]);
  EXPECT_EQ(first_two[1], all[1]);
  EXPECT_EQ(first_two[2], kSentinel);
  EXPECT_EQ(api.solverCounts(m.get(), d.get(), nullptr, 0), MJPORTAL_SOLVER_COUNTERS);
  EXPECT_EQ(api.solverCounts(m.get(), d.get(), all, -1), -1);

  std::map<std::string, long long> by_name;
  for (int i = 0; i < MJPORTAL_SOLVER_COUNTERS; ++i) {
    const char* name = api.solverCounterName(i);
    ASSERT_NE(name, nullptr) << "counter " << i;
    EXPECT_GE(all[i], 0) << name;
    by_name[name] = all[i];
  }
  EXPECT_EQ(api.solverCounterName(MJPORTAL_SOLVER_COUNTERS), nullptr);
  EXPECT_EQ(api.solverCounterName(-1), nullptr);
  EXPECT_EQ(by_name.size(), static_cast<size_t>(MJPORTAL_SOLVER_COUNTERS));  // distinct names
  EXPECT_GT(by_name["mpr"], 0);
  EXPECT_GT(by_name["seeded"], 0);
  EXPECT_LE(by_name["seeded"], by_name["mpr"]);

  tools::ModelPtr quiet = LoadFast("mesh200_pile.xml");
  ASSERT_TRUE(quiet);
  tools::DataPtr d_quiet(mj_makeData(quiet.get()));
  mj_step(quiet.get(), d_quiet.get());
  EXPECT_EQ(api.solverCounts(quiet.get(), d_quiet.get(), all, MJPORTAL_SOLVER_COUNTERS), -1);
}

// The coherence key: on the settled 200-vertex mesh pile (most mesh calls near misses) the kept
// separating axes end calls (axis_hint, axis_bound); with coherence="false" none is kept, so no
// call ends that way, and MPR runs on the calls they ended.
TEST_F(FastModeScenes, CoherenceOffKeepsNoSeparatingAxes) {
  const tools::PluginApi& api = LoadPlugin();
  std::map<std::string, long long> counts[2];
  for (int off = 0; off < 2; ++off) {
    std::string error;
    tools::PluginConfig config = {{"mode", "fast"}, {"stats", "true"}};
    if (off)
      config["coherence"] = "false";
    tools::ModelPtr m = tools::LoadWithPlugin(ModelsDir() + "/mesh200_pile.xml", config, &error);
    ASSERT_TRUE(m) << error;
    tools::DataPtr d(mj_makeData(m.get()));
    for (int step = 0; step < 1500; ++step)
      mj_step(m.get(), d.get());
    long long all[MJPORTAL_SOLVER_COUNTERS];
    ASSERT_EQ(api.solverCounts(m.get(), d.get(), all, MJPORTAL_SOLVER_COUNTERS),
              MJPORTAL_SOLVER_COUNTERS);
    for (int i = 0; i < MJPORTAL_SOLVER_COUNTERS; ++i)
      counts[off][api.solverCounterName(i)] = all[i];
  }
  EXPECT_GT(counts[0]["axis_hint"] + counts[0]["axis_bound"], 0);
  EXPECT_EQ(counts[1]["axis_hint"], 0);
  EXPECT_EQ(counts[1]["axis_bound"], 0);
  EXPECT_GT(counts[1]["mpr"], counts[0]["mpr"]);
}

// The 10-box pyramid stands: after 10 s every box is within 5 mm of where it settled at 0.5 s.
TEST_F(FastModeScenes, BoxPyramidStandsForTenSeconds) {
  LoadPlugin();
  tools::ModelPtr m = LoadFast("box_pyramid.xml");
  ASSERT_TRUE(m);
  tools::DataPtr d(mj_makeData(m.get()));
  const int settle = static_cast<int>(0.5 / m->opt.timestep);
  const int total = static_cast<int>(10.0 / m->opt.timestep);
  std::vector<double> settled;
  for (int step = 0; step < total; ++step) {
    mj_step(m.get(), d.get());
    if (step + 1 == settle)
      settled.assign(d->qpos, d->qpos + m->nq);
  }
  for (int body = 0; body < m->nq / 7; ++body) {
    const double* now = d->qpos + 7 * body;
    const double* then = settled.data() + 7 * body;
    const double moved = std::sqrt((now[0] - then[0]) * (now[0] - then[0]) +
                                   (now[1] - then[1]) * (now[1] - then[1]) +
                                   (now[2] - then[2]) * (now[2] - then[2]));
    EXPECT_LT(moved, 5e-3) << "box " << body;
  }
}

// The pile of 200-vertex meshes settles: after 6 s no body moves faster than 2 cm/s (stock
// MuJoCo settles it by then too; without multi-contact fast mode still creeps at 10 s).
TEST_F(FastModeScenes, MeshPileSettles) {
  LoadPlugin();
  tools::ModelPtr m = LoadFast("mesh200_pile.xml");
  ASSERT_TRUE(m);
  tools::DataPtr d(mj_makeData(m.get()));
  for (int step = 0; step < static_cast<int>(6.0 / m->opt.timestep); ++step)
    mj_step(m.get(), d.get());
  for (int body = 0; body < m->nv / 6; ++body) {
    const double* v = d->qvel + 6 * body;
    EXPECT_LT(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), 0.02) << "body " << body;
  }
}

// World points of geom g whose convex hull is the geom (a mesh's vertices, a box's corners).
std::vector<collision::Vec3> HullPoints(const mjModel* m, const mjData* d, int g) {
  const double* pos = d->geom_xpos + 3 * g;
  const double* mat = d->geom_xmat + 9 * g;
  std::vector<collision::Vec3> local;
  if (m->geom_type[g] == mjGEOM_MESH) {
    const int mesh = m->geom_dataid[g];
    const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
    for (int v = 0; v < m->mesh_vertnum[mesh]; ++v)
      local.push_back({vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]});
  } else {  // box
    const double* e = m->geom_size + 3 * g;
    for (int k = 0; k < 8; ++k)
      local.push_back({k & 1 ? e[0] : -e[0], k & 2 ? e[1] : -e[1], k & 4 ? e[2] : -e[2]});
  }
  std::vector<collision::Vec3> world;
  for (const collision::Vec3& p : local)
    world.push_back(collision::Rotate(mat, p) + collision::Load3(pos));
  return world;
}

// models/bench/`name` with mjportal (`config`) into *with_plugin and as written into *stock.
void LoadBenchScene(const std::string& name, const tools::PluginConfig& config,
                    tools::ModelPtr* with_plugin, tools::ModelPtr* stock) {
  std::string error;
  const std::string path = ModelsDir() + "/bench/" + name;
  *with_plugin = tools::LoadWithPlugin(path, config, &error);
  ASSERT_TRUE(*with_plugin) << error;
  *stock = tools::LoadStock(path, &error);
  ASSERT_TRUE(*stock) << error;
}

// A settled bin of 36 200-vertex meshes (models/bench/mesh_bin.xml), from 3 s to 4 s in fast
// mode: each touching pair's deepest contact is the overlap of the two geoms along the pair's
// normal (brute force over the hulls' points; a plane's side is its surface), within twice the
// solvers' tolerance; and every pair stock MuJoCo finds at those states, fast mode finds too.
// Before the clipped patches took the first contact, a curved cap's patch here read 1.0 mm for
// an overlap of 4.3 mm.
TEST_F(FastModeScenes, MeshBinPatchesCarryTheOverlap) {
  LoadPlugin();
  tools::ModelPtr m, stock;
  ASSERT_NO_FATAL_FAILURE(LoadBenchScene("mesh_bin.xml", {{"mode", "fast"}}, &m, &stock));
  tools::DataPtr d(mj_makeData(m.get())), d_stock(mj_makeData(stock.get()));
  const double tolerance = 2 * m->opt.ccd_tolerance;
  int pairs = 0;
  for (int step = 0; step < static_cast<int>(4.0 / m->opt.timestep); ++step) {
    mj_step(m.get(), d.get());
    if (step < static_cast<int>(3.0 / m->opt.timestep) || step % 50 != 0)
      continue;
    mj_forward(m.get(), d.get());
    // Each pair's deepest contact against the overlap along its normal.
    const std::map<std::pair<int, int>, int> deepest = DeepestContactPerPair(d.get());
    for (const auto& [key, i] : deepest) {
      const mjContact& c = d->contact[i];
      const collision::Vec3 n = {c.frame[0], c.frame[1], c.frame[2]};
      double top = -1e300, low = 1e300;
      if (m->geom_type[key.first] == mjGEOM_PLANE) {
        top = collision::Dot(n, collision::Load3(d->geom_xpos + 3 * key.first));
      } else {
        for (const collision::Vec3& p : HullPoints(m.get(), d.get(), key.first))
          top = std::max(top, collision::Dot(n, p));
      }
      for (const collision::Vec3& p : HullPoints(m.get(), d.get(), key.second))
        low = std::min(low, collision::Dot(n, p));
      ASSERT_NEAR(-c.dist, top - low, tolerance)
          << "step " << step << " geoms " << key.first << " " << key.second;
      ++pairs;
    }
    // Stock MuJoCo at the same state: no pair it touches is missing.
    std::copy(d->qpos, d->qpos + m->nq, d_stock->qpos);
    std::copy(d->qvel, d->qvel + m->nv, d_stock->qvel);
    mj_forward(stock.get(), d_stock.get());
    for (int i = 0; i < d_stock->ncon; ++i) {
      const auto key = std::make_pair(d_stock->contact[i].geom[0], d_stock->contact[i].geom[1]);
      EXPECT_TRUE(deepest.count(key)) << "step " << step << " geoms " << key.first << " "
                                      << key.second << " stock dist " << d_stock->contact[i].dist;
    }
  }
  EXPECT_GT(pairs, 500);  // about 100 touching pairs at each of the ten states
}

// Steps a bench bin in fast mode to 3 s (models/bench/FILE): every pair it meets is answered by
// mjportal, none delegated, and pair_types pair types are met; at the states of its third second,
// when the pile has formed (every 50 steps), stock MuJoCo put at the same state finds no pair
// touching deeper than 10 x ccd_tolerance that fast mode misses, fast mode none that stock does
// not touch, and each pair's deepest contact is no shallower than stock's less 10 x ccd_tolerance
// (both solve to that tolerance: in the cylinder bin a capsule-cylinder pair 6.9e-7 deep, stock
// -6.9e-7, reads 2.1e-7 apart in fast mode's GJK). At least min_pairs touching pairs compared.
void ExpectBinTouchesWhatStockTouches(const tools::PluginApi& api, const char* file, int min_pairs,
                                      int pair_types) {
  tools::ModelPtr m, stock;
  ASSERT_NO_FATAL_FAILURE(LoadBenchScene(file, {{"mode", "fast"}, {"stats", "true"}}, &m, &stock));
  tools::DataPtr d(mj_makeData(m.get())), d_stock(mj_makeData(stock.get()));
  const double slack = 10 * m->opt.ccd_tolerance;
  int pairs = 0;
  for (int step = 0; step < static_cast<int>(3.0 / m->opt.timestep); ++step) {
    mj_step(m.get(), d.get());
    ASSERT_TRUE(FiniteState(m.get(), d.get())) << "step " << step;
    if (step < static_cast<int>(2.0 / m->opt.timestep) || step % 50 != 0)
      continue;
    mj_forward(m.get(), d.get());
    std::copy(d->qpos, d->qpos + m->nq, d_stock->qpos);
    std::copy(d->qvel, d->qvel + m->nv, d_stock->qvel);
    mj_forward(stock.get(), d_stock.get());
    const std::map<std::pair<int, int>, int> fast = DeepestContactPerPair(d.get());
    const std::map<std::pair<int, int>, int> reference = DeepestContactPerPair(d_stock.get());
    for (const auto& [key, i] : reference) {
      const double stock_dist = d_stock->contact[i].dist;
      const auto it = fast.find(key);
      ASSERT_TRUE(it != fast.end() || stock_dist > -slack)
          << "step " << step << " geoms " << key.first << " " << key.second << " stock dist "
          << stock_dist;
      if (it != fast.end()) {
        EXPECT_LE(d->contact[it->second].dist, stock_dist + slack)
            << "step " << step << " geoms " << key.first << " " << key.second;
      }
      ++pairs;
    }
    for (const auto& [key, i] : fast) {
      EXPECT_TRUE(reference.count(key) || d->contact[i].dist > -slack)
          << "step " << step << " geoms " << key.first << " " << key.second << " fast dist "
          << d->contact[i].dist;
    }
  }
  EXPECT_GT(pairs, min_pairs);

  long long ours[mjNGEOMTYPES * mjNGEOMTYPES] = {}, delegated[mjNGEOMTYPES * mjNGEOMTYPES] = {};
  ASSERT_EQ(api.pairCounts(m.get(), d.get(), ours, delegated), 0);
  int answered_types = 0;
  for (int pair = 0; pair < mjNGEOMTYPES * mjNGEOMTYPES; ++pair) {
    EXPECT_EQ(delegated[pair], 0) << pair / mjNGEOMTYPES << "-" << pair % mjNGEOMTYPES;
    answered_types += ours[pair] > 0;
  }
  EXPECT_EQ(answered_types, pair_types);
}

// A bin of 36 convex geoms, six each of cylinders, capsules, ellipsoids, boxes and two 200-vertex
// meshes (models/bench/mixed_bin.xml): all 20 pair types of those shapes and the plane but
// plane-plane are met, about 45 touching pairs at each of the twenty states compared (measured
// at the twenty-second session: 898 pairs, fast mode at most 3.8e-6 shallower than stock).
TEST_F(FastModeScenes, MixedBinTouchesWhatStockTouches) {
  const tools::PluginApi& api = LoadPlugin();
  ExpectBinTouchesWhatStockTouches(api, "mixed_bin.xml", 700, 20);
}

// A bin of 36 cylinders and capsules (models/bench/cylinder_bin.xml): the seven pair types among
// plane, box walls, capsules and cylinders are met, about 45 touching pairs at each of the twenty
// states compared.
TEST_F(FastModeScenes, CylinderBinTouchesWhatStockTouches) {
  const tools::PluginApi& api = LoadPlugin();
  ExpectBinTouchesWhatStockTouches(api, "cylinder_bin.xml", 800, 7);
}

// Steps d for 4 s; the largest speed (any dof) from 2 s on.
double FastestFrom2sTo4s(const mjModel* m, mjData* d) {
  const int settle = static_cast<int>(2.0 / m->opt.timestep);
  double fastest = 0;
  for (int step = 0; step < 2 * settle; ++step) {
    mj_step(m, d);
    for (int i = 0; step >= settle && i < m->nv; ++i)
      fastest = std::max(fastest, std::fabs(d->qvel[i]));
  }
  return fastest;
}

// mesh_cans stays still: three 32-sided mesh cans standing on a box, on a mesh slab and on the
// floor, and a crate on the floor; from 2 s to 4 s no speed above 1e-6. While the feature walk
// stopped at 16 of a cap's 32 vertices, the patch covered the part of the cap nearest the walk's
// start, which moved with the least tilt, and the first two cans rocked at up to 5e-3; the can
// on the floor rocks on MuJoCo's plane–mesh answer (two contacts: 0.4 in stock MuJoCo) and
// stands on fast mode's three-point patch of its cap.
TEST_F(FastModeScenes, MeshCansStandStill) {
  LoadPlugin();
  tools::ModelPtr m = LoadFast("mesh_cans.xml");
  ASSERT_TRUE(m);
  tools::DataPtr d(mj_makeData(m.get()));
  EXPECT_LT(FastestFrom2sTo4s(m.get(), d.get()), 1e-6);
  EXPECT_EQ(d->ncon, 15);  // 4 + 4 + 3 (plane–mesh) + 4 (the crate)
}

// Cans of 64, 100 and 200 sides (mesh caps of that many vertices) standing on a mesh slab, on a
// box and on the floor: from 2 s to 4 s no speed above 1e-6. With the ninth session's library
// (the walk gathered at most 64 of a cap's vertices; a patch's reduction kept its deepest point
// first) the 200-sided can rocked at 1.2e-4 on the slab and 1.3e-4 on the box, and the 100- and
// 200-sided ones at 3.2e-3 and 5.1e-4 on the floor; with the whole cap gathered but
// deepest-first, the 100-sided one at 4.7e-4 on the slab.
TEST_F(FastModeScenes, ManySidedCansStandStill) {
  LoadPlugin();
  const char* slab =
      "<mesh name=\"slab\" vertex=\"-0.2 -0.2 -0.05 0.2 -0.2 -0.05 0.2 0.2 -0.05 -0.2 0.2 -0.05 "
      "-0.2 -0.2 0.05 0.2 -0.2 0.05 0.2 0.2 0.05 -0.2 0.2 0.05\"/>";
  const char* under[] = {"<geom type=\"mesh\" mesh=\"slab\" pos=\"0 0 0.05\"/>",
                         "<geom type=\"box\" size=\"0.2 0.2 0.05\" pos=\"0 0 0.05\"/>", ""};
  const char* under_name[] = {"slab", "box", "floor"};
  for (const int sides : {64, 100, 200}) {
    for (int u = 0; u < 3; ++u) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.4f", (u < 2 ? 0.1 : 0.0) + 0.0205);
      const std::string xml =
          "<mujoco><asset><mesh name=\"can\" vertex=\"" + CanVertices(sides) + "\"/>" + slab +
          "</asset><worldbody><geom type=\"plane\" size=\"1 1 0.1\"/>" + under[u] +
          "<body pos=\"0 0 " + text +
          "\" euler=\"0.01 -0.02 0.7\"><freejoint/><geom type=\"mesh\" mesh=\"can\"/></body>"
          "</worldbody></mujoco>";
      const std::string path = ::testing::TempDir() + "/mjportal_can.xml";
      FILE* file = std::fopen(path.c_str(), "w");
      ASSERT_NE(file, nullptr);
      std::fputs(xml.c_str(), file);
      std::fclose(file);
      std::string error;
      tools::ModelPtr m = tools::LoadWithPlugin(path, {{"mode", "fast"}}, &error);
      ASSERT_TRUE(m) << error;
      tools::DataPtr d(mj_makeData(m.get()));
      EXPECT_LT(FastestFrom2sTo4s(m.get(), d.get()), 1e-6)
          << sides << " sides on the " << under_name[u];
    }
  }
}

// A non-finite pose reaching a fast-mode convex pair gets no contact and one MuJoCo warning per
// mjData that names the geoms.
TEST_F(FastModeScenes, NonFinitePoseGetsNoContactAndOneWarning) {
  LoadPlugin();
  tools::ModelPtr m = LoadFast("mesh200_pile.xml");
  ASSERT_TRUE(m);
  tools::DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  int g1 = -1, g2 = -1;  // the first two mesh geoms
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] == mjGEOM_MESH)
      (g1 < 0 ? g1 : g2) = g1 < 0 ? g : (g2 < 0 ? g : g2);
  }
  ASSERT_GE(g2, 0);
  mjPreContact con[mjMAXCONPAIR];
  for (int k = 0; k < 3; ++k) {
    d->geom_xpos[3 * g1 + k] = d->geom_xpos[3 * g2 + k];  // overlapping...
  }
  d->geom_xmat[9 * g1 + 4] = std::nan("");  // ...but one rotation entry is NaN
  EXPECT_EQ(mjCOLLISIONFUNC[mjGEOM_MESH][mjGEOM_MESH](m.get(), d.get(), con, g1, g2, 0), 0);
  EXPECT_EQ(mjCOLLISIONFUNC[mjGEOM_MESH][mjGEOM_MESH](m.get(), d.get(), con, g1, g2, 0), 0);
  const std::vector<std::string> warnings = TakeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("non-finite pose"), std::string::npos) << warnings[0];
  const std::string names = "geom " + std::to_string(g1) + " or " + std::to_string(g2);
  EXPECT_NE(warnings[0].find(names), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace mjportal::testing
