// Select against the conditional it replaces: the chosen operand's exact bits (signed zeros,
// infinities, NaN payloads), whichever way the condition goes.
#include "collision/platform.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>

namespace mjportal::collision {
namespace {

std::uint64_t Bits(double x) {
  std::uint64_t out;
  std::memcpy(&out, &x, sizeof out);
  return out;
}

TEST(Select, ChoosesTheOperandsExactBits) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double values[] = {0.0, -0.0, 1.0, -2.5, 1e-310, -inf, inf, nan, -nan, 3.14159};
  for (double a : values) {
    for (double b : values) {
      EXPECT_EQ(Bits(Select(true, a, b)), Bits(a)) << "Select(true, " << a << ", " << b << ")";
      EXPECT_EQ(Bits(Select(false, a, b)), Bits(b)) << "Select(false, " << a << ", " << b << ")";
    }
  }
}

}  // namespace
}  // namespace mjportal::collision
