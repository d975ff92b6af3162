// Fast mode's per-pair temporal coherence (collision::SeparationHint, kept by the plugin per geom
// pair) on MuJoCo-compiled hulls with their support fields, as the plugin's fast mesh views have
// them: pairs jittering in and out of contact over many calls get bitwise the same contacts with
// the hint kept between calls as without it, and after a call that the axis ended, the hint
// holds each mesh's exact support vertex along the axis (by brute force over the hull), where the
// next call's check climbs from.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "collision/convex_contact.h"
#include "collision/support_field.h"
#include "plugin/mesh_view.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/cloud_mesh.h"

namespace mjportal::testing {
namespace {

using collision::Contact;
using collision::ConvexGeom;
using collision::MeshView;
using collision::Vec3;

// A rotation matrix (row-major) from a random unit quaternion.
void RandomRotation(std::mt19937_64& rng, double mat[9]) {
  std::normal_distribution<double> gauss;
  double q[4];
  double norm = 0;
  for (double& x : q) {
    x = gauss(rng);
    norm += x * x;
  }
  norm = std::sqrt(norm);
  const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
  const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  std::memcpy(mat, r, sizeof(r));
}

// Whether hull vertex `local` maximizes d · v over the hull (ties allowed).
bool IsSupportVertex(const MeshView& mesh, const Vec3& d, int local) {
  const int numvert = mesh.graph[0];
  double best = -1e300;
  for (int i = 0; i < numvert; ++i)
    best = std::max(best, collision::DotVertex(d, mesh.vert, mesh.graph[2 + numvert + i]));
  return collision::DotVertex(d, mesh.vert, mesh.graph[2 + numvert + local]) == best;
}

TEST_F(MujocoTest, SeparationHintClimbsFromTheLastSupportVerticesWithTheSameAnswers) {
  std::string error;
  tools::ModelPtr m = tools::CloudMeshModel(200, &error);
  ASSERT_TRUE(m) << error;
  // The fast view: support field (refined), widened hull copy, warm start.
  MeshView fast = MeshViewOf(m.get(), 0);
  ASSERT_NE(fast.graph, nullptr);
  constexpr int kRes = 180;
  std::vector<int32_t> field(kRes * kRes);
  collision::BuildSupportField(fast, kRes, field.data());
  const int numvert = fast.graph[0];
  std::vector<double> hull;
  for (int i = 0; i < numvert; ++i) {
    for (int k = 0; k < 3; ++k)
      hull.push_back(fast.vert[3 * fast.graph[2 + numvert + i] + k]);
  }
  fast.field = field.data();
  fast.field_res = kRes;
  fast.hull_vert = hull.data();
  fast.warm_start = true;

  std::mt19937_64 rng(20261204);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::normal_distribution<double> gauss;
  double pos_a[3] = {0, 0, 0}, mat_a[9], pos_b[3], mat_b[9];
  const double size[3] = {0, 0, 0};
  collision::ConvexSettings settings;
  long calls = 0, ended = 0, climbed = 0, hits = 0;
  const int pairs = static_cast<int>(EnvCount("MJPORTAL_HINT_PAIRS", 40));
  for (int c = 0; c < pairs; ++c) {
    RandomRotation(rng, mat_a);
    RandomRotation(rng, mat_b);
    Vec3 dir = {gauss(rng), gauss(rng), gauss(rng)};
    collision::Normalize(dir);
    // Each call gets fresh views, as the plugin makes them per call.
    auto collide = [&](double margin, Contact* out, collision::ConvexCounters* counters,
                       collision::SeparationHint* hint) {
      MeshView view_a = fast, view_b = fast;
      const ConvexGeom a = {collision::ShapeType::kMesh, {pos_a, mat_a, size, &view_a}};
      const ConvexGeom b = {collision::ShapeType::kMesh, {pos_b, mat_b, size, &view_b}};
      return collision::CollideConvex(a, b, settings, margin, out, collision::kMaxConvexContacts,
                                      counters, hint);
    };
    // Touching distance along dir (bisection), then jitter across it.
    double lo = 0, hi = 2;
    for (int it = 0; it < 50; ++it) {
      const double mid = 0.5 * (lo + hi);
      for (int k = 0; k < 3; ++k)
        pos_b[k] = (&dir.x)[k] * mid;
      Contact probe[collision::kMaxConvexContacts];
      collision::ConvexCounters counters;
      (collide(0, probe, &counters, nullptr) > 0 ? lo : hi) = mid;
    }
    collision::SeparationHint hint;
    for (int step = 0; step < 100; ++step) {
      const double along = lo + 0.01 * (uniform(rng) - 0.35);
      for (int k = 0; k < 3; ++k)
        pos_b[k] = (&dir.x)[k] * along + 0.002 * (uniform(rng) - 0.5);
      const double margin = step % 5 == 0 ? 0.005 * uniform(rng) : 0.0;
      const bool seeded = hint.vertex_a >= 0 && hint.vertex_b >= 0;
      Contact with[collision::kMaxConvexContacts] = {}, without[collision::kMaxConvexContacts] = {};
      collision::ConvexCounters counted, plain;
      const int n_with = collide(margin, with, &counted, &hint);
      const int n_without = collide(margin, without, &plain, nullptr);
      ASSERT_EQ(n_with, n_without) << "pair " << c << " step " << step;
      ASSERT_EQ(std::memcmp(with, without, sizeof(Contact) * n_with), 0)
          << "pair " << c << " step " << step;
      ++calls;
      hits += n_with > 0;
      if (counted.axis_hint == 0)
        continue;
      ++ended;
      climbed += seeded;
      const Vec3 n = hint.axis;
      ASSERT_TRUE(IsSupportVertex(fast, collision::RotateT(mat_a, n), hint.vertex_a))
          << "pair " << c << " step " << step;
      ASSERT_TRUE(IsSupportVertex(fast, collision::RotateT(mat_b, -n), hint.vertex_b))
          << "pair " << c << " step " << step;
    }
  }
  // The sample must exercise contacts, calls ended by the axis, and checks that climbed from
  // the stored vertices.
  EXPECT_GT(hits, calls / 10);
  EXPECT_GT(ended, calls / 10);
  EXPECT_GT(climbed, ended / 2);
  std::printf("%ld calls: %ld contacts, %ld ended by the axis (%ld climbing from the hint)\n",
              calls, hits, ended, climbed);
}

}  // namespace
}  // namespace mjportal::testing
