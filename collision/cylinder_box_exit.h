// The shallowest exit of an overlapping cylinder and box: the direction n minimising the overlap
//     D(n) = h_cyl(n) + h_box(−n)      (h: support function, n unit, from cylinder to box),
// whose minimum is the penetration depth. MPR along a normal can settle in a local minimum of D
// (fast mode's step 3 on this pair); this search finds the global one.
//
// Where the minimum lies. The minimiser is the normal of M = cylinder ⊕ (−box) at the point of
// M's boundary nearest the origin. The ball around the origin through that point lies in M, so
// the point cannot be on a ridge or corner of M: it lies inside a two-dimensional patch of the
// boundary with one normal per point. Each patch is the sum of a cylinder feature and a box
// feature whose dimensions add up to two (u: the cylinder's axis, e_i: the box's axes):
//     box face ⊕ cylinder point            flat,   normal ±e_i
//     box vertex ⊕ cylinder cap            flat,   normal ±u
//     box edge e_i ⊕ cylinder side line    flat,   normal ±(e_i × u)
//     box vertex ⊕ cylinder side           curved, normals ⊥ u
//     box edge e_i ⊕ cylinder rim          curved, normals ⊥ e_i
// (aligned poses only merge patches: a box face on a cap is flat with normal ±u = ±e_i). So the
// minimum lies at one of the flat normals or on one of four great circles of the direction
// sphere: the one ⊥ u and the three ⊥ e_i.
//
// On a great circle with orthonormal basis (p, q), n = p cos θ + q sin θ, m = (cos θ, sin θ):
//     D(m) = c + W·m + Σ_k |L_k·m| + r √(1 − (U·m)²)
//   ⊥ u:    c = r, W = (c_cyl − c_box) in (p, q), L_k = s_k e_k in (p, q), no rim term;
//   ⊥ e_i:  c = 0, p = e_j, q = e_k, W likewise, L = {s_j (1,0), s_k (0,1), h U}, U = u in (p, q)
// (s: the box's half-sizes, r, h: the cylinder's radius and half-height). Between the zeros of
// the L_k·m (and, for |U|² > 1/4, the rim term's steep points m = ±U/|U|) the signs are fixed and
// D = c + V·m + r g(m), V = W + Σ σ_k L_k: a sinusoid on the circle ⊥ u (its minimum in closed
// form), the support function of an ellipse (the rim's projection) on the circles ⊥ e_i, whose
// minima on an arc are bracketed by sampling dD/dθ and found by safeguarded Newton.
//
// Pruning, both exact: a curved patch whose box feature is farther from the cylinder's surface
// than the depth being beaten cannot hold a shallower exit (PatchMasks), and an arc whose lower
// bound c + min(V·m) + r min(g) is not below it is skipped.
#pragma once

#include <cmath>

#include "collision/minkowski.h"

