// MPR against exact references: spheres (depth and normal exact), sphere against box, capsule and
// cylinder (overlap verdict from the exact point–shape distance; depth never below the true
// penetration), box against box (verdict and lower bound from a brute-force separating-axis
// test), and bad input (NaN poses, coincident centres) that must end without a hit or a hang;
// the triangle witness MPR and EPA report from against the barycentric weights it was built from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "collision/mpr.h"
#include "collision/mpr_start.h"
#include "tests/collision/random_geometry.h"
#include "tests/env_count.h"

namespace mjportal::collision {
namespace {

constexpr int kIterations = 100;
constexpr double kTolerance = 1e-10;

long Cases() {
  return mjportal::testing::EnvCount("MJPORTAL_KERNEL_CASES", 20000);
}

// Signed distance from a local point to a primitive (negative inside).
double PointDistance(ShapeType type, const double* e, const Vec3& q) {
  switch (type) {
    case ShapeType::kBox: {
      const double d[3] = {std::fabs(q.x) - e[0], std::fabs(q.y) - e[1], std::fabs(q.z) - e[2]};
      double out = 0;
      for (double x : d)
        out += std::max(x, 0.0) * std::max(x, 0.0);
      return out > 0 ? std::sqrt(out) : std::max(d[0], std::max(d[1], d[2]));
    }
    case ShapeType::kCylinder: {
      const double radial = std::sqrt(q.x * q.x + q.y * q.y) - e[0];
      const double axial = std::fabs(q.z) - e[1];
      const double out = std::sqrt(std::max(radial, 0.0) * std::max(radial, 0.0) +
                                   std::max(axial, 0.0) * std::max(axial, 0.0));
      return out > 0 ? out : std::max(radial, axial);
    }
    default: {  // capsule
      const double z = std::max(-e[1], std::min(e[1], q.z));
      return std::sqrt(q.x * q.x + q.y * q.y + (q.z - z) * (q.z - z)) - e[0];
    }
  }
}

// A failure's case label, for CheckAgainstOverlap.
auto CaseLabel(long c) {
  return [c] { return "case " + std::to_string(c); };
}

// MPR's answer r against a reference overlap (the exact penetration depth; negative, the gap):
// references within 1e-7 of touching are not checked; otherwise the verdict must match, and a
// hit's depth (along MPR's ray) is never below the overlap. *hit: a checked hit. `where()` names
// the case (built only on a failure).
template <typename Where>
void CheckAgainstOverlap(const MprResult& r, double overlap, Where where, bool* hit) {
  *hit = false;
  if (std::fabs(overlap) < 1e-7)
    return;
  ASSERT_EQ(r.hit, overlap > 0) << where() << " overlap " << overlap;
  *hit = r.hit;
  if (r.hit) {
    EXPECT_GE(r.depth, overlap - 1e-7) << where();  // along the ray, never below the minimum
  }
}

TEST(Mpr, SpheresAreExact) {
  RandomGeometry s(4242);
  double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  int hits = 0;
  for (long c = 0; c < Cases(); ++c) {
    double p1[3], p2[3], r1[3] = {s.Uniform(0.1, 1), 0, 0}, r2[3] = {s.Uniform(0.1, 1), 0, 0};
    Store3(p1, s.Point(1));
    Store3(p2, s.Point(1));
    const MprResult r =
        MprPenetration({ShapeType::kSphere, {p1, eye, r1}}, {ShapeType::kSphere, {p2, eye, r2}},
                       kIterations, kTolerance);
    const Vec3 d = Load3(p2) - Load3(p1);
    const double dist = std::sqrt(Dot(d, d));
    const double depth = r1[0] + r2[0] - dist;
    if (std::fabs(depth) < 1e-9)
      continue;
    ASSERT_EQ(r.hit, depth > 0) << "case " << c;
    if (!r.hit)
      continue;
    ++hits;
    EXPECT_NEAR(r.depth, depth, 1e-8);
    EXPECT_NEAR(Dot(r.normal, d) / dist, 1.0, 1e-8);
  }
  EXPECT_GT(hits, Cases() / 10);
}

class MprSphereVsShape : public ::testing::TestWithParam<ShapeType> {};

TEST_P(MprSphereVsShape, VerdictAndDepthBound) {
  const ShapeType type = GetParam();
  RandomGeometry s(4242);
  double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  int hits = 0;
  for (long c = 0; c < Cases(); ++c) {
    double pos[3], mat[9],
        size[3] = {s.Uniform(0.1, 0.6), s.Uniform(0.1, 0.6), s.Uniform(0.1, 0.6)};
    double sphere[3], radius[3] = {s.Uniform(0.05, 0.5), 0, 0};
    Store3(pos, s.Point(0.5));
    s.Rotation(mat);
    Store3(sphere, Load3(pos) + s.Point(1.0));
    const double dist = PointDistance(type, size, RotateT(mat, Load3(sphere) - Load3(pos)));
    const double depth = radius[0] - dist;
    const MprResult r =
        MprPenetration({type, {pos, mat, size}}, {ShapeType::kSphere, {sphere, eye, radius}},
                       kIterations, kTolerance);
    bool hit = false;
    ASSERT_NO_FATAL_FAILURE(CheckAgainstOverlap(r, depth, CaseLabel(c), &hit));
    if (!hit)
      continue;
    ++hits;
    EXPECT_NEAR(Dot(r.normal, r.normal), 1.0, 1e-12);
  }
  EXPECT_GT(hits, Cases() / 10);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MprSphereVsShape,
                         ::testing::Values(ShapeType::kBox, ShapeType::kCapsule,
                                           ShapeType::kCylinder));

// Minimal overlap of two boxes over the 15 separating-axis candidates (negative: separated).
double BoxOverlap(const double* p1, const double* m1, const double* e1, const double* p2,
                  const double* m2, const double* e2) {
  Vec3 axes[15];
  int n = 0;
  for (int i = 0; i < 3; ++i)
    axes[n++] = Column(m1, i);
  for (int j = 0; j < 3; ++j)
    axes[n++] = Column(m2, j);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Vec3 c = Cross(Column(m1, i), Column(m2, j));
      if (Dot(c, c) > 1e-12)
        axes[n++] = c * (1 / std::sqrt(Dot(c, c)));
    }
  }
  double overlap = 1e300;
  const Vec3 d = Load3(p2) - Load3(p1);
  for (int k = 0; k < n; ++k) {
    double ra = 0, rb = 0;
    for (int i = 0; i < 3; ++i) {
      ra += e1[i] * std::fabs(Dot(axes[k], Column(m1, i)));
      rb += e2[i] * std::fabs(Dot(axes[k], Column(m2, i)));
    }
    overlap = std::min(overlap, ra + rb - std::fabs(Dot(axes[k], d)));
  }
  return overlap;
}

