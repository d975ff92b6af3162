// Plane–cylinder contact: up to four points on the cylinder's lower rim.
//
// Math: with plane normal n and cylinder axis a flipped so that n·a <= 0 (a points towards the
// plane), the rim point deepest below the plane is c + h a + r v, where v is the unit direction of
// the component of -n orthogonal to a: v ∝ (n·a) a - n. (A disk parallel to the plane has no
// such direction; the cylinder's local x axis stands in.) Contacts, each at the midpoint between
// the point and the plane:
//   1. the deepest rim point c + h a + r v (if it is within the margin; else no contacts at all);
//   2. the same point on the far cap, c - h a + r v;
//   3./4. the two rim points 120° away on the near cap, c + h a - r v/2 ± (√3/2) r (v × a)/|v × a|
//      (the cross product is taken with h a, as the reference implementation does).
#pragma once

#include <cmath>

#include "collision/contact.h"

namespace mjportal::collision {

// Plane (geom 1) against cylinder (geom 2, size = radius, half-height). Returns 0–4 contacts.
MJP_HD inline int CollidePlaneCylinder(const GeomView& plane, const GeomView& cylinder,
                                       double margin, Contact* out) {
  const Vec3 normal = Column(plane.mat, 2);
  const Vec3 center = Load3(cylinder.pos);
  const double radius = cylinder.size[0];
  const double half_height = cylinder.size[1];

  // Axis pointing towards the plane.
  Vec3 axis = Column(cylinder.mat, 2);
  double axis_height = Dot(normal, axis);
  if (axis_height > 0) {
    axis = axis * -1.0;
    axis_height = -axis_height;
  }

  // Height of the centre, and the radial direction towards the plane scaled by the radius.
  const double center_height = Dot(center - Load3(plane.pos), normal);
  Vec3 radial = axis * axis_height - normal;
  const double radial_sqr = Dot(radial, radial);
  if (radial_sqr >= kMinVal * kMinVal) {
    radial = radial * (radius / std::sqrt(radial_sqr));
  } else {
    radial = Column(cylinder.mat, 0) * radius;
  }
  const double radial_height = Dot(radial, normal);

  // Half-axis from the centre to the near cap.
  const Vec3 half_axis = axis * half_height;
  const double cap_height = axis_height * half_height;

  // 1. Deepest rim point; nothing touches unless it does.
  int count = 0;
  const double near_dist = center_height + cap_height + radial_height;
  if (!(near_dist <= margin)) {  // written so that NaN poses also report nothing
    return 0;
  }
  out[count].dist = near_dist;
  out[count].pos = ((center + radial) + half_axis) + normal * (-near_dist * 0.5);
  out[count].normal = normal;
  out[count].tangent = {0.0, 0.0, 0.0};
  ++count;

  // 2. The same rim point on the far cap.
  const double far_dist = center_height - cap_height + radial_height;
  if (far_dist <= margin) {
    out[count].dist = far_dist;
    out[count].pos = ((center + radial) - half_axis) + normal * (-far_dist * 0.5);
    out[count].normal = normal;
    out[count].tangent = {0.0, 0.0, 0.0};
    ++count;
  }

  // 3./4. Two more points on the near rim, 120° either side of the deepest.
  const double side_height = -radial_height * 0.5;
  const double side_dist = center_height + cap_height + side_height;
  if (side_dist <= margin) {
    Vec3 sideways = Cross(radial, half_axis);
    Normalize(sideways);
    sideways = sideways * (radius * std::sqrt(3.0) / 2);
    for (const double sign : {1.0, -1.0}) {
      const Vec3 rim = sign > 0 ? center + sideways : center - sideways;
      out[count].dist = side_dist;
      out[count].pos = ((rim + half_axis) + radial * -0.5) + normal * (-side_dist * 0.5);
      out[count].normal = normal;
      out[count].tangent = {0.0, 0.0, 0.0};
      ++count;
    }
  }
  return count;
}

}  // namespace mjportal::collision
