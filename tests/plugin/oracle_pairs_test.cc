// Per-call oracle: for each pair type mjportal answers, seeded random sizes, poses and margins go
// through MuJoCo's saved original entry and through the installed dispatcher (mjportal's kernel);
// counts and the returned mjPreContact entries must be bitwise equal. The one allowance: where
// both sides are NaN (a NaN pose was fed in), the NaN's sign and payload may differ — compilers
// may legally fold -x/2 into x*-0.5, which keeps a NaN's sign that the negation would flip.
//
// MJPORTAL_ORACLE_CASES sets the cases per pair type and mode (default 100000); on a mismatch the
// test prints the case with %.17g values.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "collision/pair_kernels.h"
#include "plugin/mjportal.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/pair_scene.h"

namespace mjportal::testing {
namespace {

using tools::PairCase;
using tools::PairScene;

struct OracleParam {
  int type1;
  int type2;
  const char* mode;
  int mesh_vertices = 0;  // PairScene's mesh clouds (0: its 8 / 64 mix)
};

void PrintTo(const OracleParam& p, std::ostream* os) {
  *os << tools::GeomTypeName(p.type1) << "-" << tools::GeomTypeName(p.type2) << " " << p.mode;
  if (p.mesh_vertices > 0)
    *os << " " << p.mesh_vertices << " vertices";
}

std::string ParamName(const ::testing::TestParamInfo<OracleParam>& info) {
  std::string name = std::string(tools::GeomTypeName(info.param.type1)) + "_" +
                     tools::GeomTypeName(info.param.type2) + "_" + info.param.mode;
  if (info.param.mesh_vertices > 0)
    name += "_" + std::to_string(info.param.mesh_vertices);
  return name;
}

long CasesFromEnv() {
  return EnvCount("MJPORTAL_ORACLE_CASES", 100000);
}

// Bitwise equality of n contacts, NaN matching NaN.
bool SameContacts(const mjPreContact* a, const mjPreContact* b, int n) {
  const double* x = &a[0].dist;
  const double* y = &b[0].dist;
  static_assert(sizeof(mjPreContact) == 10 * sizeof(double), "mjPreContact is ten doubles");
  for (int i = 0; i < 10 * n; ++i) {
    const bool both_nan = std::isnan(x[i]) && std::isnan(y[i]);
    if (!both_nan && std::memcmp(x + i, y + i, sizeof(double)) != 0) {
      return false;
    }
  }
  return true;
}

// Calls one case through MuJoCo's original entry and through the installed dispatcher: the counts,
// the contacts (bitwise) and the MuJoCo warnings each printed must be the same.
class OracleTest : public MujocoTest {
 protected:
  ::testing::AssertionResult SameAnswer(mjfCollision original, mjfCollision dispatcher,
                                        const PairScene& scene, const PairCase& c, int* count,
                                        size_t* warnings) {
    mjPreContact expected[mjMAXCONPAIR], actual[mjMAXCONPAIR];
    std::memset(expected, 0, sizeof(expected));
    std::memset(actual, 0, sizeof(actual));
    const int n_expected =
        original(scene.model(), scene.data(), expected, c.geom1, c.geom2, c.margin);
    const std::vector<std::string> warned_expected = TakeWarnings();
    const int n_actual =
        dispatcher(scene.model(), scene.data(), actual, c.geom1, c.geom2, c.margin);
    if (TakeWarnings() != warned_expected)
      return ::testing::AssertionFailure() << "warnings differ\n" << scene.Describe(c);
    if (n_actual != n_expected)
      return ::testing::AssertionFailure()
             << "contact count differs: " << n_actual << " vs " << n_expected << "\n"
             << scene.Describe(c);
    if (!SameContacts(actual, expected, n_expected))
      return ::testing::AssertionFailure() << "contacts differ\n" << scene.Describe(c);
    *count = n_expected;
    *warnings += warned_expected.size();
    return ::testing::AssertionSuccess();
  }
};

class OraclePairsTest : public OracleTest, public ::testing::WithParamInterface<OracleParam> {};

TEST_P(OraclePairsTest, MatchesOriginalBitForBit) {
  const tools::PluginApi& api = LoadPlugin();
  const OracleParam p = GetParam();
  constexpr int kBatch = 1024;
  std::string error;
  PairScene scene =
      PairScene::Create(p.type1, p.type2, kBatch, {{"mode", p.mode}}, &error, p.mesh_vertices);
  ASSERT_TRUE(scene.ok()) << error;
  ASSERT_EQ(api.routesToKernel(scene.model(), p.type1, p.type2), 1);

  const mjfCollision original = api.originalCollision(p.type1, p.type2);
  const mjfCollision dispatcher = mjCOLLISIONFUNC[p.type1][p.type2];
  ASSERT_NE(original, nullptr);
  ASSERT_NE(original, dispatcher);

  const long total = CasesFromEnv();
  long done = 0, hits = 0, multi = 0;
  for (std::uint64_t batch = 0; done < total; ++batch) {
    scene.Randomize(1000003 * batch + p.type1 * 31 + p.type2);
    for (const PairCase& c : scene.cases()) {
      if (done++ >= total)
        break;
      int n_expected = 0;
      size_t warnings = 0;
      ASSERT_TRUE(SameAnswer(original, dispatcher, scene, c, &n_expected, &warnings));
      ASSERT_EQ(warnings, 0u) << "MuJoCo warned on\n" << scene.Describe(c);
      hits += n_expected > 0;
      multi += n_expected > 1;
    }
  }

  // The sample must exercise both outcomes to mean something.
  EXPECT_GT(hits, total / 10) << "too few contacts in the sample";
  EXPECT_LT(hits, total - total / 10) << "too few separated pairs in the sample";
  if (p.type1 != mjGEOM_SPHERE && p.type2 != mjGEOM_SPHERE && p.type1 != mjGEOM_ELLIPSOID &&
      p.type2 != mjGEOM_ELLIPSOID) {  // pairs that can return several
    EXPECT_GT(multi, 0) << "no multi-contact case was sampled";
  }
}

INSTANTIATE_TEST_SUITE_P(AnalyticPairs, OraclePairsTest,
                         ::testing::Values(OracleParam{mjGEOM_PLANE, mjGEOM_SPHERE, "compat"},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_CAPSULE, "compat"},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_ELLIPSOID, "compat"},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_CYLINDER, "compat"},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_BOX, "compat"},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_SPHERE, mjGEOM_SPHERE, "compat"},
                                           OracleParam{mjGEOM_SPHERE, mjGEOM_CAPSULE, "compat"},
                                           OracleParam{mjGEOM_SPHERE, mjGEOM_CYLINDER, "compat"},
                                           OracleParam{mjGEOM_SPHERE, mjGEOM_BOX, "compat"},
                                           OracleParam{mjGEOM_CAPSULE, mjGEOM_CAPSULE, "compat"},
                                           OracleParam{mjGEOM_CAPSULE, mjGEOM_BOX, "compat"},
                                           OracleParam{mjGEOM_BOX, mjGEOM_BOX, "compat"},
                                           OracleParam{mjGEOM_SPHERE, mjGEOM_ELLIPSOID, "compat"},
                                           OracleParam{mjGEOM_SPHERE, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_CAPSULE, mjGEOM_ELLIPSOID, "compat"},
                                           OracleParam{mjGEOM_CAPSULE, mjGEOM_CYLINDER, "compat"},
                                           OracleParam{mjGEOM_CAPSULE, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID,
                                                       "compat"},
                                           OracleParam{mjGEOM_ELLIPSOID, mjGEOM_CYLINDER, "compat"},
                                           OracleParam{mjGEOM_ELLIPSOID, mjGEOM_BOX, "compat"},
                                           OracleParam{mjGEOM_ELLIPSOID, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_CYLINDER, mjGEOM_CYLINDER, "compat"},
                                           OracleParam{mjGEOM_CYLINDER, mjGEOM_BOX, "compat"},
                                           OracleParam{mjGEOM_CYLINDER, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_BOX, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_MESH, mjGEOM_MESH, "compat"},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_BOX, "fast"},
                                           OracleParam{mjGEOM_CAPSULE, mjGEOM_CAPSULE, "fast"},
                                           // Fast plane–mesh: the support field finds the
                                           // vertex MuJoCo's climb finds (hulls of 89, 247).
                                           OracleParam{mjGEOM_PLANE, mjGEOM_MESH, "fast", 200},
                                           OracleParam{mjGEOM_PLANE, mjGEOM_MESH, "fast", 2000}),
                         ParamName);