// Two random boxes within 0.5 of the origin (half-extents 0.05–0.5, random rotations), and
// their overlap by separating axes.
struct RandomBoxPair {
  double p1[3], p2[3], m1[9], m2[9], e1[3], e2[3];

  explicit RandomBoxPair(RandomGeometry& s) {
    for (double& e : e1)
      e = s.Uniform(0.05, 0.5);
    for (double& e : e2)
      e = s.Uniform(0.05, 0.5);
    Store3(p1, s.Point(0.5));
    Store3(p2, s.Point(0.5));
    s.Rotation(m1);
    s.Rotation(m2);
  }
  ConvexGeom A() const { return {ShapeType::kBox, {p1, m1, e1}}; }
  ConvexGeom B() const { return {ShapeType::kBox, {p2, m2, e2}}; }
  double Overlap() const { return BoxOverlap(p1, m1, e1, p2, m2, e2); }
};

TEST(Mpr, BoxesMatchSeparatingAxes) {
  RandomGeometry s(4242);
  int hits = 0;
  for (long c = 0; c < Cases(); ++c) {
    const RandomBoxPair boxes(s);
    const double overlap = boxes.Overlap();
    const MprResult r = MprPenetration(boxes.A(), boxes.B(), kIterations, kTolerance);
    bool hit = false;
    ASSERT_NO_FATAL_FAILURE(CheckAgainstOverlap(r, overlap, CaseLabel(c), &hit));
    if (!hit)
      continue;
    ++hits;
  }
  EXPECT_GT(hits, Cases() / 10);
}

