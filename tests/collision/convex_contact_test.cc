// Fast mode's convex solvers (GJK, MPR + EPA hand-off, perturbation multi-contact) against exact
// references: closed-form distances and depths for spheres, capsules and boxes, brute-force
// separating axes for random convex hulls, a refined direction sweep for curved shapes; plus
// margins, resting-contact manifolds and degenerate input. Each failure prints a %.17g repro.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "collision/convex_contact.h"
#include "collision/smooth_contact.h"
#include "collision/support_field.h"
#include "tests/collision/convex_reference.h"
#include "tests/collision/random_geometry.h"
#include "tests/env_count.h"

namespace mjportal::collision {
namespace {

namespace ref = reference;

long Cases() {
  return mjportal::testing::EnvCount("MJPORTAL_KERNEL_CASES", 20000);
}

// A geom with its own storage (the solvers take borrowed views).
struct OwnedGeom {
  ShapeType type = ShapeType::kSphere;
  double pos[3] = {0, 0, 0}, mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, size[3] = {0, 0, 0};
  std::vector<float> vert;
  std::vector<std::int32_t> field;
  MeshView mesh{};
  HullShape shape;

  // A primitive of `t` at a repro's pose (%.17g position, row-major rotation, sizes).
  static OwnedGeom Place(ShapeType t, const double p[3], const double m[9], const double z[3]) {
    OwnedGeom g;
    g.type = t;
    std::copy(p, p + 3, g.pos);
    std::copy(m, m + 9, g.mat);
    std::copy(z, z + 3, g.size);
    return g;
  }

  ConvexGeom View() {
    GeomView view = {pos, mat, size};
    if (type == ShapeType::kMesh) {
      mesh.vert = vert.data();
      mesh.nvert = static_cast<int>(vert.size() / 3);
      mesh.graph = nullptr;
      mesh.hillclimb = false;
      mesh.rbound = 0;
      for (size_t i = 0; i < vert.size(); i += 3) {
        mesh.rbound = std::max(
            mesh.rbound, std::sqrt(double(vert[i]) * vert[i] + double(vert[i + 1]) * vert[i + 1] +
                                   double(vert[i + 2]) * vert[i + 2]));
      }
      // Half-extents for MPR's start (mpr_start.h); no hull graph, so no inner radius.
      shape = MeshShape(mesh.vert, mesh.nvert, nullptr);
      mesh.shape = &shape;
      mesh.field = field.empty() ? nullptr : field.data();
      mesh.field_res = field.empty() ? 0 : static_cast<int>(std::lround(std::sqrt(field.size())));
      view.mesh = &mesh;
    }
    return {type, view};
  }
  std::vector<Vec3> Points() const {
    std::vector<Vec3> p;
    for (size_t i = 0; i < vert.size(); i += 3)
      p.push_back({vert[i], vert[i + 1], vert[i + 2]});
    return p;
  }
  void BuildField(int res) {
    ConvexGeom g = View();
    field.assign(res * res, 0);
    BuildSupportField(*g.view.mesh, res, field.data());
  }
  std::string Describe() const {
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "type %d pos {%.17g, %.17g, %.17g} mat {%.17g, %.17g, %.17g, %.17g, %.17g, "
                  "%.17g, %.17g, %.17g, %.17g} size {%.17g, %.17g, %.17g} nvert %zu",
                  static_cast<int>(type), pos[0], pos[1], pos[2], mat[0], mat[1], mat[2], mat[3],
                  mat[4], mat[5], mat[6], mat[7], mat[8], size[0], size[1], size[2],
                  vert.size() / 3);
    std::string out = buf;
    for (size_t i = 0; i < vert.size() && i < 3 * 16; ++i) {
      std::snprintf(buf, sizeof(buf), "%s%.9g", i == 0 ? " vert {" : ", ", vert[i]);
      out += buf;
    }
    return vert.empty() ? out : out + "}";
  }
};

std::string Repro(const OwnedGeom& a, const OwnedGeom& b, double margin) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "\nmargin %.17g", margin);
  return "\nA: " + a.Describe() + "\nB: " + b.Describe() + buf;
}

OwnedGeom RandomPrimitive(RandomGeometry& s, ShapeType type, double extent) {
  OwnedGeom g;
  g.type = type;
  for (double& x : g.size)
    x = s.Uniform(0.05, 0.5);
  Store3(g.pos, s.Point(extent));
  s.Rotation(g.mat);
  return g;
}

// A random convex point cloud of n points (its hull is the mesh), in a box of half-size r,
// centred on its mean like MuJoCo centres meshes on their centre of mass (the solvers use the
// frame origin as an interior point).
OwnedGeom RandomHull(RandomGeometry& s, int n, double r, double extent) {
  OwnedGeom g;
  g.type = ShapeType::kMesh;
  std::vector<Vec3> points;
  Vec3 mean = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    points.push_back(s.Point(r));
    mean = mean + points.back() * (1.0 / n);
  }
  for (const Vec3& p : points) {
    const Vec3 q = p - mean;
    g.vert.insert(g.vert.end(), {float(q.x), float(q.y), float(q.z)});
  }
  Store3(g.pos, s.Point(extent));
  s.Rotation(g.mat);
  return g;
}

OwnedGeom BoxMesh(double ex, double ey, double ez) {
  OwnedGeom g;
  g.type = ShapeType::kMesh;
  for (int i = 0; i < 8; ++i) {
    g.vert.insert(g.vert.end(),
                  {float(i & 1 ? ex : -ex), float(i & 2 ? ey : -ey), float(i & 4 ? ez : -ez)});
  }
  return g;
}

ConvexSettings Settings(CcdAlgorithm algorithm, bool multicontact = false) {
  ConvexSettings s;
  s.max_iterations = 100;
  s.tolerance = 1e-10;
  s.algorithm = algorithm;
  s.multicontact = multicontact;
  return s;
}

// One contact (multicontact off); false when none.
bool Solve(OwnedGeom& a, OwnedGeom& b, const ConvexSettings& s, double margin, Contact* out) {
  ConvexCounters counters;
  *out = {};
  return CollideConvex(a.View(), b.View(), s, margin, out, 1, &counters) == 1;
}

// A repro pose's contact (ccd auto) and the reference depth: the sweep, refined from the
// contact's normal as well (so it searches the basin the solver chose). False without a contact.
bool SolveAgainstSweep(OwnedGeom& a, OwnedGeom& b, double margin, Contact* con, double* depth) {
  if (!Solve(a, b, Settings(CcdAlgorithm::kAuto), margin, con))
    return false;
  Vec3 start = con->normal;
  *depth = ref::SweepMinOverlap(a.View(), b.View(), 2000, &start);
  return true;
}

// Two geoms' poses from a soak repro (%.17g: position, row-major rotation and sizes of each).
struct PairPose {
  double ap[3], am[9], as[3], bp[3], bm[9], bs[3];
  double margin = 0;
};

// Reference signed distance (negative: penetration depth) for the closed-form pairs.
double ExactDistance(const OwnedGeom& a, const OwnedGeom& b) {
  const Vec3 pa = Load3(a.pos), pb = Load3(b.pos);
  auto axis = [](const OwnedGeom& g) { return Column(g.mat, 2) * g.size[1]; };
  if (a.type == ShapeType::kSphere && b.type == ShapeType::kSphere) {
    const Vec3 d = pb - pa;
    return std::sqrt(Dot(d, d)) - a.size[0] - b.size[0];
  }
  if (a.type == ShapeType::kSphere && b.type == ShapeType::kCapsule) {
    return ref::SegmentDistance(pa, {0, 0, 0}, pb - axis(b), axis(b) * 2) - a.size[0] - b.size[0];
  }
  if (a.type == ShapeType::kCapsule && b.type == ShapeType::kCapsule) {
    return ref::SegmentDistance(pa - axis(a), axis(a) * 2, pb - axis(b), axis(b) * 2) - a.size[0] -
           b.size[0];
  }
  // sphere (a) against box (b)
  const double inside = ref::BoxPointDistance(b.size, RotateT(b.mat, pa - pb));
  return inside - a.size[0];
}

// ---- GJK distance --------------------------------------------------------------------------

struct PairTypes {
  ShapeType a, b;
};

class GjkExact : public ::testing::TestWithParam<PairTypes> {};

// GJK's answer for a separated pair at the exact distance `exact`: the bounds bracket it;
// converged, distance and gap within `accuracy` of it; stopped at the numerical floor, a bracket
// under 1e-7 (counted in *floored). A failure says which of these missed.
::testing::AssertionResult GjkBracketsExact(const GjkResult& g, double exact, double accuracy,
                                            int* floored) {
  if (g.status != GjkStatus::kSeparated)
    return ::testing::AssertionFailure() << "status " << static_cast<int>(g.status);
  if (!(g.lower <= exact + 1e-12 && g.distance >= exact - 1e-12))
    return ::testing::AssertionFailure()
           << "bracket [" << g.lower << ", " << g.distance << "] misses " << exact;
  if (!g.converged) {
    ++*floored;
    if (!(g.distance - g.lower <= 1e-7))
      return ::testing::AssertionFailure() << "floored bracket " << g.distance - g.lower;
    return ::testing::AssertionSuccess();
  }
  const Vec3 gap = g.on_b - g.on_a;
  if (!(std::fabs(g.distance - exact) <= accuracy &&
        std::fabs(std::sqrt(Dot(gap, gap)) - exact) <= accuracy))
    return ::testing::AssertionFailure() << "distance " << g.distance << " gap "
                                         << std::sqrt(Dot(gap, gap)) << " exact " << exact;
  return ::testing::AssertionSuccess();
}

// GJK's bounds bracket the closed-form distance in every case (lower <= exact <= distance);
// converged (the bounds within the tolerance 1e-11), the distance and the closest points' gap are
// within 1e-9 of it. A run that stops at the numerical floor instead (no progress: GJK zig-zags
// on the nearly flat faces that curved shapes' Minkowski differences have, e.g. two capsules'
// swept parallelogram, until the simplex update stalls) must say so (converged = false): about
// 0.3% of the separated cases, with brackets up to 6.5e-8 wide and errors up to 1.6e-8 (10^6
// cases per pair). Such runs must stay under 1% and their brackets under 1e-7. (Fast mode runs
// GJK on a capsule's or sphere's core, a segment or point, and does not trust unconverged runs.)
TEST_P(GjkExact, DistanceMatchesClosedForm) {
  RandomGeometry s(1001);
  int separated = 0, floored = 0;
  for (long c = 0; c < Cases(); ++c) {
    OwnedGeom a = RandomPrimitive(s, GetParam().a, 1.0);
    OwnedGeom b = RandomPrimitive(s, GetParam().b, 1.0);
    const double exact = ExactDistance(a, b);
    if (exact < 1e-6)
      continue;
    ++separated;
    const GjkResult g = GjkDistance(a.View(), b.View(), 100, 1e-11, 1e300);
    ASSERT_TRUE(GjkBracketsExact(g, exact, 1e-9, &floored)) << "case " << c << Repro(a, b, 0);
  }
  EXPECT_GT(separated, Cases() / 4);
  EXPECT_LE(floored, separated / 100) << floored << " of " << separated;
}

INSTANTIATE_TEST_SUITE_P(Pairs, GjkExact,
                         ::testing::Values(PairTypes{ShapeType::kSphere, ShapeType::kSphere},
                                           PairTypes{ShapeType::kSphere, ShapeType::kCapsule},
                                           PairTypes{ShapeType::kCapsule, ShapeType::kCapsule},
                                           PairTypes{ShapeType::kSphere, ShapeType::kBox}));

// A box-shaped mesh answers like the box: scanned, and through a support field (refined). As for
// the sphere–box pair itself (GjkExact), a run may stop at the numerical floor on the flat faces
// of M (0.4-0.5% of the separated cases): then its bracket holds the distance (one such run in
// 180,000 separated cases was 1.5e-8 off).
TEST(GjkMesh, BoxMeshMatchesClosedForm) {
  RandomGeometry s(1002);
  for (int use_field = 0; use_field < 2; ++use_field) {
    int separated = 0, floored = 0;
    for (long c = 0; c < Cases() / 4; ++c) {
      OwnedGeom a = RandomPrimitive(s, ShapeType::kSphere, 1.0);
      OwnedGeom b = RandomPrimitive(s, ShapeType::kBox, 1.0);
      OwnedGeom mesh = BoxMesh(float(b.size[0]), float(b.size[1]), float(b.size[2]));
      std::copy(b.pos, b.pos + 3, mesh.pos);
      std::copy(b.mat, b.mat + 9, mesh.mat);
      for (int k = 0; k < 3; ++k)
        b.size[k] = double(float(b.size[k]));
      if (use_field)
        mesh.BuildField(16);
      const double exact = ExactDistance(a, b);
      if (exact < 1e-6)
        continue;
      ++separated;
      const GjkResult g = GjkDistance(a.View(), mesh.View(), 100, 1e-11, 1e300);
      ASSERT_TRUE(GjkBracketsExact(g, exact, 1e-8, &floored)) << "case " << c << Repro(a, mesh, 0);
    }
    EXPECT_GT(separated, Cases() / 16);
    EXPECT_LE(floored, separated / 100) << floored << " of " << separated;
  }
}

// MPR's miss hands GJK its portal points and the support that proved the geoms apart (fast mode's
// margin path): seeded, GJK finds the distance an unseeded run finds (both at tolerance 1e-11),
// its lower bound stays below that distance, and after a miss in MPR's refinement (a seed of the
// portal and the proof, 4 points, where GJK's simplex would otherwise be built up again) it needs
// fewer iterations in all. Random hulls of 4 to 40 points and capsule–hull pairs.
TEST(GjkSeed, MprMissPointsGiveTheDistanceInFewerIterations) {
  RandomGeometry s(1010);
  long seeded_iterations = 0, plain_iterations = 0;
  int seeds_of[5] = {0, 0, 0, 0, 0};
  for (long c = 0; c < Cases() / 4; ++c) {
    OwnedGeom a = c % 3 == 0 ? RandomPrimitive(s, ShapeType::kCapsule, 0.4)
                             : RandomHull(s, 4 + c % 37, 0.3, 0.4);
    OwnedGeom b = RandomHull(s, 4 + (c / 37) % 37, 0.3, 0.4);
    const MprResult r = MprPenetration(a.View(), b.View(), 100, 1e-11);
    if (r.hit || r.n_apart == 0)
      continue;
    GjkSimplex seed;
    seed.n = r.n_apart;
    std::copy(r.apart, r.apart + r.n_apart, seed.p);
    const GjkResult plain = GjkDistance(a.View(), b.View(), 100, 1e-11, 1e300, &r.separating);
    const GjkResult g = GjkDistance(a.View(), b.View(), 100, 1e-11, 1e300, &r.separating, &seed);
    if (plain.status != GjkStatus::kSeparated || !plain.converged)
      continue;  // touching within rounding: no distance to compare
    ++seeds_of[r.n_apart];
    ASSERT_EQ(g.status, GjkStatus::kSeparated) << "case " << c << Repro(a, b, 0);
    ASSERT_NEAR(g.distance, plain.distance, 1e-9) << "case " << c << Repro(a, b, 0);
    ASSERT_LE(g.lower, plain.distance + 1e-11) << "case " << c << Repro(a, b, 0);
    const Vec3 gap = g.on_b - g.on_a;
    ASSERT_NEAR(std::sqrt(Dot(gap, gap)), plain.distance, 1e-9) << "case " << c << Repro(a, b, 0);
    if (r.n_apart == 4) {
      seeded_iterations += g.iterations;
      plain_iterations += plain.iterations;
    }
  }
  EXPECT_GT(seeds_of[1], 0);
  EXPECT_GT(seeds_of[4], Cases() / 100);
  EXPECT_LT(seeded_iterations, plain_iterations);
  std::printf(
      "after refinement misses: seeded GJK %ld iterations, unseeded %ld (seeds of 1-4 "
      "points: %d %d %d %d)\n",
      seeded_iterations, plain_iterations, seeds_of[1], seeds_of[2], seeds_of[3], seeds_of[4]);
}

