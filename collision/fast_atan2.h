// atan2 from additions, multiplications and one division: no libm, so the same bits on every
// host and device under the project's no-contraction flags, at a fraction of libm's cost.
// Accurate to 4e-8 rad: for locating a direction's support-field patch, where the patch
// certification's slack (1e-6 rad, support_field.h) absorbs the error.
//
// Reduction: t = min(|x|, |y|) / max(|x|, |y|) ∈ [0, 1] and atan t ≈ t·P(t²), P of degree 7
// fitted to minimize the largest error on [0, 1] (3.75e-8 evaluated in double; the test sweeps it);
// then by octant: |y| > |x| → π/2 − atan t; x < 0 → π − ·; y < 0 → −·.
#pragma once

#include <cmath>

#include "collision/platform.h"

namespace mjportal::collision {

// atan2(y, x) ∈ [−π, π] within 4e-8, with std::atan2's signs (y = −0 and x < 0 give −π); 0 for
// (±0, ±0); NaN in, NaN out.
MJP_HD MJP_INLINE double FastAtan2(double y, double x) {
  constexpr double kPi = 3.14159265358979323846;
  const double ax = std::fabs(x), ay = std::fabs(y);
  const bool steep = ay > ax;  // the second octant: angle = π/2 − atan t
  const double hi = Select(steep, ay, ax), lo = Select(steep, ax, ay);
  if (!(hi > 0)) {
    return (x != x || y != y) ? x + y : 0.0;  // NaN, or (±0, ±0)
  }
  const double t = lo / hi, s = t * t, s2 = s * s, s4 = s2 * s2;
  // Estrin's scheme: four independent pairs, then two, then one (a shorter dependency chain
  // than Horner's seven steps).
  const double p01 = 0.99999933557448739 - 0.33329860767136377 * s;
  const double p23 = 0.19946565436727232 - 0.13908628392891034 * s;
  const double p45 = 0.096421941704671124 - 0.055912281128755036 * s;
  const double p67 = 0.021862924575372897 - 0.0040545575662974294 * s;
  const double p = (p01 + p23 * s2) + (p45 + p67 * s2) * s4;
  // The octant steps as selects, with no branch (a support-field lookup's directions fall in
  // any octant, which a branch mispredicts); then y's sign, copied (angle >= 0).
  double angle = t * p;
  angle = Select(steep, kPi / 2 - angle, angle);
  angle = Select(x < 0, kPi - angle, angle);
  return std::copysign(angle, y);
}

}  // namespace mjportal::collision