namespace mjportal::collision {

// A direction of smaller overlap than the one checked; found = false when there is none.
struct ShallowerExit {
  bool found = false;
  double overlap = 0;
  Vec3 normal = {0, 0, 0};  // from the cylinder to the box
};

namespace cylinder_box {

struct Vec2 {
  double x, y;
};

MJP_HD inline double Dot2(const Vec2& a, const Vec2& b) {
  return a.x * b.x + a.y * b.y;
}
MJP_HD inline double Cross2(const Vec2& a, const Vec2& b) {
  return a.x * b.y - a.y * b.x;
}
MJP_HD inline Vec2 Perp(const Vec2& a) {
  return {-a.y, a.x};
}

// Monotone in the angle of v over [0, 2π) (the diamond angle, in [0, 4)): orders breakpoints
// without atan2.
MJP_HD inline double PseudoAngle(const Vec2& v) {
  const double l1 = std::fabs(v.x) + std::fabs(v.y);
  const double t = v.y / l1;
  return v.x >= 0 ? (v.y >= 0 ? t : 4 + t) : 2 - t;
}

// The pair in the box's frame: the cylinder's centre w (from the box's centre) and axis u.
struct Pair {
  Vec3 w, u;
  double r, h;
  Vec3 s;  // the box's half-sizes
};

// D(n), n in the box's frame. The rim term r √(1 − (u·n)²) is r |u × n|: the square root of a
// difference loses all its digits where n is near ±u.
MJP_HD inline double Overlap(const Pair& g, const Vec3& n) {
  const Vec3 across = Cross(g.u, n);
  return Dot(g.w, n) + g.r * std::sqrt(Dot(across, across)) + g.h * std::fabs(Dot(g.u, n)) +
         g.s.x * std::fabs(n.x) + g.s.y * std::fabs(n.y) + g.s.z * std::fabs(n.z);
}

// D restricted to one great circle (see the header); `allowed` has bit σ set for each sign
// pattern (bit k: L_k·m > 0) whose patch may hold a smaller overlap.
struct Circle {
  Vec3 p, q;          // its plane's basis
  double offset = 0;  // a constant term (the rim's r on the circle ⊥ u)
  Vec2 w;
  Vec2 l[3];
  Vec2 u = {0, 0};
  double off_plane = 0;  // 1 − |U|²: the square of u's component along the circle's axis
  double r = 0;
  unsigned allowed = 0;
};

// On an arc with fixed signs: D = V·m + r g, g = √(1 − (U·m)²); its first and second derivatives
// in θ (m' = Perp(m), m'' = −m). g² is summed as (1 − |U|²) + (U × m)², without cancellation.
struct ArcDerivatives {
  double d1, d2;
};
MJP_HD inline ArcDerivatives Derivatives(const Circle& c, const Vec2& v, const Vec2& m) {
  const Vec2 t = Perp(m);
  const double a = Dot2(c.u, m), at = Dot2(c.u, t);
  const double across = Cross2(c.u, m), g2 = c.off_plane + across * across;
  const double g = std::sqrt(g2 > 1e-30 ? g2 : 1e-30);
  const double g1 = -a * at / g;
  const double gdd = -(at * at - a * a) / g - a * a * at * at / (g * g * g);
  return {Dot2(v, t) + c.r * g1, -Dot2(v, m) + c.r * gdd};
}

// Points of the arc from unit b0 counter-clockwise to unit b1 (less than half a turn) along its
// chord, without trigonometry: m(t) = x(t) / |x(t)|, x(t) = b0 + t (b1 − b0), t in [0, 1].
MJP_HD inline Vec2 ArcPoint(const Vec2& b0, const Vec2& chord, double t, double* dtheta_dt) {
  const Vec2 x = {b0.x + t * chord.x, b0.y + t * chord.y};
  const double length2 = Dot2(x, x), inverse = 1 / std::sqrt(length2);
  *dtheta_dt = Cross2(x, chord) / length2;
  return {x.x * inverse, x.y * inverse};
}

// The minimum of V·m + r g(m) on the chord interval [lo, hi] where dD/dθ goes from negative to
// positive: Newton on dD/dθ in t (dθ/dt from the chord), falling back to bisection.
MJP_HD inline Vec2 BracketedMinimum(const Circle& c, const Vec2& v, const Vec2& b0,
                                    const Vec2& chord, double lo, double hi) {
  double t = 0.5 * (lo + hi), dtheta = 0;
  Vec2 m = ArcPoint(b0, chord, t, &dtheta);
  for (int it = 0; it < 60; ++it) {
    const ArcDerivatives d = Derivatives(c, v, m);
    if (d.d1 < 0) {
      lo = t;
    } else {
      hi = t;
    }
    double next = d.d2 > 0 ? t - d.d1 / (d.d2 * dtheta) : 0.5 * (lo + hi);
    if (!(next > lo && next < hi))
      next = 0.5 * (lo + hi);
    if (std::fabs(next - t) < 1e-13 || hi - lo < 1e-13)
      break;
    t = next;
    m = ArcPoint(b0, chord, t, &dtheta);
  }
  return m;
}

// Samples of dD/dθ along an arc that bracket its interior minima. D on an arc is the support
// function of an ellipse (the rim's projection) moved by V: up to two minima and two maxima
// over the whole circle, and an arc can hold a minimum and a maximum, so the arc is not taken
// as unimodal: a minimum lies wherever dD/dθ turns from negative to positive between samples.
// A minimum and a maximum closer than a sample interval (an eighth of an arc of at most a
// quarter turn) would be missed; such a pair is about to merge, so the minimum lies barely below
// its surroundings (none in the tests' 60,000 random pairs nor in 32,768 resting poses).
constexpr int kArcSamples = 8;

// The least of D over the arc from b0 to b1 (less than half a turn) among its ends and its
// interior minima; *overlap receives D there.
MJP_HD inline Vec2 ArcMinimum(const Pair& g, const Circle& c, const Vec2& v, const Vec2& b0,
                              const Vec2& b1, double* overlap) {
  const Vec2 chord = {b1.x - b0.x, b1.y - b0.y};
  Vec2 best = b0;
  double best_overlap = 1e300;
  const auto keep = [&](const Vec2& m) {
    const double o = Overlap(g, c.p * m.x + c.q * m.y);
    if (o < best_overlap) {
      best_overlap = o;
      best = m;
    }
  };
  double previous = Derivatives(c, v, b0).d1, previous_t = 0;
  if (previous >= 0)
    keep(b0);
  for (int k = 1; k <= kArcSamples; ++k) {
    const double t = static_cast<double>(k) / kArcSamples;
    double dtheta = 0;
    const Vec2 m = k == kArcSamples ? b1 : ArcPoint(b0, chord, t, &dtheta);
    const double slope = Derivatives(c, v, m).d1;
    if (previous < 0 && slope >= 0)
      keep(BracketedMinimum(c, v, b0, chord, previous_t, t));
    previous = slope;
    previous_t = t;
  }
  if (previous <= 0)
    keep(b1);
  *overlap = best_overlap;
  return best;
}

// Searches the allowed arcs of one circle for an overlap below the best so far (or `below`).
// The rim term's curvature at ±U/|U| grows without bound as |U| → 1 (a kink at 1): beyond |U|²
// = 1/4 those two directions cut the circle's arcs too.
constexpr double kKinkCut = 0.25;

MJP_HD inline void SearchCircle(const Pair& g, const Circle& c, double below, ShallowerExit* best) {
  // Breakpoints: the zeros of each L_k·m, and the rim term's kinks at ±U/|U|.
  Vec2 cuts[8];
  double keys[8];
  int count = 0;
  const auto add = [&](const Vec2& d) {
    const double length = std::sqrt(Dot2(d, d));
    if (!(length > 1e-12))
      return;
    const Vec2 unit = {d.x / length, d.y / length};
    for (int s = 0; s < 2; ++s) {
      const Vec2 b = s == 0 ? unit : Vec2{-unit.x, -unit.y};
      // Insertion in pseudo-angle order.
      const double key = PseudoAngle(b);
      int k = count++;
      for (; k > 0 && keys[k - 1] > key; --k) {
        keys[k] = keys[k - 1];
        cuts[k] = cuts[k - 1];
      }
      keys[k] = key;
      cuts[k] = b;
    }
  };
  for (int k = 0; k < 3; ++k)
    add(Perp(c.l[k]));
  const bool kink_cuts = c.r > 0 && Dot2(c.u, c.u) > kKinkCut;
  if (kink_cuts)
    add(c.u);
  if (count < 2)
    return;
  for (int k = 0; k < count; ++k) {
    const Vec2 b0 = cuts[k], b1 = cuts[(k + 1) % count];
    // The arc's signs, from a point inside it.
    Vec2 mid = {b0.x + b1.x, b0.y + b1.y};
    if (Cross2(b0, b1) < 0 || Dot2(mid, mid) < 1e-12)
      mid = Perp(b0);  // half a turn or more: mid is the quarter-turn point
    Vec2 v = c.w;
    unsigned pattern = 0;
    for (int j = 0; j < 3; ++j) {
      const bool positive = Dot2(c.l[j], mid) >= 0;
      pattern |= (positive ? 1u : 0u) << j;
      const double sign = positive ? 1 : -1;
      v = {v.x + sign * c.l[j].x, v.y + sign * c.l[j].y};
    }
    if (!((c.allowed >> pattern) & 1u))
      continue;
    // Lower bound: the linear part's minimum over the arc plus the rim term's. |U × m| is least
    // at ±U/|U|: at an end of the arc when those cut the circle, anywhere otherwise.
    const Vec2 toward = {-v.x, -v.y};
    const bool inside = Cross2(b0, toward) >= 0 && Cross2(toward, b1) >= 0;
    const double linear_min = inside ? -std::sqrt(Dot2(v, v)) : std::fmin(Dot2(v, b0), Dot2(v, b1));
    const double a0 = Cross2(c.u, b0), a1 = Cross2(c.u, b1);
    const double across2 = kink_cuts ? std::fmin(a0 * a0, a1 * a1) : 0;
    const double bound = c.offset + linear_min + c.r * std::sqrt(c.off_plane + across2);
    const double target = best->found ? best->overlap : below;
    if (!(bound < target))
      continue;
    Vec2 m;
    double overlap = 0;
    if (c.r == 0) {  // no rim term: the bound's minimiser is exact (a sinusoid on the arc)
      const double vl = std::sqrt(Dot2(v, v));
      m = inside && vl > 0 ? Vec2{toward.x / vl, toward.y / vl}
                           : (Dot2(v, b0) <= Dot2(v, b1) ? b0 : b1);
      overlap = Overlap(g, c.p * m.x + c.q * m.y);
    } else if (Cross2(b0, b1) > 0) {  // less than half a turn (always, with the quadrant cuts)
      m = ArcMinimum(g, c, v, b0, b1, &overlap);
    } else {
      continue;
    }
    const Vec3 n = c.p * m.x + c.q * m.y;
    if (overlap < target)
      *best = {true, overlap, n};
  }
}

// |ρ − r| < d for some ρ with ρ² in [lo², hi²] (ρ: distance from the cylinder's axis).
MJP_HD inline bool RadialWithin(double lo2, double hi2, double r, double d) {
  const double inner = r - d;
  return lo2 < (r + d) * (r + d) && (inner <= 0 || hi2 > inner * inner);
}

// Which curved patches may lie closer to the origin than d (see the header's bounds): bit σ of
// side (the circle ⊥ u) for the box vertex with coordinate k negative where bit k of σ is set;
// bit σ of rim[i] for the edge along e_i with its e_j (e_k) coordinate negative where bit 0
// (bit 1) is set, on the top rim where bit 2 is set.
struct PatchMasks {
  unsigned side = 0;
  unsigned rim[3] = {0, 0, 0};
};

MJP_HD inline PatchMasks CloseCurvedPatches(const Pair& g, double d) {
  PatchMasks out;
  const double s[3] = {g.s.x, g.s.y, g.s.z};
  const double u[3] = {g.u.x, g.u.y, g.u.z};
  // Each vertex from the cylinder's centre: its height z along the axis and ρ².
  double z[8], rho2[8];
  for (unsigned v = 0; v < 8; ++v) {
    const Vec3 p =
        Vec3{(v & 1u) ? -s[0] : s[0], (v & 2u) ? -s[1] : s[1], (v & 4u) ? -s[2] : s[2]} - g.w;
    z[v] = Dot(p, g.u);
    rho2[v] = Dot(p, p) - z[v] * z[v];
    // Box vertex ⊕ side: | ρ(v) − r | < d.
    if (RadialWithin(rho2[v], rho2[v], g.r, d))
      out.side |= 1u << v;
  }
  // Box edge along e_i ⊕ rim: |z − (±h)| and |ρ − r| can both come below d along the edge.
  // Along the edge (t in [−1, 1] from its vertex with coordinate i negative to the positive
  // one) ρ²(t) = a t² + b t + c, a = s_i² (1 − u_i²), b and c from the ends.
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double a = s[i] * s[i] * (1 - u[i] * u[i]);
    for (unsigned pattern = 0; pattern < 4; ++pattern) {
      const unsigned negative = ((pattern & 1u) << j) | (((pattern >> 1) & 1u) << k);
      const unsigned v0 = negative | (1u << i), v1 = negative;
      const double b = 0.5 * (rho2[v1] - rho2[v0]), c = 0.5 * (rho2[v1] + rho2[v0]) - a;
      double t = a > 0 ? -b / (2 * a) : 0;
      t = t < -1 ? -1 : (t > 1 ? 1 : t);
      const double lo2 = (a * t + b) * t + c;
      const double hi2 = rho2[v0] > rho2[v1] ? rho2[v0] : rho2[v1];
      if (!RadialWithin(lo2, hi2, g.r, d))
        continue;
      const double z_lo = z[v0] < z[v1] ? z[v0] : z[v1], z_hi = z[v0] < z[v1] ? z[v1] : z[v0];
      for (unsigned top = 0; top < 2; ++top) {
        const double cap = top ? g.h : -g.h;
        if (z_lo < cap + d && z_hi > cap - d)
          out.rim[i] |= 1u << (pattern | (top << 2));
      }
    }
  }
  return out;
}

}  // namespace cylinder_box

