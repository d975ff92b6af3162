// Compat: MuJoCo 3.12's general convex collider (mjc_Convex with its native CCD, mjc_ccd),
// reproduced bit for bit.
//
//   1. Spheres and capsules first run GJK on their cores (centre point, segment) with the radius
//      and half the margin as an inflation; a clear gap or a shallow overlap is answered from
//      that distance. Otherwise (and for every other shape) GJK runs on the full shapes, each
//      inflated by margin/2, and EPA measures the depth when GJK ends inside.
//   2. A contact is reported when the signed distance is negative: dist = margin + distance,
//      pos the midpoint of the witness points, normal from geom 2's witness towards geom 1's
//      (then flipped by normalization as MuJoCo does: x1 - x2 normalized).
//   3. Multi-contact, when the model has multiccd: box and mesh pairs without margin recover a
//      contact patch from the EPA face (NativeMultiContact, native_multicontact.h); every other
//      pair but spheres and ellipsoids re-solves with both geoms rotated by ±1e-3 rad about the
//      two tangent axes at the first contact, keeping new points farther than 1e-3 × the smaller
//      bounding radius from all earlier ones, with the first contact's depth.
#pragma once

#include "collision/native_epa.h"
#include "collision/native_mpr.h"
#include "collision/native_multicontact.h"