// ---- Penetration: verdict and minimal depth ------------------------------------------------

// Moves b along a random direction until it just touches a (bisection on GJK's verdict), then
// pushes it in by a depth drawn from [lo, hi] × scale.
void PlaceInto(RandomGeometry& s, OwnedGeom& a, OwnedGeom& b, double scale, double lo_fraction,
               double hi_fraction) {
  const Vec3 d = s.Direction();
  double lo = 0, hi = 4;
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (lo + hi);
    Store3(b.pos, Load3(a.pos) + d * mid);
    const bool overlap =
        GjkDistance(a.View(), b.View(), 200, 1e-13, 1e300).status == GjkStatus::kOverlap;
    (overlap ? lo : hi) = mid;
  }
  Store3(b.pos, Load3(a.pos) + d * (lo - s.Uniform(lo_fraction, hi_fraction) * scale));
}

// The shallow contacts of a resting scene: pushed in by up to `fraction` of the smaller size.
void PlaceShallow(RandomGeometry& s, OwnedGeom& a, OwnedGeom& b, double fraction) {
  const double size =
      std::min(*std::min_element(a.size, a.size + 3), *std::min_element(b.size, b.size + 3));
  PlaceInto(s, a, b, size, 0, fraction);
}

double SmallestSize(const OwnedGeom& a, const OwnedGeom& b) {
  return std::min(*std::min_element(a.size, a.size + 3), *std::min_element(b.size, b.size + 3));
}

// Checks one penetrating (or separated) case against its reference depth (> 0: penetration):
// the verdict, never shallower than the truth, the depth equal to the overlap along the reported
// normal, and, when `strict`, within RestingTolerance of the smaller size. Counts the inexact ones.
struct DepthTally {
  long hits = 0, inexact = 0;
};

// Depth error allowed on resting contacts: 1e-6 of the smaller size, for every pair (flat
// features: MPR's portal lies on a face of M, or EPA or a face takes over; spheres and capsules:
// GJK on their core; sphere/ellipsoid pairs: Newton; curved pairs: MPR along the best normal).
double RestingTolerance(double size) {
  return 1e-6 * size;
}

void CheckDepth(OwnedGeom& a, OwnedGeom& b, double depth, double size, CcdAlgorithm algorithm,
                bool strict, long c, DepthTally* tally) {
  Contact con;
  const bool hit = Solve(a, b, Settings(algorithm), 0, &con);
  ASSERT_EQ(hit, depth > 0) << "case " << c << " depth " << depth << Repro(a, b, 0);
  if (!hit)
    return;
  ++tally->hits;
  ASSERT_GE(-con.dist, depth - 1e-9) << "case " << c << Repro(a, b, 0);
  ASSERT_NEAR(-con.dist, OverlapAlong(a.View(), b.View(), con.normal), 1e-9)
      << "case " << c << Repro(a, b, 0);
  if (std::fabs(-con.dist - depth) > RestingTolerance(size)) {
    ASSERT_FALSE(strict) << "case " << c << " depth " << depth << " ours " << -con.dist
                         << Repro(a, b, 0);
    ++tally->inexact;
  }
}

class ConvexDepthExact : public ::testing::TestWithParam<PairTypes> {};

