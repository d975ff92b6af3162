#include "tools/common/pair_scene.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "plugin/mjportal.h"

namespace mjportal::tools {
namespace {

const char* const kTypeNames[mjNGEOMTYPES] = {
    "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"};

// Radius of a sphere that bounds the geom, from its sizes.
double BoundingRadius(int type, const mjtNum* size) {
  switch (type) {
    case mjGEOM_SPHERE:
      return size[0];
    case mjGEOM_CAPSULE:
      return size[0] + size[1];
    case mjGEOM_CYLINDER:
      return std::sqrt(size[0] * size[0] + size[1] * size[1]);
    default:
      return std::sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
  }
}

class Sampler {
 public:
  explicit Sampler(std::uint64_t seed) : rng_(seed) {}
  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  bool Chance(double p) { return Uniform(0, 1) < p; }

  // A uniformly random rotation, as a row-major matrix.
  void Rotation(mjtNum mat[9]) {
    std::normal_distribution<double> gauss;
    mjtNum quat[4] = {gauss(rng_), gauss(rng_), gauss(rng_), gauss(rng_)};
    mju_normalize4(quat);
    mju_quat2Mat(mat, quat);
  }

  // A uniformly random unit vector.
  void Direction(mjtNum dir[3]) {
    std::normal_distribution<double> gauss;
    dir[0] = gauss(rng_);
    dir[1] = gauss(rng_);
    dir[2] = gauss(rng_);
    mju_normalize3(dir);
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace

const char* GeomTypeName(int type) {
  return type >= 0 && type < mjNGEOMTYPES ? kTypeNames[type] : "unknown";
}

PairScene PairScene::Create(int type1, int type2, int count, const PluginConfig& config,
                            std::string* error, int mesh_vertices, bool on_surface) {
  // Static geoms in the world body; none collides if the model is ever stepped.
  std::ostringstream xml;
  xml << "<mujoco>";
  if (!config.empty()) {
    xml << "<extension><plugin plugin=\"" MJPORTAL_PLUGIN_NAME "\"><instance name=\"np\">";
    for (const auto& [key, value] : config) {
      xml << "<config key=\"" << key << "\" value=\"" << value << "\"/>";
    }
    xml << "</instance></plugin></extension>";
  }
  // Mesh geoms: seeded convex point clouds (see the header).
  const bool has_mesh = type1 == mjGEOM_MESH || type2 == mjGEOM_MESH;
  const int small_cloud = mesh_vertices > 0 ? mesh_vertices : 8;
  const int large_cloud = mesh_vertices > 0 ? mesh_vertices : 64;
  if (has_mesh) {
    Sampler cloud(7);
    xml << "<asset>";
    std::vector<int> clouds = {small_cloud};
    if (large_cloud != small_cloud)
      clouds.push_back(large_cloud);
    for (int n : clouds) {
      xml << "<mesh name=\"cloud" << n << "\" vertex=\"";
      for (int v = 0; v < n; ++v) {
        mjtNum dir[3];
        cloud.Direction(dir);
        const double scale[3] = {0.3, 0.2, 0.15};
        for (int k = 0; k < 3; ++k)
          xml << dir[k] * scale[k] * (on_surface ? 1.0 : cloud.Uniform(0.8, 1.0)) << " ";
      }
      xml << "\"/>";
    }
    xml << "</asset>";
  }
  xml << "<worldbody>";
  for (int i = 0; i < 2 * count; ++i) {
    const int type = i % 2 ? type2 : type1;
    xml << "<geom type=\"" << kTypeNames[type]
        << "\" size=\"1 1 1\" contype=\"0\" conaffinity=\"0\"";
    if (type == mjGEOM_MESH) {
      xml << " mesh=\"cloud" << ((i / 2) % 2 ? large_cloud : small_cloud) << "\"";
    }
    xml << "/>";
  }
  xml << "</worldbody></mujoco>";

  PairScene scene;
  scene.type1_ = type1;
  scene.type2_ = type2;
  char buffer[1024] = "";
  mjSpec* spec = mj_parseXMLString(xml.str().c_str(), nullptr, buffer, sizeof(buffer));
  if (!spec) {
    *error = buffer;
    return scene;
  }
  scene.model_.reset(mj_compile(spec, nullptr));
  if (!scene.model_) {
    *error = mjs_getError(spec);
  }
  mj_deleteSpec(spec);
  if (scene.model_) {
    scene.data_.reset(mj_makeData(scene.model_.get()));
    for (int i = 0; i < count; ++i) {
      scene.cases_.push_back({2 * i, 2 * i + 1, 0.0});
    }
  }
  return scene;
}

void PairScene::Randomize(std::uint64_t seed) {
  Sampler s(seed);
  mjModel* m = model_.get();
  mjData* d = data_.get();
  for (PairCase& c : cases_) {
    mjtNum* size1 = m->geom_size + 3 * c.geom1;
    mjtNum* size2 = m->geom_size + 3 * c.geom2;
    mjtNum* pos1 = d->geom_xpos + 3 * c.geom1;
    mjtNum* pos2 = d->geom_xpos + 3 * c.geom2;
    mjtNum* mat1 = d->geom_xmat + 9 * c.geom1;
    mjtNum* mat2 = d->geom_xmat + 9 * c.geom2;

    // Sizes in [0.05, 1], occasionally thin or large.
    for (int k = 0; k < 3; ++k) {
      size1[k] = s.Uniform(0.05, 1.0);
      size2[k] = s.Chance(0.05) ? s.Uniform(1.0, 5.0) : s.Uniform(0.05, 1.0);
    }

    // Orientations: random, identity, or geom 2 parallel / antiparallel to geom 1.
    s.Rotation(mat1);
    const double pick = s.Uniform(0, 1);
    if (pick < 0.05) {
      mju_copy(mat2, mat1, 9);
    } else if (pick < 0.10) {
      mju_copy(mat2, mat1, 9);
      for (int k : {0, 2, 3, 5, 6, 8})
        mat2[k] = -mat2[k];  // rotate by pi about local y
    } else if (pick < 0.15) {
      mju_eye(mat1, 3);
      mju_eye(mat2, 3);
    } else {
      s.Rotation(mat2);
    }

    // Positions: geom 2 at a random direction from geom 1, at a distance that overlaps about half
    // of the time; occasionally exactly the bounding distance or coincident.
    for (int k = 0; k < 3; ++k)
      pos1[k] = s.Uniform(-1, 1);
    mjtNum dir[3];
    s.Direction(dir);
    auto bound = [&](int type, int g, const mjtNum* size) {
      return type == mjGEOM_MESH ? m->geom_rbound[g] : BoundingRadius(type, size);
    };
    const double reach = (type1_ == mjGEOM_PLANE ? 0.0 : bound(type1_, c.geom1, size1)) +
                         bound(type2_, c.geom2, size2);
    double distance = s.Uniform(0.0, 1.2 * reach);
    if (s.Chance(0.03))
      distance = reach;
    if (s.Chance(0.03))
      distance = 0;
    if (type1_ == mjGEOM_PLANE) {
      // Height along the plane normal in [-reach/2, 2 reach], plus a lateral offset.
      const double height = s.Uniform(-0.5, 2.0) * reach;
      for (int k = 0; k < 3; ++k)
        pos2[k] = pos1[k] + mat1[3 * k + 2] * height + dir[k] * 0.3;
    } else {
      for (int k = 0; k < 3; ++k)
        pos2[k] = pos1[k] + dir[k] * distance;
    }

    // Same-type pairs: sometimes an exact copy stacked on geom 1 along its z axis (resting
    // stacks: coincident edges and faces, duplicate clip vertices).
    if (type1_ == type2_ && s.Chance(0.05)) {
      mju_copy(size2, size1, 3);
      mju_copy(mat2, mat1, 9);
      if (s.Chance(0.5)) {
        // A twist of up to 1e-8 rad about z: corners just outside the face below.
        const double angle = s.Uniform(-1e-8, 1e-8);
        const mjtNum twist[9] = {
            std::cos(angle), -std::sin(angle), 0, std::sin(angle), std::cos(angle), 0, 0, 0, 1};
        mju_mulMatMat(mat2, mat1, twist, 3, 3, 3);
      }
      const double height = 2 * size1[type1_ == mjGEOM_BOX ? 2 : 0] - s.Uniform(0, 0.01);
      // Sideways by up to 1e-9 along x and y: corners just outside two side planes at once.
      const double dx = s.Chance(0.5) ? s.Uniform(0, 1e-9) : 0.0;
      const double dy = s.Chance(0.5) ? s.Uniform(0, 1e-9) : 0.0;
      for (int k = 0; k < 3; ++k) {
        pos2[k] = pos1[k] + mat1[3 * k + 2] * height + mat1[3 * k] * dx + mat1[3 * k + 1] * dy;
      }
    }

    // Bad input MuJoCo may hand over: a NaN or a huge coordinate in one of the poses (not for
    // meshes: MuJoCo's mesh support warns on NaN directions, which the test fixture rejects).
    // Huge values go into positions only: a rotation with a 1e8 entry drives MuJoCo's box-box
    // into reading uninitialized witness points (undefined output, nothing to compare).
    if (type1_ != mjGEOM_MESH && type2_ != mjGEOM_MESH && s.Chance(0.01)) {
      const int k = static_cast<int>(s.Uniform(0, 2.999));
      if (s.Chance(0.5)) {
        mjtNum* target = s.Chance(0.5) ? pos2 : (s.Chance(0.5) ? mat2 : pos1);
        target[k] = std::nan("");
      } else {
        (s.Chance(0.5) ? pos2 : pos1)[k] = s.Chance(0.5) ? 1e8 : -1e8;
      }
    }

    // Margins: zero, small, or a large distance query.
    const double m_pick = s.Uniform(0, 1);
    c.margin = m_pick < 0.5 ? 0.0 : (m_pick < 0.9 ? s.Uniform(0, 0.2) : s.Uniform(1, 100));
  }
}

namespace {

// A local face normal of geom g: a random box face axis or hull polygon normal; for other types,
// a random direction.
void RandomFaceNormal(const mjModel* m, int g, Sampler& s, mjtNum n[3]) {
  if (m->geom_type[g] == mjGEOM_BOX) {
    mju_zero3(n);
    n[static_cast<int>(s.Uniform(0, 2.999))] = s.Chance(0.5) ? 1 : -1;
  } else if (m->geom_type[g] == mjGEOM_MESH && m->mesh_polynum[m->geom_dataid[g]] > 0) {
    const int mesh = m->geom_dataid[g];
    const int k = static_cast<int>(s.Uniform(0, m->mesh_polynum[mesh] - 1e-9));
    mju_copy3(n, m->mesh_polynormal + 3 * (m->mesh_polyadr[mesh] + k));
  } else {
    s.Direction(n);
  }
}

// Radius of geom g's bounding sphere at its current size (0 for a plane).
double GeomReach(const mjModel* m, int g) {
  const int type = m->geom_type[g];
  if (type == mjGEOM_PLANE)
    return 0.0;
  return type == mjGEOM_MESH ? m->geom_rbound[g] : BoundingRadius(type, m->geom_size + 3 * g);
}

// Bisection on judge's verdict over geom 2's distance from geom 1 along dir, in [lo, hi]: returns
// the largest distance found touching (geom 2 is left somewhere in the bracket).
double FirstContact(const mjModel* m, mjData* d, mjfCollision judge, const PairCase& c,
                    const mjtNum dir[3], double lo, double hi) {
  mjPreContact con[mjMAXCONPAIR];
  const mjtNum* pos1 = d->geom_xpos + 3 * c.geom1;
  mjtNum* pos2 = d->geom_xpos + 3 * c.geom2;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    for (int k = 0; k < 3; ++k)
      pos2[k] = pos1[k] + dir[k] * mid;
    (judge(m, d, con, c.geom1, c.geom2, 0) > 0 ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

void PairScene::RandomizeFaceToFace(std::uint64_t seed, mjfCollision judge) {
  Randomize(seed);
  Sampler s(seed ^ 0xface2faceULL);
  const mjModel* m = model_.get();
  mjData* d = data_.get();
  for (PairCase& c : cases_) {
    mjtNum* pos1 = d->geom_xpos + 3 * c.geom1;
    mjtNum* pos2 = d->geom_xpos + 3 * c.geom2;
    mjtNum* mat1 = d->geom_xmat + 9 * c.geom1;
    mjtNum* mat2 = d->geom_xmat + 9 * c.geom2;
    for (int k = 0; k < 3; ++k)
      pos1[k] = s.Uniform(-1, 1);
    s.Rotation(mat1);

    // dir: geom 1's face normal in the world; geom 2's face normal n2 is turned onto -dir, with a
    // random spin about it and a small tilt.
    mjtNum n1[3], n2[3], dir[3], target[3];
    RandomFaceNormal(m, c.geom1, s, n1);
    RandomFaceNormal(m, c.geom2, s, n2);
    mju_mulMatVec3(dir, mat1, n1);
    mju_normalize3(dir);
    mju_scl3(target, dir, -1);
    mjtNum q_from[4], q_to[4], q_spin[4], q_tilt[4], q[4], tmp[4], axis[3];
    mju_quatZ2Vec(q_from, n2);
    mju_quatZ2Vec(q_to, target);
    const mjtNum z[3] = {0, 0, 1};
    mju_axisAngle2Quat(q_spin, z, s.Uniform(-mjPI, mjPI));
    s.Direction(axis);
    mju_axisAngle2Quat(q_tilt, axis, s.Chance(0.5) ? 0.0 : s.Uniform(0, 0.05));
    mju_negQuat(tmp, q_from);     // n2 -> z
    mju_mulQuat(q, q_spin, tmp);  // spin about z
    mju_mulQuat(tmp, q_to, q);    // z -> -dir
    mju_mulQuat(q, q_tilt, tmp);  // tilt
    mju_normalize4(q);
    mju_quat2Mat(mat2, q);

    const double reach = GeomReach(m, c.geom1) + GeomReach(m, c.geom2);
    const double lo = FirstContact(m, d, judge, c, dir, 0.0, 2 * reach + 1);
    const double offset = s.Uniform(-0.005, 0.001) * reach;
    for (int k = 0; k < 3; ++k)
      pos2[k] = pos1[k] + dir[k] * (lo + offset);
    c.margin = s.Chance(0.2) ? s.Uniform(0, 0.01) * reach : 0.0;
  }
}

void PairScene::RandomizeResting(std::uint64_t seed, mjfCollision judge) {
  Randomize(seed);
  Sampler s(seed ^ 0x5eedULL);
  const mjModel* m = model_.get();
  mjData* d = data_.get();
  for (PairCase& c : cases_) {
    mjtNum* pos1 = d->geom_xpos + 3 * c.geom1;
    mjtNum* pos2 = d->geom_xpos + 3 * c.geom2;
    const mjtNum* mat1 = d->geom_xmat + 9 * c.geom1;
    for (int k = 0; k < 3; ++k) {  // Randomize may have planted NaN or huge test values
      pos1[k] = s.Uniform(-1, 1);
    }
    for (mjtNum* mat : {d->geom_xmat + 9 * c.geom1, d->geom_xmat + 9 * c.geom2}) {
      bool rotation = true;  // every entry finite and within [-1, 1] (a NaN fails the compare)
      for (int k = 0; k < 9; ++k)
        rotation &= std::fabs(mat[k]) <= 1;
      if (!rotation)
        mju_eye(mat, 3);
    }
    mjtNum dir[3];
    if (type1_ == mjGEOM_PLANE) {
      for (int k = 0; k < 3; ++k)
        dir[k] = mat1[3 * k + 2];
    } else {
      s.Direction(dir);
    }
    const double reach = GeomReach(m, c.geom1) + GeomReach(m, c.geom2);
    // Bisection on the judge's verdict: lo touches, hi does not.
    const double lo =
        FirstContact(m, d, judge, c, dir, type1_ == mjGEOM_PLANE ? -reach : 0.0, 2 * reach + 1);
    const double offset = s.Uniform(-0.01, 0.01) * reach;
    for (int k = 0; k < 3; ++k)
      pos2[k] = pos1[k] + dir[k] * (lo + offset);
    c.margin = s.Chance(0.3) ? s.Uniform(0, 0.01) * reach : 0.0;
  }
}

std::string PairScene::Describe(const PairCase& c) const {
  const mjModel* m = model_.get();
  const mjData* d = data_.get();
  std::ostringstream out;
  char line[512];
  for (int g : {c.geom1, c.geom2}) {
    const mjtNum* p = d->geom_xpos + 3 * g;
    const mjtNum* r = d->geom_xmat + 9 * g;
    const mjtNum* z = m->geom_size + 3 * g;
    std::snprintf(line, sizeof(line),
                  "%s pos={%.17g, %.17g, %.17g} size={%.17g, %.17g, %.17g}\n  mat={%.17g, %.17g, "
                  "%.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g}\n",
                  GeomTypeName(m->geom_type[g]), p[0], p[1], p[2], z[0], z[1], z[2], r[0], r[1],
                  r[2], r[3], r[4], r[5], r[6], r[7], r[8]);
    out << line;
  }
  std::snprintf(line, sizeof(line), "margin=%.17g\n", c.margin);
  out << line;
  return out.str();
}

}  // namespace mjportal::tools
