// Compat: the convex path MuJoCo 3.12 takes with nativeccd disabled, reproduced bit for bit:
// libccd 2.1's Minkowski Portal Refinement (ccdMPRPenetration, double precision) on MuJoCo's
// libccd support function (mjccd_support), then MuJoCo's normal correction for smooth shapes
// (mjc_fixNormal).
//
// MPR (Snethen, "XenoCollide", Game Programming Gems 7, 2008): from an interior point v0 of A - B
// (centre difference), find a portal triangle (v1, v2, v3) the ray v0 → origin passes through;
// refine it towards the surface until the origin lies behind it (contact) or a support point
// proves it outside; then keep refining until the portal reaches the tolerance, and report the
// portal's distance from the origin as the depth, its normal as the direction, and the origin's
// barycentric coordinates in the tetrahedron (v0, v1, v2, v3) mapped to both shapes as position.
//
// libccd's comparisons use DBL_EPSILON absolute/relative tests (CcdIsZero, CcdEq) and its own
// arithmetic order (dot products accumulated left to right, normalization by 1/sqrt), kept here.
#pragma once

#include "collision/mesh_support.h"
#include "collision/native_support.h"

namespace mjportal::collision {

constexpr double kCcdEps = 2.220446049250313080847e-16;  // DBL_EPSILON
// libccd refines the portal without an iteration cap; it ends after a handful of steps on every
// finite input. This cap only guards against non-finite input.
constexpr int kCcdRefineCap = 10000;

MJP_HD MJP_INLINE bool CcdIsZero(double x) {
  return std::fabs(x) < kCcdEps;
}

MJP_HD inline bool CcdEq(double a, double b) {
  const double ab = std::fabs(a - b);
  if (std::fabs(ab) < kCcdEps)
    return true;
  const double fa = std::fabs(a), fb = std::fabs(b);
  return fb > fa ? ab < kCcdEps * fb : ab < kCcdEps * fa;
}

MJP_HD MJP_INLINE bool CcdIsOrigin(const Vec3& v) {
  return CcdEq(v.x, 0) && CcdEq(v.y, 0) && CcdEq(v.z, 0);
}

// v / |v| as libccd computes it (times 1/sqrt(|v|²), no zero check).
MJP_HD MJP_INLINE Vec3 CcdNormalized(const Vec3& v) {
  return v * (1.0 / std::sqrt(Dot(v, v)));
}

// -1, 0 or +1 (MuJoCo's mju_sign).
MJP_HD MJP_INLINE double CcdSign(double x) {
  return static_cast<double>((x > 0.0) - (x < 0.0));
}

// MuJoCo's libccd support function: the shape's support point in the local frame (mesh: scan or
// climb from the previous answer), plus margin/2 along the local direction, then to the world.
MJP_HD inline Vec3 CcdSupportPoint(NativeShape& s, const Vec3& dir, bool* lost_vertex) {
  const Vec3 local = RotateT(s.mat, dir);
  Vec3 res = {0, 0, 0};
  switch (s.type) {
    case ShapeType::kSphere:
      res = local * s.size.x;
      break;
    case ShapeType::kCapsule:
      res = local * s.size.x;
      res.z += CcdSign(local.z) * s.size.y;
      break;
    case ShapeType::kEllipsoid:
      res = {local.x * s.size.x, local.y * s.size.y, local.z * s.size.z};
      Normalize(res);
      res = {res.x * s.size.x, res.y * s.size.y, res.z * s.size.z};
      break;
    case ShapeType::kCylinder: {
      const double r = std::sqrt(local.x * local.x + local.y * local.y);
      if (r > kMinVal) {
        res.x = local.x / r * s.size.x;
        res.y = local.y / r * s.size.x;
      }
      res.z = CcdSign(local.z) * s.size.y;
      break;
    }
    case ShapeType::kBox:
      res = {CcdSign(local.x) * s.size.x, CcdSign(local.y) * s.size.y, CcdSign(local.z) * s.size.z};
      break;
    case ShapeType::kMesh: {
      // MuJoCo's CCD mesh support, climbing from the previous answer (hull vertex 0 at first).
      const MeshView view = {s.mesh.vert, s.mesh.nvert, s.mesh.graph, s.mesh.graph != nullptr, 0};
      const int best =
          MeshSupportVertex(view, local, &s.meshindex, s.meshindex < 0 ? 0 : s.meshindex);
      if (best < 0) {
        *lost_vertex = true;  // MuJoCo warns "mesh_support could not find support vertex"
      } else {
        res = MeshPoint(s.mesh.vert, best);
      }
      break;
    }
    default:
      break;
  }
  res.x += local.x * s.margin / 2;
  res.y += local.y * s.margin / 2;
  res.z += local.z * s.margin / 2;
  return Rotate(s.mat, res) + s.pos;
}

// A portal vertex: the Minkowski point and the two support points.
struct MprPoint {
  Vec3 v, v1, v2;
};

struct MprSolver {
  NativeShape& a;
  NativeShape& b;
  double tolerance;
  int max_iterations;
  bool lost_vertex = false;
  MprPoint p[4];

