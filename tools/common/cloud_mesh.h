// A model holding one convex-mesh geom: `points` seeded random points on the ellipsoid with
// semi-axes 0.3, 0.2, 0.1; MuJoCo's compiler keeps their convex hull and its graph. The meshes the
// support-field bench and tests measure at about 20, 200 and 2,000 hull vertices.
#pragma once

#include <string>

#include "tools/common/model_variants.h"

namespace mjportal::tools {

// nullptr and *error when MuJoCo rejects the mesh (e.g. fewer than 4 points).
ModelPtr CloudMeshModel(int points, std::string* error);

}  // namespace mjportal::tools
