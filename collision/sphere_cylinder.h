// Sphere–cylinder contact: the sphere meets the side, a cap, or a rim edge.
//
// Math: with the sphere centre s in the cylinder frame, x = a·(s - c) is its height along the axis
// and p = (s - c) - x a its radial offset. |x| < h: beside the side wall; |p| < r: above a cap.
// Both (centre inside): the nearer of the cap (h - |x|) and the wall (r - |p|) wins. Side: sphere
// against the axis point c + x a with the cylinder radius. Cap: the cap is a plane through
// c ± h a with normal ±a. Otherwise: sphere against the rim point c ± h a + r p/|p| (a point).
#pragma once

#include <cmath>

#include "collision/plane_sphere.h"
#include "collision/sphere_sphere.h"

namespace mjportal::collision {

// Sphere (geom 1) against cylinder (geom 2). Returns 0 or 1 contacts.
MJP_HD inline int CollideSphereCylinder(const GeomView& sphere, const GeomView& cylinder,
                                        double margin, Contact* out) {
  const double radius = cylinder.size[0];
  const double half_height = cylinder.size[1];
  const Vec3 axis = Column(cylinder.mat, 2);
  const Vec3 center = Load3(cylinder.pos);
  const Vec3 sphere_center = Load3(sphere.pos);

  // Axial and radial parts of the sphere centre relative to the cylinder.
  const Vec3 offset = sphere_center - center;
  const double x = Dot(axis, offset);
  const Vec3 axial = axis * x;
  const Vec3 radial = offset - axial;
  const double radial_sqr = Dot(radial, radial);

  // Which feature: side, cap, or (when the centre is inside) the nearer of the two.
  bool side = std::fabs(x) < half_height;
  bool cap = radial_sqr < radius * radius;
  if (side && cap) {
    const double cap_depth = half_height - std::fabs(x);
    const double side_depth = radius - std::sqrt(radial_sqr);
    if (cap_depth < side_depth) {
      side = false;
    } else {
      cap = false;
    }
  }

  // Side wall: sphere against the nearest axis point with the cylinder radius.
  if (side) {
    return CollideSpheres(margin, sphere_center, sphere.mat, sphere.size[0], axial + center,
                          cylinder.mat, radius, out);
  }

  // Cap: a plane through the cap centre, normal along ±axis; the normal then points from the
  // sphere (geom 1) to the cylinder.
  if (cap) {
    const double* m = cylinder.mat;
    const double flipped[9] = {-m[0], m[1], -m[2], -m[3], m[4], -m[5], -m[6], m[7], -m[8]};
    double cap_center[3];
    Store3(cap_center, center + axis * (x > 0 ? half_height : -half_height));
    const int n = CollidePlaneSpherePoint(margin, cap_center, x > 0 ? m : flipped, sphere_center,
                                          sphere.size[0], out);
    if (n) {
      out[0].normal = out[0].normal * -1.0;
    }
    return n;
  }

  // Rim edge: sphere against the rim point (a sphere of radius zero).
  const Vec3 rim =
      (axis * (x > 0 ? half_height : -half_height) + radial * (radius / std::sqrt(radial_sqr))) +
      center;
  return CollideSpheres(margin, sphere_center, sphere.mat, sphere.size[0], rim, cylinder.mat, 0.0,
                        out);
}

}  // namespace mjportal::collision
