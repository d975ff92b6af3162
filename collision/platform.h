// Portability layer for the kernels: one source compiles for the host (g++/clang) and for CUDA
// devices (nvcc). Kernels are header-only, allocate nothing, throw nothing, and call no function
// pointer; every function that a device kernel may reach carries MJP_HD.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define MJP_HD __host__ __device__
#define MJP_INLINE __forceinline__
#else
#define MJP_HD
#define MJP_INLINE inline __attribute__((always_inline))
#endif

namespace mjportal::collision {

// Smallest denominator the kernels accept (MuJoCo's mjMINVAL for double precision).
constexpr double kMinVal = 1e-15;

// The index after i in a cyclic list of n (polygon vertices, edges): a compare, not a remainder.
MJP_HD MJP_INLINE int CyclicNext(int i, int n) {
  return i + 1 == n ? 0 : i + 1;
}

// `pick ? a : b` on the values' bits, with no branch: for a choice that data makes
// unpredictable, where compilers keep a branch on a plain conditional of doubles.
MJP_HD MJP_INLINE double Select(bool pick, double a, double b) {
  std::uint64_t ua, ub;
  std::memcpy(&ua, &a, sizeof ua);
  std::memcpy(&ub, &b, sizeof ub);
  const std::uint64_t mask = std::uint64_t{0} - static_cast<std::uint64_t>(pick);
  const std::uint64_t bits = (ua & mask) | (ub & ~mask);
  double out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

}  // namespace mjportal::collision