// Settings and placements the random oracle above rarely reaches, for the general convex pairs
// in compat: face-to-face box/mesh contacts (the contact patch), resting contacts, multiccd
// disabled, a tight iteration cap, a loose tolerance, and nativeccd disabled (libccd's MPR).
enum class Variant {
  kFaceToFace,
  kResting,
  kNoMultiCcd,
  kFewIterations,
  kLooseTolerance,
  kLibccd,
  kLibccdResting
};

struct VariantParam {
  int type1;
  int type2;
  Variant variant;
};

const char* VariantName(Variant v) {
  switch (v) {
    case Variant::kFaceToFace:
      return "face_to_face";
    case Variant::kResting:
      return "resting";
    case Variant::kNoMultiCcd:
      return "no_multiccd";
    case Variant::kFewIterations:
      return "few_iterations";
    case Variant::kLooseTolerance:
      return "loose_tolerance";
    case Variant::kLibccd:
      return "libccd";
    case Variant::kLibccdResting:
      return "libccd_resting";
  }
  return "?";
}

void PrintTo(const VariantParam& p, std::ostream* os) {
  *os << tools::GeomTypeName(p.type1) << "-" << tools::GeomTypeName(p.type2) << " "
      << VariantName(p.variant);
}

class OracleVariantsTest : public OracleTest, public ::testing::WithParamInterface<VariantParam> {};