// Random poses, deep ones included: verdict and bounds; shallow poses: exact.
TEST_P(ConvexDepthExact, AutoMatchesClosedForm) {
  RandomGeometry s(1003);
  DepthTally deep, shallow;
  for (long c = 0; c < Cases(); ++c) {
    OwnedGeom a = RandomPrimitive(s, GetParam().a, 0.5);
    OwnedGeom b = RandomPrimitive(s, GetParam().b, 0.5);
    const bool resting = c % 2 == 1;
    if (resting)
      PlaceShallow(s, a, b, 0.02);
    const double exact = ExactDistance(a, b);
    if (std::fabs(exact) < 1e-7)
      continue;
    CheckDepth(a, b, -exact, SmallestSize(a, b), CcdAlgorithm::kAuto, resting, c,
               resting ? &shallow : &deep);
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(deep.hits, Cases() / 10);
  EXPECT_GT(shallow.hits, Cases() / 4);
}

INSTANTIATE_TEST_SUITE_P(Pairs, ConvexDepthExact,
                         ::testing::Values(PairTypes{ShapeType::kSphere, ShapeType::kSphere},
                                           PairTypes{ShapeType::kSphere, ShapeType::kCapsule},
                                           PairTypes{ShapeType::kCapsule, ShapeType::kCapsule},
                                           PairTypes{ShapeType::kSphere, ShapeType::kBox}));

// Polytopes against exact separating-axis depths, per algorithm: both exact everywhere. (auto
// used to keep MPR's depth where its ray leaves M through a face next to the nearest one, 0.1% of
// shallow box–box contacts; MPR's answer now stands only where its final tetrahedron proves it
// minimal, convex_contact.h.)
class PolytopeDepth : public ::testing::TestWithParam<CcdAlgorithm> {};

// Box–box through the general path against the 15 separating axes.
TEST_P(PolytopeDepth, BoxBoxMatchesSeparatingAxes) {
  RandomGeometry s(1004);
  DepthTally tally;
  for (long c = 0; c < Cases(); ++c) {
    OwnedGeom a = RandomPrimitive(s, ShapeType::kBox, 0.5);
    OwnedGeom b = RandomPrimitive(s, ShapeType::kBox, 0.5);
    std::vector<Vec3> axes;
    for (int i = 0; i < 3; ++i) {
      axes.push_back(Column(a.mat, i));
      axes.push_back(Column(b.mat, i));
      for (int j = 0; j < 3; ++j) {
        Vec3 x = Cross(Column(a.mat, i), Column(b.mat, j));
        if (Dot(x, x) > 1e-12)
          axes.push_back(x * (1 / std::sqrt(Dot(x, x))));
      }
    }
    const double depth = ref::MinOverlap(a.View(), b.View(), axes);
    if (std::fabs(depth) < 1e-7)
      continue;
    const double size =
        std::min(*std::min_element(a.size, a.size + 3), *std::min_element(b.size, b.size + 3));
    CheckDepth(a, b, depth, size, GetParam(), true, c, &tally);
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(tally.hits, Cases() / 10);
  EXPECT_LE(tally.inexact, tally.hits / 200) << "inexact " << tally.inexact;
}

// Random hulls (4..14 points) against brute-force separating axes of their hulls.
TEST_P(PolytopeDepth, HullsMatchSeparatingAxes) {
  RandomGeometry s(1005);
  DepthTally tally;
  const long cases = std::max(1L, Cases() / 10);
  for (long c = 0; c < cases; ++c) {
    OwnedGeom a = RandomHull(s, 4 + c % 11, 0.4, 0.4);
    OwnedGeom b = RandomHull(s, 4 + (c / 11) % 11, 0.4, 0.4);
    if (c % 2)
      b.BuildField(24);
    const auto axes = ref::HullAxes(ref::BruteForceHull(a.Points()), a.mat,
                                    ref::BruteForceHull(b.Points()), b.mat);
    const double depth = ref::MinOverlap(a.View(), b.View(), axes);
    if (std::fabs(depth) < 1e-7)
      continue;
    CheckDepth(a, b, depth, 0.1, GetParam(), true, c, &tally);
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(tally.hits, cases / 10);
  EXPECT_LE(tally.inexact, tally.hits / 200) << "inexact " << tally.inexact;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, PolytopeDepth,
                         ::testing::Values(CcdAlgorithm::kAuto, CcdAlgorithm::kGjk));

// A convex point cloud of n points on a sphere of radius r (every point a hull vertex, faces of
// about the same size: the many-small-faces hulls where MPR's tetrahedron proves least).
OwnedGeom RoundHull(RandomGeometry& s, int n, double r) {
  OwnedGeom g = RandomHull(s, 4, r, 0.4);
  g.vert.clear();
  for (int i = 0; i < n; ++i) {
    const Vec3 p = s.Direction() * r;
    g.vert.insert(g.vert.end(), {float(p.x), float(p.y), float(p.z)});
  }
  return g;
}

// Step 3(b)'s proofs for pairs of polytopes (TetrahedronProvesDepth, then HullProvesDepth from
// the points MPR left behind) on resting round hulls, against brute-force separating axes: a
// proof never holds where MPR's depth exceeds the exact one, and the hull proves most of the
// depths the tetrahedron left open. Where neither proves, EPA goes on from the grown hull to the
// exact depth. Some poses must have MPR's depth wrong (or the first check could not fail).
TEST(PolytopeProof, ProvesOnlyMinimalDepthsAndEpaGoesOnFromTheHull) {
  RandomGeometry s(1009);
  const double tolerance = 1e-10;
  long open = 0, hull_proofs = 0, wrong = 0, epa_runs = 0;
  const long cases = std::max(1L, Cases() / 40);
  for (long c = 0; c < cases; ++c) {
    OwnedGeom a = RoundHull(s, 24 + c % 41, 0.3);
    OwnedGeom b = RoundHull(s, 24 + (c / 41) % 41, 0.3);
    PlaceInto(s, a, b, 0.3, 1e-4, 0.05);  // resting, up to 5% of the radius deep
    MprHistory history;
    const MprResult r = MprPenetration(a.View(), b.View(), 100, tolerance, nullptr, 0, &history);
    if (!r.hit || !r.converged || !r.has_tetrahedron)
      continue;
    const auto axes = ref::HullAxes(ref::BruteForceHull(a.Points()), a.mat,
                                    ref::BruteForceHull(b.Points()), b.mat);
    const double exact = ref::MinOverlap(a.View(), b.View(), axes);
    const bool minimal = r.depth <= exact + 1e-9;
    wrong += !minimal;
    if (convex::TetrahedronProvesDepth(r, tolerance)) {
      ASSERT_TRUE(minimal) << "tetrahedron proved MPR's depth " << r.depth << ", exact " << exact
                           << Repro(a, b, 0);
      continue;
    }
    ++open;
    epa::Polytope hull;
    if (convex::HullProvesDepth(r, history, &hull, tolerance)) {
      ASSERT_TRUE(minimal) << "hull proved MPR's depth " << r.depth << ", exact " << exact
                           << Repro(a, b, 0);
      ++hull_proofs;
      continue;
    }
    ASSERT_GT(hull.nvert, 0) << Repro(a, b, 0);
    const EpaResult e = EpaPenetration(a.View(), b.View(), &hull, 100, tolerance);
    ++epa_runs;
    ASSERT_TRUE(e.ok && e.converged) << Repro(a, b, 0);
    EXPECT_NEAR(e.depth, exact, 1e-9) << Repro(a, b, 0);
  }
  EXPECT_GT(wrong, 0) << "no pose with MPR's depth above the exact one";
  EXPECT_GT(open, cases / 10);
  EXPECT_GT(hull_proofs, open / 2) << "open " << open;
  EXPECT_GT(epa_runs, 0);
}

// Every live face of `poly` is linked across each edge to a live face holding that edge reversed,
// and the live faces number 2V − 4 (a closed triangulated sphere, Euler).
void ExpectClosedAndLinked(const epa::Polytope& poly, const std::string& where) {
  int live = 0;
  for (int f = 0; f < poly.nface; ++f) {
    const epa::Face& face = poly.face[f];
    if (!face.alive)
      continue;
    ++live;
    for (int e = 0; e < 3; ++e) {
      const int g = face.adj[e];
      ASSERT_TRUE(g >= 0 && g < poly.nface && poly.face[g].alive) << where << " face " << f;
      EXPECT_GE(epa::EdgeIndex(poly.face[g], face.v[(e + 1) % 3], face.v[e]), 0)
          << where << " face " << f << " edge " << e;
    }
  }
  EXPECT_EQ(live, 2 * poly.nvert - 4) << where;
}

// EPA's polytope bookkeeping (epa::Begin's fixed tetrahedron links, epa::Expand's patch, rim and
// slots) keeps a closed, linked surface: a random tetrahedron about the origin grown by random
// points on the unit sphere (each through the face it lies farthest beyond, the nearest face's
// distance as the floor), checked after every accepted expansion.
TEST(EpaPolytope, StaysClosedAndLinkedAsItGrows) {
  RandomGeometry s(2027);
  const long cases = std::max(1L, Cases() / 200);
  long grown = 0;
  for (long c = 0; c < cases; ++c) {
    double mat[9];
    s.Rotation(mat);
    const Vec3 corners[4] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    MinkowskiVertex start[4];
    for (int i = 0; i < 4; ++i) {
      const Vec3 v = Rotate(mat, corners[i] * (1 / std::sqrt(3.0)));
      start[i] = {v, v, {0, 0, 0}};
    }
    epa::Polytope poly;
    ASSERT_TRUE(epa::Begin(&poly, start, 1e-12)) << "case " << c;
    ExpectClosedAndLinked(poly, "case " + std::to_string(c) + " start");
    // Random points until the polytope is full (points no face sees, or Expand refuses, skipped).
    for (int draw = 0; draw < 8 * kEpaMaxVertices && poly.nvert < kEpaMaxVertices; ++draw) {
      const Vec3 w = s.Direction();
      int far = -1;
      double height = 1e-9;
      for (int f = 0; f < poly.nface; ++f) {
        const double h = Dot(poly.face[f].normal, w) - poly.face[f].dist;
        if (poly.face[f].alive && h > height) {
          height = h;
          far = f;
        }
      }
      if (far < 0)
        continue;
      const double floor = poly.face[epa::ClosestFace(poly)].dist;
      if (!epa::Expand(&poly, far, {w, w, {0, 0, 0}}, floor, 1e-12))
        continue;
      ++grown;
      ExpectClosedAndLinked(poly,
                            "case " + std::to_string(c) + " vertex " + std::to_string(poly.nvert));
      if (::testing::Test::HasFailure())
        return;
    }
    EXPECT_EQ(poly.nvert, kEpaMaxVertices) << "case " << c;
  }
  EXPECT_GT(grown, cases * (kEpaMaxVertices - 4) / 2);
}

// Curved shapes: no finite axis set is exact, so the reference is a direction sweep refined
// locally (from its best direction and from the solver's normal). Resting (shallow) contacts must
// be exact; deep ones keep the verdict and the bounds.
class ConvexDepthSweep : public ::testing::TestWithParam<PairTypes> {};

TEST_P(ConvexDepthSweep, AutoMatchesSweep) {
  RandomGeometry s(1006);
  DepthTally deep, shallow;
  const long cases = std::max(2L, Cases() / 50);
  for (long c = 0; c < cases; ++c) {
    OwnedGeom a = RandomPrimitive(s, GetParam().a, 0.4);
    OwnedGeom b = RandomPrimitive(s, GetParam().b, 0.4);
    const bool resting = c % 2 == 1;
    if (resting)
      PlaceShallow(s, a, b, 0.02);
    Contact con;
    const bool hit = Solve(a, b, Settings(CcdAlgorithm::kAuto), 0, &con);
    // Searched from the solver's normal, or from GJK's separating direction when there is no hit
    // (a negative overlap along it certifies the separation).
    Vec3 start = con.normal;
    if (!hit) {
      const GjkResult g = GjkDistance(a.View(), b.View(), 200, 1e-13, 1e300);
      start = g.on_b - g.on_a;
      start = Dot(start, start) > 0 ? start * (1 / std::sqrt(Dot(start, start))) : Vec3{1, 0, 0};
    }
    const double depth = ref::SweepMinOverlap(a.View(), b.View(), 2000, &start);
    if (std::fabs(depth) < 1e-6)
      continue;
    CheckDepth(a, b, depth, SmallestSize(a, b), CcdAlgorithm::kAuto, resting, c,
               resting ? &shallow : &deep);
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(shallow.hits, cases / 4);
}

INSTANTIATE_TEST_SUITE_P(Pairs, ConvexDepthSweep,
                         ::testing::Values(PairTypes{ShapeType::kEllipsoid, ShapeType::kEllipsoid},
                                           PairTypes{ShapeType::kCylinder, ShapeType::kCylinder},
                                           PairTypes{ShapeType::kCapsule, ShapeType::kCylinder},
                                           PairTypes{ShapeType::kCylinder, ShapeType::kBox},
                                           PairTypes{ShapeType::kEllipsoid, ShapeType::kBox},
                                           PairTypes{ShapeType::kSphere, ShapeType::kEllipsoid},
                                           PairTypes{ShapeType::kCapsule, ShapeType::kEllipsoid},
                                           PairTypes{ShapeType::kEllipsoid, ShapeType::kCylinder}));

// Every algorithm agrees on the verdict; auto refines mpr, never deepens it.
TEST(ConvexAlgorithms, VerdictsAgreeAndMprBoundsDepth) {
  RandomGeometry s(1007);
  for (long c = 0; c < Cases() / 4; ++c) {
    OwnedGeom a = RandomPrimitive(s, ShapeType::kCapsule, 0.5);
    OwnedGeom b = RandomPrimitive(s, ShapeType::kBox, 0.5);
    const double exact = -ref::SweepMinOverlap(a.View(), b.View(), 200);
    Contact autoc{}, mprc{}, gjkc{};
    const bool hit_auto = Solve(a, b, Settings(CcdAlgorithm::kAuto), 0, &autoc);
    const bool hit_mpr = Solve(a, b, Settings(CcdAlgorithm::kMpr), 0, &mprc);
    const bool hit_gjk = Solve(a, b, Settings(CcdAlgorithm::kGjk), 0, &gjkc);
    if (std::fabs(exact) < 1e-3)
      continue;  // the coarse sweep is only trusted away from touching
    ASSERT_EQ(hit_auto, hit_mpr) << "case " << c << Repro(a, b, 0);
    ASSERT_EQ(hit_auto, hit_gjk) << "case " << c << Repro(a, b, 0);
    if (hit_auto) {
      EXPECT_LE(mprc.dist, autoc.dist + 1e-9) << "case " << c << Repro(a, b, 0);
    }
  }
}

// Found by MJPORTAL_KERNEL_CASES=100000 after GJK's start moved to the side of M facing the
// origin: on this deep capsule-box pair GJK's triangle passes through the origin within 1e-15
// and it stalls there; that is no proof of separation, so ccd = gjk must still find the contact.
TEST(ConvexAlgorithms, GjkStalledThroughTheOriginIsNoSeparation) {
  const double ap[3] = {-0.12657553972445595, 0.12541356338870324, -0.18266815809866604};
  const double am[9] = {0.9423663351972521,   0.32816576338347397,  0.065214431147116392,
                        0.22276936065769143,  -0.46997703501860411, -0.85410502779651487,
                        -0.24963874346555986, 0.81940760205044716,  -0.51599581341603229};
  const double as[3] = {0.3357339473479235, 0.2361334558933848, 0.38836694637203151};
  const double bp[3] = {0.21201018547366668, -0.15693178281296016, 0.15121658420856976};
  const double bm[9] = {0.3742347579516847,   0.90043524994495794,  0.22173115838195867,
                        0.37927689001619891,  0.069571641977531185, -0.9226639839791031,
                        -0.84622537579564716, 0.42939043688595535,  -0.31547815466431972};
  const double bs[3] = {0.10118972699511086, 0.19377719915788755, 0.40985010654292064};
  OwnedGeom a = OwnedGeom::Place(ShapeType::kCapsule, ap, am, as);
  OwnedGeom b = OwnedGeom::Place(ShapeType::kBox, bp, bm, bs);
  const double depth = ref::SweepMinOverlap(a.View(), b.View(), 2000);
  ASSERT_GT(depth, 0.1);
  for (CcdAlgorithm algorithm : {CcdAlgorithm::kAuto, CcdAlgorithm::kMpr, CcdAlgorithm::kGjk}) {
    Contact con;
    ASSERT_TRUE(Solve(a, b, Settings(algorithm), 0, &con)) << static_cast<int>(algorithm);
    EXPECT_LT(con.dist, -0.1) << static_cast<int>(algorithm);
  }
}

// ---- Margins -------------------------------------------------------------------------------

TEST(ConvexMargin, ContactExactlyWithinMargin) {
  RandomGeometry s(1008);
  int within = 0;
  for (long c = 0; c < Cases(); ++c) {
    OwnedGeom a = RandomPrimitive(s, ShapeType::kCapsule, 1.0);
    OwnedGeom b = RandomPrimitive(s, ShapeType::kCapsule, 1.0);
    const double exact = ExactDistance(a, b);
    const double margin = s.Uniform(0, 0.5);
    if (std::fabs(exact - margin) < 1e-7 || std::fabs(exact) < 1e-7)
      continue;
    Contact con;
    const bool hit = Solve(a, b, Settings(CcdAlgorithm::kAuto), margin, &con);
    ASSERT_EQ(hit, exact <= margin) << "case " << c << " exact " << exact << Repro(a, b, margin);
    if (hit && exact > 0) {
      ++within;
      ASSERT_NEAR(con.dist, exact, 1e-9) << "case " << c << Repro(a, b, margin);
      // The normal points from A to B along the closest points.
      EXPECT_NEAR(Dot(con.normal, con.normal), 1.0, 1e-12);
    }
  }
  EXPECT_GT(within, Cases() / 20);
}

// A GJK run that stalls (capsules' and a sphere and box's flat Minkowski faces; see GjkExact)
// ends with a bracket [lower, distance] around the distance. With the margin inside it the pair
// may be within the margin: step 1 (ccd = gjk runs it first) keeps the contact, at dist = margin,
// and decides "farther" only on a proof. Converged runs and margins outside the bracket answer
// as before. Runs that stall touching within rounding (GjkTouching: the origin on the simplex's
// plane, which overlapping capsules also give: case 263,233 of 400,000, 3.5 mm deep) prove
// nothing and go to the penetration solvers: not cases here.
TEST(ConvexMargin, StalledGjkWithTheMarginInsideItsBracketKeepsTheContact) {
  const PairTypes pairs[] = {{ShapeType::kCapsule, ShapeType::kCapsule},
                             {ShapeType::kSphere, ShapeType::kBox}};
  ConvexSettings settings = Settings(CcdAlgorithm::kGjk);
  settings.tolerance = 1e-11;
  for (const PairTypes& p : pairs) {
    RandomGeometry s(1009);
    int stalled = 0;
    for (long c = 0; c < Cases(); ++c) {
      OwnedGeom a = RandomPrimitive(s, p.a, 1.0);
      OwnedGeom b = RandomPrimitive(s, p.b, 1.0);
      const GjkResult g =
          GjkDistance(a.View(), b.View(), settings.max_iterations, settings.tolerance, 1e300);
      if (g.status != GjkStatus::kSeparated || g.converged || g.distance - g.lower < 1e-13 ||
          convex::GjkTouching(a.View(), b.View(), g))
        continue;
      ++stalled;
      // Inside the bracket: a contact, within the margin and the bracket.
      const double margin = 0.5 * (g.lower + g.distance);
      Contact con;
      ASSERT_TRUE(Solve(a, b, settings, margin, &con)) << "case " << c << Repro(a, b, margin);
      ASSERT_LE(con.dist, margin) << "case " << c << Repro(a, b, margin);
      ASSERT_GE(con.dist, g.lower) << "case " << c << Repro(a, b, margin);
      ASSERT_GE(con.dist, ExactDistance(a, b) - 1e-7) << "case " << c << Repro(a, b, margin);
      // Below the bracket: provably farther.
      ASSERT_FALSE(Solve(a, b, settings, 0.5 * g.lower, &con))
          << "case " << c << Repro(a, b, 0.5 * g.lower);
    }
    EXPECT_GT(stalled, 0) << "no stalled GJK run among " << Cases() << " cases";
  }
}

// ---- Newton on sphere/ellipsoid pairs and the face shortcut ---------------------------------

// Separated pairs: Newton's signed distance is GJK's (tolerance 1e-13) within 1e-9; beyond the
// margin, GJK agrees that the pair is farther. Overlapping shallow pairs: the depth is the
// refined sweep's minimum overlap.
TEST(SmoothDistance, MatchesGjkAndSweep) {
  RandomGeometry s(1011);
  int separated = 0, overlapping = 0;
  for (long c = 0; c < Cases() / 4; ++c) {
    OwnedGeom a = RandomPrimitive(s, c % 3 == 0 ? ShapeType::kSphere : ShapeType::kEllipsoid, 0);
    OwnedGeom b = RandomPrimitive(s, ShapeType::kEllipsoid, 0);
    PlaceShallow(s, a, b, 0.02);
    // Half the cases pulled apart by up to 10% of the smaller size.
    if (c % 2 == 0) {
      Vec3 d = Load3(b.pos) - Load3(a.pos);
      d = d * (1 / std::sqrt(Dot(d, d)));
      Store3(b.pos, Load3(b.pos) + d * (s.Uniform(0, 0.1) * SmallestSize(a, b)));
    }
    const double margin = s.Uniform(0, 0.05);
    const SmoothResult r = SmoothDistance(a.View(), b.View(), 100, 1e-10, margin);
    const GjkResult g = GjkDistance(a.View(), b.View(), 200, 1e-13, 1e300);
    if (r.status == SmoothStatus::kHandOff)
      continue;
    if (g.status == GjkStatus::kSeparated) {
      if (r.status == SmoothStatus::kBeyond) {
        ASSERT_GT(g.distance, margin - 1e-9) << "case " << c << Repro(a, b, margin);
        continue;
      }
      ++separated;
      ASSERT_NEAR(r.dist, g.distance, 1e-9) << "case " << c << Repro(a, b, margin);
    } else {
      // A contact (or a local minimum deeper than certified: still a minimum).
      ASSERT_NE(r.status, SmoothStatus::kBeyond) << "case " << c << Repro(a, b, margin);
      ++overlapping;
      const double depth = ref::RefineMinOverlap(a.View(), b.View(), r.normal);
      ASSERT_NEAR(-r.dist, depth, 1e-9) << "case " << c << Repro(a, b, margin);
      ASSERT_NEAR(-r.dist, OverlapAlong(a.View(), b.View(), r.normal), 1e-9)
          << "case " << c << Repro(a, b, margin);
    }
  }
  EXPECT_GT(separated, Cases() / 40);
  EXPECT_GT(overlapping, Cases() / 40);
}

// Newton's contacts are global minima: random pairs (semi-axes 0.05–0.5, so ellipsoids up to ten
// times thinner than long) pushed in by up to twice the smaller size, either order. Every contact
// SmoothDistance reports (its local minimum, deep only up to CertifiedDepth) must equal the
// refined sweep's minimum over all directions within 1e-9 × the smaller size. With the certified
// depth lifted, ellipsoid–box local minima up to 0.06 deeper than the global one fail it.
TEST(SmoothDistance, CertifiedContactsAreGlobalMinima) {
  const PairTypes pairs[] = {
      {ShapeType::kEllipsoid, ShapeType::kBox},       {ShapeType::kBox, ShapeType::kEllipsoid},
      {ShapeType::kEllipsoid, ShapeType::kEllipsoid}, {ShapeType::kSphere, ShapeType::kEllipsoid},
      {ShapeType::kSphere, ShapeType::kBox},          {ShapeType::kCapsule, ShapeType::kEllipsoid},
      {ShapeType::kEllipsoid, ShapeType::kCapsule},   {ShapeType::kEllipsoid, ShapeType::kCylinder},
      {ShapeType::kCylinder, ShapeType::kEllipsoid}};
  RandomGeometry s(1017);
  long contacts = 0, beyond_old_cut = 0, uncertified = 0, by_foot = 0;
  for (const PairTypes& types : pairs) {
    for (long c = 0; c < Cases() / 40; ++c) {
      OwnedGeom a = RandomPrimitive(s, types.a, 0);
      OwnedGeom b = RandomPrimitive(s, types.b, 0);
      PlaceShallow(s, a, b, 2.0);
      const SmoothResult r = SmoothDistance(a.View(), b.View(), 100, 1e-10, 0);
      uncertified += r.status == SmoothStatus::kUncertified;
      if (r.status != SmoothStatus::kContact || !(r.dist < 0))
        continue;
      ++contacts;
      const double smaller = SmallestSize(a, b);
      beyond_old_cut += -r.dist > 0.05 * smaller;
      by_foot += -r.dist > CertifiedDepth(a.View(), b.View());
      const double depth = ref::SweepMinOverlap(a.View(), b.View(), 2000, &r.normal);
      ASSERT_NEAR(-r.dist, depth, 1e-9 * smaller)
          << "types " << static_cast<int>(types.a) << "-" << static_cast<int>(types.b) << " case "
          << c << Repro(a, b, 0);
    }
  }
  // Deep contacts reached (beyond the 5% of the smaller size that Newton was once limited to),
  // some certified deeper than the curvature radii by the ellipsoid's foot point
  // (smooth::CertifyByFoot), and some left uncertified.
  EXPECT_GT(contacts, Cases() / 20);
  EXPECT_GT(beyond_old_cut, Cases() / 400);
  EXPECT_GT(by_foot, Cases() / 400);
  EXPECT_GT(uncertified, Cases() / 400);
}

// Newton's distance for a separated pair: GJK's (tolerance 1e-13) within 1e-9 when GJK converged;
// where it stalled (curved pairs, GjkExact), inside its bracket and within 1e-9 of the refined
// sweep's maximum gap.
::testing::AssertionResult MatchesSeparation(OwnedGeom& a, OwnedGeom& b, const SmoothResult& r,
                                             const GjkResult& g) {
  if (g.converged) {
    if (std::fabs(r.dist - g.distance) <= 1e-9)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "Newton " << r.dist << " GJK " << g.distance;
  }
  const double gap = -ref::RefineMinOverlap(a.View(), b.View(), r.normal);
  if (r.dist >= g.lower - 1e-12 && r.dist <= g.distance + 1e-12 && std::fabs(r.dist - gap) <= 1e-9)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "Newton " << r.dist << " GJK stalled in [" << g.lower
                                       << ", " << g.distance << "], refined gap " << gap;
}

// GJK proves a pair apart when it converged, or stalled with a positive lower bound (a run
// stalled touching within rounding, or with its bracket reaching 0, proves nothing: overlapping
// pairs give both).
bool ProvenApart(OwnedGeom& a, OwnedGeom& b, const GjkResult& g) {
  return g.status == GjkStatus::kSeparated && !convex::GjkTouching(a.View(), b.View(), g) &&
         (g.converged || g.lower > 0);
}

// Newton's answer for a pair GJK proves apart: beyond the margin only where GJK's distance is;
// within it, the distance (MatchesSeparation), counted in *within.
::testing::AssertionResult ApartAsGjkSays(OwnedGeom& a, OwnedGeom& b, const SmoothResult& r,
                                          const GjkResult& g, double margin, int* within) {
  if (r.status == SmoothStatus::kBeyond) {
    if (g.distance > margin - 1e-9)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "beyond the margin " << margin << " at GJK's " << g.distance;
  }
  ++*within;
  return MatchesSeparation(a, b, r, g);
}

// The verdict every Newton test checks: where GJK proves a and b apart, Newton's answer is as
// ApartAsGjkSays (counted in *separated); elsewhere Newton claims no separation. *apart: which.
::testing::AssertionResult VerdictAsGjkSays(OwnedGeom& a, OwnedGeom& b, const SmoothResult& r,
                                            double margin, int* separated, bool* apart) {
  const GjkResult g = GjkDistance(a.View(), b.View(), 200, 1e-13, 1e300);
  *apart = ProvenApart(a, b, g);
  if (*apart)
    return ApartAsGjkSays(a, b, r, g, margin, separated);
  if (r.status == SmoothStatus::kBeyond)
    return ::testing::AssertionFailure() << "beyond the margin where GJK proves no gap";
  return ::testing::AssertionSuccess();
}

// Moves `moved` away from `from` along their centre line by up to 10% of the smaller size: pairs
// apart within and beyond the margin.
void NudgeApart(RandomGeometry& s, const OwnedGeom& from, OwnedGeom& moved) {
  Vec3 d = Load3(moved.pos) - Load3(from.pos);
  d = d * (1 / std::sqrt(Dot(d, d)));
  Store3(moved.pos, Load3(moved.pos) + d * (s.Uniform(0, 0.1) * SmallestSize(from, moved)));
}

// Capsule–ellipsoid and cylinder–ellipsoid (the axis as a box's edge, its ends as corners, swept
// by a sphere or a disk), either order: separated, Newton's signed distance is GJK's
// (MatchesSeparation), and beyond the margin GJK agrees; overlapping, the depth is the refined
// sweep's minimum overlap within 1e-9. Hand-offs: under 1% of the capsule pairs, and under 20%
// of the cylinder pairs (10.6%: contacts on a cap face, which FaceFirst answers before Newton in
// Solve).
TEST(SmoothDistance, SweptSegmentEllipsoidMatchesGjkAndSweep) {
  RandomGeometry s(1018);
  int separated = 0, overlapping = 0, handed[2] = {0, 0};
  const long cases = Cases() / 4;
  for (long c = 0; c < cases; ++c) {
    const bool cylinder = c % 8 >= 4;
    OwnedGeom capsule =
        RandomPrimitive(s, cylinder ? ShapeType::kCylinder : ShapeType::kCapsule, 0);
    OwnedGeom e = RandomPrimitive(s, ShapeType::kEllipsoid, 0);
    PlaceShallow(s, capsule, e, 0.02);
    if (c % 2 == 0)
      NudgeApart(s, capsule, e);
    const bool capsule_a = c % 4 < 2;
    OwnedGeom& a = capsule_a ? capsule : e;
    OwnedGeom& b = capsule_a ? e : capsule;
    const double margin = s.Uniform(0, 0.05);
    const SmoothResult r = SmoothDistance(a.View(), b.View(), 100, 1e-10, margin);
    if (r.status == SmoothStatus::kHandOff) {
      ++handed[cylinder];
      continue;
    }
    bool apart = false;
    ASSERT_TRUE(VerdictAsGjkSays(a, b, r, margin, &separated, &apart))
        << "case " << c << Repro(a, b, margin);
    if (!apart) {
      ++overlapping;
      const double depth = ref::RefineMinOverlap(a.View(), b.View(), r.normal);
      ASSERT_NEAR(-r.dist, depth, 1e-9) << "case " << c << Repro(a, b, margin);
      ASSERT_NEAR(-r.dist, OverlapAlong(a.View(), b.View(), r.normal), 1e-9)
          << "case " << c << Repro(a, b, margin);
    }
  }
  EXPECT_GT(separated, cases / 10);
  EXPECT_GT(overlapping, cases / 10);
  EXPECT_LT(handed[0], cases / 200) << handed[0] << " of " << cases / 2 << " capsule pairs";
  EXPECT_LT(handed[1], cases / 10) << handed[1] << " of " << cases / 2 << " cylinder pairs";
}

// An ellipsoid (or sphere) and a random hull (12 to 40 points, scanned or through a field),
// either order, as above: separated, SmoothMeshDistance's distance is GJK's (MatchesSeparation:
// a vertex, edge or face of the hull against the smooth surface); overlapping, the depth
// is the sweep's minimum overlap, refined from Newton's normal, within 1e-9 × the smaller size
// (every certified contact is the global minimum; every fifth pair is placed deep, for contacts
// certified by the ellipsoid's foot point, smooth::CertifyByFoot). Hand-offs (to the general
// solvers) stay under 2%: 0.6% of these pairs (31 of 5,000), where Newton's path crosses more
// than kMaxMeshSwitches vertex cones (2.7% of the shallow pairs before a failed face test went on
// along the triangle's edge the smooth geom lies beyond, 1.3% after; 1.4% of all the pairs until
// a face test failing beyond the edge Newton is on went back inside that edge's arc).
TEST(SmoothMeshDistance, EllipsoidHullMatchesGjkAndSweep) {
  RandomGeometry s(1019);
  int separated = 0, overlapping = 0, handed = 0, faces = 0, by_foot = 0;
  const long cases = Cases() / 4;
  for (long c = 0; c < cases; ++c) {
    OwnedGeom e = RandomPrimitive(s, c % 5 == 0 ? ShapeType::kSphere : ShapeType::kEllipsoid, 0);
    OwnedGeom hull = RandomHull(s, 12 + static_cast<int>(c % 29), 0.3, 0.0);
    for (double& x : hull.size)
      x = 0.3;  // the hull's box half-size, for the tolerances and PlaceShallow
    if (c % 3 == 0)
      hull.BuildField(32);
    PlaceShallow(s, e, hull, c % 5 == 1 ? 0.5 : 0.02);  // every fifth deep
    if (c % 2 == 0)
      NudgeApart(s, e, hull);
    const bool mesh_a = c % 4 >= 2;
    OwnedGeom& a = mesh_a ? hull : e;
    OwnedGeom& b = mesh_a ? e : hull;
    const double margin = s.Uniform(0, 0.05);
    const SmoothResult r = SmoothMeshDistance(a.View(), b.View(), 100, 1e-10, margin);
    if (r.status == SmoothStatus::kHandOff) {
      ++handed;
      continue;
    }
    bool apart = false;
    ASSERT_TRUE(VerdictAsGjkSays(a, b, r, margin, &separated, &apart))
        << "case " << c << Repro(a, b, margin);
    if (apart) {
      if (r.status == SmoothStatus::kBeyond)
        continue;
    } else {
      ++overlapping;
      Vec3 start = r.normal;
      const double depth = ref::SweepMinOverlap(a.View(), b.View(), 2000, &start);
      const double smaller = SmallestSize(a, b);
      ASSERT_NEAR(-r.dist, OverlapAlong(a.View(), b.View(), r.normal), 1e-9)
          << "case " << c << Repro(a, b, margin);
      if (r.status == SmoothStatus::kContact) {
        ASSERT_NEAR(-r.dist, depth, 1e-9 * smaller) << "case " << c << Repro(a, b, margin);
        by_foot += -r.dist > LeastCurvatureRadius(e.View());
      } else {
        ASSERT_GE(-r.dist, depth - 1e-9 * smaller) << "case " << c << Repro(a, b, margin);
      }
    }
    // A face contact: the normal is one of the hull's face normals (no vertex of the hull
    // beyond the plane through the witness point on it).
    const Vec3 out = mesh_a ? r.normal : -r.normal;
    const Vec3 on_hull = mesh_a ? r.on_a : r.on_b;
    int on_plane = 0;
    for (const Vec3& p : hull.Points()) {
      const Vec3 w = Rotate(hull.mat, p) + Load3(hull.pos);
      on_plane += std::fabs(Dot(out, w - on_hull)) < 1e-9;
    }
    faces += on_plane >= 3;
  }
  EXPECT_GT(separated, cases / 10);
  EXPECT_GT(overlapping, cases / 10);
  EXPECT_GT(faces, cases / 100) << "no face contacts among " << cases;
  EXPECT_GT(by_foot, cases / 200) << "no contact certified by the foot point";
  EXPECT_LT(handed, cases / 50) << handed << " of " << cases;
}

// A sphere deep in an ellipsoid with its centre outside: the depth is the radius minus the
// centre's distance to the ellipsoid (GJK, tolerance 1e-13), within 1e-9, either order. Newton
// answers these (the depth is below the sphere's radius, its certified depth); the core step's
// Newton on (centre, ellipsoid) is the fallback.
TEST(ConvexCore, DeepSphereOnEllipsoidMatchesCoreDistance) {
  RandomGeometry s(1014);
  int deep = 0;
  for (long c = 0; c < Cases() / 4; ++c) {
    OwnedGeom e = RandomPrimitive(s, ShapeType::kEllipsoid, 0);
    OwnedGeom sphere = RandomPrimitive(s, ShapeType::kSphere, 0);
    OwnedGeom point = sphere;
    point.size[0] = 0;
    Vec3 dir = s.Point(1);
    dir = dir * (1 / std::sqrt(Dot(dir, dir)));
    const double reach = std::max(e.size[0], std::max(e.size[1], e.size[2]));
    Store3(sphere.pos, Load3(e.pos) + dir * (reach * s.Uniform(0.5, 2.0)));
    Store3(point.pos, Load3(sphere.pos));
    const GjkResult g = GjkDistance(point.View(), e.View(), 1000, 1e-13, 1e300);
    if (g.status != GjkStatus::kSeparated || g.distance < 1e-3 * reach)
      continue;  // centre inside or on the surface: not this path
    // Radius: the centre's distance plus a depth of 6–50% of the smaller scale.
    const double smaller_guess = std::min(reach, g.distance);
    sphere.size[0] = g.distance + s.Uniform(0.06, 0.5) * smaller_guess;
    const double expected = g.distance - sphere.size[0];
    if (-expected <= 0.05 * std::min(sphere.size[0], reach))
      continue;  // shallow: the other tests cover these
    ++deep;
    for (int order = 0; order < 2; ++order) {
      Contact con;
      const bool hit = order == 0 ? Solve(sphere, e, Settings(CcdAlgorithm::kAuto), 0, &con)
                                  : Solve(e, sphere, Settings(CcdAlgorithm::kAuto), 0, &con);
      ASSERT_TRUE(hit) << "case " << c << " order " << order << Repro(sphere, e, 0);
      ASSERT_NEAR(con.dist, expected, 1e-9)
          << "case " << c << " order " << order << Repro(sphere, e, 0);
    }
  }
  EXPECT_GT(deep, Cases() / 40);
}

// Moves ellipsoid e so that its lowest point (along world z) lies at `lowest`: the centre sits
// R E² Rᵀ z / |E Rᵀ z| above it (the support point along z, by symmetry).
void PutLowestPointAt(OwnedGeom& e, const Vec3& lowest) {
  const Vec3 z = RotateT(e.mat, {0, 0, 1});
  const double reach = std::sqrt(std::pow(e.size[0] * z.x, 2) + std::pow(e.size[1] * z.y, 2) +
                                 std::pow(e.size[2] * z.z, 2));
  const Vec3 offset =
      Rotate(e.mat, {e.size[0] * e.size[0] * z.x / reach, e.size[1] * e.size[1] * z.y / reach,
                     e.size[2] * e.size[2] * z.z / reach});
  Store3(e.pos, lowest + offset);
}

// An ellipsoid resting anywhere on a large box's top face, pushed in by pen: the contact is the
// face's (normal +z, depth pen exactly), and the face shortcut alone gives the same.
TEST(ConvexFace, EllipsoidOnBoxTopIsExact) {
  RandomGeometry s(1012);
  ConvexCounters counters;
  for (long c = 0; c < Cases() / 10; ++c) {
    OwnedGeom box;
    box.type = ShapeType::kBox;
    box.size[0] = box.size[1] = 1;
    box.size[2] = 0.1;
    OwnedGeom e = RandomPrimitive(s, ShapeType::kEllipsoid, 0);
    const double pen = s.Uniform(1e-5, 1e-2) * SmallestSize(box, e);
    // The lowest point anywhere over the face; the centre may lie beyond the face's edge, which
    // slants MPR's centre ray.
    PutLowestPointAt(e, {s.Uniform(-0.99, 0.99), s.Uniform(-0.99, 0.99), 0.1 - pen});
    Contact con;
    ConvexSettings settings = Settings(CcdAlgorithm::kAuto);
    ASSERT_EQ(CollideConvex(box.View(), e.View(), settings, 0, &con, 1, &counters), 1)
        << "case " << c << Repro(box, e, 0);
    ASSERT_NEAR(-con.dist, pen, 1e-9 * 0.1) << "case " << c << Repro(box, e, 0);
    ASSERT_NEAR(con.normal.z, 1, 1e-9) << "case " << c << Repro(box, e, 0);
    // The face shortcut on its own: the top face's axis answers exactly; a side face's axis
    // (the ellipsoid's deepest point along it lies outside that face) does not.
    const ConvexGeom gb = box.View(), ge = e.View();
    const Vec3 up = {0, 0, 1}, side = {1, 0, 0};
    ConvexHit hit;
    ASSERT_TRUE(convex::FaceContact(gb, ge, {&gb, 2, up, OverlapAlong(gb, ge, up)}, &hit))
        << "case " << c << Repro(box, e, 0);
    ASSERT_NEAR(-hit.dist, pen, 1e-9 * 0.1) << "case " << c << Repro(box, e, 0);
    ASSERT_NEAR(hit.on_a.z, 0.1, 1e-12);
    ASSERT_FALSE(convex::FaceContact(gb, ge, {&gb, 0, side, OverlapAlong(gb, ge, side)}, &hit))
        << "case " << c << Repro(box, e, 0);
  }
}

// FaceFirst skips a mesh's support query along an axis whose lower bound (the mesh's inner ball)
// already exceeds the least overlap (LeastOverlapFaceAxisBounded): the axis, the verdict and the
// contact are bitwise the full scan's (LeastOverlapFaceAxis). Boxes
// from thin walls to cubes and cylinders, against box-shaped meshes whose inner radius is exactly
// their least half-extent (the bound then meets the overlap along the mesh's own face normals,
// where only the rounding allowance keeps the axis) and random hulls (inner radius 0), touching
// a random face of the box or cylinder, either geom first; and an eighth of the cases an
// ellipsoid or a cylinder instead of the mesh.
TEST(ConvexFace, BoundedAxesGiveTheFullScansAnswer) {
  RandomGeometry s(20261208);
  const long cases = Cases() / 2;
  long skippable = 0, contacts = 0;
  for (long c = 0; c < cases; ++c) {
    OwnedGeom owner = RandomPrimitive(s, c % 3 == 2 ? ShapeType::kCylinder : ShapeType::kBox, 0);
    if (c % 4 == 0)
      owner.size[c / 4 % 3] = s.Uniform(0.005, 0.02);  // a thin wall
    const bool box_mesh = c % 2 == 0;
    double inner = 0;
    OwnedGeom mesh;
    if (c % 8 == 7) {  // no mesh in the pair: the bounds are the overlaps
      mesh = RandomPrimitive(s, c % 16 == 7 ? ShapeType::kEllipsoid : ShapeType::kCylinder, 0);
    } else if (box_mesh) {
      const double e[3] = {s.Uniform(0.02, 0.2), s.Uniform(0.02, 0.2), s.Uniform(0.02, 0.2)};
      mesh = BoxMesh(e[0], e[1], e[2]);
      inner = std::min({double(float(e[0])), double(float(e[1])), double(float(e[2]))});
      s.Rotation(mesh.mat);
    } else {
      mesh = RandomHull(s, 8 + static_cast<int>(c % 40), 0.15, 0);
    }
    // Mesh and owner touching, from 2% of the mesh's scale deep to 1% apart: in two cases of
    // three the mesh over a face (box) or cap (cylinder), its centre within half the face's
    // extent; else along any direction out of the owner.
    const double scale = GeomScale(mesh.View());
    const double depth = s.Uniform(-0.01, 0.02) * scale;
    if (c % 3 != 0) {
      const int k = owner.type == ShapeType::kCylinder ? 2 : static_cast<int>(c / 3 % 3);
      const Vec3 n = Column(owner.mat, k) * (c % 6 < 3 ? 1.0 : -1.0);
      const double half = owner.type == ShapeType::kCylinder ? owner.size[1] : owner.size[k];
      Vec3 lateral = {0, 0, 0};
      for (int j = 0; j < 3; ++j) {
        const double extent = owner.type == ShapeType::kCylinder ? owner.size[0] : owner.size[j];
        if (j != k && !(owner.type == ShapeType::kCylinder && j == 2))
          lateral = lateral + Column(owner.mat, j) * s.Uniform(-0.5, 0.5) * extent;
      }
      const double below = SupportExtent(mesh.type, mesh.View().view, -n);
      Store3(mesh.pos, Load3(owner.pos) + lateral + n * (half + below - depth));
    } else {
      const Vec3 dir = s.Direction();
      const double reach = SupportExtent(owner.type, owner.View().view, dir) +
                           SupportExtent(mesh.type, mesh.View().view, -dir);
      Store3(mesh.pos, Load3(owner.pos) + dir * (reach - depth));
    }
    const bool owner_first = c % 5 != 0;
    OwnedGeom& a = owner_first ? owner : mesh;
    OwnedGeom& b = owner_first ? mesh : owner;
    const ConvexGeom ga = a.View(), gb = b.View();
    mesh.shape.inner_radius = inner;  // after View(), which computes the shape without a graph
    const double margin = c % 7 == 0 ? s.Uniform(0, 0.01) : 0.0;
    // The axis: the same owner, axis and overlap as the full scan's, bit for bit.
    const convex::FaceAxis scan = convex::LeastOverlapFaceAxis(ga, gb);
    const convex::FaceAxis bounded_axis = convex::LeastOverlapFaceAxisBounded(ga, gb);
    ASSERT_TRUE(scan.owner == bounded_axis.owner && scan.k == bounded_axis.k &&
                std::memcmp(&scan.axis, &bounded_axis.axis, sizeof(Vec3)) == 0 &&
                std::memcmp(&scan.overlap, &bounded_axis.overlap, sizeof(double)) == 0)
        << "case " << c << Repro(a, b, margin) << "\ninner " << inner;
    // Face first's verdict and contact: the full scan's.
    ConvexHit full = {}, bounded = {};
    const int expected = convex::FaceVerdict(ga, gb, scan, margin, &full);
    const int got = convex::FaceFirst(ga, gb, margin, &bounded);
    ASSERT_EQ(got, expected) << "case " << c << Repro(a, b, margin) << "\ninner " << inner;
    if (expected == 1) {
      ++contacts;
      ASSERT_EQ(std::memcmp(&full, &bounded, sizeof(full)), 0)
          << "case " << c << Repro(a, b, margin) << "\ninner " << inner;
    }
    // Axes the bound rules out (not vacuous: the test meets many).
    if (c % 8 != 7) {
      convex::ForEachFaceAxis(ga, gb, Load3(gb.view.pos) - Load3(ga.view.pos),
                              [&](const ConvexGeom*, int, const Vec3& axis) {
                                const double bound = convex::SupportAtLeast(ga, axis) +
                                                     convex::SupportAtLeast(gb, -axis);
                                skippable += bound > scan.overlap + convex::GapRounding(ga, gb);
                              });
    }
  }
  EXPECT_GT(skippable, cases / 2);
  EXPECT_GT(contacts, cases / 10);
  std::printf("%ld cases: %ld face contacts, %ld axes ruled out by the bound\n", cases, contacts,
              skippable);
}

// The same ellipsoid lifted off the face by a gap inside the margin: the face's contact (dist =
// gap, normal +z), from the face shortcut alone (counted as `face`, no solver run).
TEST(ConvexFace, EllipsoidAboveBoxTopWithinMarginIsTheFacesGap) {
  RandomGeometry s(1013);
  ConvexCounters counters;
  const long cases = Cases() / 10;
  for (long c = 0; c < cases; ++c) {
    OwnedGeom box;
    box.type = ShapeType::kBox;
    box.size[0] = box.size[1] = 1;
    box.size[2] = 0.1;
    OwnedGeom e = RandomPrimitive(s, ShapeType::kEllipsoid, 0);
    const double margin = 0.01 * SmallestSize(box, e);
    const double gap = s.Uniform(1e-4, 0.99) * margin;
    PutLowestPointAt(e, {s.Uniform(-0.99, 0.99), s.Uniform(-0.99, 0.99), 0.1 + gap});
    Contact con;
    ASSERT_EQ(CollideConvex(box.View(), e.View(), Settings(CcdAlgorithm::kAuto), margin, &con, 1,
                            &counters),
              1)
        << "case " << c << Repro(box, e, margin);
    ASSERT_NEAR(con.dist, gap, 1e-12) << "case " << c << Repro(box, e, margin);
    ASSERT_NEAR(con.normal.z, 1, 1e-12) << "case " << c << Repro(box, e, margin);
    const ConvexGeom gb = box.View(), ge = e.View();
    const Vec3 up = {0, 0, 1};
    ConvexHit hit;
    ASSERT_TRUE(convex::FaceContact(gb, ge, {&gb, 2, up, OverlapAlong(gb, ge, up)}, &hit))
        << "case " << c << Repro(box, e, margin);
    ASSERT_NEAR(hit.dist, gap, 1e-12) << "case " << c << Repro(box, e, margin);
  }
  EXPECT_EQ(counters.face, cases);
  EXPECT_EQ(counters.mpr + counters.gjk + counters.newton, 0);
}

// Found by the soak (MJPORTAL_KERNEL_CASES=200000): a box corner under a cylinder's cap, near its
// rim, lies over the cap but leaves M sooner through the side; the cap's overlap (6.2e-4) is not
// the depth (2.78e-4, the refined sweep's).
TEST(ConvexFace, CornerUnderCapNearRimLeavesThroughTheSide) {
  const double cp[3] = {-0.014378446134289347, 0.26835169828079097, -0.098165000003363589};
  const double cm[9] = {-0.53960919526134998, 0.59122085068867913, -0.59939955130142764,
                        -0.2306357149485356,  0.58090764128661376, 0.78061096538865038,
                        0.80970925854875597,  0.55946779889979137, -0.17710646124477369};
  const double cs[3] = {0.3575658390201138, 0.25115500158415988, 0.29729210178534737};
  const double bp[3] = {-0.35571135586543901, 0.46926060525508762, -0.83649137186340439};
  const double bm[9] = {-0.57464165041217186, -0.55586967894006412, 0.60066286188397311,
                        -0.12361242465861724, 0.78447463567892295,  0.60771663992887237,
                        -0.80901603326608584, 0.27496990019180489,  -0.51950419816101179};
  const double bs[3] = {0.41629258571787697, 0.075875234573177019, 0.052057103153721182};
  OwnedGeom cyl = OwnedGeom::Place(ShapeType::kCylinder, cp, cm, cs);
  OwnedGeom box = OwnedGeom::Place(ShapeType::kBox, bp, bm, bs);
  Contact con;
  double depth = 0;
  ASSERT_TRUE(SolveAgainstSweep(cyl, box, 0, &con, &depth));
  EXPECT_NEAR(-con.dist, depth, 1e-6 * 0.05);
  EXPECT_LT(-con.dist, 2.8e-4);
}

// Found by MJPORTAL_RESTING_CASES=32768 on bench-fast's resting cylinder-box poses: deep
// contacts (beyond kDeepContact) go to EPA, whose polytope creeps over the cylinder; EPA's answer
// was rejected (deeper than MPR's) and MPR's slanted ray stood, 1.3e-3 x size too deep (and
// 4.7e-6 x size on the second pose, EPA's). MPR along the answer's normal now polishes it.
TEST(ConvexDeep, CylinderBoxDeepContactsArePolishedAlongTheirNormal) {
  const PairPose poses[2] = {{{0.32174895783967039, -0.56234262270718205, 0.57573277110507504},
                              {-0.27893288548504219, 0.12922228916088152, -0.9515766103572586,
                               0.076047457952001588, 0.9907654430578251, 0.11225248764045365,
                               0.95729474538097559, -0.041054071983826053, -0.28618409047240895},
                              {0.39042412846368246, 0.24585468658058357, 0.29694792230577005},
                              {0.4337878627664884, -0.39485258485869906, -0.43526137953940736},
                              {0.41769696260817712, -0.38763008823190936, 0.82174945215997863,
                               -0.88189864456227485, -0.39056241136570125, 0.26403746618128093,
                               0.21859558126166551, -0.83498737566835746, -0.50498718233965467},
                              {3.4627228468647759, 0.30636040821711497, 0.58727914113328927},
                              0},
                             {{-0.098512231478384837, -0.031071229977665316, 0.45188307965529817},
                              {-0.74356340283914069, 0.25826738877701266, 0.61677501720852901,
                               0.30893337328603038, 0.9507371884414948, -0.025670398993309473,
                               -0.59302077267865749, 0.17145481739707666, -0.78672079466793243},
                              {0.83750651205404147, 0.33283369543605318, 0.5033194694424693},
                              {-1.1178898353841011, -0.38561350420349011, 1.4741825096249943},
                              {0.90575388930449729, 0.41097273182706057, 0.10349543808487247,
                               0.38176099995123874, -0.68515221669589599, -0.62034263022375813,
                               -0.18403377659007872, 0.60138827196022293, -0.77747264609289635},
                              {0.97358918469145361, 4.9518737223759963, 0.32993866387046861},
                              0.031886474542678664}};
  for (const PairPose& p : poses) {
    OwnedGeom cyl = OwnedGeom::Place(ShapeType::kCylinder, p.ap, p.am, p.as);
    OwnedGeom box = OwnedGeom::Place(ShapeType::kBox, p.bp, p.bm, p.bs);
    Contact con;
    double depth = 0;
    ASSERT_TRUE(SolveAgainstSweep(cyl, box, p.margin, &con, &depth));
    const double smallest = std::min({p.as[0], p.as[1], p.bs[0], p.bs[1], p.bs[2]});
    EXPECT_NEAR(-con.dist, depth, 1e-6 * smallest) << "cylinder at " << p.ap[0];
  }
}

// Found by MJPORTAL_RESTING_CASES=32768 on bench-fast's resting cylinder-box poses: MPR along
// the best normal settled in a local minimum of the overlap, 3.3e-2, 1.1e-2 and 4.3e-4 x size too
// deep (a box edge on the rim where a vertex on the side was shallower; a vertex on the side where
// an edge on the rim was; a cap where an edge on the rim was). The direction now comes from the
// exact search over the overlap's patches (cylinder_box_exit.h).
TEST(ConvexDeep, CylinderBoxAlongNormalFindsTheGlobalMinimum) {
  const PairPose poses[3] = {{{-0.49522261125596978, -0.49997188926611313, -0.29919419097747146},
                              {0.27897434724785519, 0.3094046263520227, -0.90908860446581286,
                               0.95610892748934417, -0.0011588814759829202, 0.2930091735234604,
                               0.089604867907998653, -0.95092977352993358, -0.29614782366497355},
                              {0.85467620228211749, 0.75190186605436526, 0.11056572881380131},
                              {1.0297769502340546, -1.0261144702806664, -1.1685345819015867},
                              {0.56074633008853669, -0.77506225398549511, -0.29127659662108413,
                               -0.7772417707036049, -0.61399534765702568, 0.13749524693258763,
                               -0.28540985120658141, 0.14929238260022543, -0.94670639658332556},
                              {0.79379759812790285, 0.15225188636850404, 0.08753288428844086}},
                             {{-0.48459585020426432, 0.85288862861186754, -0.086242457192575173},
                              {-0.37921169355398643, 0.90156329103127719, 0.20828375773633889,
                               0.42208185691366751, 0.36885245688033175, -0.82812726746415799,
                               -0.82343512041704148, -0.22612274834300816, -0.52040667284881814},
                              {0.11168157100011623, 0.39883129849702614, 0.39841814109675838},
                              {0.17881218499649609, 0.60950964220407899, -0.21586932619198679},
                              {0.16885087000938742, -0.37027666276667481, -0.91344653741061788,
                               0.4209893168479345, -0.81087131424323078, 0.40651655173850587,
                               -0.89121118641822628, -0.4531919071958701, 0.018966192427250617},
                              {0.053757037242401863, 0.25976417612096064, 0.40770796640593987}},
                             {{0.35022517900629557, -0.85534545390793193, 0.44563721925610711},
                              {-0.51521541881666899, 0.78245461622947754, -0.34973968284246049,
                               -0.54447867014154328, 0.016324808382716938, 0.83861581096003879,
                               0.66188824583494477, 0.62249359367984525, 0.41761905590273429},
                              {0.86296181899823277, 0.71222687107314187, 0.28447049377213063},
                              {-0.23359151422406821, -4.4973840381049364, -1.1716739052811447},
                              {0.11068676468245142, -0.39284365059449233, 0.91291966038185646,
                               -0.20368112809460706, -0.90803333449039192, -0.36604570959426413,
                               0.97276021617983532, -0.14542809096544079, -0.18052210993644957},
                              {0.18489620459984163, 3.8206959496203456, 0.23801521029895178}}};
  for (const PairPose& p : poses) {
    OwnedGeom cyl = OwnedGeom::Place(ShapeType::kCylinder, p.ap, p.am, p.as);
    OwnedGeom box = OwnedGeom::Place(ShapeType::kBox, p.bp, p.bm, p.bs);
    Contact con;
    ASSERT_TRUE(Solve(cyl, box, Settings(CcdAlgorithm::kAuto), 0, &con));
    const double depth = ref::CylinderBoxMinOverlap(cyl.View(), box.View());
    const double smallest = std::min({p.as[0], p.as[1], p.bs[0], p.bs[1], p.bs[2]});
    EXPECT_NEAR(-con.dist, depth, 1e-6 * smallest) << "cylinder at " << p.ap[0];
    // The contact's normal is the minimum's: the overlap along it is the depth.
    EXPECT_NEAR(OverlapAlong(cyl.View(), box.View(), con.normal), depth, 1e-6 * smallest);
  }
}

// Found by MJPORTAL_RESTING_CASES=32768 on bench-fast's resting cylinder-cylinder poses (case
// 18557): a rim against a rim, where each MPR round along the best normal removes only about
// 60% of the slant; six rounds left the depth 2.5e-6 x size too deep. The rounds now go on to
// twelve while each gains more than the tolerance.
TEST(ConvexDeep, CylinderCylinderRimOnRimConvergesAlongTheNormal) {
  const PairPose p = {{0.28884299742442288, -0.72975313883617954, 0.48705935477433293},
                      {0.18438844049702049, -0.97876695124691082, -0.089533000384796391,
                       -0.11270388952969079, 0.06943814199792181, -0.99119936325683522,
                       0.9763701840469915, 0.19285642219719751, -0.097507251634636666},
                      {0.94826180741659938, 0.30330771473675716, 0.36661714461985412},
                      {-1.6794990989624821, -0.66101503592239907, 0.59379412779251961},
                      {0.22486803386952708, -0.81787257870959817, -0.52964026691573007,
                       0.47527992549392106, -0.38244752625245182, 0.7923653715842669,
                       -0.85061351962342235, -0.42990502981273981, 0.30271819498596564},
                      {0.69337398882771584, 0.80271184829640729, 0.88188387737082519}};
  OwnedGeom a = OwnedGeom::Place(ShapeType::kCylinder, p.ap, p.am, p.as);
  OwnedGeom b = OwnedGeom::Place(ShapeType::kCylinder, p.bp, p.bm, p.bs);
  Contact con;
  double depth = 0;
  ASSERT_TRUE(SolveAgainstSweep(a, b, 0, &con, &depth));
  const double smallest = std::min({p.as[0], p.as[1], p.bs[0], p.bs[1]});
  EXPECT_NEAR(-con.dist, depth, 1e-6 * smallest);
}

// Found by MJPORTAL_RESTING_CASES=32768 on bench-fast's resting ellipsoid-box poses: an ellipsoid
// ten times thinner than long, aligned with the box, across a box corner. h has a local minimum
// on the box edge (depth 0.01058) and the global one on the corner (0.00977): both deeper than
// the thin ellipsoid's least curvature radius (0.0059), so Newton's edge minimum is not
// certified and the general solvers take the pair. The reference searches the corner's basin
// (its normal, found by a dense sweep) as well as the sweep's and the contact's.
TEST(ConvexDeep, ThinEllipsoidAcrossABoxCornerTakesTheGlobalMinimum) {
  const PairPose p = {{0.84566344525944248, -0.24059251183993124, -0.0032809146274693779},
                      {-0.53255645451986022, 0.43276765923726879, -0.72738970013846871,
                       0.10519927800257731, -0.81888956761098131, -0.56422778021437114,
                       -0.83983137275108544, -0.37700401745365453, 0.39057807947557954},
                      {0.68402144608398552, 0.069976872673648299, 0.83471231670443025},
                      {-0.66775343250885277, -0.52040559881528248, -0.28755556657964326},
                      {-0.53255645451986022, 0.43276765923726879, -0.72738970013846871,
                       0.10519927800257731, -0.81888956761098131, -0.56422778021437114,
                       -0.83983137275108544, -0.37700401745365453, 0.39057807947557954},
                      {0.6517121267838919, 0.31880290601612288, 0.45404018056969347}};
  OwnedGeom e = OwnedGeom::Place(ShapeType::kEllipsoid, p.ap, p.am, p.as);
  OwnedGeom box = OwnedGeom::Place(ShapeType::kBox, p.bp, p.bm, p.bs);
  for (int order = 0; order < 2; ++order) {
    OwnedGeom& a = order == 0 ? e : box;
    OwnedGeom& b = order == 0 ? box : e;
    Contact con;
    double depth = 0;
    ASSERT_TRUE(SolveAgainstSweep(a, b, 0, &con, &depth));
    Vec3 corner = Rotate(p.bm, {0.400016, -0.762821, 0.508027});
    if (order == 1)
      corner = -corner;
    depth = std::min(depth, ref::RefineMinOverlap(a.View(), b.View(), corner));
    EXPECT_NEAR(depth, 0.0097716, 1e-7);
    EXPECT_NEAR(-con.dist, depth, 1e-6 * p.as[1]) << "order " << order;
  }
}

// Two slabs crossing at a corner with equal overlaps along both of their thin axes (the walls of
// a bin meeting at a corner, as a distance query sees them; found by GeomDistanceTest on
// models/bench/mixed_bin.xml): M is mirror-symmetric about a plane through the origin, which
// lies on the edge between M's two faces of least depth. MPR's centre ray runs along that edge
// and left no tetrahedron, and GJK stopped with the origin on a segment: EPA had no start and the
// edge's depth stood, w·√2 where the overlap is w along either axis. EPA now starts from GJK's
// segment raised to a tetrahedron (epa::RaiseToTetrahedron). Boxes and a box mesh, in table
// order and swapped, at overlaps from 1e-3 to 0.2 of the slab, in place (where the symmetry is
// exact) and turned and moved as a whole (where rounding breaks it).
TEST(ConvexDeep, SlabsCrossingAtACornerWithEqualOverlapsGetTheirFaceDepth) {
  RandomGeometry s(20261207);
  for (int trial = 0; trial < 200; ++trial) {
    const double thick = s.Uniform(0.005, 0.05), length = s.Uniform(0.1, 0.5);
    const double height = s.Uniform(0.05, 0.5);
    const double w = thick * 2 * std::pow(10.0, s.Uniform(-3, std::log10(0.2)));
    // Slab A runs along y, slab B along x; each one's thin side reaches w past the other's end
    // face (A spans x from length − w, B's end is at x = length; the same with x and y swapped).
    double pos_a[3] = {length + thick - w, 0, height};
    double pos_b[3] = {0, length + thick - w, height};
    const double size_a[3] = {thick, length, height}, size_b[3] = {length, thick, height};
    double mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (trial % 2 == 1) {
      s.Rotation(mat);
      const Vec3 shift = {s.Uniform(-1, 1), s.Uniform(-1, 1), s.Uniform(-1, 1)};
      const Vec3 a = Rotate(mat, Load3(pos_a)) + shift, b = Rotate(mat, Load3(pos_b)) + shift;
      Store3(pos_a, a);
      Store3(pos_b, b);
    }
    OwnedGeom slab_a = OwnedGeom::Place(ShapeType::kBox, pos_a, mat, size_a);
    OwnedGeom slab_b = OwnedGeom::Place(ShapeType::kBox, pos_b, mat, size_b);
    if (trial % 4 >= 2) {
      OwnedGeom mesh = BoxMesh(length, thick, height);
      std::copy(pos_b, pos_b + 3, mesh.pos);
      std::copy(mat, mat + 9, mesh.mat);
      slab_b = mesh;
    }
    const double expected = ref::MinOverlap(slab_a.View(), slab_b.View(),
                                            {Column(mat, 0), Column(mat, 1), Column(mat, 2)});
    ASSERT_NEAR(expected, w, 1e-6 * length) << "trial " << trial;
    for (CcdAlgorithm algorithm : {CcdAlgorithm::kAuto, CcdAlgorithm::kGjk}) {
      for (int order = 0; order < 2; ++order) {
        OwnedGeom& a = order == 0 ? slab_a : slab_b;
        OwnedGeom& b = order == 0 ? slab_b : slab_a;
        Contact con;
        ASSERT_TRUE(Solve(a, b, Settings(algorithm), 0, &con)) << "trial " << trial;
        EXPECT_NEAR(-con.dist, expected, 1e-9 * length)
            << "trial " << trial << " ccd " << static_cast<int>(algorithm) << " order " << order
            << "\n"
            << Repro(a, b, 0);
      }
    }
  }
}

// Found by the random-scene fuzz test (tests/plugin/fast_scene_fuzz_test.cc, seed 20261231,
// ccd = gjk): a cylinder resting on a tetrahedron, at the scene's solver settings (35 iterations,
// tolerance 1e-6). EPA's test of every face against the new point removed a face apart from the
// patch that sees it (its rim was no longer one loop), the polytope stopped being a closed convex
// surface and its nearest face turned over: EPA ended unconverged with a normal pointing the
// wrong way, whose overlap, 0.248, ccd = gjk took where the contact is 0.004 deep. EPA now grows
// the patch across shared edges from the nearest face and converges here; ccd = gjk no longer
// takes an unconverged EPA answer without comparing it with MPR's.
TEST(ConvexDeep, EpaStaysAClosedPolytopeOnACylinderRestingOnATetrahedron) {
  const PairPose p = {{-0x1.75ee10293aa86p-3, 0x1.43a4c31771126p-4, 0x1.3f6159693ddf2p-3},
                      {0x1.ff0035ed34eafp-1, -0x1.0de569aefb783p-5, -0x1.b28b5a155e62cp-5,
                       0x1.fddef1ce92e2dp-5, 0x1.2fd59b9734f47p-1, 0x1.9ade683f67bf4p-1,
                       0x1.4a467e415f74cp-8, -0x1.9bc1e1125c788p-1, 0x1.304a96e14a659p-1},
                      {0x1.0a7829ab76c61p-4, 0x1.67a56a437be6ep-4, 0},
                      {-0x1.35535ed333333p-3, -0x1.d80ef0000000cp-11, 0x1.96a2a0999999ap-5},
                      {0x1.327b71787b244p-1, -0x1.0cab70903c22p-1, -0x1.35e2c93e3c389p-1,
                       0x1.278c553afa8cap-1, 0x1.9ce505647e1ecp-1, -0x1.06b40b9f27899p-3,
                       0x1.1c5da860c57bdp-1, -0x1.1721bc62bb436p-2, 0x1.923ed7b4dadcp-1},
                      {0, 0, 0},
                      0.0019023609};
  OwnedGeom cyl = OwnedGeom::Place(ShapeType::kCylinder, p.ap, p.am, p.as);
  OwnedGeom tet = OwnedGeom::Place(ShapeType::kMesh, p.bp, p.bm, p.bs);
  tet.vert = {0.0167364236f, -0.0571389347f, -0.068067275f,   0.0161834024f,
              0.0874833018f, -0.0149181886f, 0.0150646493f,   -0.0303816255f,
              0.0850550085f, -0.0479844734f, 3.72555478e-05f, -0.00206954312f};
  ConvexSettings scene;
  scene.max_iterations = 35;
  scene.tolerance = 1e-6;
  // EPA from GJK's enclosing simplex converges to the least overlap.
  const GjkResult g = GjkDistance(cyl.View(), tet.View(), 35, 1e-6, 1e300);
  ASSERT_EQ(g.status, GjkStatus::kOverlap);
  ASSERT_EQ(g.simplex.n, 4);
  const EpaResult e = EpaPenetration(cyl.View(), tet.View(), g.simplex.p, 35, 1e-6);
  ASSERT_TRUE(e.ok);
  EXPECT_TRUE(e.converged);
  const double depth = ref::SweepMinOverlap(cyl.View(), tet.View(), 4000, &e.normal);
  EXPECT_NEAR(depth, 0.00399, 1e-5);  // 4 mm (the bad answer: 0.248)
  EXPECT_NEAR(e.depth, depth, 1e-6);
  for (CcdAlgorithm algorithm : {CcdAlgorithm::kAuto, CcdAlgorithm::kMpr, CcdAlgorithm::kGjk}) {
    scene.algorithm = algorithm;
    Contact con;
    ASSERT_TRUE(Solve(cyl, tet, scene, p.margin, &con));
    EXPECT_NEAR(-con.dist, depth, 1e-6) << "ccd " << static_cast<int>(algorithm);
  }
}

// ---- Multi-contact ---------------------------------------------------------------------------

// A small box (or box mesh) resting on a large box, turned about the vertical: the bottom face's
// four corners are found, each with the exact penetration, by clipping and by perturbation.
TEST(ConvexMultiContact, RestingBoxGetsItsFourCorners) {
  RandomGeometry s(1009);
  for (int run = 0; run < 4; ++run) {
    const bool mesh = run % 2 == 1;
    const ManifoldMethod method = run < 2 ? ManifoldMethod::kClip : ManifoldMethod::kPerturb;
    for (int c = 0; c < 200; ++c) {
      OwnedGeom ground = RandomPrimitive(s, ShapeType::kBox, 0);
      ground.size[0] = ground.size[1] = 2;
      ground.size[2] = 0.5;
      const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      std::copy(eye, eye + 9, ground.mat);
      Store3(ground.pos, {0, 0, -0.5});
      const double e[3] = {0.125, 0.25, 0.0625};
      OwnedGeom top = mesh ? BoxMesh(e[0], e[1], e[2]) : OwnedGeom{};
      top.type = mesh ? ShapeType::kMesh : ShapeType::kBox;
      std::copy(e, e + 3, top.size);
      const double yaw = s.Uniform(-M_PI, M_PI), pen = s.Uniform(1e-4, 1e-2);
      const double m[9] = {
          std::cos(yaw), -std::sin(yaw), 0, std::sin(yaw), std::cos(yaw), 0, 0, 0, 1};
      std::copy(m, m + 9, top.mat);
      Store3(top.pos, {s.Uniform(-1, 1), s.Uniform(-1, 1), e[2] - pen});
      Contact con[kMaxConvexContacts];
      ConvexCounters counters;
      ConvexSettings settings = Settings(CcdAlgorithm::kAuto, true);
      settings.manifold = method;
      const int n =
          CollideConvex(ground.View(), top.View(), settings, 0, con, kMaxConvexContacts, &counters);
      ASSERT_GE(n, 4) << "case " << c << Repro(ground, top, 0);
      // Every corner of the bottom face is matched by a contact with the exact depth.
      for (int k = 0; k < 4; ++k) {
        const Vec3 local = {k & 1 ? e[0] : -e[0], k & 2 ? e[1] : -e[1], -e[2]};
        const Vec3 corner = Rotate(top.mat, local) + Load3(top.pos);
        bool found = false;
        for (int i = 0; i < n; ++i) {
          const Vec3 d = con[i].pos - corner;
          if (std::hypot(d.x, d.y) < 1e-6 && std::fabs(con[i].dist + pen) < 1e-9)
            found = true;
        }
        ASSERT_TRUE(found) << "corner " << k << " case " << c << Repro(ground, top, 0);
      }
      EXPECT_EQ(counters.perturbed, method == ManifoldMethod::kPerturb ? 4 : 0);
      EXPECT_EQ(counters.clipped, method == ManifoldMethod::kClip ? 1 : 0);
    }
  }
}

// Clipped patches of curved geoms on a box face: an upright cylinder gets points of its bottom
// rim, a lying cylinder and a lying capsule the two ends of their bottom line, each with the
// exact penetration and the face normal.
TEST(ConvexMultiContact, ClippedPatchesOfCylindersAndCapsules) {
  RandomGeometry s(1013);
  for (long c = 0; c < 300; ++c) {
    OwnedGeom ground;
    ground.type = ShapeType::kBox;
    ground.size[0] = ground.size[1] = 2;
    ground.size[2] = 0.5;
    Store3(ground.pos, {0, 0, -0.5});
    const int kind = c % 3;  // 0: upright cylinder, 1: lying cylinder, 2: lying capsule
    OwnedGeom top;
    top.type = kind == 2 ? ShapeType::kCapsule : ShapeType::kCylinder;
    top.size[0] = s.Uniform(0.05, 0.3);
    top.size[1] = s.Uniform(0.05, 0.5);
    const double yaw = s.Uniform(-M_PI, M_PI), pen = s.Uniform(1e-4, 1e-2) * top.size[0];
    const double cy = std::cos(yaw), sy = std::sin(yaw);
    // Upright: the axis is z. Lying: the axis turns to horizontal (cy, sy, 0).
    const double upright[9] = {cy, -sy, 0, sy, cy, 0, 0, 0, 1};
    const double lying[9] = {0, -sy, cy, 0, cy, sy, -1, 0, 0};
    std::copy(kind == 0 ? upright : lying, (kind == 0 ? upright : lying) + 9, top.mat);
    const double lift = kind == 0 ? top.size[1] : top.size[0];
    Store3(top.pos, {s.Uniform(-1, 1), s.Uniform(-1, 1), lift - pen});
    Contact con[kMaxConvexContacts];
    ConvexCounters counters;
    const int n = CollideConvex(ground.View(), top.View(), Settings(CcdAlgorithm::kAuto, true), 0,
                                con, 4, &counters);
    ASSERT_EQ(n, kind == 0 ? 4 : 2) << "case " << c << Repro(ground, top, 0);
    ASSERT_EQ(counters.clipped, 1) << "case " << c << Repro(ground, top, 0);
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(con[i].dist, -pen, 1e-9) << "case " << c << Repro(ground, top, 0);
      ASSERT_NEAR(con[i].normal.z, 1, 1e-9) << "case " << c << Repro(ground, top, 0);
      // Each point lies on the bottom rim (upright) or at an end of the bottom line (lying).
      const Vec3 local = RotateT(top.mat, con[i].pos - Load3(top.pos));
      if (kind == 0) {
        ASSERT_NEAR(std::hypot(local.x, local.y), top.size[0], 1e-9);
      } else {
        ASSERT_NEAR(std::fabs(local.z), top.size[1], 1e-9);
      }
    }
  }
}

// Two side lines crossing at a small angle α: cylinders or capsules lying across each other, the
// lower one (A, radius r_A, half-length h_A) along x, the upper (B) along (cos α, sin α, 0), its
// centre above A's and sunk by δ. Their surfaces overlap along A's whole length when δ exceeds the
// gap the curvature opens at A's ends, about (h_A sin α)² / 2(r_A + r_B); then the patch holds
// both ends (x = ±h_A), each at the surfaces' local depth there: the least over y of the
// vertical gap between B's bottom and A's top at that x, by golden section (exact to the
// section's precision; the patch's formula is second order, so within 5% of the curvature gap).
// With δ below that gap the ends stay apart and the first contact stands alone. Before the
// twenty-second session two side lines more than 1° apart kept only their crossing point: two
// cylinders lying side by side a few degrees apart pivoted on one contact.
TEST(ConvexMultiContact, SideLinesAtAnAngleTouchAlongTheirOverlap) {
  RandomGeometry s(1027);
  const long cases = Cases() / 20;
  for (long c = 0; c < cases; ++c) {
    OwnedGeom a, b;
    a.type = c % 3 == 2 ? ShapeType::kCapsule : ShapeType::kCylinder;
    b.type = c % 2 == 1 ? ShapeType::kCapsule : ShapeType::kCylinder;
    a.size[0] = s.Uniform(0.02, 0.2);
    b.size[0] = s.Uniform(0.02, 0.2);
    a.size[1] = s.Uniform(0.05, 0.3);
    // α from 1.5° to 10°, small enough that A's ends lie within 0.3 radii of B's line (where the
    // second-order gap holds to about 2%).
    const double widest = std::asin(0.3 * std::min(a.size[0], b.size[0]) / a.size[1]);
    const double alpha = std::min(s.Uniform(1.5, 10) * M_PI / 180, widest);
    const double ca = std::cos(alpha), sa = std::sin(alpha);
    b.size[1] = a.size[1] / ca + s.Uniform(0.02, 0.2);  // B reaches past A's ends
    const double bend = a.size[0] + b.size[0];
    const double end_gap = std::pow(a.size[1] * sa, 2) / (2 * bend);
    const bool touching = c % 4 != 3;
    const double delta = end_gap * (touching ? s.Uniform(1.5, 4) : s.Uniform(0.2, 0.7));
    // Axes: A's z to x; B's z to (cos α, sin α, 0).
    const double ma[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0};
    const double mb[9] = {0, -sa, ca, 0, ca, sa, -1, 0, 0};
    std::copy(ma, ma + 9, a.mat);
    std::copy(mb, mb + 9, b.mat);
    const double top = a.size[0] + b.size[0] - delta;  // B's axis height
    Store3(b.pos, {0, 0, top});
    Contact con[kMaxConvexContacts];
    ConvexCounters counters;
    const int n = CollideConvex(a.View(), b.View(), Settings(CcdAlgorithm::kAuto, true), 0, con, 4,
                                &counters);
    ASSERT_GE(n, 1) << "case " << c << Repro(a, b, 0);
    // The vertical gap at (x, y) between B's bottom and A's top (infinite sides).
    const auto gap = [&](double x, double y) {
      const double lateral_b = -x * sa + y * ca;
      return top - std::sqrt(b.size[0] * b.size[0] - lateral_b * lateral_b) -
             std::sqrt(a.size[0] * a.size[0] - y * y);
    };
    // The least gap over y at x, by golden section between A's line (y = 0) and B's (y = x tan α),
    // the minima of the two convex terms.
    const auto local_depth = [&](double x) {
      double lo = std::min(0.0, x * sa / ca), hi = std::max(0.0, x * sa / ca);
      for (int it = 0; it < 200; ++it) {
        const double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966;
        (gap(x, m1) < gap(x, m2) ? hi : lo) = gap(x, m1) < gap(x, m2) ? m2 : m1;
      }
      return gap(x, 0.5 * (lo + hi));
    };
    int ends = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(con[i].normal.z, 1, 1e-6) << "case " << c << Repro(a, b, 0);
      ASSERT_GE(con[i].dist, -delta - 1e-9) << "case " << c << Repro(a, b, 0);
      const double x = con[i].pos.x;
      if (std::fabs(std::fabs(x) - a.size[1]) > 1e-6 * a.size[1])
        continue;  // the crossing point (the first contact)
      ++ends;
      ASSERT_NEAR(con[i].dist, local_depth(x), 0.05 * end_gap + 1e-12)
          << "case " << c << " x " << x << Repro(a, b, 0);
    }
    ASSERT_EQ(ends, touching ? 2 : 0) << "case " << c << Repro(a, b, 0);
    ASSERT_EQ(n, touching ? 3 : 1) << "case " << c << Repro(a, b, 0);
  }
}

// A cylinder standing on a wider one, cap on cap, either geom first: the clipped patch is the
// smaller cap's rim polygon (inside the wider cap), whichever cap is the reference, each point
// with the exact penetration. A cap polygon in the wrong turn would clip everything away.
TEST(ConvexMultiContact, CapOnCapKeepsTheSmallerRim) {
  RandomGeometry s(1021);
  for (long c = 0; c < 400; ++c) {
    OwnedGeom lower, upper;
    lower.type = upper.type = ShapeType::kCylinder;
    const double wide = s.Uniform(0.2, 0.5), narrow = wide * s.Uniform(0.2, 0.5);
    const bool narrow_below = c % 2 == 1;
    lower.size[0] = narrow_below ? narrow : wide;
    upper.size[0] = narrow_below ? wide : narrow;
    lower.size[1] = s.Uniform(0.05, 0.3);
    upper.size[1] = s.Uniform(0.05, 0.3);
    for (OwnedGeom* g : {&lower, &upper}) {
      const double yaw = s.Uniform(-M_PI, M_PI), cy = std::cos(yaw), sy = std::sin(yaw);
      const double m[9] = {cy, -sy, 0, sy, cy, 0, 0, 0, 1};
      std::copy(m, m + 9, g->mat);
    }
    const double pen = s.Uniform(1e-4, 1e-2) * narrow;
    const double offset = 0.3 * wide;
    Store3(lower.pos, {0, 0, -lower.size[1]});
    Store3(upper.pos, {s.Uniform(-offset, offset) / std::sqrt(2.0),
                       s.Uniform(-offset, offset) / std::sqrt(2.0), upper.size[1] - pen});
    const bool lower_first = c % 4 < 2;
    OwnedGeom& a = lower_first ? lower : upper;
    OwnedGeom& b = lower_first ? upper : lower;
    Contact con[kMaxConvexContacts];
    ConvexCounters counters;
    const int n = CollideConvex(a.View(), b.View(), Settings(CcdAlgorithm::kAuto, true), 0, con, 4,
                                &counters);
    ASSERT_EQ(n, 4) << "case " << c << Repro(a, b, 0);
    ASSERT_EQ(counters.clipped, 1) << "case " << c << Repro(a, b, 0);
    const OwnedGeom& small = narrow_below ? lower : upper;
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(con[i].dist, -pen, 1e-9) << "case " << c << Repro(a, b, 0);
      ASSERT_NEAR(std::fabs(con[i].normal.z), 1, 1e-9) << "case " << c << Repro(a, b, 0);
      const Vec3 local = RotateT(small.mat, con[i].pos - Load3(small.pos));
      ASSERT_NEAR(std::hypot(local.x, local.y), narrow, 1e-9) << "case " << c << Repro(a, b, 0);
    }
  }
}

// A cylinder cap comes out of RawFeature already ordered (no hull pass): its rim polygon must
// turn counter-clockwise about n whether the cylinder is geom A (along n) or B (along −n), and
// whichever way its axis points.
TEST(ConvexMultiContact, CapPolygonTurnsCounterClockwiseAboutTheNormal) {
  RandomGeometry s(1022);
  for (long c = 0; c < 400; ++c) {
    OwnedGeom cylinder = RandomPrimitive(s, ShapeType::kCylinder, 0);
    const Vec3 axis = Column(cylinder.mat, 2);
    const double side = c % 2 == 0 ? 1 : -1;  // A: the feature along n; B: along −n
    const double flip = c % 4 < 2 ? 1 : -1;   // the cap the normal meets
    const Vec3 n = axis * (side * flip);
    ContactFrame frame;
    frame.n = n;
    TangentFrame(n, &frame.t1, &frame.t2);
    RawPoints raw;
    manifold::RawFeature(cylinder.View(), n, side, 1e-3, &raw);
    ASSERT_TRUE(raw.ordered) << "case " << c;
    ASSERT_EQ(raw.count, kCapSides) << "case " << c;
    SupportFeature f;
    manifold::Project(cylinder.View().view, raw, frame, &f);
    for (int i = 0; i < f.count; ++i) {
      const int j = (i + 1) % f.count, k = (i + 2) % f.count;
      ASSERT_GT(manifold::Cross2(f.u[i], f.v[i], f.u[j], f.v[j], f.u[k], f.v[k]), 0)
          << "case " << c << " side " << side << " flip " << flip;
    }
  }
}

// Curved hulls (200 points on an ellipsoid, like a pebble) resting on each other: the clipped
// patch must keep the contact's full depth. Each support feature is the hull's cap within the
// band (up to the depth above its deepest vertex); where a cap holds more vertices than a feature
// keeps (16), some stay out — on a hull graph the spread extremes ring the cap, on these meshes
// without one the scan keeps the first 16 — and when the deepest vertex is among them the patch's
// points can all lie far shallower than the overlap. The deepest point of the patch must be the
// overlap along its normal (brute force over both vertex sets) and the one-contact answer's depth.
TEST(ConvexMultiContact, CurvedHullPatchKeepsTheFullDepth) {
  RandomGeometry s(1031);
  auto pebble = [&s](double ax, double ay, double az) {
    OwnedGeom g;
    g.type = ShapeType::kMesh;
    for (int i = 0; i < 200; ++i) {
      const Vec3 d = s.Direction();
      g.vert.insert(g.vert.end(), {float(ax * d.x), float(ay * d.y), float(az * d.z)});
    }
    return g;
  };
  int patches = 0;
  const long cases = std::max(2L, Cases() / 50);
  for (long c = 0; c < cases; ++c) {
    OwnedGeom a = pebble(0.05, 0.035, 0.025), b = pebble(0.04, 0.04, 0.03);
    s.Rotation(a.mat);
    s.Rotation(b.mat);
    Store3(a.pos, {0, 0, 0});
    // B along a random direction: first touching (bisection on the solver's verdict), then
    // pressed in by a resting contact's depth, 0.1 to 3 mm.
    const Vec3 dir = s.Direction();
    Contact one;
    double touch = 0, apart = 0.2;
    for (int k = 0; k < 40; ++k) {
      const double mid = 0.5 * (touch + apart);
      Store3(b.pos, dir * mid);
      (Solve(a, b, Settings(CcdAlgorithm::kAuto), 0, &one) ? touch : apart) = mid;
    }
    Store3(b.pos, dir * (apart - s.Uniform(1e-4, 3e-3)));
    if (!Solve(a, b, Settings(CcdAlgorithm::kAuto), 0, &one))
      continue;
    Contact con[kMaxConvexContacts];
    ConvexCounters counters;
    const int n = CollideConvex(a.View(), b.View(), Settings(CcdAlgorithm::kAuto, true), 0, con, 4,
                                &counters);
    ASSERT_GE(n, 1) << "case " << c << Repro(a, b, 0);
    patches += n > 1;
    double deepest = con[0].dist;
    for (int i = 1; i < n; ++i)
      deepest = std::min(deepest, con[i].dist);
    // Overlap of the two vertex sets along the patch's normal (A's highest minus B's lowest).
    const Vec3 normal = con[0].normal;
    double top_a = -1e300, low_b = 1e300;
    for (const Vec3& p : a.Points())
      top_a = std::max(top_a, Dot(normal, Rotate(a.mat, p) + Load3(a.pos)));
    for (const Vec3& p : b.Points())
      low_b = std::min(low_b, Dot(normal, Rotate(b.mat, p) + Load3(b.pos)));
    ASSERT_NEAR(-deepest, top_a - low_b, 1e-9) << "case " << c << " n " << n << Repro(a, b, 0);
    ASSERT_NEAR(deepest, one.dist, 1e-9) << "case " << c << " n " << n << Repro(a, b, 0);
  }
  EXPECT_GT(patches, cases / 8);
}

// Found by the random-scene fuzz test (tests/plugin/fast_scene_fuzz_test.cc, seed 20262054,
// manifold = perturb): a nearly flat hull (40 points squashed to 4% thickness) 2 cm deep in a
// wall. Re-solves under the perturbation ended with the origin's projection outside MPR's final
// portal, whose extrapolated witness points lay outside the geoms: four contacts 0.093-0.095 deep
// replaced the first one, 0.020 deep. No point of the patch is deeper than the overlap along the
// first normal (A's support against B's along it); such re-solves are now dropped.
TEST(ConvexMultiContact, PerturbedContactsAreNoDeeperThanTheOverlapAlongTheNormal) {
  const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double wall_pos[3] = {-0x1.6666666666666p-2, 0, 0x1.3333333333333p-3};
  const double wall_size[3] = {0x1.47ae147ae147bp-6, 0x1.6666666666666p-2, 0x1.3333333333333p-3};
  const double hull_pos[3] = {-0x1.56ec83df29fafp-2, -0x1.6b548a5606673p-3, 0x1.9b27d6014e89dp-4};
  const double hull_mat[9] = {0x1.dd4265ca22a02p-1, -0x1.727d0fa0adfbbp-2, -0x1.cdc92e32009b0p-7,
                              0x1.5f65d506cbb3ap-3, 0x1.e713d293d28acp-2,  -0x1.b9b7f9ab6c9ccp-1,
                              0x1.467f13442bb46p-2, 0x1.9a823f5f14c56p-1,  0x1.02cc5e8a4e8a6p-1};
  const double no_size[3] = {0, 0, 0};
  OwnedGeom wall = OwnedGeom::Place(ShapeType::kBox, wall_pos, eye, wall_size);
  OwnedGeom hull = OwnedGeom::Place(ShapeType::kMesh, hull_pos, hull_mat, no_size);
  hull.vert = {
      -0.0005698881f,   0.0153420838f,    -0.0337474011f,  -0.000516190485f, -0.0126557248f,
      -0.0359261781f,   -0.000660322839f, 0.0132384086f,   0.0356203988f,    -0.000712356879f,
      -0.0241822097f,   -0.0272721071f,   -0.00065875001f, 0.0364567526f,    0.00341646629f,
      0.00125184387f,   -0.0242398642f,   -0.00454122247f, -2.81612865e-05f, -0.0292186216f,
      0.0284559f,       0.000100241457f,  -0.0298892986f,  0.0272864345f,    -0.00162693474f,
      0.00151360082f,   0.00328573422f,   0.000371405884f, 0.00462922547f,   -0.0397898816f,
      -0.00143206364f,  -0.00231255684f,  -0.0176625811f,  0.00120497064f,   -0.0229704529f,
      0.0109126838f,    -0.000134230577f, 0.013730824f,    -0.0378365666f,   0.00127414579f,
      0.0220893417f,    -0.0174761284f,   0.000351564464f, -0.00884043705f,  -0.0389457233f,
      0.000809800404f,  0.00498354482f,   -0.036099039f,   0.000612134405f,  0.0112811113f,
      0.0359886549f,    -0.000543530507f, -0.00634197099f, 0.0388797298f,    0.000560589076f,
      -0.0357110575f,   0.0105239293f,    0.00109029503f,  0.0296770278f,    -0.013436988f,
      -0.00142712041f,  0.00882374402f,   -0.014731531f,   -0.000315527723f, 0.0396994203f,
      -0.000798883149f, -0.00161212333f,  0.00451026345f,  0.00266187568f,   0.00130393694f,
      0.0200692173f,    0.0158172995f,    0.000765919685f, -0.0216189064f,   -0.0286863223f,
      0.00159400166f,   -0.00629846193f,  0.00276023708f,  -0.00133255043f,  -0.0251138322f,
      0.00483216206f,   -0.000498362759f, -0.0247126538f,  -0.0296109933f,   -0.000126384868f,
      0.00441180216f,   0.0408125296f,    0.000296349172f, -0.0038846049f,   -0.0400437005f,
      0.000729679654f,  -0.00971850846f,  0.0341957696f,   -0.000835565501f, 0.0178685375f,
      -0.0282055009f,   -0.00151063618f,  -0.0164031181f,  -0.003790688f,    -0.000386800064f,
      0.00362190534f,   0.0401165187f,    0.0013933595f,   -0.0164362267f,   0.00943323597f,
      -0.00146512501f,  -0.0173393935f,   0.0113402456f,   -0.00142007042f,  0.0100727845f,
      -0.0142637361f,   -0.00102354435f,  0.0248119384f,   -0.0165545829f,   -0.000349839334f,
      0.0290173795f,    0.0276625529f,    0.000753482396f, -0.034578871f,    -0.00617614435f};
  ConvexSettings settings;  // the scene's: 35 iterations, tolerance 1e-6
  settings.manifold = ManifoldMethod::kPerturb;
  Contact con[kMaxConvexContacts];
  ConvexCounters counters;
  const int n = CollideConvex(wall.View(), hull.View(), settings, 0, con, 4, &counters);
  ASSERT_GE(n, 1);
  EXPECT_EQ(counters.perturbed, 4);
  const double depth = ref::SweepMinOverlap(wall.View(), hull.View(), 4000, &con[0].normal);
  EXPECT_NEAR(depth, 0.0195, 1e-3);  // the bad contacts: 0.093-0.095
  const double overlap = OverlapAlong(wall.View(), hull.View(), con[0].normal);
  for (int i = 0; i < n; ++i) {
    EXPECT_GE(con[i].dist, -overlap - 1e-12) << "contact " << i;
    EXPECT_LE(-con[i].dist, depth + 1e-3) << "contact " << i;
  }
}

TEST(ConvexMultiContact, NeverExceedsCapacity) {
  RandomGeometry s(1010);
  for (int c = 0; c < 500; ++c) {
    OwnedGeom a = RandomPrimitive(s, ShapeType::kBox, 0.2);
    OwnedGeom b = RandomPrimitive(s, ShapeType::kCylinder, 0.2);
    for (int capacity = 1; capacity <= kMaxConvexContacts; ++capacity) {
      Contact con[kMaxConvexContacts + 1];
      con[capacity].dist = 12345;
      ConvexCounters counters;
      const int n = CollideConvex(a.View(), b.View(), Settings(CcdAlgorithm::kAuto, true), 0.01,
                                  con, capacity, &counters);
      ASSERT_LE(n, capacity);
      ASSERT_EQ(con[capacity].dist, 12345);
      for (int i = 0; i < n; ++i)
        ASSERT_LE(con[i].dist, 0.01);
    }
  }
}

// ---- Temporal coherence ----------------------------------------------------------------------

// Pair c of the coherence tests (mesh–mesh, box–mesh, cylinder–box, ellipsoid–mesh, capsule–mesh
// in turn; every third mesh B with a field), B placed along `dir` from A at the distance where they
// start touching (bisection), which is returned.
double TouchingHintPair(RandomGeometry& s, int c, const Vec3& dir, OwnedGeom* a, OwnedGeom* b) {
  const ShapeType kinds[][2] = {{ShapeType::kMesh, ShapeType::kMesh},
                                {ShapeType::kBox, ShapeType::kMesh},
                                {ShapeType::kCylinder, ShapeType::kBox},
                                {ShapeType::kEllipsoid, ShapeType::kMesh},
                                {ShapeType::kCapsule, ShapeType::kMesh}};
  const ShapeType* kind = kinds[c % 5];
  *a = kind[0] == ShapeType::kMesh ? RandomHull(s, 12 + c % 20, 0.3, 0.0)
                                   : RandomPrimitive(s, kind[0], 0.0);
  *b = kind[1] == ShapeType::kMesh ? RandomHull(s, 12 + c % 17, 0.3, 0.0)
                                   : RandomPrimitive(s, kind[1], 0.0);
  if (c % 3 == 0 && b->type == ShapeType::kMesh)
    b->BuildField(32);
  const ConvexSettings settings;
  double distance = 0.0, lo = 0, hi = 3;
  for (int it = 0; it < 50; ++it) {
    distance = 0.5 * (lo + hi);
    Store3(b->pos, dir * distance);
    ConvexCounters counters;
    Contact probe[kMaxConvexContacts];
    const bool touching = CollideConvex(a->View(), b->View(), settings, 0, probe, 1, &counters) > 0;
    (touching ? lo : hi) = distance;
  }
  return distance;
}

// One call of a pair with its hint kept between calls (counted in *counted), checked against the
// same call without the hint: the contacts must agree in every bit. Returns the contact count.
int CollideHintedAndPlain(OwnedGeom& a, OwnedGeom& b, const ConvexSettings& settings, double margin,
                          SeparationHint* hint, ConvexCounters* counted) {
  Contact with[kMaxConvexContacts] = {}, without[kMaxConvexContacts] = {};
  ConvexCounters plain;
  const int n_with =
      CollideConvex(a.View(), b.View(), settings, margin, with, kMaxConvexContacts, counted, hint);
  const int n_without =
      CollideConvex(a.View(), b.View(), settings, margin, without, kMaxConvexContacts, &plain);
  EXPECT_EQ(n_with, n_without) << Repro(a, b, margin);
  EXPECT_EQ(std::memcmp(with, without, sizeof(Contact) * std::min(n_with, n_without)), 0)
      << Repro(a, b, margin);
  return n_with;
}

// The caller's per-pair separating axis changes the cost, never the answer: a pair jittering in
// and out of contact over many calls gets bitwise the same contacts with the axis kept between
// calls as without it.
TEST(ConvexAxisHint, NeverChangesTheAnswer) {
  RandomGeometry s(4242);
  long hinted = 0, calls = 0, hits = 0;
  const int pairs = static_cast<int>(Cases() / 400) + 5;
  for (int c = 0; c < pairs; ++c) {
    OwnedGeom a, b;
    // Start just out of reach along a random direction, then jitter across the contact.
    const Vec3 dir = s.Direction();
    const double distance = TouchingHintPair(s, c, dir, &a, &b);
    SeparationHint hint;
    for (int step = 0; step < 200; ++step) {
      Store3(b.pos, dir * (distance + s.Uniform(-0.004, 0.006)) + s.Point(0.002));
      const double margin = step % 7 == 0 ? s.Uniform(0, 0.01) : 0.0;
      ConvexSettings settings;
      settings.multicontact = true;
      ConvexCounters counted;
      const int n = CollideHintedAndPlain(a, b, settings, margin, &hint, &counted);
      ASSERT_FALSE(::testing::Test::HasFailure()) << "pair " << c << " step " << step;
      hinted += counted.axis_hint + counted.axis_bound;
      hits += n > 0;
      ++calls;
    }
  }
  // The sample must exercise both: calls ended by the axis (its check or its gap bound), and
  // contacts.
  EXPECT_GT(hinted, calls / 10);
  EXPECT_GT(hits, calls / 10);
}

// Geom g turned by `angle` about a random axis (about its own origin) and moved by `shift`.
void Nudge(RandomGeometry& s, OwnedGeom& g, double angle, const Vec3& shift) {
  double rot[9], mat[9];
  convex::AxisRotation(s.Direction(), angle, rot);
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) {
      mat[3 * row + col] = rot[3 * row] * g.mat[col] + rot[3 * row + 1] * g.mat[3 + col] +
                           rot[3 * row + 2] * g.mat[6 + col];
    }
  }
  std::copy(mat, mat + 9, g.mat);
  Store3(g.pos, Load3(g.pos) + shift);
}

