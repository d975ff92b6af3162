// Plane–sphere and plane–capsule contacts.
//
// Math: a plane through p with unit normal n (its frame's z axis) is at signed distance
// n·(c - p) from a point c. A sphere (c, r) touches it at depth dist = n·(c - p) - r; the contact
// sits halfway between the plane and the sphere's lowest point: c - n (r + dist/2). A capsule is
// two such spheres at its segment ends c ± h z, each contact's tangent along the capsule axis.
#pragma once

#include "collision/contact.h"

namespace mjportal::collision {

// Plane (p, mat) against sphere (c, r). Returns 0 or 1 contacts; the normal is the plane's z.
MJP_HD inline int CollidePlaneSpherePoint(double margin, const double* plane_pos,
                                          const double* plane_mat, const Vec3& center,
                                          double radius, Contact* out) {
  // Height of the centre above the plane; reject beyond margin + radius.
  const Vec3 normal = Column(plane_mat, 2);
  const double height = Dot(center - Load3(plane_pos), normal);
  if (height > margin + radius) {
    return 0;
  }

  // Depth and the midpoint between plane and sphere bottom.
  Contact& con = out[0];
  Assign(con.normal, normal);
  con.dist = height - radius;
  Assign(con.pos, center + normal * (-con.dist / 2 - radius));
  Assign(con.tangent, {0.0, 0.0, 0.0});
  return 1;
}

// Plane (geom 1) against sphere (geom 2).
MJP_HD inline int CollidePlaneSphere(const GeomView& plane, const GeomView& sphere, double margin,
                                     Contact* out) {
  return CollidePlaneSpherePoint(margin, plane.pos, plane.mat, Load3(sphere.pos), sphere.size[0],
                                 out);
}

// Plane (geom 1) against capsule (geom 2): its two end spheres, + end first. Returns 0–2.
MJP_HD inline int CollidePlaneCapsule(const GeomView& plane, const GeomView& capsule, double margin,
                                      Contact* out) {
  // Segment ends c ± h z.
  const Vec3 axis = Column(capsule.mat, 2);
  const Vec3 half_segment = axis * capsule.size[1];
  const Vec3 center = Load3(capsule.pos);
  const double radius = capsule.size[0];

  // Each end as a sphere.
  const int n_plus =
      CollidePlaneSpherePoint(margin, plane.pos, plane.mat, center + half_segment, radius, out);
  const int n_minus = CollidePlaneSpherePoint(margin, plane.pos, plane.mat, center - half_segment,
                                              radius, out + n_plus);

  // Align each contact frame with the capsule axis.
  for (int i = 0; i < n_plus + n_minus; ++i) {
    Assign(out[i].tangent, axis);
  }
  return n_plus + n_minus;
}

}  // namespace mjportal::collision
