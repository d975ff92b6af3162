// mj_geomDistance (and so MuJoCo's distance, normal and fromto sensors) with the library loaded.
// MuJoCo measures a pair whose table entry is mjc_Convex or mjc_BoxBox with its native CCD called
// directly, recognizing the entry by address; the dispatchers answer those distance queries as
// that call would (plugin/distance_query.h). Checked from the same state of every bundled model,
// every ordered geom pair, against MuJoCo with its original table restored:
//   - without an instance and in compat mode: the same distance bit for bit, fromto within two
//     ulps of its larger end (the contact mj_geomDistance rebuilds fromto from cannot always
//     carry both ends exactly); where the caller's geom order is not the table's on a pair MuJoCo
//     measures with CCD, which then runs on the geoms the other way round, within
//     10 × ccd_tolerance;
//   - in fast mode: the pairs MuJoCo measures with CCD get the signed distance within
//     10 × ccd_tolerance of the truth, bracketed by the separation along fast mode's own
//     direction and a sweep over all directions (tests/collision/convex_reference.h); the others
//     go through the analytic kernels, bit for bit as without an instance.
// Before the dispatchers told distance queries apart, two cylinders 1.7 cm deep in each other
// (cylinder_pile) read 1.03 m apart at distmax 10, and box pairs up to 9.8 m off.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "collision/convex_contact.h"
#include "plugin/distance_query.h"
#include "tests/collision/convex_reference.h"
#include "tests/fixture.h"
#include "tests/plugin/original_table_scope.h"
#include "tests/plugin/scene_checks.h"
#include "tools/common/model_variants.h"

// MuJoCo's general convex collider and its box–box collider: exported by libmujoco, declared in
// no public header; mj_geomDistance compares table entries against these addresses.
extern "C" int mjc_Convex(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2,
                          mjtNum margin);
extern "C" int mjc_BoxBox(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2,
                          mjtNum margin);

namespace mjportal::testing {
namespace {

constexpr double kDistmax = 10;

// The pairs the dispatchers treat as MuJoCo's CCD-measured ones are exactly those whose
// original entry is mjc_Convex or mjc_BoxBox.
TEST_F(MujocoTest, DistanceQueriesRecognizeMuJoCosCcdEntries) {
  const tools::PluginApi& api = LoadPlugin();
  int ccd = 0;
  for (int t1 = 0; t1 < mjNGEOMTYPES; ++t1) {
    for (int t2 = t1; t2 < mjNGEOMTYPES; ++t2) {
      const mjfCollision original = api.originalCollision(t1, t2);
      const bool by_ccd = original == &mjc_Convex || original == &mjc_BoxBox;
      EXPECT_EQ(MeasuredByCcd(t1, t2), by_ccd) << t1 << "-" << t2;
      ccd += by_ccd;
    }
  }
  EXPECT_EQ(ccd, 15);  // 14 mjc_Convex pairs and box–box
}

// Steps the model as written 200 steps and puts `target` (the same model with or without an
// instance) at that state, positions computed.
void SettleBoth(const mjModel* stock, mjData* d_stock, const mjModel* target, mjData* d_target) {
  for (int i = 0; i < 200; ++i) {
    mj_step(stock, d_stock);
  }
  mj_forward(stock, d_stock);
  std::copy(d_stock->qpos, d_stock->qpos + stock->nq, d_target->qpos);
  mj_forward(target, d_target);
}

// fromto[k] within `ulps` ulps of unhooked[k], counted at the larger magnitude of that
// coordinate's two ends (the rounding of the midpoint and half the difference they are rebuilt
// from).
bool FromtoWithinUlps(const mjtNum* fromto, const mjtNum* unhooked, int k, int ulps) {
  const int c = k % 3;
  const double scale = std::fmax(std::fabs(unhooked[c]), std::fabs(unhooked[c + 3]));
  const double ulp = scale > 0 ? std::nextafter(scale, INFINITY) - scale : 0.0;
  return std::fabs(fromto[k] - unhooked[k]) <= ulps * ulp;
}

// mj_geomDistance as MuJoCo answers it without the dispatchers (its original table restored for
// the call).
mjtNum UnhookedDistance(const tools::PluginApi& api, const mjModel* m, mjData* d, int g1, int g2,
                        mjtNum distmax, mjtNum fromto[6]) {
  OriginalTableScope original(api);
  return mj_geomDistance(m, d, g1, g2, distmax, fromto);
}

class GeomDistanceTest : public MujocoTest, public ::testing::WithParamInterface<std::string> {};

// Without an instance and in compat mode, MuJoCo's answers.
TEST_P(GeomDistanceTest, WithoutInstanceAndInCompatLikeUnhookedMuJoCo) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  tools::ModelPtr stock = tools::LoadStock(GetParam(), &error);
  ASSERT_TRUE(stock) << error;
  tools::ModelPtr compat = tools::LoadWithPlugin(GetParam(), {{"mode", "compat"}}, &error);
  ASSERT_TRUE(compat) << error;
  tools::DataPtr d_stock(mj_makeData(stock.get())), d_compat(mj_makeData(compat.get()));
  SettleBoth(stock.get(), d_stock.get(), compat.get(), d_compat.get());