// GapDrift bounds how far a geom's support value along n moves between two poses: for every
// shape, turns of 1e-6 to 1 rad and moves of 1e-7 to 0.1, the support values (SupportExtent, the
// hint check's) at both poses differ by no more than the drift from the earlier pose.
TEST(ConvexAxisHint, GapDriftBoundsHowFarASupportMoves) {
  RandomGeometry s(20261207);
  const ShapeType kinds[] = {ShapeType::kSphere,   ShapeType::kCapsule, ShapeType::kEllipsoid,
                             ShapeType::kCylinder, ShapeType::kBox,     ShapeType::kMesh};
  const long cases = Cases() / 4;
  long loose = 0;
  for (long c = 0; c < cases; ++c) {
    const ShapeType type = kinds[c % 6];
    OwnedGeom g = type == ShapeType::kMesh ? RandomHull(s, 8 + static_cast<int>(c % 60), 0.3, 1.0)
                                           : RandomPrimitive(s, type, 1.0);
    const OwnedGeom before_pose = g;
    const KeptGeom then = convex::KeepGeom(g.View());
    const Vec3 n = s.Direction();
    const double before = SupportExtent(type, g.View().view, n);
    Nudge(s, g, std::pow(10.0, s.Uniform(-6, 0)),
          s.Direction() * std::pow(10.0, s.Uniform(-7, -1)));
    const ConvexGeom now = g.View();
    const double after = SupportExtent(type, now.view, n);
    const double drift = convex::GapDrift(now, then, n);
    // The support values themselves round to a few ulps of their size.
    const double rounding = 1e-14 * (std::fabs(before) + GeomScale(now) + 1);
    char buf[96];
    std::snprintf(buf, sizeof(buf), "\nn %.17g %.17g %.17g", n.x, n.y, n.z);
    ASSERT_LE(std::fabs(after - before), drift + rounding)
        << "case " << c << Repro(before_pose, g, 0) << buf;
    loose += std::fabs(after - before) < 0.01 * drift;
  }
  // Not vacuous: most moves use a good part of the bound.
  EXPECT_LT(loose, cases / 2);
  std::printf("%ld moves: %ld used under 1%% of the drift bound\n", cases, loose);
}

