// FastAtan2 against std::atan2: within 4e-8 rad over a dense sweep of angles at several scales and
// over random pairs; exact on the axes; std::atan2's signs; NaN propagates.
#include "collision/fast_atan2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/env_count.h"

namespace mjportal::collision {
namespace {

constexpr double kBound = 4e-8;

TEST(FastAtan2, WithinBoundOverDenseSweep) {
  const long steps = testing::EnvCount("MJPORTAL_ATAN2_STEPS", 400000);
  const double pi = std::acos(-1.0);
  for (double scale : {1e-300, 1e-6, 1.0, 3e5, 1e300}) {
    for (long k = 0; k <= steps; ++k) {
      const double angle = -pi + 2 * pi * k / steps;
      const double y = scale * std::sin(angle), x = scale * std::cos(angle);
      ASSERT_NEAR(FastAtan2(y, x), std::atan2(y, x), kBound)
          << "repro: FastAtan2(" << std::hexfloat << y << ", " << x << ")";
    }
  }
}

TEST(FastAtan2, WithinBoundOverRandomPairs) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> gauss;
  const long cases = testing::EnvCount("MJPORTAL_ATAN2_STEPS", 400000);
  for (long k = 0; k < cases; ++k) {
    const double y = gauss(rng) * std::exp(4 * gauss(rng)), x = gauss(rng);
    ASSERT_NEAR(FastAtan2(y, x), std::atan2(y, x), kBound)
        << "repro: FastAtan2(" << std::hexfloat << y << ", " << x << ")";
  }
}

TEST(FastAtan2, AxesExactAndSignsAsStd) {
  for (double r : {1e-300, 0.5, 7.0, std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(FastAtan2(0.0, r), std::atan2(0.0, r));
    EXPECT_EQ(FastAtan2(r, 0.0), std::atan2(r, 0.0));
    EXPECT_EQ(FastAtan2(-r, 0.0), std::atan2(-r, 0.0));
    EXPECT_EQ(FastAtan2(0.0, -r), std::atan2(0.0, -r));
    EXPECT_EQ(FastAtan2(-0.0, -r), std::atan2(-0.0, -r));  // −π, as std
    EXPECT_TRUE(std::signbit(FastAtan2(-0.0, r)));
  }
  EXPECT_EQ(FastAtan2(0.0, 0.0), 0.0);
  EXPECT_EQ(FastAtan2(-0.0, -0.0), 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(FastAtan2(nan, 1.0)));
  EXPECT_TRUE(std::isnan(FastAtan2(1.0, nan)));
  EXPECT_TRUE(std::isnan(FastAtan2(nan, 0.0)));
  EXPECT_TRUE(std::isnan(FastAtan2(0.0, nan)));
}

}  // namespace
}  // namespace mjportal::collision