  MJP_HD MprPoint Support(const Vec3& dir) {
    MprPoint s;
    s.v1 = CcdSupportPoint(a, dir, &lost_vertex);
    s.v2 = CcdSupportPoint(b, dir * -1.0, &lost_vertex);
    s.v = s.v1 - s.v2;
    return s;
  }

  // Unit normal of the portal face (v1, v2, v3), pointing away from v0.
  MJP_HD Vec3 PortalDir() const { return CcdNormalized(Cross(p[2].v - p[1].v, p[3].v - p[1].v)); }

  MJP_HD bool ReachesTolerance(const MprPoint& v4, const Vec3& dir) const {
    const double dv1 = Dot(p[1].v, dir), dv2 = Dot(p[2].v, dir), dv3 = Dot(p[3].v, dir);
    const double dv4 = Dot(v4.v, dir);
    double gap = std::fmin(dv4 - dv1, dv4 - dv2);
    gap = std::fmin(gap, dv4 - dv3);
    return CcdEq(gap, tolerance) || gap < tolerance;
  }

  // Replaces the portal vertex that keeps the ray v0 → origin inside the new portal.
  MJP_HD void Expand(const MprPoint& v4) {
    const Vec3 v4v0 = Cross(v4.v, p[0].v);
    if (Dot(p[1].v, v4v0) > 0) {
      p[Dot(p[2].v, v4v0) > 0 ? 1 : 3] = v4;
    } else {
      p[Dot(p[3].v, v4v0) > 0 ? 2 : 1] = v4;
    }
  }

  // Phase 1: -1 no contact, 0 portal found, 1 touching at v1, 2 origin on segment v0 v1.
  MJP_HD int Discover() {
    p[0].v1 = a.pos;
    p[0].v2 = b.pos;
    p[0].v = p[0].v1 - p[0].v2;
    if (CcdIsOrigin(p[0].v)) {
      p[0].v.x += kCcdEps * 10.0;
    }
    Vec3 dir = CcdNormalized(p[0].v * -1.0);
    p[1] = Support(dir);
    double dot = Dot(p[1].v, dir);
    if (CcdIsZero(dot) || dot < 0)
      return -1;
    dir = Cross(p[0].v, p[1].v);
    if (CcdIsZero(Dot(dir, dir))) {
      return CcdIsOrigin(p[1].v) ? 1 : 2;
    }
    dir = CcdNormalized(dir);
    p[2] = Support(dir);
    dot = Dot(p[2].v, dir);
    if (CcdIsZero(dot) || dot < 0)
      return -1;
    dir = CcdNormalized(Cross(p[1].v - p[0].v, p[2].v - p[0].v));
    if (Dot(dir, p[0].v) > 0) {
      const MprPoint swap = p[1];
      p[1] = p[2];
      p[2] = swap;
      dir = dir * -1.0;
    }
    for (int step = 0; step < kCcdRefineCap; ++step) {
      p[3] = Support(dir);
      dot = Dot(p[3].v, dir);
      if (CcdIsZero(dot) || dot < 0)
        return -1;
      bool again = false;
      dot = Dot(Cross(p[1].v, p[3].v), p[0].v);
      if (dot < 0 && !CcdIsZero(dot)) {
        p[2] = p[3];
        again = true;
      }
      if (!again) {
        dot = Dot(Cross(p[3].v, p[2].v), p[0].v);
        if (dot < 0 && !CcdIsZero(dot)) {
          p[1] = p[3];
          again = true;
        }
      }
      if (!again) {
        return 0;
      }
      dir = CcdNormalized(Cross(p[1].v - p[0].v, p[2].v - p[0].v));
    }
    return -1;
  }