// Pairs apart, creeping as a settled pile's neighbours do (turns and moves of 1e-5 per call),
// with a jump every 40 calls to a new distance from touching (some in contact): the gap bound
// (`axis_bound`) ends most calls without a support query, the gap along the axis is then beyond
// margin + tolerance, and every call's contacts are bitwise those of the same call without the
// hint.
TEST(ConvexAxisHint, GapBoundEndsCreepingPairsWithTheSolversAnswer) {
  RandomGeometry s(1207);
  long bounded = 0, calls = 0, hits = 0;
  const int pairs = static_cast<int>(Cases() / 400) + 5;
  for (int c = 0; c < pairs; ++c) {
    OwnedGeom a, b;
    const Vec3 dir = s.Direction();
    const double touching = TouchingHintPair(s, c, dir, &a, &b);
    SeparationHint hint;
    for (int step = 0; step < 200; ++step) {
      if (step % 40 == 0)
        Store3(b.pos, dir * (touching + s.Uniform(-0.005, 0.02)));
      Nudge(s, a, 1e-5, s.Point(1e-5));
      Nudge(s, b, 1e-5, s.Point(1e-5));
      const double margin = step % 7 == 0 ? s.Uniform(0, 0.004) : 0.0;
      const ConvexSettings settings = Settings(CcdAlgorithm::kAuto, true);
      ConvexCounters counted;
      const int n = CollideHintedAndPlain(a, b, settings, margin, &hint, &counted);
      ASSERT_FALSE(::testing::Test::HasFailure()) << "pair " << c << " step " << step;
      if (counted.axis_bound != 0) {
        ++bounded;
        ASSERT_GT(-OverlapAlong(a.View(), b.View(), hint.axis), margin + settings.tolerance)
            << "pair " << c << " step " << step << Repro(a, b, margin);
      }
      hits += n > 0;
      ++calls;
    }
  }
  EXPECT_GT(bounded, calls / 3);
  EXPECT_GT(hits, calls / 20);
  std::printf("%ld calls: %ld contacts, %ld ended by the gap bound\n", calls, hits, bounded);
}

