#include "batch/candidates.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace mjportal::batch {
namespace {

// MuJoCo's margin override (mjENBL_OVERRIDE) replaces every pair's margin.
mjtNum AssignMargin(const mjModel* m, mjtNum margin) {
  return (m->opt.enableflags & mjENBL_OVERRIDE) ? m->opt.o_margin : margin;
}

// Body-level rules: true when MuJoCo discards every geom pair of bodies b1 and b2.
bool BodiesFiltered(const mjModel* m, const mjData* d, int b1, int b2) {
  const int weld1 = m->body_weldid[b1], weld2 = m->body_weldid[b2];
  if (weld1 == weld2)
    return true;
  if (m->body_dofnum[weld1] == 0 && m->body_dofnum[weld2] == 0)
    return true;
  const bool sleep = (m->opt.enableflags & mjENBL_SLEEP) && d->nbody_awake < m->nbody;
  const bool asleep1 = sleep && d->body_awake[b1] == mjS_ASLEEP;
  const bool asleep2 = sleep && d->body_awake[b2] == mjS_ASLEEP;
  if ((asleep1 && asleep2) || (asleep1 && weld2 == 0) || (asleep2 && weld1 == 0))
    return true;
  const bool filter_parent = !(m->opt.disableflags & mjDSBL_FILTERPARENT);
  const int parent1 = m->body_weldid[m->body_parentid[weld1]];
  const int parent2 = m->body_weldid[m->body_parentid[weld2]];
  if (filter_parent && weld1 != 0 && weld2 != 0 && (weld1 == parent2 || weld2 == parent1))
    return true;
  // <exclude>: signatures are (lower body << 16) + higher body, sorted.
  const unsigned lo = static_cast<unsigned>(std::min(b1, b2)), hi = std::max(b1, b2);
  const unsigned signature = (lo << 16) + hi;
  return std::binary_search(m->exclude_signature, m->exclude_signature + m->nexclude,
                            static_cast<int>(signature));
}

// Bounding-sphere test (a plane is a half-space): true when the geoms may be within `margin`.
bool SpheresMeet(const mjModel* m, const mjData* d, int g1, int g2, mjtNum margin) {
  const mjtNum r1 = m->geom_rbound[g1], r2 = m->geom_rbound[g2];
  const mjtNum* p1 = d->geom_xpos + 3 * g1;
  const mjtNum* p2 = d->geom_xpos + 3 * g2;
  if (r1 > 0 && r2 > 0) {
    const mjtNum dx = p1[0] - p2[0], dy = p1[1] - p2[1], dz = p1[2] - p2[2];
    const mjtNum reach = (r1 + r2 + margin) * (1 + 1e-9);  // never tighter than MuJoCo's test
    return dx * dx + dy * dy + dz * dz <= reach * reach;
  }
  // Plane against a bounded geom: the geom's centre within rbound + margin above the plane.
  const auto above = [&](int plane, int other) {
    const mjtNum* mat = d->geom_xmat + 9 * plane;
    const mjtNum* pp = d->geom_xpos + 3 * plane;
    const mjtNum* po = d->geom_xpos + 3 * other;
    return (po[0] - pp[0]) * mat[2] + (po[1] - pp[1]) * mat[5] + (po[2] - pp[2]) * mat[8];
  };
  if (m->geom_type[g1] == mjGEOM_PLANE && r2 > 0)
    return above(g1, g2) <= (margin + r2) * (1 + 1e-9);
  if (m->geom_type[g2] == mjGEOM_PLANE && r1 > 0)
    return above(g2, g1) <= (margin + r1) * (1 + 1e-9);
  return true;
}

// MuJoCo's call order: lower type first; same type, the order given (lower body first for
// dynamic pairs).
Candidate Ordered(const mjModel* m, int g1, int g2, mjtNum margin) {
  if (m->geom_type[g1] > m->geom_type[g2])
    return {g2, g1, margin};
  return {g1, g2, margin};
}

// An unordered geom pair as one number (lower id high).
std::uint64_t PairKey(int g1, int g2) {
  const auto lo = static_cast<std::uint64_t>(std::min(g1, g2));
  return (lo << 32) | static_cast<std::uint32_t>(std::max(g1, g2));
}

}  // namespace

void FindCandidates(const mjModel* m, const mjData* d, CandidateScratch* scratch,
                    std::vector<Candidate>* out) {
  out->clear();
  if (m->opt.disableflags & (mjDSBL_CONSTRAINT | mjDSBL_CONTACT))
    return;

  // <pair> elements, with their own margin and gap; their keys, sorted, to drop the dynamic pairs
  // they name.
  std::vector<std::uint64_t>& named = scratch->named;
  named.clear();
  for (int k = 0; k < m->npair; ++k) {
    const int g1 = m->pair_geom1[k], g2 = m->pair_geom2[k];
    const mjtNum margin = AssignMargin(m, m->pair_margin[k]) + m->pair_gap[k];
    out->push_back(Ordered(m, g1, g2, margin));
    named.push_back(PairKey(g1, g2));
  }
  std::sort(named.begin(), named.end());

  // Dynamic pairs: sweep and prune along x over the geoms that can collide at all.
  std::vector<int>& order = scratch->order;
  std::vector<double>& lo = scratch->lo;
  std::vector<double>& hi = scratch->hi;
  order.clear();
  lo.assign(m->ngeom, 0);
  hi.assign(m->ngeom, 0);
  for (int g = 0; g < m->ngeom; ++g) {
    if (!m->geom_contype[g] && !m->geom_conaffinity[g])
      continue;
    // Each geom's reach: bounding sphere plus its own margin and gap (a pair's margin is their
    // sum; with the override, each carries the whole override margin).
    const mjtNum reach = m->geom_rbound[g] + AssignMargin(m, m->geom_margin[g]) + m->geom_gap[g];
    const bool unbounded = m->geom_rbound[g] <= 0;
    lo[g] = unbounded ? -HUGE_VAL : d->geom_xpos[3 * g] - reach;
    hi[g] = unbounded ? HUGE_VAL : d->geom_xpos[3 * g] + reach;
    order.push_back(g);
  }
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return lo[a] < lo[b] || (lo[a] == lo[b] && a < b); });
  for (size_t i = 0; i < order.size(); ++i) {
    const int a = order[i];
    for (size_t j = i + 1; j < order.size() && lo[order[j]] <= hi[a]; ++j) {
      const int b = order[j];
      const int g1 = std::min(a, b), g2 = std::max(a, b);
      const int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
      if (b1 == b2)
        continue;
      if (!(m->geom_contype[g1] & m->geom_conaffinity[g2]) &&
          !(m->geom_contype[g2] & m->geom_conaffinity[g1]))
        continue;
      if (BodiesFiltered(m, d, b1, b2))
        continue;
      if (!named.empty() && std::binary_search(named.begin(), named.end(), PairKey(g1, g2)))
        continue;
      const mjtNum margin = AssignMargin(m, m->geom_margin[g1] + m->geom_margin[g2]) +
                            m->geom_gap[g1] + m->geom_gap[g2];
      if (!SpheresMeet(m, d, g1, g2, margin))
        continue;
      // The lower body's geom first (geoms are numbered in body order).
      out->push_back(b1 <= b2 ? Ordered(m, g1, g2, margin) : Ordered(m, g2, g1, margin));
    }
  }
}

}  // namespace mjportal::batch
