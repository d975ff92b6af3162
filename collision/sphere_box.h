// Sphere–box contact.
//
// Math: in the box frame the sphere centre is q = Rᵀ(s - c). Clamping q to the box [-e, e] gives
// the closest box point; if q is outside, the normal is the unit (clamped - q) direction and the
// contact is halfway between the box point and the sphere's deepest point q + r n. If q is inside
// (clamped == q), the nearest face wins: the smallest |±e_i - q_i| over the six faces; the normal
// is that face's inward axis and the depth is the face distance plus r. Results go back to world
// coordinates with R and c.
#pragma once

#include <cmath>

#include "collision/contact.h"

namespace mjportal::collision {

// Sphere (centre, radius) against a box. Returns 0 or 1 contacts.
MJP_HD inline int CollideSphereBoxAt(double margin, const Vec3& sphere_center, double sphere_radius,
                                     const GeomView& box, Contact* out) {
  const double* e = box.size;

  // Sphere centre in the box frame, and the closest point of the box (clamped per positive limit).
  const Vec3 local = RotateT(box.mat, sphere_center - Load3(box.pos));
  Vec3 clamped = local;
  for (int i = 0; i < 3; ++i) {
    if (e[i] > 0) {
      Set(clamped, i, Clip(Get(clamped, i), -e[i], e[i]));
    }
  }

  // Direction from the centre to the box point, and its length.
  Vec3 direction = clamped - local;
  double dist = Normalize(direction);
  if (dist - sphere_radius > margin) {
    return 0;
  }

  Vec3 pos_local;
  Contact& con = out[0];
  if (dist <= kMinVal) {
    // Centre inside: the nearest of the six faces (face 2i: -e_i, face 2i+1: +e_i).
    double closest = (e[0] + e[1] + e[2]) * 2;
    int face = 0;
    for (int i = 0; i < 6; ++i) {
      const double face_dist = std::fabs((i % 2 ? 1 : -1) * e[i / 2] - Get(local, i / 2));
      if (closest > face_dist) {
        closest = face_dist;
        face = i;
      }
    }
    Vec3 inward = {0.0, 0.0, 0.0};
    Set(inward, face / 2, face % 2 ? -1.0 : 1.0);
    pos_local = local + inward * ((sphere_radius - closest) / 2);
    con.normal = Rotate(box.mat, inward);
    dist = -closest;
  } else {
    // Centre outside: midpoint of the box point and the sphere's deepest point.
    const Vec3 deepest = local + direction * sphere_radius;
    const Vec3 zero = {0.0, 0.0, 0.0};
    pos_local = (zero + clamped * 0.5) + deepest * 0.5;  // 0 + x keeps MuJoCo's signed zeros
    con.normal = Rotate(box.mat, direction);
  }

  // Back to the world frame.
  con.pos = Rotate(box.mat, pos_local) + Load3(box.pos);
  con.dist = dist - sphere_radius;
  con.tangent = {0.0, 0.0, 0.0};
  return 1;
}

// Sphere (geom 1) against box (geom 2, size = half-extents). Returns 0 or 1 contacts.
MJP_HD inline int CollideSphereBox(const GeomView& sphere, const GeomView& box, double margin,
                                   Contact* out) {
  return CollideSphereBoxAt(margin, Load3(sphere.pos), sphere.size[0], box, out);
}

}  // namespace mjportal::collision
