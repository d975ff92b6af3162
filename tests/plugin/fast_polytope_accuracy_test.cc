// Fast mode's convex solvers on polytope pairs (box–mesh, mesh–mesh from 19- to 2,000-vertex
// hulls), against their exact penetration depth (tests/collision/polytope_reference.h: the
// separating axis test over the hulls' faces and Gauss-map edge pairs, brute-force support), on
// bench-fast's resting poses and on face-to-face poses as in a settled pile. The meshes answer
// support queries as in the plugin: support field (180²) refined by the hull climb, warm starts.
// Checked per pose, solvers at a tight tolerance (ccd_tolerance 1e-10), with ccd auto (MPR and its
// hand-offs) and gjk (GJK + EPA):
//   - no missed contact: an overlap deeper than 1e-9 gets a contact;
//   - the first contact's depth is the exact depth within 1e-6 of the smaller geom's size;
//   - no contact of the whole patch (CollideConvex, manifold = clip) is deeper than the overlap
//     along its own normal (a bound no true contact point can pass).
//
// MJPORTAL_RESTING_CASES sets the poses per pair type and pose kind (default 1024; 48 for the
// hulls of 2,000 vertices).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "collision/convex_contact.h"
#include "plugin/support_fields.h"
#include "tests/collision/polytope_reference.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/pair_scene.h"

