// The clipped patch's mesh feature walk (collision/contact_manifold.h, manifold::MeshFeature) on
// MuJoCo-compiled hulls: it returns exactly the hull vertices within `band` of the supporting
// plane, by brute force over the hull, and at most kMaxFeaturePoints of them (kFineFeaturePoints
// on hulls of more than kFineHull vertices; all within band) when more qualify. The hulls cover
// each of the walk's two forms: the plain walk (mesh_pile's 8-
// and 40-vertex hulls, and a 5,000-vertex cloud hull, above the bit set's size) and the
// branch-free walk with a bit set of visited ids (mesh_pile's 120, 200- and 2,000-vertex cloud
// hulls).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "collision/contact_manifold.h"
#include "collision/plane_convex.h"
#include "plugin/face_table.h"
#include "plugin/mesh_view.h"
#include "tests/can_mesh.h"
#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/cloud_mesh.h"
#include "tools/common/model_variants.h"

namespace mjportal::testing {
namespace {

using collision::DotVertex;
using collision::MeshView;
using collision::Vec3;

using Point = std::array<double, 3>;

TEST(MeshFeatureWalk, FindsExactlyTheHullVerticesWithinBand) {
  std::string error;
  std::vector<tools::ModelPtr> models;
  models.push_back(tools::LoadStock(ModelsDir() + "/mesh_pile.xml", &error));
  ASSERT_TRUE(models.back()) << error;
  for (int points : {200, 2000, 5000}) {
    models.push_back(tools::CloudMeshModel(points, &error));
    ASSERT_TRUE(models.back()) << error;
  }
  const long cases = EnvCount("MJPORTAL_FEATURE_CASES", 2000);
  std::mt19937_64 rng(2026);
  std::normal_distribution<double> gauss;
  std::uniform_real_distribution<double> unit(0, 1);
  bool plain_small = false, branch_free = false, plain_large = false;
  for (const tools::ModelPtr& m : models) {
    for (int g = 0; g < m->ngeom; ++g) {
      if (m->geom_type[g] != mjGEOM_MESH)
        continue;
      const MeshView mesh = MeshViewOf(m.get(), g);
      ASSERT_NE(mesh.graph, nullptr);
      const int hull = mesh.graph[0];
      const int* globalid = mesh.graph + 2 + hull;
      plain_small |= hull < collision::kBranchFreeWalk;
      branch_free |= hull >= collision::kBranchFreeWalk && hull <= collision::kVisitedBits;
      plain_large |= hull > collision::kVisitedBits;
      for (long c = 0; c < cases; ++c) {
        Vec3 d = {gauss(rng), gauss(rng), gauss(rng)};
        collision::Normalize(d);
        // Bands from a hair to a tenth of the mesh's reach (log-uniform).
        const double band = mesh.rbound * std::pow(10.0, -4 + 3 * unit(rng));
        // Brute force over the hull, with the walk's own comparison.
        double top = -1e300;
        for (int k = 0; k < hull; ++k)
          top = std::max(top, DotVertex(d, mesh.vert, globalid[k]));
        std::vector<Point> expected;
        for (int k = 0; k < hull; ++k) {
          if (DotVertex(d, mesh.vert, globalid[k]) >= top - band) {
            const Vec3 p = collision::MeshPoint(mesh.vert, globalid[k]);
            expected.push_back({p.x, p.y, p.z});
          }
        }
        collision::RawPoints raw;
        collision::manifold::MeshFeature(mesh, d, band, &raw);
        ASSERT_TRUE(raw.local);
        std::vector<Point> found;
        for (int i = 0; i < raw.count; ++i)
          found.push_back({raw.p[i].x, raw.p[i].y, raw.p[i].z});
        std::sort(expected.begin(), expected.end());
        std::sort(found.begin(), found.end());
        char repro[200];
        std::snprintf(repro, sizeof(repro), "hull %d case %ld d %.17g %.17g %.17g band %.17g", hull,
                      c, d.x, d.y, d.z, band);
        ASSERT_EQ(std::adjacent_find(found.begin(), found.end()), found.end()) << repro;
        // The walk's cap: kMaxFeaturePoints, or kFineFeaturePoints on fine hulls of small faces.
        const size_t cap = hull > collision::kFineHull ? collision::kFineFeaturePoints
                                                       : collision::kMaxFeaturePoints;
        if (expected.size() <= cap) {
          ASSERT_EQ(found, expected) << repro;
        } else {
          ASSERT_EQ(found.size(), cap) << repro;
          for (const Point& p : found)
            ASSERT_TRUE(std::binary_search(expected.begin(), expected.end(), p)) << repro;
        }
      }
    }
  }
  EXPECT_TRUE(plain_small && branch_free && plain_large);
}

// mesh_cans.xml's can (mesh 0): the first geom using it, its largest polygon's vertex count and
// that polygon's normal in the mesh frame (MuJoCo turns meshes to their principal axes, so a
// cap's normal is not z).
struct CanCap {
  tools::ModelPtr model;
  int geom = -1;
  int largest = 0;
  Vec3 normal = {0, 0, 0};
};

// The can of model m (mesh 0) as CanCap.
CanCap CanCapOf(tools::ModelPtr model) {
  CanCap can;
  can.model = std::move(model);
  const mjModel* m = can.model.get();
  for (int g = 0; g < m->ngeom && can.geom < 0; ++g) {
    if (m->geom_type[g] == mjGEOM_MESH && m->geom_dataid[g] == 0)
      can.geom = g;
  }
  for (int k = 0; k < m->mesh_polynum[0]; ++k) {
    const int poly = m->mesh_polyadr[0] + k;
    if (m->mesh_polyvertnum[poly] > can.largest) {
      can.largest = m->mesh_polyvertnum[poly];
      const mjtNum* normal = m->mesh_polynormal + 3 * poly;
      can.normal = {normal[0], normal[1], normal[2]};
    }
  }
  return can;
}

CanCap LoadCanCap() {
  std::string error;
  tools::ModelPtr model = tools::LoadStock(ModelsDir() + "/mesh_cans.xml", &error);
  EXPECT_TRUE(model) << error;
  return model ? CanCapOf(std::move(model)) : CanCap{};
}

// A can of `sides` sides (radius 0.05, height 0.04) alone in a model.
CanCap SidedCan(int sides) {
  const std::string xml = "<mujoco><asset><mesh name=\"can\" vertex=\"" + CanVertices(sides) +
                          "\"/></asset><worldbody><geom type=\"mesh\" mesh=\"can\"/></worldbody>"
                          "</mujoco>";
  char message[512] = "";
  mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, message, sizeof(message));
  tools::ModelPtr model(spec != nullptr ? mj_compile(spec, nullptr) : nullptr);
  EXPECT_TRUE(model) << (spec != nullptr ? mjs_getError(spec) : message);
  if (spec != nullptr)
    mj_deleteSpec(spec);
  return model ? CanCapOf(std::move(model)) : CanCap{};
}

// A face of more vertices than a feature holds (caps of 32 to 200 sides): the feature is the
// face's extreme points along kMaxFeaturePoints directions spread evenly in the plane ⊥ d, so it
// spans the whole face, whichever vertex the walk starts from. Gathered both ways the plugin
// gathers it: read from the mesh's face table (climbing the boundary from one direction's
// extreme to the next), and (mesh_cans' 32-gon) walked whole, as without a table when
// MeshView::feature_walk is the largest polygon. Checked by brute force over the face's vertices
// along directions about 1e-3 rad off the cap normals.
void ExpectSpreadExtremes(const CanCap& can, bool table, long cases, unsigned seed) {
  ASSERT_TRUE(can.model);
  ASSERT_GE(can.geom, 0);
  MeshView mesh = MeshViewOf(can.model.get(), can.geom);
  ASSERT_NE(mesh.graph, nullptr);
  mesh.feature_walk = can.largest;
  const std::vector<std::int32_t> faces = BuildFaceTable(can.model.get(), 0);
  ASSERT_FALSE(faces.empty());
  if (table)
    mesh.faces = faces.data();
  const Vec3 cap = can.normal;
  const int hull = mesh.graph[0];
  const int* globalid = mesh.graph + 2 + hull;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss;
  for (long c = 0; c < cases; ++c) {
    // A cap normal (either cap) tilted by about 1e-3 rad; the band covers the cap only.
    Vec3 d =
        cap * (c % 2 ? 1.0 : -1.0) + Vec3{1e-3 * gauss(rng), 1e-3 * gauss(rng), 1e-3 * gauss(rng)};
    collision::Normalize(d);
    const double band = 1e-2 * mesh.rbound;
    mesh.hint = static_cast<int>(c % hull);  // the walk starts wherever the last query ended
    double top = -1e300;
    for (int k = 0; k < hull; ++k)
      top = std::max(top, DotVertex(d, mesh.vert, globalid[k]));
    std::vector<Vec3> face;
    for (int k = 0; k < hull; ++k) {
      if (DotVertex(d, mesh.vert, globalid[k]) >= top - band)
        face.push_back(collision::MeshPoint(mesh.vert, globalid[k]));
    }
    ASSERT_EQ(static_cast<int>(face.size()), can.largest);
    collision::RawPoints raw;
    collision::manifold::MeshFeature(mesh, d, band, &raw);
    char repro[200];
    std::snprintf(repro, sizeof(repro), "%d sides, table %d, case %ld d %.17g %.17g %.17g",
                  can.largest, table, c, d.x, d.y, d.z);
    ASSERT_GE(raw.count, 8) << repro;
    ASSERT_LE(raw.count, collision::kMaxFeaturePoints) << repro;
    Vec3 t1, t2;
    collision::TangentFrame(d, &t1, &t2);
    for (int k = 0; k < collision::kMaxFeaturePoints; ++k) {
      const double angle = 2 * collision::support_field::kPi * k / collision::kMaxFeaturePoints;
      const Vec3 w = t1 * std::cos(angle) + t2 * std::sin(angle);
      double face_max = -1e300, found_max = -1e300;
      for (const Vec3& p : face)
        face_max = std::max(face_max, collision::Dot(w, p));
      for (int i = 0; i < raw.count; ++i) {
        ASSERT_GE(collision::Dot(d, raw.p[i]), top - band) << repro;
        found_max = std::max(found_max, collision::Dot(w, raw.p[i]));
      }
      ASSERT_NEAR(found_max, face_max, 1e-12 * mesh.rbound) << repro << " direction " << k;
    }
  }
}

TEST(MeshFeatureWalk, LargeFaceGivesItsExtremesAlongSpreadDirections) {
  const long cases = EnvCount("MJPORTAL_FEATURE_CASES", 2000);
  const CanCap can = LoadCanCap();
  ASSERT_EQ(can.largest, 32);
  ExpectSpreadExtremes(can, false, cases, 2027);
  ExpectSpreadExtremes(can, true, cases, 2027);
  for (const int sides : {64, 100, 200}) {
    const CanCap sided = SidedCan(sides);
    ASSERT_EQ(sided.largest, sides);
    ExpectSpreadExtremes(sided, true, cases / 4, 2029 + sides);
  }
}

// The floor the plane–mesh tests stand caps on: the plane z = 0.
struct Floor {
  double pos[3] = {0, 0, 0}, mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, size[3] = {1, 1, 0.1};
  collision::GeomView view() const { return {pos, mat, size}; }
};

// Rotation (row-major) that turns local direction `cap` to -z, then yaws by `yaw` about z, then
// tilts by `angle` about the horizontal unit axis (axis_x, axis_y, 0).
void CapDownPose(const Vec3& cap, double yaw, const mjtNum axis[3], double angle, double mat[9]) {
  const mjtNum normal[3] = {cap.x, cap.y, cap.z}, z[3] = {0, 0, 1};
  mjtNum to_cap[4], flip[4] = {0, 1, 0, 0}, turn[4], tilt[4], q[4], t[4];
  mju_quatZ2Vec(to_cap, normal);
  mju_negQuat(to_cap, to_cap);
  mju_axisAngle2Quat(turn, z, yaw);
  mju_axisAngle2Quat(tilt, axis, angle);
  mju_mulQuat(t, flip, to_cap);
  mju_mulQuat(q, turn, t);
  mju_mulQuat(t, tilt, q);
  mju_quat2Mat(mat, t);
}

// Fast plane–mesh on a face of more vertices than a feature holds (mesh_cans' 32-gon cap standing
// on the plane at random yaws, 1e-4 deep, tilted by about 1e-6 rad): three contacts on the cap's
// rim spanning a triangle that holds the cap's centre, at least 0.8 of the inscribed equilateral
// triangle's area; the same three after a shift of 1e-12 along the normal (the depths' rounding
// does not choose them). Both ways fast mode builds it: from the walk over the cap (MeshFacePatch)
// and from the face table's largest triangle (MeshFaceTriangle). With the walk left at 16 and no
// table, as compat's view has it: MuJoCo's answer,
// fewer than three contacts on most of these poses (the first contact's neighbours lie within
// 0.3 × rbound of it).
TEST(PlaneMeshPatch, ManySidedCapStandsOnThreeSpreadContacts) {
  const CanCap can = LoadCanCap();
  ASSERT_TRUE(can.model);
  ASSERT_GE(can.geom, 0);
  const mjModel* m = can.model.get();
  const int g = can.geom;
  MeshView mesh = MeshViewOf(m, g);
  const int largest = can.largest;
  ASSERT_EQ(largest, 32);
  const std::vector<std::int32_t> faces = BuildFaceTable(m, 0);
  ASSERT_FALSE(faces.empty());
  const Floor floor;
  const collision::GeomView plane = floor.view();
  std::mt19937_64 rng(2028);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> gauss;
  const long cases = EnvCount("MJPORTAL_FEATURE_CASES", 2000) / 4;
  long fewer = 0;  // poses where MuJoCo's answer has fewer than three contacts
  for (long c = 0; c < cases; ++c) {
    // Turn the cap's normal to -z, then a random yaw and a tilt of about 1e-6 rad.
    const double yaw = 2 * mjPI * unit(rng);
    mjtNum axis[3] = {gauss(rng), gauss(rng), 0};
    const double angle = 1e-6 * mju_normalize3(axis);
    double mat[9];
    CapDownPose(can.normal, yaw, axis, angle, mat);
    double lowest = 1e300, radius = 0;
    for (int v = 0; v < mesh.nvert; ++v) {
      const Vec3 p = collision::Rotate(mat, collision::MeshPoint(mesh.vert, v));
      lowest = std::min(lowest, p.z);
      radius = std::max(radius, std::hypot(p.x, p.y));
    }
    double pos[3] = {0.1 * gauss(rng), 0.1 * gauss(rng), -lowest - 1e-4};
    collision::GeomView standing = {pos, mat, m->geom_size + 3 * g, &mesh};
    char repro[320];
    std::snprintf(repro, sizeof(repro), "case %ld yaw %.17g axis %.17g %.17g angle %.17g", c, yaw,
                  axis[0], axis[1], angle);
    mesh.feature_walk = 16;
    mesh.faces = nullptr;
    collision::Contact mujoco[3];
    fewer += collision::CollidePlaneMesh(plane, standing, 0.0, mujoco) < 3;
    // The patch from the walk over the cap, then from the face table's triangle.
    mesh.feature_walk = largest;
    for (const bool table : {false, true}) {
      mesh.faces = table ? faces.data() : nullptr;
      const double height = pos[2];
      collision::Contact out[3], shifted[3];
      ASSERT_EQ(collision::CollidePlaneMesh(plane, standing, 0.0, out), 3) << repro;
      pos[2] += 1e-12;
      ASSERT_EQ(collision::CollidePlaneMesh(plane, standing, 0.0, shifted), 3) << repro;
      pos[2] = height;
      double cross[3];
      for (int i = 0; i < 3; ++i) {
        const double du = out[i].pos.x - pos[0], dv = out[i].pos.y - pos[1];
        EXPECT_GT(std::hypot(du, dv), 0.99 * radius) << repro << " table " << table;
        EXPECT_LT(out[i].dist, 0) << repro << " table " << table;
        EXPECT_NEAR(out[i].pos.x, shifted[i].pos.x, 1e-12) << repro << " table " << table;
        EXPECT_NEAR(out[i].pos.y, shifted[i].pos.y, 1e-12) << repro << " table " << table;
        const collision::Contact &a = out[i], &b = out[(i + 1) % 3];
        cross[i] =
            (b.pos.x - a.pos.x) * (pos[1] - a.pos.y) - (b.pos.y - a.pos.y) * (pos[0] - a.pos.x);
      }
      EXPECT_TRUE((cross[0] > 0 && cross[1] > 0 && cross[2] > 0) ||
                  (cross[0] < 0 && cross[1] < 0 && cross[2] < 0))
          << repro << " table " << table << ": the centre lies outside the contact triangle";
      const double area =
          0.5 * std::fabs((out[1].pos.x - out[0].pos.x) * (out[2].pos.y - out[0].pos.y) -
                          (out[1].pos.y - out[0].pos.y) * (out[2].pos.x - out[0].pos.x));
      EXPECT_GT(area, 0.8 * 3 * std::sqrt(3.0) / 4 * radius * radius)
          << repro << " table " << table;
    }
  }
  std::printf("MuJoCo's answer: fewer than three contacts on %ld of %ld poses\n", fewer, cases);
  EXPECT_GT(2 * fewer, cases);
}

// The same cap tilted by 1e-5 to 1e-1 rad, its lowest vertex up to 1e-2 rbound deep (the band
// then reaches well up the tilted rim): whichever way fast
// mode builds the patch, its deepest contact is the deepest hull vertex's exact depth once the
// cap is tilted clearly (5e-2 rad and more: no flat patch, the depth decides first); nearly flat,
// where the patch's points are chosen by position, within manifold::kFlatPatch of the cap's
// diameter of it.
TEST(PlaneMeshPatch, TiltedCapKeepsItsDeepestPoint) {
  const CanCap can = LoadCanCap();
  ASSERT_TRUE(can.model);
  const mjModel* m = can.model.get();
  MeshView mesh = MeshViewOf(m, can.geom);
  const std::vector<std::int32_t> faces = BuildFaceTable(m, 0);
  const Floor floor;
  const collision::GeomView plane = floor.view();
  std::mt19937_64 rng(2031);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> gauss;
  const long cases = EnvCount("MJPORTAL_FEATURE_CASES", 2000) / 4;
  long exact_cases = 0;
  for (long c = 0; c < cases; ++c) {
    const double yaw = 2 * mjPI * unit(rng);
    mjtNum axis[3] = {gauss(rng), gauss(rng), 0};
    mju_normalize3(axis);
    const double angle = std::pow(10.0, -5 + 4 * unit(rng));
    double mat[9];
    CapDownPose(can.normal, yaw, axis, angle, mat);
    double pos[3] = {0.1 * gauss(rng), 0.1 * gauss(rng), 0};
    double lowest = 1e300;
    for (int v = 0; v < mesh.nvert; ++v)
      lowest = std::min(lowest, collision::Rotate(mat, collision::MeshPoint(mesh.vert, v)).z);
    const double depth = 1e-2 * mesh.rbound * unit(rng);
    pos[2] = -lowest - depth;
    collision::GeomView standing = {pos, mat, m->geom_size + 3 * can.geom, &mesh};
    char repro[320];
    std::snprintf(repro, sizeof(repro),
                  "case %ld yaw %.17g axis %.17g %.17g angle %.17g pos %.17g %.17g %.17g", c, yaw,
                  axis[0], axis[1], angle, pos[0], pos[1], pos[2]);
    // The exact depth: the hull's lowest vertex in the world.
    double exact = 1e300;
    for (int v = 0; v < mesh.nvert; ++v) {
      const Vec3 p = collision::Rotate(mat, collision::MeshPoint(mesh.vert, v));
      exact = std::min(exact, p.z + pos[2]);
    }
    mesh.feature_walk = can.largest;
    for (const bool table : {false, true}) {
      mesh.faces = table ? faces.data() : nullptr;
      collision::Contact out[3];
      const int n = collision::CollidePlaneMesh(plane, standing, 0.0, out);
      ASSERT_GE(n, 1) << repro;
      double deepest = 1e300;
      for (int i = 0; i < n; ++i)
        deepest = std::min(deepest, out[i].dist);
      const double bound =
          angle >= 5e-2 ? 1e-12 : 2 * collision::manifold::kFlatPatch * mesh.rbound;
      ASSERT_NEAR(deepest, exact, bound) << repro << " table " << table << " n " << n;
      exact_cases += angle >= 5e-2;
    }
  }
  EXPECT_GT(exact_cases, cases / 10);
}

}  // namespace
}  // namespace mjportal::testing
