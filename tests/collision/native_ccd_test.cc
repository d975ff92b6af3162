// Kernel-level checks of compat's native convex collider (collision/native_ccd.h) that the
// per-call oracle cannot make: its baked constants and its behaviour on poses MuJoCo never hands
// over. Bitwise agreement with MuJoCo is tested by the oracle (tests/plugin/oracle_pairs_test.cc).
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "collision/native_ccd.h"

namespace mjportal::collision {
namespace {

// The perturbation rotation's half-angle sine and cosine are baked (device code must not depend
// on its libm); they must be what the host's libm gives MuJoCo.
TEST(NativeCcdTest, PerturbationConstantsMatchLibm) {
  volatile double angle = 1e-3;
  EXPECT_EQ(kNativePerturbSin, std::sin(angle * 0.5));
  EXPECT_EQ(kNativePerturbCos, std::cos(angle * 0.5));
  EXPECT_EQ(-kNativePerturbSin, std::sin(-angle * 0.5));
}

struct Solver {
  std::vector<double> memory;
  NativeScratch scratch;
  explicit Solver(int iterations) {
    const unsigned long epa = (NativeEpaScratchBytes(iterations) + 7) / 8;
    memory.resize(epa + (NativePatchScratchBytes(3, 4) + 7) / 8);
    scratch.epa = NativeEpaScratchIn(memory.data(), iterations);
    scratch.patch = NativePatchScratchIn(memory.data() + epa, 3, 4);
  }
};

// Non-finite or huge poses end (every loop is capped) without a contact or with finite ones.
TEST(NativeCcdTest, BadPosesTerminate) {
  Solver solver(35);
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double size[3] = {0.5, 0.4, 0.3};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double poses[][3] = {{nan, 0, 0}, {0, 0, 1e8}, {0, 0, -1e300}, {0, 0, 0.5}};
  for (ShapeType t1 : {ShapeType::kCylinder, ShapeType::kBox, ShapeType::kEllipsoid}) {
    for (ShapeType t2 : {ShapeType::kCylinder, ShapeType::kBox, ShapeType::kCapsule}) {
      for (const auto& pose : poses) {
        const double origin[3] = {0, 0, 0};
        NativeShape a = MakeNativeShape(t1, origin, identity, size, 0);
        NativeShape b = MakeNativeShape(t2, pose, identity, size, 0);
        Contact con[8];
        NativeOutcome outcome;
        const int n = NativeConvex(a, b, NativeSettings{}, 0, 1, 1, con, solver.scratch, &outcome);
        EXPECT_GE(n, 0);
        EXPECT_LE(n, 5);
        if (pose[2] == 0.5) {
          EXPECT_GE(n, 1) << "overlapping shapes, types " << static_cast<int>(t1) << " "
                          << static_cast<int>(t2);
        }
      }
    }
  }
}

}  // namespace
}  // namespace mjportal::collision
