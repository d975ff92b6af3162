#include "tools/common/cloud_mesh.h"

#include <cmath>
#include <random>
#include <sstream>

namespace mjportal::tools {

ModelPtr CloudMeshModel(int points, std::string* error) {
  // Seeded by the point count: each size is one fixed mesh.
  std::mt19937_64 rng(points);
  std::normal_distribution<double> gauss;
  std::ostringstream xml;
  xml.precision(17);
  xml << "<mujoco><asset><mesh name=\"cloud\" vertex=\"";
  for (int i = 0; i < points; ++i) {
    const double p[3] = {gauss(rng), gauss(rng), gauss(rng)};
    const double norm = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    xml << 0.3 * p[0] / norm << " " << 0.2 * p[1] / norm << " " << 0.1 * p[2] / norm << " ";
  }
  xml << "\"/></asset><worldbody><geom type=\"mesh\" mesh=\"cloud\"/></worldbody></mujoco>";

  char message[512] = "";
  mjSpec* spec = mj_parseXMLString(xml.str().c_str(), nullptr, message, sizeof(message));
  mjModel* m = spec != nullptr ? mj_compile(spec, nullptr) : nullptr;
  if (m == nullptr) {
    *error = spec != nullptr ? mjs_getError(spec) : message;
  }
  if (spec != nullptr) {
    mj_deleteSpec(spec);
  }
  return ModelPtr(m);
}

}  // namespace mjportal::tools
