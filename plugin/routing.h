// Which pair types an mjportal instance answers itself, per mode; the rest go to MuJoCo's
// originals. This is the support matrix of the README.
#pragma once

#include "collision/pair_kernels.h"
#include "plugin/config.h"

namespace mjportal {

// A pair of convex primitives or meshes (sphere, capsule, ellipsoid, cylinder, box, mesh).
constexpr bool IsConvexPair(int type1, int type2) {
  return type1 >= mjGEOM_SPHERE && type1 <= mjGEOM_MESH && type2 >= mjGEOM_SPHERE &&
         type2 <= mjGEOM_MESH;
}

// A pair fast mode sends to the general convex solvers (MPR, GJK, EPA): convex, and no analytic
// kernel.
constexpr bool UsesConvexSolver(int type1, int type2) {
  return IsConvexPair(type1, type2) &&
         !collision::HasPairKernel(static_cast<collision::ShapeType>(type1),
                                   static_cast<collision::ShapeType>(type2));
}

// compat: the analytic kernels (bit-exact with MuJoCo); the general convex pairs stay with
// MuJoCo until compat versions of its GJK/EPA land. fast: the analytic kernels plus the convex
// solvers, i.e. every pair among plane, sphere, capsule, ellipsoid, cylinder, box and mesh.
constexpr bool RoutesToKernel(Mode mode, int type1, int type2) {
  return collision::HasPairKernel(static_cast<collision::ShapeType>(type1),
                                  static_cast<collision::ShapeType>(type2)) ||
         (mode == Mode::kFast && UsesConvexSolver(type1, type2));
}

}  // namespace mjportal
