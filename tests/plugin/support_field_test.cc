// Support fields on MuJoCo-compiled meshes (hull graphs from MuJoCo's compiler): with refinement
// the answer is the brute-force extreme vertex exactly; without, it is within the grid's angular
// resolution; a patch certified whole has its entry as the unique brute-force maximum over the
// patch's corners, edges and interior. Meshes: the 8-, 40- and 120-vertex hulls of
// models/mesh_pile.xml, and MuJoCo hulls of 200 and 2,000 random points on an ellipsoid.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "collision/support.h"
#include "collision/support_field.h"
#include "plugin/mesh_view.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/cloud_mesh.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

using collision::DotVertex;
using collision::MeshView;
using collision::Vec3;

class SupportFieldTest : public MujocoTest, public ::testing::WithParamInterface<int> {};

TEST_P(SupportFieldTest, RefinedIsExactUnrefinedWithinGridResolution) {
  const int res = GetParam();
  std::string error;
  tools::ModelPtr m = tools::LoadStock(ModelsDir() + "/mesh_pile.xml", &error);
  ASSERT_TRUE(m) << error;
  std::mt19937_64 rng(99);
  std::normal_distribution<double> gauss;
  int meshes = 0;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] != mjGEOM_MESH)
      continue;
    ++meshes;
    const MeshView mesh = MeshViewOf(m.get(), g);
    std::vector<int32_t> entries(res * res);
    collision::BuildSupportField(mesh, res, entries.data());
    const collision::SupportFieldView field = {res, entries.data()};

    // Angular cell size bounds how far the unrefined vertex can fall short along d (unit).
    const double cell = 2 * collision::support_field::kPi / res;
    const double slack = 2 * mesh.rbound * (1 - std::cos(2 * cell)) + 2 * mesh.rbound * 2 * cell;
    for (int c = 0; c < 2000; ++c) {
      Vec3 d = {gauss(rng), gauss(rng), gauss(rng)};
      if (c % 50 == 0)
        d = {0, 0, c % 100 ? 1.0 : -1.0};  // the poles
      collision::Normalize(d);
      double best = -1e300;
      for (int i = 0; i < mesh.nvert; ++i)
        best = std::max(best, DotVertex(d, mesh.vert, i));
      int ties = 0;
      const int exact = collision::QuerySupportField(field, mesh, d, true, &ties);
      ASSERT_EQ(DotVertex(d, mesh.vert, exact), best) << "res " << res << " case " << c;
      ASSERT_GE(ties, 1);
      const int rough = collision::QuerySupportField(field, mesh, d, false, &ties);
      ASSERT_GE(DotVertex(d, mesh.vert, rough), best - slack) << "res " << res << " case " << c;
    }
  }
  EXPECT_GE(meshes, 3);
}

// The mesh geoms the certification test covers: mesh_pile's and two random clouds.
std::vector<tools::ModelPtr> CertificationModels() {
  std::vector<tools::ModelPtr> models;
  std::string error;
  models.push_back(tools::LoadStock(ModelsDir() + "/mesh_pile.xml", &error));
  EXPECT_TRUE(models.back()) << error;
  for (int points : {200, 2000}) {
    models.push_back(tools::CloudMeshModel(points, &error));
    EXPECT_TRUE(models.back()) << error;
  }
  return models;
}

// Unit direction at longitude θ, colatitude φ (the grid's convention).
Vec3 Direction(double theta, double phi) {
  return {std::sin(phi) * std::cos(theta), std::sin(phi) * std::sin(theta), std::cos(phi)};
}