// Box against box from the seeded start (mpr_start.h): the start's interior point lies strictly
// inside both boxes (its geom points inside each), on the line along the normal guess through the
// origin where the boxes' inner balls allow; MPR from it gives the same verdict as the separating
// axes, a depth never below the true overlap, and takes the seeded portal on most hits.
TEST(Mpr, SeededStartKeepsVerdictAndDepthBound) {
  RandomGeometry s(4243);
  int hits = 0, seeded = 0, on_line = 0;
  for (long c = 0; c < Cases(); ++c) {
    const RandomBoxPair boxes(s);
    const ConvexGeom a = boxes.A(), b = boxes.B();
    MprStart start;
    ASSERT_TRUE(PolytopeMprStart(a, b, &start)) << "case " << c;
    // The interior point: each geom point strictly inside its box.
    const auto inside = [](const Vec3& point, const double* pos, const double* mat,
                           const double* e) {
      const Vec3 local = RotateT(mat, point - Load3(pos));
      return std::fabs(local.x) < e[0] && std::fabs(local.y) < e[1] && std::fabs(local.z) < e[2];
    };
    ASSERT_TRUE(inside(start.v0.a, boxes.p1, boxes.m1, boxes.e1)) << "case " << c;
    ASSERT_TRUE(inside(start.v0.b, boxes.p2, boxes.m2, boxes.e2)) << "case " << c;
    const Vec3 across = Cross(start.v0.v, start.normal);
    if (std::sqrt(Dot(across, across)) < 1e-12 * std::sqrt(Dot(start.v0.v, start.v0.v)))
      ++on_line;
    EXPECT_NEAR(Dot(start.normal, start.normal), 1, 1e-12);
    const double overlap = boxes.Overlap();
    const MprResult r = MprPenetration(a, b, kIterations, kTolerance, nullptr, 0, nullptr, &start);
    bool hit = false;
    ASSERT_NO_FATAL_FAILURE(CheckAgainstOverlap(r, overlap, CaseLabel(c), &hit));
    if (!hit)
      continue;
    ++hits;
    seeded += r.seeded;
  }
  EXPECT_GT(hits, Cases() / 10);
  EXPECT_GT(seeded, hits / 2) << "hits " << hits;
  EXPECT_GT(on_line, Cases() / 4);
  std::printf("%d hits, %d from the seeded portal; %d starts on the guess's line\n", hits, seeded,
              on_line);
}

// A seeded triangle the ray misses: discovery walks on from it (mpr.h step 1). Starts with the
// centres' v0 and a random normal guess and tilt (mostly far from the contact normal): the verdict
// still matches the separating-axis test and the depth bounds the overlap from above.
TEST(Mpr, MissedSeedWalksOnToAPortal) {
  RandomGeometry s(5151);
  int hits = 0, walked = 0;
  for (long c = 0; c < Cases(); ++c) {
    const RandomBoxPair boxes(s);
    const ConvexGeom a = boxes.A(), b = boxes.B();
    MprStart start;
    start.v0.a = Load3(boxes.p1);
    start.v0.b = Load3(boxes.p2);
    start.v0.v = start.v0.a - start.v0.b;
    start.normal = s.Direction();
    start.tilt = s.Uniform(0.02, 2);
    const double overlap = boxes.Overlap();
    // MuJoCo's default ccd_iterations caps the walk, as in a model that keeps the default.
    const MprResult r = MprPenetration(a, b, 35, kTolerance, nullptr, 0, nullptr, &start);
    const auto repro = [&] {
      char buffer[200];
      std::snprintf(buffer, sizeof buffer,
                    " case %ld overlap %.17g normal %.17g %.17g %.17g tilt %.17g", c, overlap,
                    start.normal.x, start.normal.y, start.normal.z, start.tilt);
      return std::string(buffer);
    };
    bool hit = false;
    ASSERT_NO_FATAL_FAILURE(CheckAgainstOverlap(r, overlap, repro, &hit));
    if (!hit)
      continue;
    ++hits;
    walked += !r.seeded;
  }
  EXPECT_GT(hits, Cases() / 10);
  EXPECT_GT(walked, hits / 4) << "hits " << hits;
  std::printf("%d hits, %d walked on from a seeded triangle the ray missed\n", hits, walked);
}

