// Support functions: the point of a convex geom farthest along a direction, s(d) = argmax_x d·x.
// The building block of MPR, GJK and EPA (fast mode). Dispatch is a switch on the shape type.
//
// Per type, in the geom frame with d the local direction and d̂ = d/|d|:
//   sphere     r d̂
//   capsule    r d̂ + (0, 0, ±h), the end chosen by the sign of d_z
//   ellipsoid  e ∘ u with u = normalize(e ∘ d)       (the ellipsoid is the image of the unit sphere
//                                                      under diag(e); support maps through it)
//   cylinder   (r d_xy/|d_xy|, ±h): a rim point of the end cap facing d (axis centre when d_xy = 0)
//   box        (±e_x, ±e_y, ±e_z) by the signs of d (+ on ties)
//   mesh       the vertex maximizing d·v (mesh_support.h: exact, scan or hull climb; or the
//              mesh's support field when it has one, support_field.h; then climbs from the
//              last answer, MeshView::hint)
// then rotated and translated to the world. Zero directions return a valid surface point.
#pragma once

#include <cmath>

#include "collision/contact.h"
#include "collision/mesh_support.h"
#include "collision/support_field.h"

namespace mjportal::collision {

// Support point of `geom` (of shape `type`) along world direction `dir`, in world coordinates.
// Heightfields and SDFs have no support here: they return the geom origin.
MJP_HD inline Vec3 SupportPoint(ShapeType type, const GeomView& geom, const Vec3& dir) {
  const Vec3 d = RotateT(geom.mat, dir);
  const double* size = geom.size;
  Vec3 local = {0.0, 0.0, 0.0};
  switch (type) {
    case ShapeType::kSphere:
    case ShapeType::kCapsule: {
      const double norm = std::sqrt(Dot(d, d));
      if (norm > 0) {
        local = d * (size[0] / norm);
      } else {
        local = {size[0], 0.0, 0.0};
      }
      if (type == ShapeType::kCapsule) {
        local.z += d.z >= 0 ? size[1] : -size[1];
      }
      break;
    }
    case ShapeType::kEllipsoid: {
      Vec3 u = {d.x * size[0], d.y * size[1], d.z * size[2]};
      const double norm = std::sqrt(Dot(u, u));
      u = norm > 0 ? u * (1 / norm) : Vec3{1.0, 0.0, 0.0};
      local = {u.x * size[0], u.y * size[1], u.z * size[2]};
      break;
    }
    case ShapeType::kCylinder: {
      const double radial = std::sqrt(d.x * d.x + d.y * d.y);
      if (radial > 0) {
        local.x = d.x * (size[0] / radial);
        local.y = d.y * (size[0] / radial);
      }
      local.z = d.z >= 0 ? size[1] : -size[1];
      break;
    }
    case ShapeType::kBox:
      local = {d.x >= 0 ? size[0] : -size[0], d.y >= 0 ? size[1] : -size[1],
               d.z >= 0 ? size[2] : -size[2]};
      break;
    case ShapeType::kMesh: {
      if (geom.mesh != nullptr) {
        const MeshView& mesh = *geom.mesh;
        int v = -1;  // vertex index, when no hull-local id answers
        // Climb from the last answer when the direction turned by less than the warm cone since
        // (a longer climb costs more than a field lookup; support_field::WarmConeCos2).
        const double turn = Dot(d, mesh.hint_dir);
        const bool near = mesh.field == nullptr ||
                          (turn > 0 && turn * turn > mesh.warm_cos2 * Dot(d, d) *
                                                         Dot(mesh.hint_dir, mesh.hint_dir));
        if (mesh.warm_start) {
          mesh.hint_dir = d;
        }
        int entry = -1;  // the answer's hull-local id, when the graph gave it
        if (mesh.warm_start && mesh.hint >= 0 && mesh.graph != nullptr && near) {
          mesh.hint = support_field::Climb(mesh, d, mesh.hint);
          entry = mesh.hint;
        } else if (mesh.field != nullptr && mesh.field_refine) {  // fast mode: O(1) + climb
          const SupportFieldView field = {mesh.field_res, mesh.field};
          v = QuerySupportField(field, mesh, d, true, nullptr, &entry);
          if (mesh.warm_start && mesh.graph != nullptr)
            mesh.hint = entry;  // later queries of this solve climb from here
        } else if (mesh.field != nullptr) [[unlikely]] {  // unrefined: ties broken
          v = UntiedFieldVertex({mesh.field_res, mesh.field}, mesh, d, &entry);
        } else {
          int hull_index = -1;
          v = MeshSupportVertex(mesh, d, &hull_index);
          if (mesh.hillclimb && mesh.warm_start)
            mesh.hint = hull_index;  // climb from here next
        }
        if (entry >= 0) {
          local = support_field::EntryPoint(mesh, entry);  // the widened copy: no id map
        } else if (v >= 0) {
          local = MeshPoint(geom.mesh->vert, v);
        }
      }
      break;
    }
    default:
      break;
  }
  return Rotate(geom.mat, local) + Load3(geom.pos);
}

// The support function h(dir) = max over the geom of dir · x (world direction, not necessarily
// unit): what a support point would give through a dot product, in closed form for the
// primitives (no rotation back to world coordinates). With c the centre and d = Rᵀ dir:
// sphere c·dir + r|d|, capsule that + h|d_z|, ellipsoid c·dir + |E d|, cylinder
// c·dir + r|d_xy| + h|d_z|, box c·dir + Σ s_k |d_k|. Meshes go through their support point.
MJP_HD inline double SupportExtent(ShapeType type, const GeomView& geom, const Vec3& dir) {
  const double* size = geom.size;
  const double centre = Dot(Load3(geom.pos), dir);
  switch (type) {
    case ShapeType::kSphere:
      return centre + size[0] * std::sqrt(Dot(dir, dir));
    case ShapeType::kCapsule: {
      const Vec3 d = RotateT(geom.mat, dir);
      return centre + size[0] * std::sqrt(Dot(d, d)) + size[1] * std::fabs(d.z);
    }
    case ShapeType::kEllipsoid: {
      const Vec3 d = RotateT(geom.mat, dir);
      const Vec3 u = {d.x * size[0], d.y * size[1], d.z * size[2]};
      return centre + std::sqrt(Dot(u, u));
    }
    case ShapeType::kCylinder: {
      const Vec3 d = RotateT(geom.mat, dir);
      return centre + size[0] * std::sqrt(d.x * d.x + d.y * d.y) + size[1] * std::fabs(d.z);
    }
    case ShapeType::kBox: {
      const Vec3 d = RotateT(geom.mat, dir);
      return centre + size[0] * std::fabs(d.x) + size[1] * std::fabs(d.y) +
             size[2] * std::fabs(d.z);
    }
    default:
      return Dot(SupportPoint(type, geom, dir), dir);
  }
}

}  // namespace mjportal::collision
