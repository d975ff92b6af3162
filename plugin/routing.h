// Which pair types an mjportal instance answers itself (the same in both modes); the rest go to
// MuJoCo's originals. This is the support matrix of the README.
#pragma once

#include "collision/pair_kernels.h"

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

// Both modes answer every pair among plane, sphere, capsule, ellipsoid, cylinder, box and mesh:
// the analytic kernels (bit-exact with MuJoCo) plus, for the general convex pairs, fast mode's
// solvers or compat's port of MuJoCo's native GJK/EPA. Compat still hands MuJoCo a call at run
// time where that port does not reach (collision_table.cc: nativeccd disabled, the contact patch
// of box/mesh pairs without margin); the pair counters show those as delegated.
constexpr bool RoutesToKernel(int type1, int type2) {
  return collision::HasPairKernel(static_cast<collision::ShapeType>(type1),
                                  static_cast<collision::ShapeType>(type2)) ||
         UsesConvexSolver(type1, type2);
}

}  // namespace mjportal
