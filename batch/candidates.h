// Candidate geom pairs of one world for the batched pass: a superset of the pairs MuJoCo 3.12's
// broadphase will hand to narrowphase in the coming step, each ordered and with the margin exactly
// as MuJoCo will call it (DESIGN.md §6).
//
// MuJoCo's rules, applied here (engine_collision_driver.c, read at tag 3.12.0):
//   - dynamic pairs: geoms of different bodies whose contype/conaffinity bits meet; bodies not
//     welded together, not both without dofs, not both asleep (nor one asleep against the world),
//     not parent and child unless the parent filter is disabled; no <exclude>d body pair; the
//     bounding spheres (rbound, a plane's half-space) within margin + gap;
//   - <pair> elements: always, with their own margin and gap (MuJoCo drops a dynamic pair that a
//     <pair> element names);
//   - order: the lower geom type first (MuJoCo swaps), else the lower body's geom first;
//   - margin passed to the kernel: margin + gap, the pair's or the two geoms' sums.
// Sweep and prune along x on the bounding spheres (planes span everything) finds the overlaps in
// O(n log n + k). A superset is enough: pairs MuJoCo then skips cost time only, and pairs it asks
// that are missing here are computed on the spot.
#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>
#include <vector>

namespace mjportal::batch {

struct Candidate {
  int g1, g2;     // as MuJoCo orders them
  mjtNum margin;  // margin + gap, as MuJoCo passes it
};

// Appends the candidates of world d (poses from d->geom_xpos / geom_xmat: run kinematics first)
// to *out, cleared first. `scratch` is reused between calls.
struct CandidateScratch {
  std::vector<int> order;
  std::vector<double> lo, hi;
  std::vector<std::uint64_t> named;  // geom pairs named by <pair> elements
};
void FindCandidates(const mjModel* m, const mjData* d, CandidateScratch* scratch,
                    std::vector<Candidate>* out);

}  // namespace mjportal::batch