TEST_P(OracleVariantsTest, MatchesOriginalBitForBit) {
  const tools::PluginApi& api = LoadPlugin();
  const VariantParam p = GetParam();
  std::string error;
  PairScene scene = PairScene::Create(p.type1, p.type2, 1024, {{"mode", "compat"}}, &error);
  ASSERT_TRUE(scene.ok()) << error;
  mjModel* m = const_cast<mjModel*>(scene.model());  // table entries read opt at call time
  if (p.variant == Variant::kNoMultiCcd)
    m->opt.disableflags |= mjDSBL_MULTICCD;
  if (p.variant == Variant::kFewIterations)
    m->opt.ccd_iterations = 4;
  if (p.variant == Variant::kLooseTolerance)
    m->opt.ccd_tolerance = 1e-2;
  if (p.variant == Variant::kLibccd || p.variant == Variant::kLibccdResting)
    m->opt.disableflags |= mjDSBL_NATIVECCD;
  const mjfCollision original = api.originalCollision(p.type1, p.type2);
  const mjfCollision dispatcher = mjCOLLISIONFUNC[p.type1][p.type2];

  const long total = CasesFromEnv() / 4;
  long done = 0, hits = 0, patches = 0;
  size_t warnings = 0;
  for (std::uint64_t batch = 0; done < total; ++batch) {
    const std::uint64_t seed = 7919 * batch + 131 * p.type1 + p.type2;
    if (p.variant == Variant::kFaceToFace)
      scene.RandomizeFaceToFace(seed, original);
    else if (p.variant == Variant::kResting || p.variant == Variant::kLibccdResting)
      scene.RandomizeResting(seed, original);
    else
      scene.Randomize(seed);
    for (const PairCase& c : scene.cases()) {
      if (done++ >= total)
        break;
      int n_expected = 0;
      ASSERT_TRUE(SameAnswer(original, dispatcher, scene, c, &n_expected, &warnings));
      hits += n_expected > 0;
      patches += n_expected > 1 && c.margin == 0;
    }
  }
  EXPECT_GT(hits, total / 10) << "too few contacts in the sample";
  if (p.variant != Variant::kFewIterations) {
    EXPECT_EQ(warnings, 0u) << "a solver warning outside the 4-iteration variant";
  }
  if (p.variant == Variant::kFaceToFace) {
    // Box/mesh pairs without margin answer with a clipped patch; the sample must reach it.
    EXPECT_GT(patches, total / 10) << "too few contact patches in the sample";
  }
}