// For sampled patches flagged whole: along directions at the patch's corners and edge midpoints
// (pushed outward by half the certification slack) and at random interior points, the entry's
// vertex beats every vertex at another position strictly, by brute force; a query located in the
// patch answers that vertex with one tie, refined or not. The share of whole patches at res 180
// is checked too (the shortcut must matter, not just be right).
TEST_P(SupportFieldTest, WholePatchEntryIsTheUniqueMaximumThroughoutThePatch) {
  const int res = GetParam();
  const double pi = collision::support_field::kPi;
  const double out = collision::support_field::kPatchSlack / 2;
  const long patches_per_mesh = EnvCount("MJPORTAL_PATCH_SAMPLES", 1500);
  std::mt19937_64 rng(res);
  std::uniform_real_distribution<double> unit(0, 1);
  int meshes = 0;
  for (const tools::ModelPtr& m : CertificationModels()) {
    ASSERT_TRUE(m);
    for (int g = 0; g < m->ngeom; ++g) {
      if (m->geom_type[g] != mjGEOM_MESH)
        continue;
      ++meshes;
      const MeshView mesh = MeshViewOf(m.get(), g);
      ASSERT_NE(mesh.graph, nullptr);
      std::vector<int32_t> entries(res * res);
      collision::BuildSupportField(mesh, res, entries.data());
      const collision::SupportFieldView field = {res, entries.data()};
      long whole = 0;
      for (int32_t e : entries)
        whole += (e & collision::support_field::kWholePatch) != 0;
      if (res == 180 && mesh.graph[0] <= 200) {
        EXPECT_GT(whole, entries.size() / 2) << "geom " << g << " hull " << mesh.graph[0];
      }

      std::vector<int> patches(res * res);
      for (int p = 0; p < res * res; ++p)
        patches[p] = p;
      std::shuffle(patches.begin(), patches.end(), rng);
      patches.resize(std::min<long>(patches.size(), patches_per_mesh));
      for (int p : patches) {
        const int entry = entries[p];
        if (!(entry & collision::support_field::kWholePatch))
          continue;
        const int i = p / res, j = p % res;
        const int vertex =
            collision::support_field::VertexOf(mesh, entry & collision::support_field::kEntryMask);
        const double t0 = 2 * pi * i / res - pi - out, t1 = t0 + 2 * pi / res + 2 * out;
        const double p0 = pi * j / res - out, p1 = p0 + pi / res + 2 * out;
        std::vector<Vec3> dirs;
        for (double a : {0.0, 0.5, 1.0}) {
          for (double b : {0.0, 0.5, 1.0})
            dirs.push_back(Direction(t0 + a * (t1 - t0), p0 + b * (p1 - p0)));
        }
        for (int k = 0; k < 4; ++k)
          dirs.push_back(Direction(t0 + unit(rng) * (t1 - t0), p0 + unit(rng) * (p1 - p0)));
        for (size_t k = 0; k < dirs.size(); ++k) {
          const Vec3& d = dirs[k];
          const float* pv = mesh.vert + 3 * vertex;
          const double top = DotVertex(d, mesh.vert, vertex);
          for (int w = 0; w < mesh.nvert; ++w) {
            const float* pw = mesh.vert + 3 * w;
            if (pw[0] == pv[0] && pw[1] == pv[1] && pw[2] == pv[2])
              continue;
            ASSERT_LT(DotVertex(d, mesh.vert, w), top)
                << "res " << res << " geom " << g << " patch " << i << "," << j << " sample " << k
                << " rival " << w << std::setprecision(17) << " d " << d.x << " " << d.y << " "
                << d.z;
          }
          // Samples strictly inside locate this patch: the shortcut answers them.
          if (k == 4 || k >= 9) {
            const collision::FieldCell cell = collision::LocateFieldCell(res, d);
            if (cell.is[0] != i || cell.js[0] != j)
              continue;
            for (bool refine : {true, false}) {
              int ties = 0;
              EXPECT_EQ(collision::QuerySupportField(field, mesh, d, refine, &ties), vertex);
              EXPECT_EQ(ties, 1);
            }
          }
        }
      }
    }
  }
  EXPECT_GE(meshes, 5);
}

