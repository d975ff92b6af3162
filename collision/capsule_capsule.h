// Capsule–capsule contact: closest points of two segments, then sphere–sphere.
//
// Math: segments p1 + s·a1 and p2 + t·a2 with s, t ∈ [-1, 1], where a_i = z_i h_i is the scaled
// axis. Minimizing |p1 + s a1 - p2 - t a2|² gives the 2x2 system
//     [ a1·a1   -a1·a2 ] [s]   [ -a1·(p1 - p2) ]
//     [ -a1·a2   a2·a2 ] [t] = [  a2·(p1 - p2) ]
// solved by Cramer's rule, then clamped: first s, re-solving t on the clamped s, then t,
// re-solving (and clamping) s. Parallel axes (determinant < kMinVal) have a continuum of closest
// pairs: test the four segment end points against the other segment, stopping at two contacts.
#pragma once

#include "collision/sphere_sphere.h"

namespace mjportal::collision {

// Capsule (geom 1) against capsule (geom 2). Returns 0, 1 or 2 contacts.
MJP_HD inline int CollideCapsuleCapsule(const GeomView& capsule1, const GeomView& capsule2,
                                        double margin, Contact* out) {
  // Scaled axes and the centre difference.
  const Vec3 p1 = Load3(capsule1.pos);
  const Vec3 p2 = Load3(capsule2.pos);
  const Vec3 a1 = Column(capsule1.mat, 2) * capsule1.size[1];
  const Vec3 a2 = Column(capsule2.mat, 2) * capsule2.size[1];
  const Vec3 p2_to_p1 = p1 - p2;
  const double r1 = capsule1.size[0];
  const double r2 = capsule2.size[0];

  // Normal-equation coefficients (ma mb; mb mc), right-hand side (u, v) and determinant.
  const double ma = Dot(a1, a1);
  const double mb = -Dot(a1, a2);
  const double mc = Dot(a2, a2);
  const double u = -Dot(a1, p2_to_p1);
  const double v = Dot(a2, p2_to_p1);
  const double det = ma * mc - mb * mb;

  // General case: solve, clamp s then t, collide the two closest points as spheres.
  if (std::fabs(det) >= kMinVal) {
    double s = (mc * u - mb * v) / det;
    double t = (ma * v - mb * u) / det;
    if (s > 1) {
      s = 1;
      t = (v - mb) / mc;
    } else if (s < -1) {
      s = -1;
      t = (v + mb) / mc;
    }
    if (t > 1) {
      t = 1;
      s = Clip((u - mb) / ma, -1, 1);
    } else if (t < -1) {
      t = -1;
      s = Clip((u + mb) / ma, -1, 1);
    }
    const Vec3 q1 = a1 * s + p1;
    const Vec3 q2 = a2 * t + p2;
    return CollideSpheres(margin, q1, capsule1.mat, r1, q2, capsule2.mat, r2, out);
  }

  // Parallel axes: end points of capsule 1 (s = +1, -1) against the segment of capsule 2.
  int count = 0;
  {
    const Vec3 q1 = p1 + a1;
    const Vec3 q2 = a2 * Clip((v - mb) / mc, -1, 1) + p2;
    count += CollideSpheres(margin, q1, capsule1.mat, r1, q2, capsule2.mat, r2, out + count);
  }
  {
    const Vec3 q1 = p1 - a1;
    const Vec3 q2 = a2 * Clip((v + mb) / mc, -1, 1) + p2;
    count += CollideSpheres(margin, q1, capsule1.mat, r1, q2, capsule2.mat, r2, out + count);
  }
  if (count >= 2) {
    return count;
  }

  // Then end points of capsule 2 (t = +1, -1) against the segment of capsule 1.
  {
    const Vec3 q2 = p2 + a2;
    const Vec3 q1 = a1 * Clip((u - mb) / ma, -1, 1) + p1;
    count += CollideSpheres(margin, q1, capsule1.mat, r1, q2, capsule2.mat, r2, out + count);
  }
  if (count >= 2) {
    return count;
  }
  {
    const Vec3 q2 = p2 - a2;
    const Vec3 q1 = a1 * Clip((u + mb) / ma, -1, 1) + p1;
    count += CollideSpheres(margin, q1, capsule1.mat, r1, q2, capsule2.mat, r2, out + count);
  }
  return count;
}

}  // namespace mjportal::collision