std::string VariantParamName(const ::testing::TestParamInfo<VariantParam>& info) {
  return std::string(tools::GeomTypeName(info.param.type1)) + "_" +
         tools::GeomTypeName(info.param.type2) + "_" + VariantName(info.param.variant);
}

INSTANTIATE_TEST_SUITE_P(
    CompatConvex, OracleVariantsTest,
    ::testing::Values(VariantParam{mjGEOM_BOX, mjGEOM_MESH, Variant::kFaceToFace},
                      VariantParam{mjGEOM_MESH, mjGEOM_MESH, Variant::kFaceToFace},
                      VariantParam{mjGEOM_BOX, mjGEOM_MESH, Variant::kResting},
                      VariantParam{mjGEOM_MESH, mjGEOM_MESH, Variant::kResting},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_BOX, Variant::kResting},
                      VariantParam{mjGEOM_CAPSULE, mjGEOM_MESH, Variant::kResting},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_CYLINDER, Variant::kResting},
                      VariantParam{mjGEOM_BOX, mjGEOM_MESH, Variant::kNoMultiCcd},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_CYLINDER, Variant::kNoMultiCcd},
                      VariantParam{mjGEOM_MESH, mjGEOM_MESH, Variant::kFewIterations},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_BOX, Variant::kFewIterations},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID, Variant::kFewIterations},
                      VariantParam{mjGEOM_CAPSULE, mjGEOM_CYLINDER, Variant::kLooseTolerance},
                      VariantParam{mjGEOM_BOX, mjGEOM_MESH, Variant::kLooseTolerance},
                      VariantParam{mjGEOM_SPHERE, mjGEOM_ELLIPSOID, Variant::kLibccd},
                      VariantParam{mjGEOM_SPHERE, mjGEOM_MESH, Variant::kLibccd},
                      VariantParam{mjGEOM_CAPSULE, mjGEOM_ELLIPSOID, Variant::kLibccd},
                      VariantParam{mjGEOM_CAPSULE, mjGEOM_CYLINDER, Variant::kLibccd},
                      VariantParam{mjGEOM_CAPSULE, mjGEOM_MESH, Variant::kLibccd},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID, Variant::kLibccd},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_CYLINDER, Variant::kLibccd},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_BOX, Variant::kLibccd},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_MESH, Variant::kLibccd},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_CYLINDER, Variant::kLibccd},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_BOX, Variant::kLibccd},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_MESH, Variant::kLibccd},
                      VariantParam{mjGEOM_BOX, mjGEOM_MESH, Variant::kLibccd},
                      VariantParam{mjGEOM_MESH, mjGEOM_MESH, Variant::kLibccd},
                      VariantParam{mjGEOM_CYLINDER, mjGEOM_BOX, Variant::kLibccdResting},
                      VariantParam{mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID, Variant::kLibccdResting},
                      VariantParam{mjGEOM_MESH, mjGEOM_MESH, Variant::kLibccdResting}),
    VariantParamName);

// A model without an mjportal instance: the dispatcher hands every call to the original.
TEST_F(MujocoTest, WithoutInstanceDispatcherEqualsOriginal) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  PairScene scene = PairScene::Create(mjGEOM_CAPSULE, mjGEOM_CAPSULE, 512, {}, &error);
  ASSERT_TRUE(scene.ok()) << error;
  EXPECT_EQ(api.routesToKernel(scene.model(), mjGEOM_CAPSULE, mjGEOM_CAPSULE), -1);
  scene.Randomize(42);
  for (const PairCase& c : scene.cases()) {
    mjPreContact expected[mjMAXCONPAIR] = {}, actual[mjMAXCONPAIR] = {};
    const int n = api.originalCollision(mjGEOM_CAPSULE, mjGEOM_CAPSULE)(
        scene.model(), scene.data(), expected, c.geom1, c.geom2, c.margin);
    ASSERT_EQ(mjCOLLISIONFUNC[mjGEOM_CAPSULE][mjGEOM_CAPSULE](scene.model(), scene.data(), actual,
                                                              c.geom1, c.geom2, c.margin),
              n);
    ASSERT_EQ(std::memcmp(actual, expected, sizeof(mjPreContact) * n), 0) << scene.Describe(c);
  }
}