// The cell of a direction: each cell's centre direction locates that cell and its neighbours
// (θ wraps around, φ clamps at the pole); θ = ±π (the −x axis, y = ±0) lands in column 0 and the
// poles in the first and last rows.
TEST(LocateFieldCell, CentresLocateTheirCellThetaWrapsPolesClamp) {
  for (int res : {8, 32, 180}) {
    for (int i = 0; i < res; ++i) {
      for (int j = 0; j < res; ++j) {
        const double theta =
            2 * collision::support_field::kPi * (i + 0.5) / res - collision::support_field::kPi;
        const double phi = collision::support_field::kPi * (j + 0.5) / res;
        const Vec3 d = {std::sin(phi) * std::cos(theta), std::sin(phi) * std::sin(theta),
                        std::cos(phi)};
        const collision::FieldCell cell = collision::LocateFieldCell(res, d);
        ASSERT_EQ(cell.is[0], i) << "res " << res << " j " << j;
        ASSERT_EQ(cell.is[1], (i + 1) % res) << "res " << res << " j " << j;
        ASSERT_EQ(cell.js[0], j) << "res " << res << " i " << i;
        ASSERT_EQ(cell.js[1], std::min(j + 1, res - 1)) << "res " << res << " i " << i;
      }
    }
    for (double y : {0.0, -0.0}) {
      const collision::FieldCell cell = collision::LocateFieldCell(res, {-1, y, 0});
      EXPECT_EQ(cell.is[0], 0) << "res " << res << " y " << y;
      EXPECT_EQ(cell.is[1], 1) << "res " << res << " y " << y;
    }
    const collision::FieldCell north = collision::LocateFieldCell(res, {0, 0, 2});
    EXPECT_EQ(north.js[0], 0);
    EXPECT_EQ(north.js[1], 1);
    const collision::FieldCell south = collision::LocateFieldCell(res, {0, 0, -2});
    EXPECT_EQ(south.js[0], res - 1);
    EXPECT_EQ(south.js[1], res - 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Resolutions, SupportFieldTest, ::testing::Values(8, 32, 180));

// Fast mode's climbs read a widened hull-local copy of the vertices (the layout of
// ModelSupportFields::hull: x, y, z per hull-local id): from any start vertex and random
// directions, the same answer as the climb on MuJoCo's float vertices through the graph's id map.
TEST_F(MujocoTest, WidenedHullClimbsIdentically) {
  std::string error;
  tools::ModelPtr m = tools::LoadStock(ModelsDir() + "/mesh_pile.xml", &error);
  ASSERT_TRUE(m) << error;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> gauss;
  int meshes = 0;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] != mjGEOM_MESH || m->mesh_graphadr[m->geom_dataid[g]] < 0)
      continue;
    ++meshes;
    const MeshView plain = MeshViewOf(m.get(), g);
    const int numvert = plain.graph[0];
    std::vector<double> hull;
    for (int i = 0; i < numvert; ++i) {
      for (int k = 0; k < 3; ++k)
        hull.push_back(plain.vert[3 * plain.graph[2 + numvert + i] + k]);
    }
    MeshView widened = plain;
    widened.hull_vert = hull.data();
    for (int c = 0; c < 4000; ++c) {
      const Vec3 d = {gauss(rng), gauss(rng), gauss(rng)};
      const int start = c % numvert;
      ASSERT_EQ(collision::support_field::Climb(widened, d, start),
                collision::support_field::Climb(plain, d, start))
          << "geom " << g << " case " << c << " d " << d.x << " " << d.y << " " << d.z;
    }
  }
  EXPECT_GE(meshes, 3);
}

// A box-shaped convex mesh (half sizes 0.1, 0.2, 0.3), compiled by MuJoCo.
tools::ModelPtr BoxMeshModel(std::string* error) {
  std::string xml = "<mujoco><asset><mesh name=\"box\" vertex=\"";
  for (int k = 0; k < 8; ++k) {
    xml += std::to_string(k & 1 ? 0.1 : -0.1) + " " + std::to_string(k & 2 ? 0.2 : -0.2) + " " +
           std::to_string(k & 4 ? 0.3 : -0.3) + " ";
  }
  xml += "\"/></asset><worldbody><geom type=\"mesh\" mesh=\"box\"/></worldbody></mujoco>";
  char message[512] = "";
  mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, message, sizeof(message));
  mjModel* m = spec != nullptr ? mj_compile(spec, nullptr) : nullptr;
  if (m == nullptr)
    *error = spec != nullptr ? mjs_getError(spec) : message;
  if (spec != nullptr)
    mj_deleteSpec(spec);
  return tools::ModelPtr(m);
}

