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

// True when CollidePair has a kernel for (a, b).
MJP_HD constexpr bool HasPairKernel(ShapeType a, ShapeType b) {
  switch (PairCode(a, b)) {
    case PairCode(ShapeType::kPlane, ShapeType::kSphere):
    case PairCode(ShapeType::kPlane, ShapeType::kCapsule):
    case PairCode(ShapeType::kPlane, ShapeType::kEllipsoid):
    case PairCode(ShapeType::kPlane, ShapeType::kCylinder):
    case PairCode(ShapeType::kPlane, ShapeType::kBox):
    case PairCode(ShapeType::kPlane, ShapeType::kMesh):
    case PairCode(ShapeType::kSphere, ShapeType::kSphere):
    case PairCode(ShapeType::kSphere, ShapeType::kCapsule):
    case PairCode(ShapeType::kSphere, ShapeType::kCylinder):
    case PairCode(ShapeType::kSphere, ShapeType::kBox):
    case PairCode(ShapeType::kCapsule, ShapeType::kCapsule):
    case PairCode(ShapeType::kCapsule, ShapeType::kBox):
    case PairCode(ShapeType::kBox, ShapeType::kBox):
      return true;
    default:
      return false;
  }
}

// Collides geom 1 (type A) with geom 2 (type B), types known at compile time. Mesh geoms need
// their GeomView::mesh: a direct, inlined
// call of the kernel. Writes at most kMaxPairContacts contacts with dist <= margin to out and
// returns their count, or -1 when (A, B) has no kernel here.
template <ShapeType A, ShapeType B>
MJP_HD MJP_INLINE int CollidePairOf(const GeomView& geom1, const GeomView& geom2, double margin,
                                    Contact* out) {
  if constexpr (A == ShapeType::kPlane && B == ShapeType::kSphere) {
    return CollidePlaneSphere(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kPlane && B == ShapeType::kCapsule) {
    return CollidePlaneCapsule(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kPlane && B == ShapeType::kEllipsoid) {
    return CollidePlaneEllipsoid(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kPlane && B == ShapeType::kMesh) {
    return CollidePlaneMesh(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kPlane && B == ShapeType::kCylinder) {
    return CollidePlaneCylinder(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kPlane && B == ShapeType::kBox) {
    return CollidePlaneBox(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kSphere && B == ShapeType::kSphere) {
    return CollideSphereSphere(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kSphere && B == ShapeType::kCapsule) {
    return CollideSphereCapsule(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kSphere && B == ShapeType::kCylinder) {
    return CollideSphereCylinder(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kSphere && B == ShapeType::kBox) {
    return CollideSphereBox(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kCapsule && B == ShapeType::kCapsule) {
    return CollideCapsuleCapsule(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kCapsule && B == ShapeType::kBox) {
    return CollideCapsuleBox(geom1, geom2, margin, out);
  } else if constexpr (A == ShapeType::kBox && B == ShapeType::kBox) {
    return CollideBoxBox(geom1, geom2, margin, out);
  } else {
    static_assert(!HasPairKernel(A, B), "HasPairKernel and CollidePairOf must agree");
    return -1;
  }
}

// The same with types known at run time (a switch, for batched code): see CollidePairOf.
MJP_HD inline int CollidePair(ShapeType a, ShapeType b, const GeomView& geom1,
                              const GeomView& geom2, double margin, Contact* out) {
  switch (PairCode(a, b)) {
    case PairCode(ShapeType::kPlane, ShapeType::kSphere):
      return CollidePairOf<ShapeType::kPlane, ShapeType::kSphere>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kPlane, ShapeType::kCapsule):
      return CollidePairOf<ShapeType::kPlane, ShapeType::kCapsule>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kPlane, ShapeType::kEllipsoid):
      return CollidePairOf<ShapeType::kPlane, ShapeType::kEllipsoid>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kPlane, ShapeType::kMesh):
      return CollidePairOf<ShapeType::kPlane, ShapeType::kMesh>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kPlane, ShapeType::kCylinder):
      return CollidePairOf<ShapeType::kPlane, ShapeType::kCylinder>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kPlane, ShapeType::kBox):
      return CollidePairOf<ShapeType::kPlane, ShapeType::kBox>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kSphere, ShapeType::kSphere):
      return CollidePairOf<ShapeType::kSphere, ShapeType::kSphere>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kSphere, ShapeType::kCapsule):
      return CollidePairOf<ShapeType::kSphere, ShapeType::kCapsule>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kSphere, ShapeType::kCylinder):
      return CollidePairOf<ShapeType::kSphere, ShapeType::kCylinder>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kSphere, ShapeType::kBox):
      return CollidePairOf<ShapeType::kSphere, ShapeType::kBox>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kCapsule, ShapeType::kCapsule):
      return CollidePairOf<ShapeType::kCapsule, ShapeType::kCapsule>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kCapsule, ShapeType::kBox):
      return CollidePairOf<ShapeType::kCapsule, ShapeType::kBox>(geom1, geom2, margin, out);
    case PairCode(ShapeType::kBox, ShapeType::kBox):
      return CollidePairOf<ShapeType::kBox, ShapeType::kBox>(geom1, geom2, margin, out);
    default:
      return -1;
  }
}

}  // namespace mjportal::collision
