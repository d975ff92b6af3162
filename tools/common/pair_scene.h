// Seeded random geom pairs for per-call comparisons and benchmarks: a static model holding `count`
// pairs of geoms of types (type1, type2), whose sizes, poses and margins are drawn from a seed.
// Poses are written straight into mjData (geom_xpos, geom_xmat), so narrowphase entries can be
// called on them without stepping.
#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/common/model_variants.h"

namespace mjportal::tools {

struct PairCase {
  int geom1;
  int geom2;
  double margin;  // margin + gap, as MuJoCo passes it to a table entry
};

class PairScene {
 public:
  // `config` empty: no mjportal instance (stock); else the instance's config keys. Mesh geoms
  // use seeded convex point clouds of `mesh_vertices` points, or with 0 alternate between 8 (MuJoCo
  // scans them) and 64 (MuJoCo climbs the hull graph). A cloud's points are random directions on
  // the ellipsoid with semi-axes 0.3, 0.2, 0.15, each coordinate scaled by a factor drawn from
  // [0.8, 1] (the hull keeps some of them: 19, 89 and 247 of 20, 200 and 2,000), or with
  // `on_surface` left on the ellipsoid (every point a hull vertex).
  static PairScene Create(int type1, int type2, int count, const PluginConfig& config,
                          std::string* error, int mesh_vertices = 0, bool on_surface = false);

  // Draws sizes, poses and margins for every pair from `seed`. The mix: about half of the pairs
  // overlap, and some are special (coincident centres, parallel or antiparallel axes, identity
  // rotations, touching distance, zero or large margins).
  void Randomize(std::uint64_t seed);

  // Resting contacts, as in a settled pile: sizes and orientations as Randomize draws them, then
  // geom 2 is moved along a random direction (a plane's normal for plane pairs) to where `judge`
  // (MuJoCo's original entry) starts reporting contact, and from there pushed in or pulled apart
  // by up to 1% of the pair's reach. Margins are zero, or (30%) up to 1% of the reach.
  void RandomizeResting(std::uint64_t seed, mjfCollision judge);

  // Face-to-face contacts of box and mesh pairs (other types: a random touching direction), as
  // in a settled pile of boxes and hulls: geom 1 random; geom 2 turned so that one of its faces
  // (a box face, a hull polygon) is anti-parallel to one of geom 1's (a random one) up to a twist
  // of < 3°; then moved along that face's normal to where `judge` starts reporting contact, and
  // pushed in by up to 0.5% of the reach or pulled out by up to 0.1%. Margins zero, or (20%) up to
  // 1% of the reach.
  void RandomizeFaceToFace(std::uint64_t seed, mjfCollision judge);

  // One line per geom with %.17g values, enough to rebuild the case.
  std::string Describe(const PairCase& c) const;

  bool ok() const { return model_ != nullptr && data_ != nullptr; }
  const mjModel* model() const { return model_.get(); }
  mjData* data() const { return data_.get(); }
  const std::vector<PairCase>& cases() const { return cases_; }
  int type1() const { return type1_; }
  int type2() const { return type2_; }

 private:
  int type1_ = 0, type2_ = 0;
  ModelPtr model_;
  DataPtr data_;
  std::vector<PairCase> cases_;
};

// "plane", "sphere", ... for a geom type.
const char* GeomTypeName(int type);

}  // namespace mjportal::tools
