// A many-sided can as an MJCF mesh, shared by the tests of large mesh faces.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace mjportal::testing {

// The vertex list (for <mesh vertex="...">) of a can of `sides` sides: radius 0.05, height 0.04,
// axis z; its caps are faces of `sides` vertices.
inline std::string CanVertices(int sides) {
  const double pi = 3.14159265358979323846;
  std::string list;
  char vertex[96];
  for (const double z : {-0.02, 0.02}) {
    for (int k = 0; k < sides; ++k) {
      const double angle = 2 * pi * k / sides;
      std::snprintf(vertex, sizeof(vertex), "%.9f %.9f %.3f ", 0.05 * std::cos(angle),
                    0.05 * std::sin(angle), z);
      list += vertex;
    }
  }
  return list;
}

}  // namespace mjportal::testing
