// Portability layer for the kernels: one source compiles for the host (g++/clang) and for CUDA
// devices (nvcc). Kernels are header-only, allocate nothing, throw nothing, and call no function
// pointer; every function that a device kernel may reach carries MJP_HD.
#pragma once

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

}  // namespace mjportal::collision