  const mjModel* m = stock.get();
  const double tolerance = 10 * m->opt.ccd_tolerance;
  int exact = 0, mirrored = 0;
  for (int g1 = 0; g1 < m->ngeom; ++g1) {
    for (int g2 = 0; g2 < m->ngeom; ++g2) {
      if (g1 == g2)
        continue;
      // MuJoCo runs its CCD on the geoms in the caller's order; the table entry receives them in
      // type order. Reversed, the port solves the mirrored problem: the same within tolerance.
      const bool reversed = m->geom_type[g1] > m->geom_type[g2] &&
                            MeasuredByCcd(m->geom_type[g2], m->geom_type[g1]) &&
                            !(m->opt.disableflags & mjDSBL_NATIVECCD);
      for (double distmax : {kDistmax, 0.01, 0.0}) {
        mjtNum unhooked_fromto[6], fromto[6];
        const mjtNum unhooked =
            UnhookedDistance(api, m, d_stock.get(), g1, g2, distmax, unhooked_fromto);
        for (const auto& [model, data] : {std::make_pair(stock.get(), d_stock.get()),
                                          std::make_pair(compat.get(), d_compat.get())}) {
          const mjtNum dist = mj_geomDistance(model, data, g1, g2, distmax, fromto);
          const std::string where = std::string(model == stock.get() ? "no instance" : "compat") +
                                    ": geoms " + std::to_string(g1) + ", " + std::to_string(g2) +
                                    " distmax " + std::to_string(distmax);
          if (reversed) {
            ASSERT_NEAR(dist, unhooked, tolerance) << where;
            // fromto joins the witness points (a contact patch's may lie anywhere on it).
            const double length =
                std::hypot(fromto[3] - fromto[0], fromto[4] - fromto[1], fromto[5] - fromto[2]);
            ASSERT_TRUE(dist >= distmax || std::fabs(length - std::fabs(dist)) < 1e-12)
                << where << ": |fromto| " << length << " for " << dist;
            ++mirrored;
            continue;
          }
          ASSERT_EQ(std::memcmp(&dist, &unhooked, sizeof(dist)), 0)
              << where << ": " << dist << " against " << unhooked;
          for (int k = 0; k < 6; ++k) {
            ASSERT_TRUE(FromtoWithinUlps(fromto, unhooked_fromto, k, 2))
                << where << ": fromto[" << k << "] " << fromto[k] << " against "
                << unhooked_fromto[k];
          }
          ++exact;
        }
      }
    }
  }
  RecordProperty("exact", exact);
  RecordProperty("mirrored", mirrored);
}

// In fast mode, the signed distance within the solvers' tolerance.
void ExpectFastDistances(const tools::PluginApi& api, const std::string& path) {
  std::string error;
  tools::ModelPtr stock = tools::LoadStock(path, &error);
  ASSERT_TRUE(stock) << error;
  tools::ModelPtr fast = tools::LoadWithPlugin(path, {{"mode", "fast"}}, &error);
  ASSERT_TRUE(fast) << error;
  tools::DataPtr d_stock(mj_makeData(stock.get())), d_fast(mj_makeData(fast.get()));
  SettleBoth(stock.get(), d_stock.get(), fast.get(), d_fast.get());

  const mjModel* m = fast.get();
  const mjData* d = d_fast.get();
  const double tolerance = 10 * m->opt.ccd_tolerance;
  for (int g1 = 0; g1 < m->ngeom; ++g1) {
    for (int g2 = g1 + 1; g2 < m->ngeom; ++g2) {
      const int t1 = std::min(m->geom_type[g1], m->geom_type[g2]);
      const int t2 = std::max(m->geom_type[g1], m->geom_type[g2]);
      mjtNum fromto[6];
      const mjtNum dist = mj_geomDistance(m, d_fast.get(), g1, g2, kDistmax, fromto);
      if (!MeasuredByCcd(t1, t2)) {
        // The analytic kernels (plane–mesh too, which in fast mode's narrowphase gives a patch
        // spanning a flat cap): MuJoCo's bits.
        mjtNum unhooked_fromto[6];
        const mjtNum unhooked =
            UnhookedDistance(api, stock.get(), d_stock.get(), g1, g2, kDistmax, unhooked_fromto);
        ASSERT_EQ(std::memcmp(&dist, &unhooked, sizeof(dist)), 0) << "geoms " << g1 << ", " << g2;
        ASSERT_EQ(std::memcmp(fromto, unhooked_fromto, sizeof(fromto)), 0)
            << "geoms " << g1 << ", " << g2;
        continue;
      }
      ASSERT_LT(dist, kDistmax) << "geoms " << g1 << ", " << g2;
      // The direction from geom 1 to geom 2 that fromto carries: (to - from) / dist.
      collision::Vec3 n = {(fromto[3] - fromto[0]) / dist, (fromto[4] - fromto[1]) / dist,
                           (fromto[5] - fromto[2]) / dist};
      ASSERT_NEAR(collision::Dot(n, n), 1, 1e-9) << "geoms " << g1 << ", " << g2;
      collision::MeshView mesh1, mesh2;
      const collision::ConvexGeom a = SolverGeomOf(m, d, g1, &mesh1);
      const collision::ConvexGeom b = SolverGeomOf(m, d, g2, &mesh2);
      // Every direction's gap (minus the overlap along it) is at most the signed distance, and
      // the largest is the signed distance: fast mode's own direction bounds it from below, the
      // sweep (refined from fast mode's direction too) from above.
      const double along_own = -collision::OverlapAlong(a, b, n);
      const double swept = -collision::reference::SweepMinOverlap(a, b, 2000, &n);
      EXPECT_LE(dist, along_own + tolerance)
          << "geoms " << g1 << ", " << g2 << ": " << dist << " but the gap along its own "
          << "direction is " << along_own;
      EXPECT_GE(dist, swept - tolerance) << "geoms " << g1 << ", " << g2 << ": " << dist
                                         << " but a direction shows a gap of " << swept;
    }
  }
}

TEST_P(GeomDistanceTest, FastIsTheSignedDistance) {
  ExpectFastDistances(LoadPlugin(), GetParam());
}

// The same in the mixed bin (models/bench/mixed_bin.xml): every pair type of plane, capsule,
// ellipsoid, cylinder, box and mesh, 36 geoms in a pile after 200 steps (820 pairs).
TEST_F(MujocoTest, FastDistancesInTheMixedBin) {
  ExpectFastDistances(LoadPlugin(), ModelsDir() + "/bench/mixed_bin.xml");
}

INSTANTIATE_TEST_SUITE_P(BundledModels, GeomDistanceTest, ::testing::ValuesIn(BundledModels()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return ModelName(param_info.param);
                         });

}  // namespace
}  // namespace mjportal::testing