  // Phase 2: 0 when the origin lies behind the portal, -1 when it is outside.
  MJP_HD int Refine() {
    for (int step = 0; step < kCcdRefineCap; ++step) {
      const Vec3 dir = PortalDir();
      double dot = Dot(dir, p[1].v);
      if (CcdIsZero(dot) || dot > 0)
        return 0;
      const MprPoint v4 = Support(dir);
      dot = Dot(v4.v, dir);
      if (!(CcdIsZero(dot) || dot > 0) || ReachesTolerance(v4, dir))
        return -1;
      Expand(v4);
    }
    return -1;
  }

  // Origin's position in the tetrahedron v0..v3 mapped to the shapes: midpoint of the two.
  MJP_HD Vec3 Position() const {
    const Vec3 dir = PortalDir();
    double w[4];
    w[0] = Dot(Cross(p[1].v, p[2].v), p[3].v);
    w[1] = Dot(Cross(p[3].v, p[2].v), p[0].v);
    w[2] = Dot(Cross(p[0].v, p[1].v), p[3].v);
    w[3] = Dot(Cross(p[2].v, p[1].v), p[0].v);
    double sum = w[0] + w[1] + w[2] + w[3];
    if (CcdIsZero(sum) || sum < 0) {
      w[0] = 0;
      w[1] = Dot(Cross(p[2].v, p[3].v), dir);
      w[2] = Dot(Cross(p[3].v, p[1].v), dir);
      w[3] = Dot(Cross(p[1].v, p[2].v), dir);
      sum = w[1] + w[2] + w[3];
    }
    const double inv = 1.0 / sum;
    Vec3 p1 = {0, 0, 0}, p2 = {0, 0, 0};
    for (int i = 0; i < 4; ++i) {
      p1 = p1 + p[i].v1 * w[i];
      p2 = p2 + p[i].v2 * w[i];
    }
    p1 = p1 * inv;
    p2 = p2 * inv;
    return (p1 + p2) * 0.5;
  }

  // Phase 3: refine to the tolerance (at most max_iterations + 1 expansions), then report.
  MJP_HD void Penetration(double* depth, Vec3* dir_out, Vec3* pos) {
    for (long iterations = 0;; ++iterations) {
      const Vec3 dir = PortalDir();
      const MprPoint v4 = Support(dir);
      if (ReachesTolerance(v4, dir) || iterations > max_iterations) {
        *depth = std::sqrt(CcdPointTriangleDist2(p[1].v, p[2].v, p[3].v, dir_out));
        if (CcdIsZero(*depth)) {
          *dir_out = {0, 0, 0};
        } else {
          *dir_out = CcdNormalized(*dir_out);
        }
        *pos = Position();
        return;
      }
      Expand(v4);
    }
  }

  // Squared distance from the origin to segment x0 b, and its closest point.
  MJP_HD static double CcdPointSegmentDist2(const Vec3& x0, const Vec3& b, Vec3* witness) {
    const Vec3 d = b - x0;
    const Vec3 a = x0;  // x0 - P with P the origin
    double t = -1.0 * Dot(a, d);
    t /= Dot(d, d);
    if (t < 0 || CcdIsZero(t)) {
      *witness = x0;
      return Dot(x0, x0);
    }
    if (t > 1 || CcdEq(t, 1)) {
      *witness = b;
      return Dot(b, b);
    }
    *witness = d * t + x0;
    return Dot(*witness, *witness);
  }

