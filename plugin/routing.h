// Which pair types an mjportal instance answers itself, per mode; the rest go to MuJoCo's
// originals. This is the support matrix of the README.
#pragma once

#include "collision/pair_kernels.h"
#include "plugin/config.h"

namespace mjportal {

// Both modes run the analytic kernels (they are bit-exact with MuJoCo and already fast); the
// general convex pairs stay with MuJoCo until their kernels land.
constexpr bool RoutesToKernel(Mode /*mode*/, int type1, int type2) {
  return collision::HasPairKernel(static_cast<collision::ShapeType>(type1),
                                  static_cast<collision::ShapeType>(type2));
}

}  // namespace mjportal
