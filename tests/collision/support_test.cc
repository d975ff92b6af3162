// Support functions against brute force: for random geoms and directions, the support point lies
// on the surface and no sampled surface point (or mesh vertex) reaches further along the direction.
// Seeded; MJPORTAL_KERNEL_CASES scales the count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "collision/support.h"
#include "tests/collision/random_geometry.h"
#include "tests/env_count.h"

namespace mjportal::collision {
namespace {

// A point on the surface of a primitive in its local frame, from a direction u and a parameter t.
Vec3 SurfacePoint(ShapeType type, const double* e, const Vec3& u, double t) {
  switch (type) {
    case ShapeType::kSphere:
      return u * e[0];
    case ShapeType::kCapsule:
      return u * e[0] + Vec3{0, 0, u.z >= 0 ? e[1] : -e[1]};
    case ShapeType::kEllipsoid:
      return {u.x * e[0], u.y * e[1], u.z * e[2]};
    case ShapeType::kCylinder: {
      // Rim of either cap (the support is always on a rim).
      const double n = std::sqrt(u.x * u.x + u.y * u.y);
      return n > 0 ? Vec3{u.x / n * e[0], u.y / n * e[0], t > 0 ? e[1] : -e[1]}
                   : Vec3{e[0], 0, e[1]};
    }
    default:  // box corners
      return {u.x >= 0 ? e[0] : -e[0], u.y >= 0 ? e[1] : -e[1], u.z >= 0 ? e[2] : -e[2]};
  }
}

// A primitive's random pose and sizes (in [0.05, 1]), drawn in a fixed order from `s`.
struct RandomPose {
  double pos[3], mat[9], size[3];