// The direction of least overlap of a cylinder and a box when it is below `below` > 0 (the depth
// of the answer being checked, plus or less a tolerance: the geoms overlap, which the patch
// argument needs); found = false otherwise. Flat patches are checked
// by their normals, curved ones by searching the arcs of their circles that the patch bounds
// allow. The normal is in world coordinates, from the cylinder to the box.
MJP_HD inline ShallowerExit CylinderBoxShallowerExit(const ConvexGeom& cyl, const ConvexGeom& box,
                                                     double below) {
  using cylinder_box::Circle;
  const double* bm = box.view.mat;
  cylinder_box::Pair g;
  g.w = RotateT(bm, Load3(cyl.view.pos) - Load3(box.view.pos));
  g.u = RotateT(bm, Column(cyl.view.mat, 2));
  g.r = cyl.view.size[0];
  g.h = cyl.view.size[1];
  g.s = Load3(box.view.size);
  ShallowerExit best;
  if (!(below > 0))
    return best;
  const auto target = [&] { return best.found ? best.overlap : below; };
  // D(±n) = S(n) ± w·n, S the part even in n: the better sign of each flat patch normal.
  const auto consider = [&](const Vec3& n) {
    const double offset = Dot(g.w, n);
    const double overlap = cylinder_box::Overlap(g, n) - offset - std::fabs(offset);
    if (overlap < target())
      best = {true, overlap, offset > 0 ? -n : n};
  };
  // The flat patches: cap normals, box face normals, box edge ⊕ side line.
  consider(g.u);
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 3; ++i) {
    consider(axes[i]);
    Vec3 x = Cross(axes[i], g.u);
    const double length = std::sqrt(Dot(x, x));
    if (length > 1e-9)
      consider(x * (1 / length));
  }
  const cylinder_box::PatchMasks masks = cylinder_box::CloseCurvedPatches(g, target());
  const double s[3] = {g.s.x, g.s.y, g.s.z};
  // The circle ⊥ u: box vertex on the cylinder's side.
  if (masks.side != 0) {
    Circle c;
    TangentFrame(g.u, &c.p, &c.q);
    c.w = {Dot(g.w, c.p), Dot(g.w, c.q)};
    for (int k = 0; k < 3; ++k)
      c.l[k] = {s[k] * Dot(axes[k], c.p), s[k] * Dot(axes[k], c.q)};
    c.offset = g.r;  // the rim term is constant here (U = 0)
    c.allowed = masks.side;
    cylinder_box::SearchCircle(g, c, target(), &best);
  }
  // The circles ⊥ e_i: a box edge along e_i on the cylinder's rim.
  const double u[3] = {g.u.x, g.u.y, g.u.z}, w[3] = {g.w.x, g.w.y, g.w.z};
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    if (masks.rim[i] == 0)
      continue;
    Circle c;
    c.p = axes[j];
    c.q = axes[k];
    c.w = {w[j], w[k]};
    c.u = {u[j], u[k]};
    c.off_plane = u[i] * u[i];
    c.l[0] = {s[j], 0};
    c.l[1] = {0, s[k]};
    c.l[2] = {g.h * c.u.x, g.h * c.u.y};
    c.r = g.r;
    c.allowed = masks.rim[i];
    cylinder_box::SearchCircle(g, c, target(), &best);
  }
  if (best.found)
    best.normal = Rotate(bm, best.normal);
  return best;
}

}  // namespace mjportal::collision
