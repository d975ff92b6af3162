// Sphere–sphere contact, the building block of the sphere and capsule colliders.
//
// Math: with centres c1, c2 and radii r1, r2, the surface distance is |c2 - c1| - r1 - r2 and the
// normal is (c2 - c1)/|c2 - c1|. The contact point is the midpoint of the two surface points,
// c1 + n (r1 + dist/2). Coincident centres have no normal; then n = z1 × z2 (normalized), and
// (1, 0, 0) when the z axes are parallel too.
#pragma once

#include <cmath>

#include "collision/contact.h"

namespace mjportal::collision {

// Collides spheres (c1, r1) and (c2, r2); mat1/mat2 only break the tie of coincident centres.
// Returns 0 or 1 contacts in out[0].
MJP_HD inline int CollideSpheres(double margin, const Vec3& c1, const double* mat1, double r1,
                                 const Vec3& c2, const double* mat2, double r2, Contact* out) {
  // Reject on squared distance first: no square root for separated pairs.
  const Vec3 c2_to_c1 = c1 - c2;
  const double dist_sqr = Dot(c2_to_c1, c2_to_c1);
  const double reach = margin + r1 + r2;
  if (dist_sqr > reach * reach) {
    return 0;
  }

  // Depth, then the normal from sphere 1 towards sphere 2.
  Contact& con = out[0];
  con.dist = std::sqrt(dist_sqr) - r1 - r2;
  con.normal = c2 - c1;
  const double length = Normalize(con.normal);

  // Coincident centres: take the normal from the two frames' z axes.
  if (length < kMinVal) {
    con.normal = Cross(Column(mat1, 2), Column(mat2, 2));
    Normalize(con.normal);
  }

  // Midpoint between the surfaces; the caller picks the tangent.
  con.pos = con.normal * (r1 + con.dist / 2) + c1;
  con.tangent = {0.0, 0.0, 0.0};
  return 1;
}

// Sphere (geom 1) against sphere (geom 2).
MJP_HD inline int CollideSphereSphere(const GeomView& sphere1, const GeomView& sphere2,
                                      double margin, Contact* out) {
  return CollideSpheres(margin, Load3(sphere1.pos), sphere1.mat, sphere1.size[0],
                        Load3(sphere2.pos), sphere2.mat, sphere2.size[0], out);
}

}  // namespace mjportal::collision