namespace mjportal::testing {
namespace {

using collision::reference::Polytope;

struct PolytopePair {
  int type1;
  int mesh_vertices;  // cloud points per mesh
  bool on_surface;    // every cloud point a hull vertex
  bool face_to_face;  // PairScene::RandomizeFaceToFace, else RandomizeResting
};

std::string PolytopePairName(const ::testing::TestParamInfo<PolytopePair>& param) {
  const PolytopePair& p = param.param;
  return std::string(tools::GeomTypeName(p.type1)) + "_mesh_" + std::to_string(p.mesh_vertices) +
         (p.on_surface ? "hull" : "v") + (p.face_to_face ? "_face_to_face" : "_resting");
}

// Mesh geom g's hull as a polytope: MuJoCo's hull graph (its vertices and triangles).
Polytope MeshPolytope(const mjModel* m, int g) {
  const int id = m->geom_dataid[g];
  const int* graph = m->mesh_graph + m->mesh_graphadr[id];
  const int numvert = graph[0], numface = graph[1];
  const int* globalid = graph + 2 + numvert;
  const int* faces = graph + 2 + 2 * numvert + numvert + 3 * numface;
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  std::vector<collision::Vec3> vertices;
  std::vector<int> local(m->mesh_vertnum[id], -1);
  for (int i = 0; i < numvert; ++i) {
    const float* v = vert + 3 * globalid[i];
    vertices.push_back({v[0], v[1], v[2]});
    local[globalid[i]] = i;
  }
  std::vector<int> triangles;
  for (int k = 0; k < 3 * numface; ++k)
    triangles.push_back(local[faces[k]]);
  return collision::reference::PolytopeFromTriangles(vertices, triangles);
}

// Per solver setting: penetrating poses, missed contacts, depths off by more than 1e-6 of the
// smaller size (the first few printed with a repro), the worst relative error.
struct DepthTally {
  long penetrating = 0, missed = 0, off = 0;
  double worst = 0;
};

class FastPolytopeAccuracyTest : public MujocoTest,
                                 public ::testing::WithParamInterface<PolytopePair> {};

TEST_P(FastPolytopeAccuracyTest, ExactDepthAndNoMissedContact) {
  const tools::PluginApi& api = LoadPlugin();
  const PolytopePair& p = GetParam();
  const int t1 = p.type1, t2 = mjGEOM_MESH;
  // Hulls of 2,000 vertices: the reference's edge pairs cost 0.1 s per pose.
  const int count = static_cast<int>(
      EnvCount("MJPORTAL_RESTING_CASES", p.on_surface && p.mesh_vertices >= 2000 ? 48 : 1024));
  std::string error;
  tools::PairScene scene =
      tools::PairScene::Create(t1, t2, count, {}, &error, p.mesh_vertices, p.on_surface);
  ASSERT_TRUE(scene.ok()) << error;
  if (p.face_to_face) {
    scene.RandomizeFaceToFace(20261205, api.originalCollision(t1, t2));
  } else {
    scene.RandomizeResting(20261205, api.originalCollision(t1, t2));
  }
  const mjModel* m = scene.model();
  const mjData* d = scene.data();

  // Per mesh: its polytope, built once; the plugin's support fields, hull shapes and the rest
  // (support_res 180).
  std::vector<Polytope> polytopes(m->nmesh);
  for (int g = 0; g < m->ngeom; ++g) {
    const int id = m->geom_dataid[g];
    if (m->geom_type[g] == mjGEOM_MESH && polytopes[id].vertices.empty())
      polytopes[id] = MeshPolytope(m, g);
  }
  const std::shared_ptr<const ModelSupportFields> fields = ModelSupportFields::Acquire(m, 180);

  const collision::CcdAlgorithm algorithms[2] = {collision::CcdAlgorithm::kAuto,
                                                 collision::CcdAlgorithm::kGjk};
  DepthTally tally[2];
  long too_deep = 0, checked_pruning = 0, mpr_runs = 0, seeded = 0;
  for (const tools::PairCase& c : scene.cases()) {
    // The geoms as the solvers see them, and as the reference sees them.
    collision::MeshView mesh_a, mesh_b;
    collision::ConvexGeom a = {
        static_cast<collision::ShapeType>(t1),
        {d->geom_xpos + 3 * c.geom1, d->geom_xmat + 9 * c.geom1, m->geom_size + 3 * c.geom1}};
    collision::ConvexGeom b = {
        collision::ShapeType::kMesh,
        {d->geom_xpos + 3 * c.geom2, d->geom_xmat + 9 * c.geom2, m->geom_size + 3 * c.geom2}};
    const Polytope box =
        t1 == mjGEOM_BOX ? collision::reference::BoxPolytope(a.view.size) : Polytope{};
    const Polytope& shape_a = t1 == mjGEOM_BOX ? box : polytopes[m->geom_dataid[c.geom1]];
    const auto placed_a = collision::reference::Place(shape_a, a.view.pos, a.view.mat);
    const auto placed_b =
        collision::reference::Place(polytopes[m->geom_dataid[c.geom2]], b.view.pos, b.view.mat);
    const double depth = collision::reference::PolytopeDepth(placed_a, placed_b);
    // The reference's own check on small hulls: the pruning loses no axis of an overlap (apart,
    // the largest gap along the axes is no distance, and pruning may lower it).
    if (depth > 0 && placed_a.vertices.size() <= 24 && placed_b.vertices.size() <= 24) {
      ASSERT_NEAR(depth, collision::reference::PolytopeDepth(placed_a, placed_b, true), 1e-12)
          << scene.Describe(c);
      ++checked_pruning;
    }
    // The smaller size: a box's least half-extent, a mesh's bounding radius.
    const double smaller =
        std::min(t1 == mjGEOM_BOX ? *std::min_element(a.view.size, a.view.size + 3)
                                  : m->geom_rbound[c.geom1],
                 m->geom_rbound[c.geom2]);

    // Fresh mesh views (InstanceState::FastMeshView's) and tight settings per solve, as the
    // plugin makes them per call.
    const auto fresh = [&](collision::CcdAlgorithm algorithm) {
      if (t1 == mjGEOM_MESH) {
        mesh_a = FastMeshViewOf(m, c.geom1, fields.get(), true);
        a.view.mesh = &mesh_a;
      }
      mesh_b = FastMeshViewOf(m, c.geom2, fields.get(), true);
      b.view.mesh = &mesh_b;
      collision::ConvexSettings settings;
      settings.tolerance = 1e-10;
      settings.max_iterations = 100;
      settings.algorithm = algorithm;
      return settings;
    };

    for (int k = 0; k < 2; ++k) {
      const collision::ConvexSettings settings = fresh(algorithms[k]);
      collision::ConvexHit hit;
      collision::ConvexCounters counters;
      const bool touching = collision::convex::Solve(a, b, settings, c.margin, &hit, &counters);
      if (k == 0) {
        mpr_runs += counters.mpr;
        seeded += counters.seeded;
      }
      if (!(depth > 1e-9))
        continue;
      DepthTally& t = tally[k];
      ++t.penetrating;
      if (!touching) {
        if (++t.missed <= 3)
          ADD_FAILURE() << "ccd " << k << ": missed contact, depth " << depth << "\n"
                        << scene.Describe(c);
        continue;
      }
      const double relative = std::fabs(-hit.dist - depth) / smaller;
      t.worst = std::max(t.worst, relative);
      if (!(relative <= 1e-6) && ++t.off <= 3) {
        ADD_FAILURE() << "ccd " << k << ": depth " << -hit.dist << " exact " << depth << " (error "
                      << relative << " x size)\n"
                      << scene.Describe(c);
      }
    }

    // The whole patch (ccd auto): no contact deeper than the overlap along its normal.
    const collision::ConvexSettings settings = fresh(collision::CcdAlgorithm::kAuto);
    collision::Contact contacts[4];
    collision::ConvexCounters counters;
    const int n = collision::CollideConvex(a, b, settings, c.margin, contacts, 4, &counters);
    for (int k = 0; k < n; ++k) {
      const double overlap = collision::OverlapAlong(a, b, contacts[k].normal);
      if (-contacts[k].dist > overlap + 1e-9 && ++too_deep <= 3) {
        ADD_FAILURE() << "contact " << k << " depth " << -contacts[k].dist
                      << " beyond the overlap along its normal " << overlap << "\n"
                      << scene.Describe(c);
      }
    }
  }
  for (int k = 0; k < 2; ++k) {
    const DepthTally& t = tally[k];
    EXPECT_GT(t.penetrating, count / 4);
    EXPECT_EQ(t.missed, 0) << "ccd " << k;
    EXPECT_EQ(t.off, 0) << "ccd " << k << ": " << t.off << " of " << t.penetrating
                        << " contacts beyond 1e-6 x the smaller size";
    std::printf("ccd %s: %ld penetrating, worst depth error %.3g x the smaller size\n",
                k == 0 ? "auto" : "gjk", t.penetrating, t.worst);
  }
  EXPECT_EQ(too_deep, 0);
  std::printf("reference's pruning checked on %ld poses\n", checked_pruning);
  // MPR's seeded start (collision/mpr_start.h) is the path these depths went through: its portal
  // as it stood (box–mesh 25–40% of the runs, mesh–mesh 60–95%), or discovery walking on from its
  // triangle.
  EXPECT_GT(seeded, mpr_runs / 8) << seeded << " of " << mpr_runs << " MPR runs seeded";
  std::printf("ccd auto: %ld of %ld MPR runs from the seeded portal\n", seeded, mpr_runs);
}

INSTANTIATE_TEST_SUITE_P(PolytopePairs, FastPolytopeAccuracyTest,
                         ::testing::Values(PolytopePair{mjGEOM_BOX, 200, false, false},
                                           PolytopePair{mjGEOM_BOX, 200, false, true},
                                           PolytopePair{mjGEOM_MESH, 20, false, false},
                                           PolytopePair{mjGEOM_MESH, 20, false, true},
                                           PolytopePair{mjGEOM_MESH, 200, false, false},
                                           PolytopePair{mjGEOM_MESH, 200, false, true},
                                           PolytopePair{mjGEOM_MESH, 2000, false, false},
                                           PolytopePair{mjGEOM_MESH, 200, true, false},
                                           PolytopePair{mjGEOM_MESH, 2000, true, false},
                                           PolytopePair{mjGEOM_MESH, 2000, true, true}),
                         PolytopePairName);

}  // namespace
}  // namespace mjportal::testing
