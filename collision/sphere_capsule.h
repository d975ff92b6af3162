// Sphere–capsule contact.
//
// Math: a capsule is the set of points within r of the segment c + t·z, t ∈ [-h, h]. The closest
// segment point to the sphere centre s is at t* = clip(z·(s - c), -h, h); the pair then reduces to
// two spheres: (s, r_sphere) and (c + t* z, r_capsule).
#pragma once

#include "collision/sphere_sphere.h"

namespace mjportal::collision {

// Sphere (geom 1) against capsule (geom 2). Returns 0 or 1 contacts.
MJP_HD inline int CollideSphereCapsule(const GeomView& sphere, const GeomView& capsule,
                                       double margin, Contact* out) {
  // Project the sphere centre on the capsule axis and clamp to the segment.
  const double half_length = capsule.size[1];
  const Vec3 axis = Column(capsule.mat, 2);
  const Vec3 sphere_center = Load3(sphere.pos);
  const Vec3 capsule_center = Load3(capsule.pos);
  const double t = Clip(Dot(axis, sphere_center - capsule_center), -half_length, half_length);

  // Sphere against the capsule's closest segment point.
  const Vec3 nearest = axis * t + capsule_center;
  return CollideSpheres(margin, sphere_center, sphere.mat, sphere.size[0], nearest, capsule.mat,
                        capsule.size[0], out);
}

}  // namespace mjportal::collision