// Without refinement, queries along a box's face, edge and corner directions find distinct
// vertices tied for the maximum among their four cells. The answer is the first of the four
// cells' vertices in the tie-break order (d·v, then (3, 5, 7)·v, then (7, -3, 2)·v), a maximum of
// d·v over the whole hull, and SupportPoint answers that vertex; untied queries answer as
// QuerySupportField. Fails when ties keep the cells' first maximum.
TEST_F(MujocoTest, UnrefinedTiesResolveInTheTieBreakOrder) {
  std::string error;
  tools::ModelPtr m = BoxMeshModel(&error);
  ASSERT_TRUE(m) << error;
  MeshView mesh = MeshViewOf(m.get(), 0);
  ASSERT_NE(mesh.graph, nullptr);
  auto order = [&](const Vec3& d, int entry) {
    const int v = collision::support_field::VertexOf(mesh, entry);
    return std::make_tuple(DotVertex(d, mesh.vert, v), DotVertex({3, 5, 7}, mesh.vert, v),
                           DotVertex({7, -3, 2}, mesh.vert, v));
  };
  for (int res : {32, 180}) {
    std::vector<int32_t> entries(res * res);
    collision::BuildSupportField(mesh, res, entries.data());
    const collision::SupportFieldView field = {res, entries.data()};
    MeshView unrefined = mesh;
    unrefined.field = entries.data();
    unrefined.field_res = res;
    unrefined.field_refine = false;
    int tied = 0, reordered = 0;
    for (int i = -1; i <= 1; ++i) {
      for (int j = -1; j <= 1; ++j) {
        for (int k = -1; k <= 1; ++k) {
          if (i == 0 && j == 0 && k == 0)
            continue;
          Vec3 d = {static_cast<double>(i), static_cast<double>(j), static_cast<double>(k)};
          collision::Normalize(d);
          int ties = 0, first_entry = -1, entry = -1;
          const int first =
              collision::QuerySupportField(field, mesh, d, false, &ties, &first_entry);
          const int untied = collision::UntiedFieldVertex(field, mesh, d, &entry);
          const std::string where = "res " + std::to_string(res) + " d (" + std::to_string(i) +
                                    ", " + std::to_string(j) + ", " + std::to_string(k) + ")";
          if (ties <= 1) {
            EXPECT_EQ(untied, first) << where;
            continue;
          }
          ++tied;
          const collision::FieldCell cell = collision::LocateFieldCell(res, d);
          int expected = -1;
          for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 2; ++b) {
              const int e =
                  entries[cell.is[a] * res + cell.js[b]] & collision::support_field::kEntryMask;
              if (expected < 0 || order(d, e) > order(d, expected))
                expected = e;
            }
          }
          EXPECT_EQ(entry, expected) << where;
          double best = -1e300;
          for (int v = 0; v < mesh.nvert; ++v)
            best = std::max(best, DotVertex(d, mesh.vert, v));
          EXPECT_EQ(DotVertex(d, mesh.vert, untied), best) << where;
          const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, origin[3] = {0, 0, 0};
          const collision::GeomView geom = {origin, identity, m->geom_size, &unrefined};
          const Vec3 s = collision::SupportPoint(collision::ShapeType::kMesh, geom, d);
          const Vec3 expected_point = collision::MeshPoint(mesh.vert, untied);
          EXPECT_TRUE(s.x == expected_point.x && s.y == expected_point.y && s.z == expected_point.z)
              << where;
          reordered += entry != first_entry;
        }
      }
    }
    EXPECT_GE(tied, 6) << "res " << res << ": the face directions must tie";
    EXPECT_GT(reordered, 0) << "res " << res << ": no tie changed the answer";
  }
}

}  // namespace
}  // namespace mjportal::testing
