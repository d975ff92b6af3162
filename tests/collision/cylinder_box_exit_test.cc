// The cylinder–box shallowest-exit search (collision/cylinder_box_exit.h) against a brute-force
// reference: a refined sphere sweep plus dense, refined sweeps of the cap normals and the four
// great circles (convex_reference.h).
#include "collision/cylinder_box_exit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "tests/collision/convex_reference.h"
#include "tests/collision/random_geometry.h"
#include "tests/env_count.h"

namespace mjportal::collision {
namespace {

namespace ref = reference;

// One random cylinder–box pair; the poses' storage lives here.
struct Pair {
  double cp[3], cm[9], cs[3] = {0, 0, 0}, bp[3], bm[9], bs[3];
  ConvexGeom Cylinder() const { return {ShapeType::kCylinder, {cp, cm, cs}}; }
  ConvexGeom Box() const { return {ShapeType::kBox, {bp, bm, bs}}; }
  double Scale() const { return std::min({cs[0], cs[1], bs[0], bs[1], bs[2]}); }
  void Print() const {
    std::printf("repro: cylinder pos {%.17g, %.17g, %.17g} size {%.17g, %.17g}\n  mat {", cp[0],
                cp[1], cp[2], cs[0], cs[1]);
    for (int i = 0; i < 9; ++i)
      std::printf("%.17g%s", cm[i], i < 8 ? ", " : "}\n");
    std::printf("  box pos {%.17g, %.17g, %.17g} size {%.17g, %.17g, %.17g}\n  mat {", bp[0], bp[1],
                bp[2], bs[0], bs[1], bs[2]);
    for (int i = 0; i < 9; ++i)
      std::printf("%.17g%s", bm[i], i < 8 ? ", " : "}\n");
  }
};

// Case `i` of three kinds: general rotations; the cylinder's axis along a box axis (standing on a
// face); the cylinder's axis across one (lying on a face): the resting scenes' alignments.
Pair RandomPair(RandomGeometry& g, long i) {
  Pair p;
  for (int k = 0; k < 2; ++k)
    p.cs[k] = g.Uniform(0.05, 1);
  for (double& x : p.bs)
    x = g.Uniform(0.05, 1);
  g.Rotation(p.cm);
  g.Rotation(p.bm);
  if (i % 3 != 0) {
    // Cylinder axis (column 2) along box axis k (standing) or box axis k's perpendicular
    // (lying): the cylinder's frame is the box's with its columns permuted.
    const int k = static_cast<int>(g.Uniform(0, 3)) % 3;
    const int order[3] = {(k + 1) % 3, (k + 2) % 3, k};
    const int lying[3] = {k, (k + 2) % 3, (k + 1) % 3};
    const int* column = i % 3 == 1 ? order : lying;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c)
        p.cm[3 * r + c] = p.bm[3 * r + column[c]] * (c == 1 && i % 3 == 2 ? -1 : 1);
    }
  }
  const Vec3 offset = g.Direction() * (g.Uniform(0.3, 1.6) * (p.cs[0] + p.cs[1] + p.bs[0]));
  const Vec3 c = g.Point(1);
  Store3(p.cp, c);
  Store3(p.bp, c + offset);
  return p;
}

// The least overlap is found, to the reference's precision, whatever the threshold above it, and
// nothing is reported below it: the patch masks and arc bounds only skip what cannot be lower.
TEST(CylinderBoxExit, FindsTheLeastOverlapAndNothingBelowIt) {
  RandomGeometry g(20261203);
  const long cases = testing::EnvCount("MJPORTAL_KERNEL_CASES", 3000);
  long overlapping = 0, aligned = 0;
  for (long i = 0; i < cases; ++i) {
    const Pair p = RandomPair(g, i);
    const ConvexGeom cyl = p.Cylinder(), box = p.Box();
    const double depth = ref::CylinderBoxMinOverlap(cyl, box);
    if (!(depth > 1e-9 * p.Scale()))
      continue;
    ++overlapping;
    aligned += i % 3 != 0;
    const double tolerance = 1e-9 * p.Scale();
    const ShallowerExit all = CylinderBoxShallowerExit(cyl, box, 1e300);
    const ShallowerExit just_above = CylinderBoxShallowerExit(cyl, box, depth + 1e-7 * p.Scale());
    const ShallowerExit below = CylinderBoxShallowerExit(cyl, box, depth - 1e-7 * p.Scale());
    const bool ok = all.found && std::fabs(all.overlap - depth) <= tolerance && just_above.found &&
                    std::fabs(just_above.overlap - depth) <= tolerance && !below.found &&
                    std::fabs(OverlapAlong(cyl, box, all.normal) - all.overlap) <= 1e-12 &&
                    std::fabs(Dot(all.normal, all.normal) - 1) <= 1e-12;
    if (!ok) {
      std::printf(
          "case %ld: reference depth %.17g, search %.17g (found %d), threshold above: "
          "%.17g (found %d), threshold below: found %d\n",
          i, depth, all.overlap, all.found, just_above.overlap, just_above.found, below.found);
      p.Print();
    }
    ASSERT_TRUE(ok) << "case " << i;
  }
  // The draw must exercise both kinds of pose.
  EXPECT_GT(overlapping, cases / 4);
  EXPECT_GT(aligned, overlapping / 2);
}

// Geoms apart (or touching): there is no shallower exit to report.
TEST(CylinderBoxExit, ReportsNothingForAThresholdAtOrBelowZero) {
  RandomGeometry g(7);
  for (long i = 0; i < 200; ++i) {
    const Pair p = RandomPair(g, i);
    EXPECT_FALSE(CylinderBoxShallowerExit(p.Cylinder(), p.Box(), 0).found);
    EXPECT_FALSE(CylinderBoxShallowerExit(p.Cylinder(), p.Box(), -1).found);
  }
}

}  // namespace
}  // namespace mjportal::collision
