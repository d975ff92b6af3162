// Seeded random geometry for the kernel tests: uniform numbers and points, Gaussian vectors, unit
// directions and uniformly random rotations (row-major, from a normalized Gaussian quaternion).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "collision/vec3.h"

namespace mjportal::collision {

class RandomGeometry {
 public:
  explicit RandomGeometry(std::uint64_t seed) : engine_(seed) {}

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(engine_);
  }
  Vec3 Point(double extent) {
    return {Uniform(-extent, extent), Uniform(-extent, extent), Uniform(-extent, extent)};
  }
  Vec3 Gaussian() {
    std::normal_distribution<double> g;
    return {g(engine_), g(engine_), g(engine_)};
  }
  Vec3 Direction() {
    Vec3 v = Gaussian();
    Normalize(v);
    return v;
  }
  void Rotation(double mat[9]) {
    std::normal_distribution<double> g;
    double q[4] = {g(engine_), g(engine_), g(engine_), g(engine_)};
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                         2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    std::copy(r, r + 9, mat);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace mjportal::collision
