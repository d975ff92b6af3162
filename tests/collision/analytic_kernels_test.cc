// The analytic kernels against independent references: closed-form distances for spheres and
// planes, brute force over box corners, and a ternary search over the segment parameter for
// capsules. Seeded; MJPORTAL_KERNEL_CASES raises the case count (default 20000 per test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "collision/pair_kernels.h"
#include "tests/collision/random_geometry.h"
#include "tests/env_count.h"

namespace mjportal::collision {
namespace {

int CasesFromEnv() {
  return static_cast<int>(mjportal::testing::EnvCount("MJPORTAL_KERNEL_CASES", 20000));
}

double Norm(const Vec3& v) {
  return std::sqrt(Dot(v, v));
}

// Exact distance between segments p + s a and q + t b (s, t in [-1, 1]): the distance is convex
// in s once t is minimized in closed form, so a ternary search on s converges to the optimum.
double SegmentDistance(const Vec3& p, const Vec3& a, const Vec3& q, const Vec3& b) {
  auto best_t = [&](double s) {
    const Vec3 x = p + a * s;
    const double bb = Dot(b, b);
    return bb > 0 ? Clip(Dot(x - q, b) / bb, -1, 1) : 0.0;
  };
  auto f = [&](double s) { return Norm(p + a * s - (q + b * best_t(s))); };
  double lo = -1, hi = 1;
  for (int i = 0; i < 200; ++i) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return f(0.5 * (lo + hi));
}

TEST(AnalyticKernels, SphereSphereMatchesClosedForm) {
  RandomGeometry rng(12345);
  double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  int hits = 0;
  const int cases = CasesFromEnv();
  for (int i = 0; i < cases; ++i) {
    const Vec3 c1 = rng.Point(1), c2 = rng.Point(1);
    const double r1 = rng.Uniform(0.05, 1), r2 = rng.Uniform(0.05, 1), margin = rng.Uniform(0, 0.1);
    double p1[3], p2[3], s1[3] = {r1, 0, 0}, s2[3] = {r2, 0, 0};
    Store3(p1, c1);
    Store3(p2, c2);
    Contact con[kMaxPairContacts];
    const int n = CollideSphereSphere({p1, eye, s1}, {p2, eye, s2}, margin, con);
    const double dist = Norm(c2 - c1) - r1 - r2;
    ASSERT_EQ(n, dist <= margin ? 1 : 0) << "dist=" << dist;
    if (!n)
      continue;
    ++hits;
    const Vec3 normal = (c2 - c1) * (1 / Norm(c2 - c1));
    const Vec3 midpoint = ((c1 + normal * r1) + (c2 - normal * r2)) * 0.5;
    EXPECT_NEAR(con[0].dist, dist, 1e-12);
    EXPECT_NEAR(Norm(con[0].normal - normal), 0, 1e-12);
    EXPECT_NEAR(Norm(con[0].pos - midpoint), 0, 1e-12);
  }
  EXPECT_GT(hits, cases / 10);
}

TEST(AnalyticKernels, PlaneSphereAndCapsuleMatchHeightAboveThePlane) {
  RandomGeometry rng(12345);
  int hits = 0;
  const int cases = CasesFromEnv();
  for (int i = 0; i < cases; ++i) {
    double plane_pos[3], plane_mat[9], cap_pos[3], cap_mat[9], plane_size[3] = {1, 1, 1};
    Store3(plane_pos, rng.Point(1));
    rng.Rotation(plane_mat);
    rng.Rotation(cap_mat);
    const Vec3 n = Column(plane_mat, 2);
    Store3(cap_pos, Load3(plane_pos) + n * rng.Uniform(-0.5, 1.5) + rng.Point(0.5));
    double size[3] = {rng.Uniform(0.05, 0.5), rng.Uniform(0.05, 0.5), 0};
    Contact con[kMaxPairContacts];
    const int count =
        CollidePlaneCapsule({plane_pos, plane_mat, plane_size}, {cap_pos, cap_mat, size}, 0.0, con);
    // Reference: each end sphere's height minus the radius, in + then - order.
    int expected = 0;
    for (double sign : {1.0, -1.0}) {
      const Vec3 end = Load3(cap_pos) + Column(cap_mat, 2) * (sign * size[1]);
      const double depth = Dot(end - Load3(plane_pos), n) - size[0];
      if (depth > 0)
        continue;
      ASSERT_LT(expected, count);
      EXPECT_NEAR(con[expected].dist, depth, 1e-12);
      EXPECT_NEAR(Dot(con[expected].pos - Load3(plane_pos), n), depth / 2, 1e-12);
      ++expected;
    }
    ASSERT_EQ(count, expected);
    hits += count > 0;
  }
  EXPECT_GT(hits, cases / 10);
}

TEST(AnalyticKernels, PlaneBoxMatchesBruteForceOverCorners) {
  RandomGeometry rng(12345);
  int hits = 0;
  const int cases = CasesFromEnv();
  for (int i = 0; i < cases; ++i) {
    double plane_pos[3] = {0, 0, 0}, plane_mat[9], box_pos[3], box_mat[9],
           plane_size[3] = {1, 1, 1};
    rng.Rotation(plane_mat);
    rng.Rotation(box_mat);
    const double e[3] = {rng.Uniform(0.05, 0.5), rng.Uniform(0.05, 0.5), rng.Uniform(0.05, 0.5)};
    const Vec3 n = Column(plane_mat, 2);
    Store3(box_pos, n * rng.Uniform(-0.3, 1.0) + rng.Point(0.5));
    const double margin = rng.Uniform(0, 0.05);
    Contact con[kMaxPairContacts];
    const int count =
        CollidePlaneBox({plane_pos, plane_mat, plane_size}, {box_pos, box_mat, e}, margin, con);
    // Brute force: corners within the margin on the lower half, in corner order, at most 4.
    int expected = 0;
    for (int k = 0; k < 8 && expected < 4; ++k) {
      const Vec3 local = {(k & 1) ? e[0] : -e[0], (k & 2) ? e[1] : -e[1], (k & 4) ? e[2] : -e[2]};
      const Vec3 corner = Load3(box_pos) + Rotate(box_mat, local);
      const double height = Dot(corner, n);
      if (height > margin || Dot(corner - Load3(box_pos), n) > 0)
        continue;
      ASSERT_LT(expected, count);
      EXPECT_NEAR(con[expected].dist, height, 1e-12);
      EXPECT_NEAR(Norm(con[expected].pos - (corner - n * (height / 2))), 0, 1e-12);
      ++expected;
    }
    ASSERT_EQ(count, expected);
    hits += count > 0;
  }
  EXPECT_GT(hits, cases / 10);
}

TEST(AnalyticKernels, BoxLyingFlatGivesFourContacts) {
  double plane_pos[3] = {0, 0, 0}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, plane_size[3] = {1, 1, 1};
  double box_pos[3] = {0.3, -0.2, 0.099}, e[3] = {0.2, 0.1, 0.1};
  Contact con[kMaxPairContacts];
  ASSERT_EQ(CollidePlaneBox({plane_pos, eye, plane_size}, {box_pos, eye, e}, 0.0, con), 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(con[k].dist, -0.001, 1e-15);
    EXPECT_DOUBLE_EQ(con[k].normal.z, 1.0);
  }
}

TEST(AnalyticKernels, CapsulePairsMatchSegmentDistance) {
  RandomGeometry rng(12345);
  int hits = 0;
  const int cases = CasesFromEnv();
  for (int i = 0; i < cases; ++i) {
    double p1[3], p2[3], m1[9], m2[9];
    Store3(p1, rng.Point(0.5));
    Store3(p2, rng.Point(0.5));
    rng.Rotation(m1);
    rng.Rotation(m2);
    double s1[3] = {rng.Uniform(0.02, 0.3), rng.Uniform(0.05, 0.6), 0};
    double s2[3] = {rng.Uniform(0.02, 0.3), rng.Uniform(0.05, 0.6), 0};
    const double segment =
        SegmentDistance(Load3(p1), Column(m1, 2) * s1[1], Load3(p2), Column(m2, 2) * s2[1]);
    const double depth = segment - s1[0] - s2[0];
    Contact con[kMaxPairContacts];
    const int count = CollideCapsuleCapsule({p1, m1, s1}, {p2, m2, s2}, 0.0, con);
    if (std::fabs(depth) < 1e-9)
      continue;  // touching: either answer is right
    ASSERT_EQ(count, depth < 0 ? 1 : 0) << "segment distance " << segment;
    if (count) {
      EXPECT_NEAR(con[0].dist, depth, 1e-9);
      ++hits;
    }

    // Sphere at the second capsule's centre against the first capsule: point-segment distance.
    double r[3] = {s2[0], 0, 0};
    const double point = SegmentDistance(Load3(p2), {0, 0, 0}, Load3(p1), Column(m1, 2) * s1[1]);
    const int n_sphere = CollideSphereCapsule({p2, m2, r}, {p1, m1, s1}, 0.0, con);
    if (std::fabs(point - s1[0] - r[0]) > 1e-9) {
      ASSERT_EQ(n_sphere, point - s1[0] - r[0] < 0 ? 1 : 0);
      if (n_sphere) {
        EXPECT_NEAR(con[0].dist, point - s1[0] - r[0], 1e-9);
      }
    }
  }
  EXPECT_GT(hits, cases / 20);
}

TEST(AnalyticKernels, ParallelCapsulesGiveTwoContacts) {
  double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double p1[3] = {0, 0, 0}, p2[3] = {0.15, 0, 0}, s[3] = {0.1, 0.5, 0};
  Contact con[kMaxPairContacts];
  ASSERT_EQ(CollideCapsuleCapsule({p1, eye, s}, {p2, eye, s}, 0.0, con), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(con[i].dist, 0.15 - 0.2, 1e-12);
    EXPECT_NEAR(con[i].normal.x, 1.0, 1e-12);
  }
}

TEST(AnalyticKernels, CoincidentSpheresUseFrameAxes) {
  double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double b[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};  // z axis along world -y
  double p[3] = {0.5, 0.5, 0.5}, s[3] = {0.1, 0, 0};
  Contact con[kMaxPairContacts];
  ASSERT_EQ(CollideSphereSphere({p, a, s}, {p, b, s}, 0.0, con), 1);
  EXPECT_DOUBLE_EQ(con[0].dist, -0.2);
  // z1 x z2 = (0, 0, 1) x (0, -1, 0) = (1, 0, 0)
  EXPECT_DOUBLE_EQ(con[0].normal.x, 1.0);
}

// Signed distance from a point to a solid box (half-extents e) given in the box frame.
double PointBoxDistance(const Vec3& q, const double e[3]) {
  const double d[3] = {std::fabs(q.x) - e[0], std::fabs(q.y) - e[1], std::fabs(q.z) - e[2]};
  const double outside = std::sqrt(std::max(d[0], 0.0) * std::max(d[0], 0.0) +
                                   std::max(d[1], 0.0) * std::max(d[1], 0.0) +
                                   std::max(d[2], 0.0) * std::max(d[2], 0.0));
  return outside > 0 ? outside : std::max(d[0], std::max(d[1], d[2]));
}

// Signed distance from a point to a solid cylinder (radius r, half-height h) along local z.
double PointCylinderDistance(const Vec3& q, double r, double h) {
  const double radial = std::sqrt(q.x * q.x + q.y * q.y) - r;
  const double axial = std::fabs(q.z) - h;
  const double outside = std::sqrt(std::max(radial, 0.0) * std::max(radial, 0.0) +
                                   std::max(axial, 0.0) * std::max(axial, 0.0));
  return outside > 0 ? outside : std::max(radial, axial);
}

TEST(AnalyticKernels, SphereBoxAndSphereCylinderMatchPointDistances) {
  RandomGeometry rng(12345);
  int hits = 0, inside = 0;
  const int cases = CasesFromEnv();
  for (int i = 0; i < cases; ++i) {
    double sphere_pos[3], eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, pos[3], mat[9];
    Store3(pos, rng.Point(0.5));
    rng.Rotation(mat);
    Store3(sphere_pos, Load3(pos) + rng.Point(0.8));
    double sphere_size[3] = {rng.Uniform(0.02, 0.3), 0, 0};
    double e[3] = {rng.Uniform(0.05, 0.5), rng.Uniform(0.05, 0.5), rng.Uniform(0.05, 0.5)};
    const Vec3 q = RotateT(mat, Load3(sphere_pos) - Load3(pos));
    Contact con[kMaxPairContacts];

    // Box: reference signed distance minus the radius.
    const double box_depth = PointBoxDistance(q, e) - sphere_size[0];
    const int n_box = CollideSphereBox({sphere_pos, eye, sphere_size}, {pos, mat, e}, 0.0, con);
    if (std::fabs(box_depth) > 1e-9) {
      ASSERT_EQ(n_box, box_depth < 0 ? 1 : 0) << "box depth " << box_depth;
      if (n_box) {
        EXPECT_NEAR(con[0].dist, box_depth, 1e-9);
        EXPECT_NEAR(Norm(con[0].normal), 1.0, 1e-12);
      }
    }

    // Cylinder (radius e0, half-height e1): the same with the cylinder distance.
    const double cyl_depth = PointCylinderDistance(q, e[0], e[1]) - sphere_size[0];
    const int n_cyl =
        CollideSphereCylinder({sphere_pos, eye, sphere_size}, {pos, mat, e}, 0.0, con);
    if (std::fabs(cyl_depth) > 1e-9) {
      ASSERT_EQ(n_cyl, cyl_depth < 0 ? 1 : 0) << "cylinder depth " << cyl_depth;
      if (n_cyl) {
        EXPECT_NEAR(con[0].dist, cyl_depth, 1e-9);
      }
    }
    hits += n_box;
    inside += PointBoxDistance(q, e) < 0;
  }
  EXPECT_GT(hits, cases / 10);
  EXPECT_GT(inside, cases / 100) << "the inside-the-box branch was not sampled";
}

TEST(AnalyticKernels, PlaneCylinderDeepestPointMatchesClosedForm) {
  RandomGeometry rng(12345);
  int hits = 0;
  const int cases = CasesFromEnv();
  for (int i = 0; i < cases; ++i) {
    double plane_pos[3] = {0, 0, 0}, plane_mat[9], pos[3], mat[9], plane_size[3] = {1, 1, 1};
    rng.Rotation(plane_mat);
    rng.Rotation(mat);
    const double size[3] = {rng.Uniform(0.05, 0.5), rng.Uniform(0.05, 0.5), 0};
    const Vec3 n = Column(plane_mat, 2);
    Store3(pos, n * rng.Uniform(-0.3, 0.8) + rng.Point(0.5));
    // Lowest point of a cylinder: centre height - h |n·a| - r sqrt(1 - (n·a)^2).
    const double na = Dot(n, Column(mat, 2));
    const double lowest = Dot(Load3(pos), n) - size[1] * std::fabs(na) -
                          size[0] * std::sqrt(std::max(0.0, 1 - na * na));
    Contact con[kMaxPairContacts];
    const int count =
        CollidePlaneCylinder({plane_pos, plane_mat, plane_size}, {pos, mat, size}, 0.0, con);
    if (std::fabs(lowest) < 1e-9)
      continue;
    ASSERT_EQ(count > 0, lowest < 0) << "lowest " << lowest;
    if (count) {
      EXPECT_NEAR(con[0].dist, lowest, 1e-9);
      for (int k = 1; k < count; ++k)
        EXPECT_GE(con[k].dist, con[0].dist - 1e-12);
      ++hits;
    }
  }
  EXPECT_GT(hits, cases / 10);
}

TEST(AnalyticKernels, CylinderStandingOnPlaneGivesRimContacts) {
  // Axis along the plane normal: the "disk parallel to plane" branch, four rim points at depth.
  double plane_pos[3] = {0, 0, 0}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, plane_size[3] = {1, 1, 1};
  double pos[3] = {0, 0, 0.199}, size[3] = {0.1, 0.2, 0};
  Contact con[kMaxPairContacts];
  ASSERT_EQ(CollidePlaneCylinder({plane_pos, eye, plane_size}, {pos, eye, size}, 0.0, con), 3);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(con[k].dist, -0.001, 1e-12);
    EXPECT_NEAR(std::sqrt(con[k].pos.x * con[k].pos.x + con[k].pos.y * con[k].pos.y), 0.1, 1e-12);
  }
}

TEST(AnalyticKernels, DispatchCoversExactlyTheAnalyticPairs) {
  int count = 0;
  for (int a = 0; a < kShapeTypeCount; ++a) {
    for (int b = 0; b < kShapeTypeCount; ++b) {
      const bool has = HasPairKernel(static_cast<ShapeType>(a), static_cast<ShapeType>(b));
      count += has;
      if (!has || b == static_cast<int>(ShapeType::kMesh)) {  // meshes need their view
        double z[9] = {};
        Contact con[kMaxPairContacts];
        EXPECT_EQ(CollidePair(static_cast<ShapeType>(a), static_cast<ShapeType>(b), {z, z, z},
                              {z, z, z}, 0.0, con),
                  -1);
      }
    }
  }
  EXPECT_EQ(count, 13);
}

}  // namespace
}  // namespace mjportal::collision
