// mj_geomDistance through the installed dispatchers.
//
// MuJoCo 3.12's mj_geomDistance (engine_support.c; MuJoCo's distance, normal and fromto sensors
// call it) measures a pair whose table entry is mjc_Convex or mjc_BoxBox, with nativeccd on, by
// calling its native CCD directly (mjc_ccd on the unflipped geoms, margin 0, one contact,
// distmax as the cutoff) and taking the witness points as fromto; every other pair it hands to
// the table entry with distmax as the margin and rebuilds fromto from the contact (pos ∓ normal ·
// dist / 2). It recognizes the first case by the entry's address, so once the dispatchers are
// installed every pair takes the second: mjc_Convex and mjc_BoxBox then answer with a margin of
// distmax, which inflates both shapes by it (two cylinders 1.7 cm deep in each other read 1.03 m
// apart at distmax 10). The dispatchers recognize a call from mj_geomDistance by its return
// address (CalledFromGeomDistance) and answer it as the direct call would (collision_table.cc).
#pragma once

#include <cstdint>

#include <mujoco/mujoco.h>

#include "collision/vec3.h"
#include "plugin/routing.h"

namespace mjportal {

// The machine code of MuJoCo's mj_geomDistance: [begin, end), found once when the table is
// installed (FindGeomDistanceCode); empty when it could not be found.
struct CodeRange {
  std::uintptr_t begin = 0, end = 0;
};
inline CodeRange geom_distance_code;

// Locates mj_geomDistance in the library that defines `original` (one of MuJoCo's own collision
// functions): that library's symbol and its size in the dynamic symbol table.
CodeRange FindGeomDistanceCode(mjfCollision original);

// Whether con lies in d's arena: mj_collision hands the collision functions a block of the
// mjData's stack, which is the arena's top; mj_geomDistance and direct callers pass their own.
inline bool InNarrowphaseBuffer(const mjData* d, const mjPreContact* con) {
  const auto begin = reinterpret_cast<std::uintptr_t>(d->arena);
  const auto at = reinterpret_cast<std::uintptr_t>(con);
  return at >= begin && at - begin < static_cast<std::uintptr_t>(d->narena);
}

// Whether a collision function returning to `return_address` was called by mj_geomDistance
// (MuJoCo calls it, never inlines it). Where its code could not be located, a call with a
// buffer outside the mjData's arena counts as one (direct callers of the table then get a
// distance query's answer).
inline bool CalledFromGeomDistance(const void* return_address, const mjData* d,
                                   const mjPreContact* con) {
  const CodeRange code = geom_distance_code;
  if (code.begin == code.end)
    return !InNarrowphaseBuffer(d, con);
  const auto at = reinterpret_cast<std::uintptr_t>(return_address);
  return at > code.begin && at <= code.end;
}

// Whether MuJoCo 3.12's table entry for (type1, type2) is mjc_Convex or mjc_BoxBox, the pairs
// mj_geomDistance measures with mjc_ccd (checked against the entries' addresses by a test).
constexpr bool MeasuredByCcd(int type1, int type2) {
  return UsesConvexSolver(type1, type2) || (type1 == mjGEOM_BOX && type2 == mjGEOM_BOX);
}

// The contact from which mj_geomDistance rebuilds fromto = (x1, x2) by its own arithmetic,
// pos ∓ normal · (dist / 2) for either order of the caller's geoms: pos the midpoint and normal
// half the difference over dist / 2 (not unit: mj_geomDistance reads nothing else from it).
// dist comes back bit for bit; a rebuilt coordinate can be off by an ulp or two (71% of them
// exact on the bundled models' pairs: where x1 + x2 is odd in its last bit the midpoint is not a
// double, and no pos and normal give both ends exactly but at ties).
inline void FromtoContact(const collision::Vec3& x1, const collision::Vec3& x2, double dist,
                          mjPreContact* con) {
  const double h = 0.5 * dist;
  const double from[3] = {x1.x, x1.y, x1.z}, to[3] = {x2.x, x2.y, x2.z};
  con->dist = dist;
  for (int k = 0; k < 3; ++k) {
    const double half = 0.5 * (to[k] - from[k]);
    con->pos[k] = from[k] + half;
    con->normal[k] = h != 0 ? half / h : 0;
    con->tangent[k] = 0;
  }
}

}  // namespace mjportal