  static RandomPose Draw(RandomGeometry& s) {
    RandomPose p;
    for (double& e : p.size)
      e = s.Uniform(0.05, 1);
    Store3(p.pos, s.Gaussian());
    s.Rotation(p.mat);
    return p;
  }
  GeomView View() const { return {pos, mat, size}; }
};

class SupportTest : public ::testing::TestWithParam<ShapeType> {};

TEST_P(SupportTest, NoSurfaceSampleReachesFurther) {
  const ShapeType type = GetParam();
  RandomGeometry s(777);
  const long cases = mjportal::testing::EnvCount("MJPORTAL_KERNEL_CASES", 20000) / 20;
  for (long c = 0; c < cases; ++c) {
    const RandomPose pose = RandomPose::Draw(s);
    const double *pos = pose.pos, *mat = pose.mat, *size = pose.size;
    const GeomView geom = pose.View();
    Vec3 dir = s.Direction() * s.Uniform(0.1, 10);
    if (c % 10 == 0)
      dir = {0, 0, c % 20 ? 1.0 : -1.0};  // axis-aligned: ties and caps
    const Vec3 support = SupportPoint(type, geom, dir);
    const double reach = Dot(dir, support);

    // Brute force over surface samples (local frame, then world).
    double best = -1e300;
    for (int k = 0; k < 400; ++k) {
      const Vec3 local = SurfacePoint(type, size, s.Direction(), s.Uniform(-1, 1));
      best = std::max(best, Dot(dir, Rotate(mat, local) + Load3(pos)));
    }
    const double scale = std::sqrt(Dot(dir, dir)) * (1 + std::sqrt(Dot(Load3(pos), Load3(pos))));
    ASSERT_GE(reach, best - 1e-12 * scale) << "case " << c;

    // On the surface: the local point satisfies the shape's equation.
    const Vec3 q = RotateT(mat, support - Load3(pos));
    switch (type) {
      case ShapeType::kSphere:
        EXPECT_NEAR(std::sqrt(Dot(q, q)), size[0], 1e-12);
        break;
      case ShapeType::kEllipsoid:
        EXPECT_NEAR((q.x / size[0]) * (q.x / size[0]) + (q.y / size[1]) * (q.y / size[1]) +
                        (q.z / size[2]) * (q.z / size[2]),
                    1.0, 1e-12);
        break;
      case ShapeType::kCylinder:
        EXPECT_NEAR(std::fabs(q.z), size[1], 1e-12);
        break;
      case ShapeType::kBox:
        EXPECT_NEAR(std::fabs(q.x), size[0], 1e-12);
        EXPECT_NEAR(std::fabs(q.y), size[1], 1e-12);
        EXPECT_NEAR(std::fabs(q.z), size[2], 1e-12);
        break;
      default: {  // capsule: distance to the segment is the radius
        const double z = std::max(-size[1], std::min(size[1], q.z));
        EXPECT_NEAR(std::sqrt(q.x * q.x + q.y * q.y + (q.z - z) * (q.z - z)), size[0], 1e-12);
      }
    }
  }
}

// The closed-form support function equals the support point's reach along the direction (to
// rounding), and is the brute-force maximum over surface samples.
TEST_P(SupportTest, ExtentIsTheSupportPointsReach) {
  const ShapeType type = GetParam();
  RandomGeometry s(778);
  const long cases = mjportal::testing::EnvCount("MJPORTAL_KERNEL_CASES", 20000) / 4;
  for (long c = 0; c < cases; ++c) {
    const RandomPose pose = RandomPose::Draw(s);
    const double *pos = pose.pos, *mat = pose.mat, *size = pose.size;
    const GeomView geom = pose.View();
    Vec3 dir = s.Direction() * s.Uniform(0.1, 10);
    if (c % 10 == 0)
      dir = Column(mat, c % 3) * (c % 20 ? 1.0 : -1.0);  // the geom's own axes (FaceFirst's)
    const double extent = SupportExtent(type, geom, dir);
    const double reach = Dot(dir, SupportPoint(type, geom, dir));
    const double scale = std::sqrt(Dot(dir, dir)) * (1 + std::sqrt(Dot(Load3(pos), Load3(pos))));
    char repro[512];
    std::snprintf(repro, sizeof(repro),
                  "case %ld type %d pos {%.17g, %.17g, %.17g} mat {%.17g, %.17g, %.17g, %.17g, "
                  "%.17g, %.17g, %.17g, %.17g, %.17g} size {%.17g, %.17g, %.17g} dir {%.17g, "
                  "%.17g, %.17g}",
                  c, static_cast<int>(type), pos[0], pos[1], pos[2], mat[0], mat[1], mat[2], mat[3],
                  mat[4], mat[5], mat[6], mat[7], mat[8], size[0], size[1], size[2], dir.x, dir.y,
                  dir.z);
    ASSERT_NEAR(extent, reach, 1e-14 * scale) << repro;
    for (int k = 0; k < 50; ++k) {
      const Vec3 local = SurfacePoint(type, size, s.Direction(), s.Uniform(-1, 1));
      ASSERT_GE(extent, Dot(dir, Rotate(mat, local) + Load3(pos)) - 1e-12 * scale) << repro;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Primitives, SupportTest,
                         ::testing::Values(ShapeType::kSphere, ShapeType::kCapsule,
                                           ShapeType::kEllipsoid, ShapeType::kCylinder,
                                           ShapeType::kBox));

// A regular icosahedron (12 vertices: MuJoCo-style hull graph, climbed) scaled per axis, and its
// first 8 vertices as a scanned cloud: the support vertex is the brute-force maximum, exactly.
TEST(MeshSupport, MatchesBruteForceOverVertices) {
  const double g = (1 + std::sqrt(5.0)) / 2;
  const double base[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
                              {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
                              {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  std::vector<float> vert;
  for (const auto& v : base) {
    vert.push_back(static_cast<float>(0.3 * v[0]));
    vert.push_back(static_cast<float>(0.2 * v[1]));
    vert.push_back(static_cast<float>(0.1 * v[2]));
  }

  // Hull graph in MuJoCo's layout: edges join vertices at the minimum distance (2 in base units).
  std::vector<int> graph = {12, 20};
  std::vector<int> edgeadr(12), globalid(12), edges;
  for (int i = 0; i < 12; ++i) {
    globalid[i] = i;
    edgeadr[i] = static_cast<int>(edges.size());
    for (int j = 0; j < 12; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k)
        d2 += (base[i][k] - base[j][k]) * (base[i][k] - base[j][k]);
      if (i != j && std::fabs(d2 - 4) < 1e-9)
        edges.push_back(j);
    }
    edges.push_back(-1);
  }
  graph.insert(graph.end(), edgeadr.begin(), edgeadr.end());
  graph.insert(graph.end(), globalid.begin(), globalid.end());
  graph.insert(graph.end(), edges.begin(), edges.end());

  const MeshView climbed = {vert.data(), 12, graph.data(), true, 0.4};
  const MeshView scanned = {vert.data(), 8, nullptr, false, 0.4};
  RandomGeometry s(777);
  for (int c = 0; c < 5000; ++c) {
    const Vec3 d = s.Gaussian();
    for (const MeshView* mesh : {&climbed, &scanned}) {
      int hull = -1;
      const int v = MeshSupportVertex(*mesh, d, &hull);
      double best = -1e300;
      for (int i = 0; i < mesh->nvert; ++i)
        best = std::max(best, DotVertex(d, mesh->vert, i));
      ASSERT_EQ(DotVertex(d, mesh->vert, v), best) << "case " << c;
    }
  }
}

}  // namespace
}  // namespace mjportal::collision