  // Squared distance from the origin to triangle x0 b c, and its closest point.
  MJP_HD static double CcdPointTriangleDist2(const Vec3& x0, const Vec3& b, const Vec3& c,
                                             Vec3* witness) {
    const Vec3 d1 = b - x0, d2 = c - x0, a = x0;
    const double v = Dot(d1, d1), w = Dot(d2, d2);
    const double pp = Dot(a, d1), q = Dot(a, d2), r = Dot(d1, d2);
    const double det = w * v - r * r;
    double s, t;
    if (CcdIsZero(det)) {
      s = t = -1.;
    } else {
      s = (q * r - w * pp) / det;
      t = (-s * r - q) / w;
    }
    if ((CcdIsZero(s) || s > 0) && (CcdEq(s, 1) || s < 1) && (CcdIsZero(t) || t > 0) &&
        (CcdEq(t, 1) || t < 1) && (CcdEq(t + s, 1) || t + s < 1)) {
      *witness = (x0 + d1 * s) + d2 * t;
      return Dot(*witness, *witness);
    }
    Vec3 other;
    double dist = CcdPointSegmentDist2(x0, b, witness);
    double dist2 = CcdPointSegmentDist2(x0, c, &other);
    if (dist2 < dist) {
      dist = dist2;
      *witness = other;
    }
    dist2 = CcdPointSegmentDist2(b, c, &other);
    if (dist2 < dist) {
      dist = dist2;
      *witness = other;
    }
    return dist;
  }
};

// libccd's MPR penetration as MuJoCo's wrapper reports it: one contact (dist = margin - depth,
// normal the penetration direction, pos the portal position) unless the shapes are apart or only
// touch (a zero direction).
MJP_HD inline int CcdMprContact(NativeShape& a, NativeShape& b, int max_iterations,
                                double tolerance, double margin, Contact* con, bool* lost_vertex) {
  MprSolver mpr{a, b, tolerance, max_iterations, false, {}};
  const int found = mpr.Discover();
  double depth = 0;
  Vec3 dir = {0, 0, 0}, pos = {0, 0, 0};
  int result = 0;
  if (found < 0) {
    result = -1;
  } else if (found == 1) {
    // Touching at v1: zero depth and direction.
    pos = (mpr.p[1].v1 + mpr.p[1].v2) * 0.5;
  } else if (found == 2) {
    // The origin on segment v0 v1: v1 gives depth and direction.
    pos = (mpr.p[1].v1 + mpr.p[1].v2) * 0.5;
    dir = mpr.p[1].v;
    depth = std::sqrt(Dot(dir, dir));
    dir = CcdNormalized(dir);
  } else if (mpr.Refine() < 0) {
    result = -1;
  } else {
    mpr.Penetration(&depth, &dir, &pos);
  }
  *lost_vertex = *lost_vertex || mpr.lost_vertex;
  if (result != 0 || CcdIsOrigin(dir)) {
    return 0;
  }
  con->dist = margin - depth;
  con->normal = dir;
  con->pos = pos;
  con->tangent = {0, 0, 0};
  return 1;
}

// MuJoCo's normal for a contact point inside an ellipsoid (local pos, initial normal nrm): the
// ray pos + x nrm meets the surface; the surface normal there becomes the new ray direction, up
// to 30 times. Returns whether the normal was set.
MJP_HD inline bool CcdEllipsoidInside(Vec3* nrm, const Vec3& pos, const Vec3& size) {
  const Vec3 s2inv = {1 / (size.x * size.x), 1 / (size.y * size.y), 1 / (size.z * size.z)};
  const double c = pos.x * pos.x * s2inv.x + pos.y * pos.y * s2inv.y + pos.z * pos.z * s2inv.z - 1;
  if (c > 0) {
    return false;
  }
  Normalize(*nrm);
  int iter;
  for (iter = 0; iter < 30; ++iter) {
    const double qa =
        nrm->x * nrm->x * s2inv.x + nrm->y * nrm->y * s2inv.y + nrm->z * nrm->z * s2inv.z;
    const double qb =
        pos.x * nrm->x * s2inv.x + pos.y * nrm->y * s2inv.y + pos.z * nrm->z * s2inv.z;
    const double det = qb * qb - qa * c;
    if (det < kMinVal || qa < kMinVal) {
      return iter > 0;
    }
    const double x = (-qb + std::sqrt(det)) / qa;
    if (x < 0) {
      return iter > 0;
    }
    const Vec3 pnt = {pos.x + x * nrm->x, pos.y + x * nrm->y, pos.z + x * nrm->z};
    Vec3 next = {pnt.x * s2inv.x, pnt.y * s2inv.y, pnt.z * s2inv.z};
    Normalize(next);
    const Vec3 diff = *nrm - next;
    const double change = std::sqrt(diff.x * diff.x + diff.y * diff.y + diff.z * diff.z);
    *nrm = next;
    if (change < 1e-6) {
      break;
    }
  }
  return true;
}

// MuJoCo's normal for a contact point outside an ellipsoid: Newton on the Lagrange multiplier of
// the closest-point problem (at most 30 steps).
MJP_HD inline bool CcdEllipsoidOutside(Vec3* nrm, const Vec3& pos, const Vec3& size) {
  const Vec3 s2 = {size.x * size.x, size.y * size.y, size.z * size.z};
  const Vec3 ps2 = {pos.x * pos.x * s2.x, pos.y * pos.y * s2.y, pos.z * pos.z * s2.z};
  double la = 0;
  for (int iter = 0; iter < 30; ++iter) {
    const Vec3 r = {1 / (s2.x + la), 1 / (s2.y + la), 1 / (s2.z + la)};
    const double val = ps2.x * r.x * r.x + ps2.y * r.y * r.y + ps2.z * r.z * r.z - 1;
    if (val < 1e-6) {
      break;
    }
    const double deriv =
        -2 * (ps2.x * r.x * r.x * r.x + ps2.y * r.y * r.y * r.y + ps2.z * r.z * r.z * r.z);
    if (deriv > -kMinVal) {
      break;
    }
    const double delta = -val / deriv;
    if (delta < 1e-6) {
      break;
    }
    la += delta;
  }
  *nrm = {pos.x / (s2.x + la), pos.y / (s2.y + la), pos.z / (s2.z + la)};
  Normalize(*nrm);
  return true;
}

// The surface normal of a smooth shape (sphere, capsule, ellipsoid, cylinder side) at the contact
// point, in the world, as MuJoCo's mjc_fixNormal computes it; false when the shape's type or the
// point's place does not qualify.
MJP_HD inline bool CcdSurfaceNormal(const NativeShape& s, const Vec3& point, Vec3* normal) {
  const double* mat = s.mat;
  const Vec3 p = RotateT(mat, point - s.pos);
  Vec3 n = RotateT(mat, *normal);
  bool processed = false;
  switch (s.type) {
    case ShapeType::kSphere:
      n = p;
      processed = true;
      break;
    case ShapeType::kCapsule:
      if (p.z < -s.size.y) {
        n.z = p.z + s.size.y;
      } else if (p.z > s.size.y) {
        n.z = p.z - s.size.y;
      } else {
        n.z = 0;
      }
      n.x = p.x;
      n.y = p.y;
      processed = true;
      break;
    case ShapeType::kEllipsoid: {
      if (s.size.x < kMinVal || s.size.y < kMinVal || s.size.z < kMinVal) {
        break;
      }
      const double d = p.x * p.x / (s.size.x * s.size.x) + p.y * p.y / (s.size.y * s.size.y) +
                       p.z * p.z / (s.size.z * s.size.z);
      processed = d <= 1 ? CcdEllipsoidInside(&n, p, s.size) : CcdEllipsoidOutside(&n, p, s.size);
      break;
    }
    case ShapeType::kCylinder: {
      if (std::fabs(p.z) > 0.95 * s.size.y) {
        break;
      }
      const double to_flat = std::fabs(s.size.y - std::fabs(p.z));
      const double to_round = std::fabs(s.size.x - std::sqrt(0 + (p.x * p.x + p.y * p.y)));
      if (to_flat < 0.25 * to_round) {
        break;
      }
      n = {p.x, p.y, 0};
      processed = true;
      break;
    }
    default:
      break;
  }
  if (processed) {
    Normalize(n);
    *normal = Rotate(mat, n);
  }
  return processed;
}

// mjc_fixNormal: replaces the contact normal by the smooth shapes' surface normals (their
// difference, normalized, when both qualify). a and b are the shapes at the geoms' poses.
MJP_HD inline void CcdFixNormal(const NativeShape& a, const NativeShape& b, Contact* con) {
  Vec3 n1 = con->normal;
  Vec3 n2 = {-con->normal.x, -con->normal.y, -con->normal.z};
  const bool done1 = CcdSurfaceNormal(a, con->pos, &n1);
  const bool done2 = CcdSurfaceNormal(b, con->pos, &n2);
  if (done1 && done2) {
    con->normal = n1 - n2;
    Normalize(con->normal);
  } else if (done1) {
    con->normal = n1;
  } else if (done2) {
    con->normal = n2 * -1.0;
  }
}

}  // namespace mjportal::collision
