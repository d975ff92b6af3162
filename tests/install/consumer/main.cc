// Uses an installed kernel and checks that the installed plugin library exists.
#include <cstdio>
#include <fstream>

#include "collision/pair_kernels.h"

int main() {
  using namespace mjportal::collision;
  double plane_pos[3] = {0, 0, 0}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, plane_size[3] = {1, 1, 1};
  double ball_pos[3] = {0, 0, 0.05}, ball_size[3] = {0.1, 0, 0};
  Contact con[kMaxPairContacts];
  const int n = CollidePairOf<ShapeType::kPlane, ShapeType::kSphere>(
      {plane_pos, eye, plane_size}, {ball_pos, eye, ball_size}, 0.0, con);
  const bool plugin_found = std::ifstream(PLUGIN_LIBRARY).good();
  std::printf("contacts=%d dist=%.3f plugin=%s\n", n, n ? con[0].dist : 0.0, PLUGIN_LIBRARY);
  return (n == 1 && plugin_found) ? 0 : 1;
}