// A geom whose size changed since the gap was kept (a model edited between steps) is checked
// again, not bounded: an ellipsoid grown into its neighbour touches it, with the hint as without.
TEST(ConvexAxisHint, ResizedGeomIsCheckedAgainNotBounded) {
  const double centre[3] = {0.25, 0.01, -0.02}, origin[3] = {0, 0, 0};
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double small[3] = {0.1, 0.1, 0.1};
  OwnedGeom a = OwnedGeom::Place(ShapeType::kEllipsoid, origin, identity, small);
  OwnedGeom b = OwnedGeom::Place(ShapeType::kEllipsoid, centre, identity, small);
  const ConvexSettings settings = Settings(CcdAlgorithm::kAuto, true);
  SeparationHint hint;
  ConvexCounters first, second, grown;
  // The solve proves the pair apart and keeps its axis; the check along it keeps the gap.
  EXPECT_EQ(CollideHintedAndPlain(a, b, settings, 0, &hint, &first), 0);
  EXPECT_EQ(CollideHintedAndPlain(a, b, settings, 0, &hint, &second), 0);
  EXPECT_EQ(second.axis_hint, 1);
  ASSERT_GT(hint.gap, 0);
  // Unmoved, but grown by 0.1 along x: overlapping by 0.05.
  b.size[0] = 0.2;
  EXPECT_GT(CollideHintedAndPlain(a, b, settings, 0, &hint, &grown), 0);
  EXPECT_EQ(grown.axis_bound, 0);
}

