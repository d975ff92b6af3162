// Compat: the shapes of MuJoCo 3.12's native convex collision (its GJK/EPA path) and their support
// functions, reproduced bit for bit (engine_collision_convex.c, "Support functions").
//
// A NativeShape is a geom as that path sees it: a copy of its pose (the perturbation contacts
// rotate the copy), its sizes, the margin, and two indices the support queries leave behind and
// the next query starts from: the box corner / mesh vertex last returned, and the hull-local id the
// mesh climb stopped at. Both change later answers only through ties and start points, which is
// exactly why they are carried: bitwise equality needs the same walk.
//
// Support points are world points of the shape without its margin (the solvers add margin/2 along
// the direction, as MuJoCo's support wrapper does). Spheres and capsules may be shrunk to their
// core (a point, a segment) by the caller: `core` selects that support.
#pragma once

#include "collision/contact.h"
#include "collision/mesh_support.h"

namespace mjportal::collision {

// A convex mesh as MuJoCo's native path reads it. graph/extrema are set when the support climbs
// the hull graph (graph compiled and at least 10 vertices), else support scans every vertex. The
// polygon arrays (per mesh, hull faces as vertex lists) are read by the multi-contact recovery.
struct NativeMesh {
  const float* vert = nullptr;  // float[nvert][3], mesh frame
  int nvert = 0;
  const int* graph = nullptr;       // MuJoCo's hull graph at the mesh's address
  const int* extrema = nullptr;     // 27 hull-local start vertices, one per direction octant cell
  int polynum = 0;                  // hull polygons (0: no polygon data, no multi-contact)
  const int* polymapadr = nullptr;  // per vertex: first entry in polymap
  const int* polymapnum = nullptr;  // per vertex: number of polygons around it
  const int* polymap = nullptr;     // polygon ids (mesh-local)
  const double* polynormal = nullptr;  // double[polynum][3]
  const int* polyvertadr = nullptr;    // per polygon: first entry in polyvert
  const int* polyvertnum = nullptr;    // per polygon: vertex count
  const int* polyvert = nullptr;       // vertex ids (mesh-local)
};

// Which support a shape answers with: its own, or its core (sphere: the centre; capsule: the
// segment), the shrunk shapes GJK uses first for spheres and capsules.
enum class NativeCore : int { kNone, kPoint, kSegment };

struct NativeShape {
  ShapeType type = ShapeType::kSphere;
  Vec3 pos = {0, 0, 0};
  double mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  Vec3 size = {0, 0, 0};
  double margin = 0;
  NativeMesh mesh;
  NativeCore core = NativeCore::kNone;
  int vertindex = -1;  // last box corner (bit i: +x_i) or mesh vertex returned; -1: none yet
  int meshindex = -1;  // hull-local id the last mesh query stopped at; -1: none yet
};

// Shape of `type` at (pos, mat) with `size` and the full pair margin.
MJP_HD inline NativeShape MakeNativeShape(ShapeType type, const double* pos, const double* mat,
                                          const double* size, double margin) {
  NativeShape s;
  s.type = type;
  s.pos = Load3(pos);
  for (int i = 0; i < 9; ++i) {
    s.mat[i] = mat[i];
  }
  s.size = Load3(size);
  s.margin = margin;
  return s;
}

// Local-to-world: mat·v, then + pos (in that order, as MuJoCo adds the position last).
MJP_HD MJP_INLINE Vec3 NativeToWorld(const NativeShape& s, const Vec3& local) {
  return Rotate(s.mat, local) + s.pos;
}

// d·vertex i, the vertex widened from float; summed x, y, z.
MJP_HD MJP_INLINE double NativeDotVertex(const Vec3& d, const float* vert, int i) {
  return d.x * static_cast<double>(vert[3 * i]) + d.y * static_cast<double>(vert[3 * i + 1]) +
         d.z * static_cast<double>(vert[3 * i + 2]);
}

// Mesh support by scanning every vertex. The previous answer is the first candidate, so among
// tied vertices the previous one keeps winning (a strictly larger dot is needed to move).
MJP_HD inline int NativeScanSupport(NativeShape& s, const Vec3& local_dir) {
  const float* vert = s.mesh.vert;
  double best = -3.40282346638528859812e+38;  // -FLT_MAX
  int best_index = 0;
  if (s.vertindex >= 0) {
    best_index = s.vertindex;
    best = NativeDotVertex(local_dir, vert, best_index);
  }
  for (int i = 0; i < s.mesh.nvert; ++i) {
    const double value = NativeDotVertex(local_dir, vert, i);
    if (value > best) {
      best = value;
      best_index = i;
    }
  }
  s.vertindex = best_index;
  return best_index;
}

// Mesh support by climbing the hull graph. Start: the better of the previous stop and the seed
// stored for the direction's cell (each component quantized to -1 / 0 / +1 at ±0.4). Each pass
// scans the current vertex's neighbours and moves to any strictly better one; it ends when a pass
// moves nowhere. Every move strictly increases d·v, so at most numvert passes run.
MJP_HD inline int NativeClimbSupport(NativeShape& s, const Vec3& local_dir) {
  const int* graph = s.mesh.graph;
  const int numvert = graph[0];
  const int* vert_edgeadr = graph + 2;
  const int* vert_globalid = graph + 2 + numvert;
  const int* edge_localid = graph + 2 + 2 * numvert;
  const float* vert = s.mesh.vert;

  const int cx = (local_dir.x > 0.4) - (local_dir.x < -0.4) + 1;
  const int cy = (local_dir.y > 0.4) - (local_dir.y < -0.4) + 1;
  const int cz = (local_dir.z > 0.4) - (local_dir.z < -0.4) + 1;
  const int seed = s.mesh.extrema[cx * 9 + cy * 3 + cz];
  int current = seed;
  if (s.meshindex >= 0) {
    const double previous_dot = NativeDotVertex(local_dir, vert, vert_globalid[s.meshindex]);
    const double seed_dot = NativeDotVertex(local_dir, vert, vert_globalid[seed]);
    current = seed_dot > previous_dot ? seed : s.meshindex;
  }
  double best = NativeDotVertex(local_dir, vert, vert_globalid[current]);
  int previous = -1;
  for (int pass = 0; current != previous && pass <= numvert; ++pass) {
    previous = current;
    for (int e = vert_edgeadr[previous]; edge_localid[e] >= 0; ++e) {
      const int neighbour = edge_localid[e];
      const double value = NativeDotVertex(local_dir, vert, vert_globalid[neighbour]);
      if (value > best) {
        best = value;
        current = neighbour;
      }
    }
  }
  s.meshindex = current;
  s.vertindex = vert_globalid[current];
  return s.vertindex;
}

// World support point of s along the unit direction dir (no margin).
MJP_HD inline Vec3 NativeSupportPoint(NativeShape& s, const Vec3& dir) {
  const double* mat = s.mat;
  if (s.core == NativeCore::kPoint) {
    return s.pos;
  }
  if (s.core == NativeCore::kSegment) {
    const double along = mat[2] * dir.x + mat[5] * dir.y + mat[8] * dir.z;
    const double end = along >= 0 ? s.size.y : -s.size.y;
    return {mat[2] * end + s.pos.x, mat[5] * end + s.pos.y, mat[8] * end + s.pos.z};
  }
  switch (s.type) {
    case ShapeType::kSphere:
      return {s.size.x * dir.x + s.pos.x, s.size.x * dir.y + s.pos.y, s.size.x * dir.z + s.pos.z};
    case ShapeType::kCapsule: {
      const Vec3 local = RotateT(mat, dir);
      Vec3 p = local * s.size.x;
      p.z += local.z >= 0 ? s.size.y : -s.size.y;
      return NativeToWorld(s, p);
    }
    case ShapeType::kEllipsoid: {
      // Normal-to-point map of the ellipsoid: p = S²d / |S d|.
      const Vec3 local = RotateT(mat, dir);
      Vec3 p = {local.x * s.size.x, local.y * s.size.y, local.z * s.size.z};
      const double norm2 = p.x * p.x + p.y * p.y + p.z * p.z;
      if (norm2 < kMinVal * kMinVal) {
        return {mat[0] * s.size.x + s.pos.x, mat[3] * s.size.x + s.pos.y,
                mat[6] * s.size.x + s.pos.z};
      }
      const double inv = 1 / std::sqrt(norm2);
      p.x *= inv * s.size.x;
      p.y *= inv * s.size.y;
      p.z *= inv * s.size.z;
      return NativeToWorld(s, p);
    }
    case ShapeType::kCylinder: {
      const Vec3 local = RotateT(mat, dir);
      const double n2 = local.x * local.x + local.y * local.y;
      const double scale = n2 >= kMinVal * kMinVal ? s.size.x / std::sqrt(n2) : 0;
      const Vec3 p = {scale * local.x, scale * local.y, local.z >= 0 ? s.size.y : -s.size.y};
      return NativeToWorld(s, p);
    }
    case ShapeType::kBox: {
      const Vec3 local = RotateT(mat, dir);
      const Vec3 p = {local.x >= 0 ? s.size.x : -s.size.x, local.y >= 0 ? s.size.y : -s.size.y,
                      local.z >= 0 ? s.size.z : -s.size.z};
      s.vertindex = (p.x > 0 ? 1 : 0) | (p.y > 0 ? 2 : 0) | (p.z > 0 ? 4 : 0);
      return NativeToWorld(s, p);
    }
    case ShapeType::kMesh: {
      const Vec3 local = RotateT(mat, dir);
      const int i =
          s.mesh.graph != nullptr ? NativeClimbSupport(s, local) : NativeScanSupport(s, local);
      return NativeToWorld(s, MeshPoint(s.mesh.vert, i));
    }
    default:
      return s.pos;
  }
}

}  // namespace mjportal::collision