// Analytic pairs skip the instance lookup while no live instance needs per-call state
// (plugin/entry_route.h): a model without an instance then reaches our kernel instead of the
// original, and must get the original's bits for every analytic pair type.
TEST_F(MujocoTest, WithoutInstanceBesideALiveInstanceAnalyticPairsEqualOriginal) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  PairScene live = PairScene::Create(mjGEOM_SPHERE, mjGEOM_SPHERE, 1, {{"mode", "fast"}}, &error);
  ASSERT_TRUE(live.ok()) << error;
  const long cases = std::max(1000L, CasesFromEnv() / 50);
  int pair_types = 0;
  for (int t1 = 0; t1 < mjNGEOMTYPES; ++t1) {
    for (int t2 = t1; t2 < mjNGEOMTYPES; ++t2) {
      if (!collision::HasPairKernel(static_cast<collision::ShapeType>(t1),
                                    static_cast<collision::ShapeType>(t2))) {
        continue;
      }
      ++pair_types;
      PairScene scene = PairScene::Create(t1, t2, static_cast<int>(cases), {}, &error);
      ASSERT_TRUE(scene.ok()) << error;
      scene.Randomize(7 + t1 * mjNGEOMTYPES + t2);
      for (const PairCase& c : scene.cases()) {
        mjPreContact expected[mjMAXCONPAIR] = {}, actual[mjMAXCONPAIR] = {};
        const int n = api.originalCollision(t1, t2)(scene.model(), scene.data(), expected, c.geom1,
                                                    c.geom2, c.margin);
        ASSERT_EQ(mjCOLLISIONFUNC[t1][t2](scene.model(), scene.data(), actual, c.geom1, c.geom2,
                                          c.margin),
                  n)
            << scene.Describe(c);
        ASSERT_TRUE(SameContacts(actual, expected, n)) << scene.Describe(c);
      }
    }
  }
  EXPECT_EQ(pair_types, 13);
}

// An instance that counts calls (stats="true") switches the lookup back on for every model while
// it lives: each of its analytic calls is counted, also beside an instance that does not count,
// and once it is gone a new counting instance counts from zero again.
TEST_F(MujocoTest, CountingInstanceCountsEveryAnalyticCallBesideOthers) {
  const tools::PluginApi& api = LoadPlugin();
  std::string error;
  PairScene quiet = PairScene::Create(mjGEOM_PLANE, mjGEOM_SPHERE, 64, {{"mode", "fast"}}, &error);
  ASSERT_TRUE(quiet.ok()) << error;
  quiet.Randomize(3);
  for (int round = 0; round < 2; ++round) {
    PairScene counted = PairScene::Create(mjGEOM_PLANE, mjGEOM_SPHERE, 64,
                                          {{"mode", "compat"}, {"stats", "true"}}, &error);
    ASSERT_TRUE(counted.ok()) << error;
    counted.Randomize(4);
    mjPreContact con[mjMAXCONPAIR];
    for (const PairCase& c : counted.cases()) {
      mjCOLLISIONFUNC[mjGEOM_PLANE][mjGEOM_SPHERE](counted.model(), counted.data(), con, c.geom1,
                                                   c.geom2, c.margin);
    }
    for (const PairCase& c : quiet.cases()) {
      mjCOLLISIONFUNC[mjGEOM_PLANE][mjGEOM_SPHERE](quiet.model(), quiet.data(), con, c.geom1,
                                                   c.geom2, c.margin);
    }
    long long ours[mjNGEOMTYPES * mjNGEOMTYPES] = {};
    ASSERT_EQ(api.pairCounts(counted.model(), counted.data(), ours, nullptr), 0);
    EXPECT_EQ(ours[mjGEOM_PLANE * mjNGEOMTYPES + mjGEOM_SPHERE],
              static_cast<long long>(counted.cases().size()))
        << "round " << round;
  }
}

}  // namespace
}  // namespace mjportal::testing