namespace mjportal::collision {

// Caller-owned scratch of one solve: EPA's polytope and the patch recovery's polygons.
struct NativeScratch {
  NativeEpaScratch epa;
  NativePatchScratch patch;
};

// The model settings the collider reads.
struct NativeSettings {
  int iterations = 35;      // opt.ccd_iterations
  double tolerance = 1e-6;  // opt.ccd_tolerance
  bool multiccd = true;     // multiccd not disabled
  bool nativeccd = true;    // nativeccd not disabled (else libccd MPR, native_mpr.h)
};

// Inflates a core distance by the two radii (+ margin/2): moves the witness points out along the
// line between them and lowers the distance.
MJP_HD inline void NativeInflate(NativeStatus* status, double margin1, double margin2) {
  Vec3 n = status->x2[0] - status->x1[0];
  Normalize(n);
  if (margin1 != 0) {
    status->x1[0].x += margin1 * n.x;
    status->x1[0].y += margin1 * n.y;
    status->x1[0].z += margin1 * n.z;
  }
  if (margin2 != 0) {
    status->x2[0].x -= margin2 * n.x;
    status->x2[0].y -= margin2 * n.y;
    status->x2[0].z -= margin2 * n.z;
  }
  status->dist[0] -= (margin1 + margin2);
}

// Shrinks a sphere or capsule to its core; returns the inflation that restores it.
MJP_HD inline double NativeShrinkToCore(NativeShape& s) {
  if (s.type == ShapeType::kSphere) {
    s.core = NativeCore::kPoint;
  } else if (s.type == ShapeType::kCapsule) {
    s.core = NativeCore::kSegment;
  } else {
    return 0;
  }
  const double inflation = s.size.x + 0.5 * s.margin;
  s.margin = 0;
  return inflation;
}

// One native solve (mjc_ccd): GJK, then EPA from GJK's simplex when the shapes overlap. Returns
// the smallest signed distance found (negative: penetration). max_contacts > 1 asks for the
// contact patch of box/mesh pairs (status then holds up to four witness pairs).
MJP_HD inline double NativeCcd(int max_iterations, double tolerance, int max_contacts,
                               double dist_cutoff, NativeStatus* status, NativeShape& a,
                               NativeShape& b, const NativeScratch& scratch) {
  status->x1[0] = a.pos;
  status->x2[0] = b.pos;
  status->gjk_iterations = 0;
  status->tolerance = tolerance;
  status->max_iterations = max_iterations;
  status->max_contacts = max_contacts;
  status->dist_cutoff = dist_cutoff;

  // Spheres and capsules: GJK on the cores first.
  const bool has_core = a.type == ShapeType::kSphere || b.type == ShapeType::kSphere ||
                        a.type == ShapeType::kCapsule || b.type == ShapeType::kCapsule;
  if (has_core) {
    const double margin1 = a.margin, margin2 = b.margin;
    const double inflate1 = NativeShrinkToCore(a);
    const double inflate2 = NativeShrinkToCore(b);
    status->dist_cutoff += inflate1 + inflate2;
    NativeGjk(status, a, b);
    status->dist_cutoff = dist_cutoff;
    a.margin = margin1;
    b.margin = margin2;
    a.core = NativeCore::kNone;
    b.core = NativeCore::kNone;

    // Shallow: the inflated core distance is the answer.
    if (status->dist[0] > status->tolerance) {
      NativeInflate(status, inflate1, inflate2);
      if (status->dist[0] > status->dist_cutoff) {
        status->dist[0] = kNativeMaxLimit;
      }
      return status->dist[0];
    }
    if (!max_contacts) {
      status->nx = 0;
      status->dist[0] = 0;
      return 0;
    }

    // Deep: start over on the full shapes.
    status->gjk_iterations = 0;
    status->x1[0] = a.pos;
    status->x2[0] = b.pos;
  }
  NativeGjk(status, a, b);
  if (!max_contacts) {
    return status->dist[0];
  }

  if (status->dist[0] <= tolerance && status->nsimplex > 1 && !status->separated) {
    status->dist[0] = 0;  // touching at least
    NativePolytope pt;
    pt.mem = scratch.epa;
    pt.maxfaces = 6 * max_iterations;
    int ret;
    if (status->nsimplex == 2) {
      ret = NativePolytope2(&pt, status, a, b);
    } else if (status->nsimplex == 3) {
      ret = NativePolytope3(&pt, status, a, b);
    } else {
      ret = NativePolytope4(&pt, status, a, b);
    }
    if (ret == kNativeEpaOk) {
      const int face = NativeEpa(status, &pt, a, b);
      if (max_contacts > 1 && face >= 0) {
        NativeMultiContact(scratch.patch, pt, face, status, a, b);
      }
    }
  }
  double min_dist = status->dist[0];
  for (int i = 1; i < status->nx; ++i) {
    if (status->dist[i] < min_dist) {
      min_dist = status->dist[i];
    }
  }
  return min_dist;
}

// Contacts from a solve's witness points: dist = margin + distance, pos the midpoint, normal the
// unit vector x1 - x2, tangent zero.
MJP_HD inline int NativeWitnessContacts(const NativeStatus& status, double margin, Contact* con) {
  for (int i = 0; i < status.nx; ++i) {
    con[i].dist = margin + status.dist[i];
    const Vec3 sum = status.x1[i] + status.x2[i];
    con[i].pos = sum * 0.5;
    con[i].normal = status.x1[i] - status.x2[i];
    Normalize(con[i].normal);
    con[i].tangent = {0, 0, 0};
  }
  return status.nx;
}

// Number of contacts one solve may return (MuJoCo's maxContacts): box and mesh pairs without
// margin 4 (multiccd) or 1, everything else 1.
MJP_HD inline int NativeMaxContacts(const NativeShape& a, const NativeShape& b, bool multiccd) {
  if (a.margin > 0 || b.margin > 0) {
    return 1;
  }
  const bool pa = a.type == ShapeType::kBox || a.type == ShapeType::kMesh;
  const bool pb = b.type == ShapeType::kBox || b.type == ShapeType::kMesh;
  if (a.type == ShapeType::kBox && b.type == ShapeType::kBox) {
    return 8;
  }
  return pa && pb ? (multiccd ? 4 : 1) : 1;
}

// sin and cos of half the perturbation angle 1e-3 (as glibc rounds them; checked by a test).
constexpr double kNativePerturbSin = 0x1.0624dc77da20ep-11;
constexpr double kNativePerturbCos = 0x1.fffffbce42195p-1;

// MuJoCo's contact frame completion for a normal n: x = n normalized; y = (0,1,0), or (0,0,1)
// when |x.y| >= 0.5, made orthogonal to x and normalized; z = x × y.
MJP_HD inline void NativeMakeFrame(const Vec3& normal, Vec3* x, Vec3* y, Vec3* z) {
  *x = normal;
  Normalize(*x);
  *y = {0, 0, 0};
  if (x->y < 0.5 && x->y > -0.5) {
    y->y = 1;
  } else {
    y->z = 1;
  }
  const Vec3 along = *x * Dot(*x, *y);
  *y = *y - along;
  Normalize(*y);
  *z = Cross(*x, *y);
}

// Rotation matrix of the unit quaternion (w, v) (MuJoCo's mju_quat2Mat).
MJP_HD inline void NativeQuatToMat(double r[9], double w, const Vec3& v) {
  if (w == 1 && v.x == 0 && v.y == 0 && v.z == 0) {
    const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; ++i)
      r[i] = identity[i];
    return;
  }
  const double q00 = w * w, q01 = w * v.x, q02 = w * v.y, q03 = w * v.z;
  const double q11 = v.x * v.x, q12 = v.x * v.y, q13 = v.x * v.z;
  const double q22 = v.y * v.y, q23 = v.y * v.z, q33 = v.z * v.z;
  r[0] = q00 + q11 - q22 - q33;
  r[4] = q00 - q11 + q22 - q33;
  r[8] = q00 - q11 - q22 + q33;
  r[1] = 2 * (q12 - q03);
  r[2] = 2 * (q13 + q02);
  r[3] = 2 * (q12 + q03);
  r[5] = 2 * (q23 - q01);
  r[6] = 2 * (q13 - q02);
  r[7] = 2 * (q23 + q01);
}

