// Pair dispatch: which (type1, type2) pairs have a kernel here, and the call that runs it.
//
// Types are ordered as MuJoCo orders them (type1 <= type2), so the plane is always geom 1 and the
// normal points from geom 1 to geom 2. Dispatch is a switch on a pair code, so device code needs no
// function pointers; with constant types the compiler folds it to a direct call.
#pragma once

#include "collision/box_box.h"
#include "collision/capsule_box.h"
#include "collision/capsule_capsule.h"
#include "collision/contact.h"
#include "collision/plane_box.h"
#include "collision/plane_convex.h"
#include "collision/plane_cylinder.h"
#include "collision/plane_sphere.h"
#include "collision/sphere_box.h"
#include "collision/sphere_capsule.h"
#include "collision/sphere_cylinder.h"
#include "collision/sphere_sphere.h"

namespace mjportal::collision {

// The most contacts any kernel here writes for one pair (box–box: a clipped quad, 8).
constexpr int kMaxPairContacts = 8;

// A unique code for an ordered pair of shape types.
MJP_HD constexpr int PairCode(ShapeType a, ShapeType b) {
  return static_cast<int>(a) * kShapeTypeCount + static_cast<int>(b);
}

// Every pair with a kernel, listed once: X(type 1, type 2, kernel). The queries and both
// dispatchers below are generated from this list.
#define MJPORTAL_PAIR_KERNELS(X)               \
  X(kPlane, kSphere, CollidePlaneSphere)       \
  X(kPlane, kCapsule, CollidePlaneCapsule)     \
  X(kPlane, kEllipsoid, CollidePlaneEllipsoid) \
  X(kPlane, kCylinder, CollidePlaneCylinder)   \
  X(kPlane, kBox, CollidePlaneBox)             \
  X(kPlane, kMesh, CollidePlaneMesh)           \
  X(kSphere, kSphere, CollideSphereSphere)     \
  X(kSphere, kCapsule, CollideSphereCapsule)   \
  X(kSphere, kCylinder, CollideSphereCylinder) \
  X(kSphere, kBox, CollideSphereBox)           \
  X(kCapsule, kCapsule, CollideCapsuleCapsule) \
  X(kCapsule, kBox, CollideCapsuleBox)         \
  X(kBox, kBox, CollideBoxBox)

// True when CollidePair has a kernel for (a, b).
MJP_HD constexpr bool HasPairKernel(ShapeType a, ShapeType b) {
#define MJPORTAL_HAS_KERNEL(A, B, KERNEL)                     \
  if (PairCode(a, b) == PairCode(ShapeType::A, ShapeType::B)) \
    return true;
  MJPORTAL_PAIR_KERNELS(MJPORTAL_HAS_KERNEL)
#undef MJPORTAL_HAS_KERNEL
  return false;
}

// Collides geom 1 (type A) with geom 2 (type B), types known at compile time: a direct, inlined
// call of the kernel. Mesh geoms need their GeomView::mesh. Writes at most kMaxPairContacts
// contacts with dist <= margin to out and returns their count, or -1 when (A, B) has no kernel.
template <ShapeType A, ShapeType B>
MJP_HD MJP_INLINE int CollidePairOf(const GeomView& geom1, const GeomView& geom2, double margin,
                                    Contact* out) {
#define MJPORTAL_CALL_KERNEL(TA, TB, KERNEL)                \
  if constexpr (A == ShapeType::TA && B == ShapeType::TB) { \
    return KERNEL(geom1, geom2, margin, out);               \
  }
  MJPORTAL_PAIR_KERNELS(MJPORTAL_CALL_KERNEL)
#undef MJPORTAL_CALL_KERNEL
  return -1;
}

// The same with types known at run time (a switch, for batched code): see CollidePairOf.
MJP_HD inline int CollidePair(ShapeType a, ShapeType b, const GeomView& geom1,
                              const GeomView& geom2, double margin, Contact* out) {
  switch (PairCode(a, b)) {
#define MJPORTAL_CASE_KERNEL(A, B, KERNEL)   \
  case PairCode(ShapeType::A, ShapeType::B): \
    return KERNEL(geom1, geom2, margin, out);
    MJPORTAL_PAIR_KERNELS(MJPORTAL_CASE_KERNEL)
#undef MJPORTAL_CASE_KERNEL
    default:
      return -1;
  }
}

}  // namespace mjportal::collision
