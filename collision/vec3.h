// 3-vector and 3x3 row-major matrix arithmetic for the kernels.
//
// Compat mode is bit-exact, so every expression here fixes its evaluation order: sums are left to
// right, (a.x*b.x + a.y*b.y) + a.z*b.z, and no operation is fused (the build uses
// -ffp-contract=off on the host and -fmad=false on the device). Reordering any line changes the
// last bit of some result.
#pragma once

#include <cmath>

#include "collision/platform.h"

namespace mjportal::collision {

struct Vec3 {
  double x, y, z;
};

// Loads three consecutive doubles (MuJoCo stores positions as double[3]).
MJP_HD MJP_INLINE Vec3 Load3(const double* p) {
  return {p[0], p[1], p[2]};
}

MJP_HD MJP_INLINE void Store3(double* p, const Vec3& v) {
  p[0] = v.x;
  p[1] = v.y;
  p[2] = v.z;
}

// Member-wise copy into a Vec3 in memory. A plain `dst = v` of a vector held in registers makes
// GCC spill it and copy the block as 16 + 8 bytes, whose 16-byte reload of two 8-byte stores
// stalls store forwarding; worth avoiding where a cheap kernel writes its contacts.
MJP_HD MJP_INLINE void Assign(Vec3& dst, const Vec3& v) {
  dst.x = v.x;
  dst.y = v.y;
  dst.z = v.z;
}

MJP_HD MJP_INLINE Vec3 operator+(const Vec3& a, const Vec3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
MJP_HD MJP_INLINE Vec3 operator-(const Vec3& a, const Vec3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
MJP_HD MJP_INLINE Vec3 operator-(const Vec3& a) {
  return {-a.x, -a.y, -a.z};
}
MJP_HD MJP_INLINE Vec3 operator*(const Vec3& a, double s) {
  return {a.x * s, a.y * s, a.z * s};
}

// a·b summed left to right.
MJP_HD MJP_INLINE double Dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

// a×b, each component as (first product) - (second product).
MJP_HD MJP_INLINE Vec3 Cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// Scales v to unit length in place and returns its former length. A vector shorter than kMinVal
// becomes (1, 0, 0). Scaling multiplies by the reciprocal, as MuJoCo's mju_normalize3 does.
MJP_HD MJP_INLINE double Normalize(Vec3& v) {
  const double norm = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  if (norm < kMinVal) {
    v = {1.0, 0.0, 0.0};
  } else {
    const double inv = 1 / norm;
    v = v * inv;
  }
  return norm;
}

// x clamped to [lo, hi]; NaN passes through unchanged.
MJP_HD MJP_INLINE double Clip(double x, double lo, double hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

// Column k of a row-major 3x3 rotation: the k-th local axis expressed in the world frame.
MJP_HD MJP_INLINE Vec3 Column(const double* mat, int k) {
  return {mat[k], mat[3 + k], mat[6 + k]};
}

// mat · v for a row-major 3x3 matrix (local-to-world rotation of v).
MJP_HD MJP_INLINE Vec3 Rotate(const double* mat, const Vec3& v) {
  return {mat[0] * v.x + mat[1] * v.y + mat[2] * v.z, mat[3] * v.x + mat[4] * v.y + mat[5] * v.z,
          mat[6] * v.x + mat[7] * v.y + mat[8] * v.z};
}

// matᵀ · v for a row-major 3x3 matrix (world-to-local rotation of v).
MJP_HD MJP_INLINE Vec3 RotateT(const double* mat, const Vec3& v) {
  return {mat[0] * v.x + mat[3] * v.y + mat[6] * v.z, mat[1] * v.x + mat[4] * v.y + mat[7] * v.z,
          mat[2] * v.x + mat[5] * v.y + mat[8] * v.z};
}

MJP_HD MJP_INLINE double Get(const Vec3& v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

MJP_HD MJP_INLINE void Set(Vec3& v, int i, double value) {
  (i == 0 ? v.x : (i == 1 ? v.y : v.z)) = value;
}

}  // namespace mjportal::collision