// Rotates a shape's frame by `rot` about the world point `origin`.
MJP_HD inline void NativeRotateAbout(NativeShape& s, const double rot[9], const Vec3& origin) {
  double mat[9];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      mat[3 * r + c] =
          rot[3 * r] * s.mat[c] + rot[3 * r + 1] * s.mat[3 + c] + rot[3 * r + 2] * s.mat[6 + c];
    }
  }
  for (int i = 0; i < 9; ++i) {
    s.mat[i] = mat[i];
  }
  const Vec3 rel = origin - s.pos;
  const Vec3 shift = Rotate(rot, rel) - rel;
  s.pos = s.pos - shift;
}

// Whether the newest contact con[n - 1] is farther than `tolerance` from each earlier one.
MJP_HD inline bool NativeDistinct(const Contact* con, int n, double tolerance) {
  const Vec3 last = con[n - 1].pos;
  for (int i = 0; i < n - 1; ++i) {
    const Vec3 d = con[i].pos - last;
    if (std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z) <= tolerance) {
      return false;
    }
  }
  return true;
}

// Result of a NativeConvex call beyond its contacts.
struct NativeOutcome {
  int warning = kNativeWarnNone;  // a MuJoCo warning to print (NativeWarning)
  bool lost_vertex = false;       // libccd path: "mesh_support could not find support vertex"
};

// One penetration query (mjc_penetration): contacts for a negative distance, at most max_contacts.
MJP_HD inline int NativePenetration(const NativeSettings& settings, NativeShape& a, NativeShape& b,
                                    int max_contacts, double margin, Contact* con,
                                    const NativeScratch& scratch, NativeStatus* status) {
  // Every result field is written by the solve before it is read; only the warning accumulates.
  status->warning = kNativeWarnNone;
  const double dist =
      NativeCcd(settings.iterations, settings.tolerance, max_contacts, 0, status, a, b, scratch);
  return dist < 0 ? NativeWitnessContacts(*status, margin, con) : 0;
}

// MuJoCo 3.12's mjc_Convex for shapes a, b (pos/mat copied from the geoms, full pair margin),
// bounding radii rbound1/2. Writes up to 5 contacts.
MJP_HD inline int NativeConvex(NativeShape& a, NativeShape& b, const NativeSettings& settings,
                               double margin, double rbound1, double rbound2, Contact* con,
                               const NativeScratch& scratch, NativeOutcome* outcome) {
  const int max_contacts = NativeMaxContacts(a, b, settings.multiccd);
  const NativeShape a0 = a, b0 = b;
  NativeStatus status;

  // One penetration query on the current poses: native GJK/EPA, or libccd's MPR followed by the
  // smooth-shape normal correction (on the unperturbed geoms, as MuJoCo does).
  auto penetration = [&](int nmax, Contact* out) {
    if (settings.nativeccd) {
      const int n = NativePenetration(settings, a, b, nmax, margin, out, scratch, &status);
      if (status.warning != kNativeWarnNone) {
        outcome->warning = status.warning;
      }
      return n;
    }
    const int n = CcdMprContact(a, b, settings.iterations, settings.tolerance, margin, out,
                                &outcome->lost_vertex);
    if (n) {
      CcdFixNormal(a0, b0, out);
    }
    return n;
  };

  int ncon = penetration(max_contacts, con);
  if (settings.nativeccd && max_contacts > 1) {
    return ncon;  // the patch is the answer
  }
  const bool smooth = a.type == ShapeType::kSphere || a.type == ShapeType::kEllipsoid ||
                      b.type == ShapeType::kSphere || b.type == ShapeType::kEllipsoid;
  if (ncon != 1 || !settings.multiccd || smooth) {
    return ncon;
  }

  // Perturbation contacts about the two tangent axes, both signs.
  Vec3 x, axes[2];
  NativeMakeFrame(con[0].normal, &x, &axes[0], &axes[1]);
  const double tolerance = 1e-3 * (rbound1 < rbound2 ? rbound1 : rbound2);
  for (int axis = 0; axis < 2; ++axis) {
    for (int sign = 0; sign < 2; ++sign) {
      const double s = sign == 0 ? -kNativePerturbSin : kNativePerturbSin;
      double rot[9], inverse[9];
      NativeQuatToMat(rot, kNativePerturbCos, axes[axis] * s);
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
          inverse[3 * c + r] = rot[3 * r + c];
        }
      }
      const Vec3 origin = con[0].pos;
      NativeRotateAbout(a, rot, origin);
      NativeRotateAbout(b, inverse, origin);
      const int n = penetration(1, con + ncon);
      if (n && NativeDistinct(con, ncon + 1, tolerance)) {
        con[ncon].dist = con[0].dist;
        ncon += 1;
      }
      a.pos = a0.pos;
      b.pos = b0.pos;
      for (int i = 0; i < 9; ++i) {
        a.mat[i] = a0.mat[i];
        b.mat[i] = b0.mat[i];
      }
    }
  }
  return ncon;
}

}  // namespace mjportal::collision