// ---- Degenerate input ------------------------------------------------------------------------

TEST(ConvexDegenerate, NonFinitePosesGiveNoContactAndAreCounted) {
  OwnedGeom a = BoxMesh(0.1, 0.1, 0.1), b;
  b.type = ShapeType::kSphere;
  b.size[0] = 0.1;
  const double bad[] = {std::nan(""), INFINITY, -INFINITY};
  for (double x : bad) {
    a.pos[1] = x;
    Contact con[kMaxConvexContacts];
    ConvexCounters counters;
    EXPECT_EQ(CollideConvex(a.View(), b.View(), Settings(CcdAlgorithm::kAuto, true), 0.1, con,
                            kMaxConvexContacts, &counters),
              0);
    EXPECT_EQ(counters.bad_pose, 1);
    a.pos[1] = 0;
    a.mat[4] = x;
    counters = {};
    EXPECT_EQ(CollideConvex(a.View(), b.View(), Settings(CcdAlgorithm::kAuto, true), 0.1, con,
                            kMaxConvexContacts, &counters),
              0);
    EXPECT_EQ(counters.bad_pose, 1);
    a.mat[4] = 1;
  }
}

// Tetrahedra, nearly flat hulls, duplicated vertices, 1e4 scale ratios and 1e8 coordinates end
// (every loop is capped) with finite output, and the verdict of the clear cases is right.
TEST(ConvexDegenerate, AwkwardHullsEndWithFiniteAnswers) {
  RandomGeometry s(1011);
  for (long c = 0; c < Cases() / 10; ++c) {
    OwnedGeom a = RandomHull(s, 4, 0.3, 0.3);
    OwnedGeom b = RandomHull(s, 6, 0.3, 0.3);
    switch (c % 4) {
      case 0:  // nearly flat
        for (size_t i = 2; i < b.vert.size(); i += 3)
          b.vert[i] *= 1e-7f;
        break;
      case 1:  // duplicated vertices
        b.vert.insert(b.vert.end(), b.vert.begin(), b.vert.end());
        break;
      case 2:  // 1e4 scale ratio
        for (float& x : a.vert)
          x *= 1e-4f;
        break;
      default:  // far from the origin
        a.pos[0] += 1e8;
        b.pos[0] += 1e8;
        break;
    }
    if (c % 3 == 0)
      b.BuildField(16);
    for (CcdAlgorithm algorithm : {CcdAlgorithm::kAuto, CcdAlgorithm::kMpr, CcdAlgorithm::kGjk}) {
      Contact con[kMaxConvexContacts];
      ConvexCounters counters;
      const int n =
          CollideConvex(a.View(), b.View(), Settings(algorithm, true), 0.05, con, 5, &counters);
      ASSERT_LE(n, 5);
      for (int i = 0; i < n; ++i) {
        ASSERT_TRUE(std::isfinite(con[i].dist) && std::isfinite(con[i].pos.x) &&
                    std::isfinite(con[i].normal.z))
            << "case " << c << Repro(a, b, 0.05);
        ASSERT_NEAR(Dot(con[i].normal, con[i].normal), 1.0, 1e-9);
      }
    }
  }
}

}  // namespace
}  // namespace mjportal::collision
