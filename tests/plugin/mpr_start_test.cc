// MPR's start on MuJoCo-compiled hulls (collision/mpr_start.h). MeshShape's inner radius is a ball
// about the mesh origin inside the hull that touches it: the hull's support function, by brute
// force over its vertices, is at least the radius along random directions and equals it along the
// normal of some hull triangle. PolytopeMprStart's interior point is strictly inside both geoms
// (each geom point inside its own box or below every hull triangle's plane) on bench-fast's
// resting poses of box–mesh and mesh–mesh pairs, and lies on the line along the normal guess
// where the inner balls leave room.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "collision/mpr_start.h"
#include "plugin/mesh_view.h"
#include "tests/fixture.h"
#include "tools/common/pair_scene.h"

namespace mjportal::testing {
namespace {

using collision::Vec3;

struct StartPair {
  int type1;
  int mesh_vertices;  // cloud points per mesh
  bool on_surface;    // every cloud point a hull vertex
};

std::string StartPairName(const ::testing::TestParamInfo<StartPair>& param) {
  return std::string(tools::GeomTypeName(param.param.type1)) + "_mesh_" +
         std::to_string(param.param.mesh_vertices) + (param.param.on_surface ? "hull" : "v");
}

// A hull triangle's outward unit normal and its plane's offset, in the mesh frame.
struct Plane {
  Vec3 normal;
  double offset;
};

// Mesh `id`'s hull triangles as planes (outward: the mesh origin is inside), from MuJoCo's graph.
std::vector<Plane> HullPlanes(const mjModel* m, int id) {
  const int* graph = m->mesh_graph + m->mesh_graphadr[id];
  const int numvert = graph[0], numface = graph[1];
  const int* faces = graph + 2 + 3 * numvert + 3 * numface;
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  const auto point = [&](int v) { return Vec3{vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]}; };
  std::vector<Plane> planes;
  for (int f = 0; f < numface; ++f) {
    const Vec3 p0 = point(faces[3 * f]);
    Vec3 n = collision::Cross(point(faces[3 * f + 1]) - p0, point(faces[3 * f + 2]) - p0);
    const double length = std::sqrt(collision::Dot(n, n));
    if (!(length > 0))
      continue;
    n = n * (1 / length);
    const double offset = collision::Dot(n, p0);
    planes.push_back(offset < 0 ? Plane{-n, -offset} : Plane{n, offset});
  }
  return planes;
}

// Brute-force support function of mesh `id` along unit d (its frame).
double Support(const mjModel* m, int id, const Vec3& d) {
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  double best = -INFINITY;
  for (int v = 0; v < m->mesh_vertnum[id]; ++v)
    best = std::max(best, d.x * vert[3 * v] + d.y * vert[3 * v + 1] + d.z * vert[3 * v + 2]);
  return best;
}

class MprStartTest : public MujocoTest, public ::testing::WithParamInterface<StartPair> {};

TEST_P(MprStartTest, InnerBallTouchesTheHullAndStartIsInsideBothGeoms) {
  const tools::PluginApi& api = LoadPlugin();
  const StartPair& p = GetParam();
  const int count = 512;
  std::string error;
  tools::PairScene scene = tools::PairScene::Create(p.type1, mjGEOM_MESH, count, {}, &error,
                                                    p.mesh_vertices, p.on_surface);
  ASSERT_TRUE(scene.ok()) << error;
  scene.RandomizeResting(20261206, api.originalCollision(p.type1, mjGEOM_MESH));
  const mjModel* m = scene.model();
  const mjData* d = scene.data();

  // Per mesh: its shape against brute force.
  std::vector<collision::MeshView> views(m->ngeom);
  std::vector<collision::HullShape> shapes(m->nmesh);
  std::vector<std::vector<Plane>> planes(m->nmesh);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> gauss;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] != mjGEOM_MESH)
      continue;
    const int id = m->geom_dataid[g];
    views[g] = MeshViewOf(m, g);
    views[g].shape = &shapes[id];
    if (!planes[id].empty())
      continue;
    shapes[id] = collision::MeshShape(views[g].vert, views[g].nvert, views[g].graph);
    planes[id] = HullPlanes(m, id);
    const double r = shapes[id].inner_radius, scale = views[g].rbound;
    ASSERT_GT(r, 0) << "mesh " << id;
    for (int k = 0; k < 2000; ++k) {
      Vec3 dir = {gauss(rng), gauss(rng), gauss(rng)};
      dir = dir * (1 / std::sqrt(collision::Dot(dir, dir)));
      ASSERT_GE(Support(m, id, dir), r - 1e-12 * scale)
          << "mesh " << id << " direction " << dir.x << " " << dir.y << " " << dir.z;
    }
    double touching = INFINITY;
    for (const Plane& plane : planes[id])
      touching = std::min(touching, Support(m, id, plane.normal));
    EXPECT_NEAR(touching, r, 1e-9 * scale) << "mesh " << id;
  }

  // Per pose: the start's geom points strictly inside their geoms.
  const auto inside = [&](int g, const Vec3& point) {
    const Vec3 local =
        collision::RotateT(d->geom_xmat + 9 * g, point - collision::Load3(d->geom_xpos + 3 * g));
    if (m->geom_type[g] == mjGEOM_BOX) {
      const double* e = m->geom_size + 3 * g;
      return std::fabs(local.x) < e[0] && std::fabs(local.y) < e[1] && std::fabs(local.z) < e[2];
    }
    for (const Plane& plane : planes[m->geom_dataid[g]]) {
      if (!(collision::Dot(plane.normal, local) < plane.offset))
        return false;
    }
    return true;
  };
  int on_line = 0;
  for (const tools::PairCase& c : scene.cases()) {
    collision::ConvexGeom a = {
        static_cast<collision::ShapeType>(p.type1),
        {d->geom_xpos + 3 * c.geom1, d->geom_xmat + 9 * c.geom1, m->geom_size + 3 * c.geom1}};
    collision::ConvexGeom b = {
        collision::ShapeType::kMesh,
        {d->geom_xpos + 3 * c.geom2, d->geom_xmat + 9 * c.geom2, m->geom_size + 3 * c.geom2}};
    if (p.type1 == mjGEOM_MESH)
      a.view.mesh = &views[c.geom1];
    b.view.mesh = &views[c.geom2];
    collision::MprStart start;
    ASSERT_TRUE(collision::PolytopeMprStart(a, b, &start)) << scene.Describe(c);
    ASSERT_TRUE(inside(c.geom1, start.v0.a)) << scene.Describe(c);
    ASSERT_TRUE(inside(c.geom2, start.v0.b)) << scene.Describe(c);
    const Vec3 across = collision::Cross(start.v0.v, start.normal);
    on_line += std::sqrt(collision::Dot(across, across)) <
               1e-12 * std::sqrt(collision::Dot(start.v0.v, start.v0.v));
  }
  std::printf("%d of %d starts on the normal guess's line\n", on_line, count);
  EXPECT_GT(on_line, 0);
}

INSTANTIATE_TEST_SUITE_P(PolytopePairs, MprStartTest,
                         ::testing::Values(StartPair{mjGEOM_BOX, 200, false},
                                           StartPair{mjGEOM_MESH, 20, false},
                                           StartPair{mjGEOM_MESH, 200, true},
                                           StartPair{mjGEOM_MESH, 2000, true}),
                         StartPairName);

}  // namespace
}  // namespace mjportal::testing
