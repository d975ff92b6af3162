// Plane–box contact: the box corners that lie below the plane (within margin).
//
// Math: corner k of a box with half-extents e is c + R (±e_x, ±e_y, ±e_z), bit 0/1/2 of k choosing
// the sign (set bit: +). With plane normal n, a corner is at height n·(c - p) + n·R v. Corners on
// the upper half of the box (n·R v > 0) are skipped; the first four that reach within the margin
// are reported, each at the midpoint between the corner and the plane.
//
// Cost: R v = Σ_j R[:, j] (±e_j), and in IEEE arithmetic x·(−y) = −(x·y) exactly, so the nine
// products R_ij e_j are formed once and each corner only flips signs and adds, in the same order
// as the full product R v. Same bits as eight matrix–vector products, an eighth of the multiplies.
#pragma once

#include "collision/contact.h"

namespace mjportal::collision {

// Plane (geom 1) against box (geom 2). Returns 0–4 contacts, in corner order.
MJP_HD inline int CollidePlaneBox(const GeomView& plane, const GeomView& box, double margin,
                                  Contact* out) {
  // Plane normal and the height of the box centre above the plane.
  const Vec3 normal = Column(plane.mat, 2);
  const Vec3 box_center = Load3(box.pos);
  const double center_height = Dot(box_center - Load3(plane.pos), normal);
  const double* e = box.size;
  const double* r = box.mat;

  // Positive-corner products R_ij e_j, row by row.
  const double p[9] = {r[0] * e[0], r[1] * e[1], r[2] * e[2], r[3] * e[0], r[4] * e[1],
                       r[5] * e[2], r[6] * e[0], r[7] * e[1], r[8] * e[2]};

  int count = 0;
  for (int corner = 0; corner < 8; ++corner) {
    // World offset of the corner: row sums of the signed products.
    const double sx = (corner & 1) ? 1.0 : -1.0;
    const double sy = (corner & 2) ? 1.0 : -1.0;
    const double sz = (corner & 4) ? 1.0 : -1.0;
    const Vec3 offset = {(sx * p[0] + sy * p[1]) + sz * p[2], (sx * p[3] + sy * p[4]) + sz * p[5],
                         (sx * p[6] + sy * p[7]) + sz * p[8]};

    // Skip corners above the margin or on the upper half of the box.
    const double offset_height = Dot(normal, offset);
    if (center_height + offset_height > margin || offset_height > 0) {
      continue;
    }

    // Contact halfway between the corner and the plane.
    Contact& con = out[count];
    con.dist = center_height + offset_height;
    con.normal = normal;
    con.pos = (offset + box_center) + normal * (-con.dist / 2);
    con.tangent = {0.0, 0.0, 0.0};
    if (++count >= 4) {
      break;
    }
  }
  return count;
}

}  // namespace mjportal::collision