TEST(Mpr, BadInputEndsWithoutAHit) {
  double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, size[3] = {0.2, 0.2, 0.2};
  double origin[3] = {0, 0, 0}, nan_pos[3] = {std::nan(""), 0, 0}, far[3] = {1e300, 0, 0};
  EXPECT_FALSE(MprPenetration({ShapeType::kBox, {origin, eye, size}},
                              {ShapeType::kBox, {nan_pos, eye, size}}, kIterations, kTolerance)
                   .hit);
  EXPECT_FALSE(MprPenetration({ShapeType::kBox, {origin, eye, size}},
                              {ShapeType::kBox, {far, eye, size}}, kIterations, kTolerance)
                   .hit);
  // Coincident centres: deep overlap, still an answer.
  const MprResult r =
      MprPenetration({ShapeType::kBox, {origin, eye, size}}, {ShapeType::kBox, {origin, eye, size}},
                     kIterations, kTolerance);
  EXPECT_TRUE(r.hit);
  EXPECT_NEAR(r.depth, 0.4, 1e-9);
}

// A point of a random triangle's plane with known barycentric weights (one of them negative
// in most cases): the witness reproduces the weights' combinations of the geom points, its least
// weight, and which vertex has it (the edge opposite that vertex is the one the point lies beyond).
TEST(TriangleWitness, NamesTheLeastWeightAndItsVertex) {
  RandomGeometry s(1101);
  int outside = 0;
  for (long c = 0; c < Cases(); ++c) {
    MinkowskiVertex v[3];
    for (MinkowskiVertex& x : v) {
      x.a = s.Point(1);
      x.b = s.Point(1);
      x.v = x.a - x.b;
    }
    const Vec3 e1 = v[1].v - v[0].v, e2 = v[2].v - v[0].v, normal = Cross(e1, e2);
    const double area2 = Dot(normal, normal);
    if (!(area2 > 1e-4 * Dot(e1, e1) * Dot(e2, e2)))
      continue;  // slivers: weights ill-conditioned
    const double l2 = s.Uniform(-0.5, 1.2), l3 = s.Uniform(-0.5, 1.2), l1 = 1 - l2 - l3;
    const double w[3] = {l1, l2, l3};
    const int least = l1 < l2 ? (l1 < l3 ? 0 : 2) : (l2 < l3 ? 1 : 2);
    // Off the plane along its normal: the projection is what the weights describe.
    const Vec3 p = v[0].v * l1 + v[1].v * l2 + v[2].v * l3 + normal * s.Uniform(-1, 1);
    const TriangleWitness t = WitnessOnTriangle(v[0], v[1], v[2], p);
    const auto repro = [&] {
      char buffer[200];
      std::snprintf(buffer, sizeof buffer, " case %ld weights %.17g %.17g %.17g", c, l1, l2, l3);
      return std::string(buffer);
    };
    ASSERT_NEAR(t.weight_min, w[least], 1e-9) << repro();
    const bool tie = std::fabs(w[least] - w[(least + 1) % 3]) < 1e-9 ||
                     std::fabs(w[least] - w[(least + 2) % 3]) < 1e-9;
    if (!tie) {
      ASSERT_EQ(t.weakest, least) << repro();
    }
    const Vec3 on_a = v[0].a * l1 + v[1].a * l2 + v[2].a * l3;
    const Vec3 on_b = v[0].b * l1 + v[1].b * l2 + v[2].b * l3;
    ASSERT_NEAR(t.on_a.x, on_a.x, 1e-8) << repro();
    ASSERT_NEAR(t.on_a.y, on_a.y, 1e-8) << repro();
    ASSERT_NEAR(t.on_a.z, on_a.z, 1e-8) << repro();
    ASSERT_NEAR(t.on_b.x, on_b.x, 1e-8) << repro();
    ASSERT_NEAR(t.on_b.y, on_b.y, 1e-8) << repro();
    ASSERT_NEAR(t.on_b.z, on_b.z, 1e-8) << repro();
    outside += w[least] < 0;
  }
  EXPECT_GT(outside, Cases() / 4);
}

}  // namespace
}  // namespace mjportal::collision
