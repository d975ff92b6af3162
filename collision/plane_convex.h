// Plane against ellipsoid and convex mesh: the support point along -n, plus (meshes) up to two
// more hull vertices below the plane, as MuJoCo 3.12 computes them (compat). In fast mode the
// mesh view carries its support field, which finds the same support vertex on larger hulls in
// O(1) instead of MuJoCo's climb from hull vertex 0 (exact ties aside: any tied vertex is
// deepest); and for a mesh whose largest face has more than 16 vertices, whose close neighbours
// MuJoCo's spacing rule drops, three contacts spread over that face (MeshFaceTriangle when the
// face lies flat, else MeshFacePatch).
//
// Math: for plane normal n through p, the convex geom's deepest point is its support point s
// along -n; dist = n·(s - p), the contact halfway between s and the plane. Ellipsoid support, in
// the local frame with semi-axes e: s = e ∘ u where u = normalize(e ∘ d) (the standard scaling
// trick). Mesh support: mesh_support.h. Extra mesh contacts: hull vertices adjacent to the
// support vertex (all vertices when the model has no hull graph), in order, that are within the
// margin of the plane and not within 0.3·rbound of the first contact; three contacts at most.
#pragma once

#include <cmath>

#include "collision/contact.h"
#include "collision/contact_manifold.h"
#include "collision/mesh_support.h"
#include "collision/support_field.h"

namespace mjportal::collision {
namespace plane_convex {

// MuJoCo's exact support vertex (compat mode, and small hulls without a field), called out of
// line: inlined into CollidePlaneMesh it made the field path's function larger and fast mode's
// plane–mesh 5% slower (bench-fast, A/B), for a call whose scan or climb dwarfs a call's cost.
[[gnu::noinline]] MJP_HD inline int ExactSupportVertex(const MeshView& mesh, const Vec3& d,
                                                       int* hull_index) {
  return MeshSupportVertex(mesh, d, hull_index);
}

constexpr int kMaxMeshContacts = 3;
constexpr double kSpreadFraction = 0.3;  // of rbound: minimum spacing from the first contact

// Fast mode finds the support vertex through the field on hulls of at least this many vertices;
// below, MuJoCo's climb from hull vertex 0 costs no more (measured per call on resting poses
// against the climb: 19-vertex hulls 10% slower through the field, 36 the same, 65 15% faster,
// 247 1.8× faster).
constexpr int kFieldMinHull = 48;

// Writes the contact for world point `point` against the plane (normal n through p).
MJP_HD inline void PlaneContact(const Vec3& point, const Vec3& n, const Vec3& p, Contact* out) {
  out->dist = Dot(n, point - p);
  out->pos = point + n * (-0.5 * out->dist);
  out->normal = n;
  out->tangent = {0.0, 0.0, 0.0};
}

// Fast mode's patch for a mesh whose largest face has more vertices than a contact feature holds
// (MeshView::feature_walk > kMaxFeaturePoints; compat never sets it). MuJoCo's rule below keeps
// only hull neighbours 0.3 × rbound from the first contact, which on such a face (a 32-sided
// can's cap: neighbours 0.2 × rbound apart) are few, and the mesh rocks on two contacts. Here:
// the mesh's feature along −n (contact_manifold.h: the face gathered whole, its extremes along
// 16 spread directions), band kFeatureBand × rbound plus the first contact's reach into the
// margin, every point within the margin of the plane a candidate, and the deepest vertex
// (`deepest`, the first contact) when the spread extremes left it out; reduced to MuJoCo's three:
// a first one, then the two that span the largest triangle with it. The first is the deepest
// candidate, unless the patch lies flat (depths within manifold::kFlatPatch of its extent along
// t1, manifold::FirstKept as the clipped patches' reduction): then the one farthest along t1, a
// choice by positions only, since on a face lying flat the depths differ by rounding, and a
// triangle built from the deepest point (or on a diameter, whose third corner may fall on either
// side) turned from step to step and the mesh rocked. A later pair wins only when larger by more
// than rounding, so a regular polygon's equal triangles resolve the same way every step. Writes
// them over `out` and returns their count, or 0 when fewer than two qualify (the caller keeps
// MuJoCo's answer).
MJP_HD inline int MeshFacePatch(const GeomView& mesh_geom, const Vec3& local_dir, const Vec3& n,
                                const Vec3& plane_pos, double margin, const Vec3& deepest,
                                double first_dist, Contact* out) {
  const MeshView& mesh = *mesh_geom.mesh;
  RawPoints raw;
  manifold::MeshFeature(mesh, local_dir, FeatureBand(mesh.rbound, margin - first_dist), &raw);
  Vec3 t1, t2;
  TangentFrame(n, &t1, &t2);
  const Vec3 mesh_pos = Load3(mesh_geom.pos);
  manifold::Candidate c[kMaxFeaturePoints + 1];
  int count = 0;
  double lo_dist = 1e300;
  for (int i = 0; i < raw.count; ++i) {
    const Vec3 point = Rotate(mesh_geom.mat, raw.p[i]) + mesh_pos;
    const double dist = Dot(n, point - plane_pos);
    if (dist <= margin) {
      c[count++] = {Dot(t1, point), Dot(t2, point), dist, Dot(n, point)};
      lo_dist = dist < lo_dist ? dist : lo_dist;
    }
  }
  // The deepest vertex, when the feature's spread extremes left it out (deeper beyond rounding).
  if (count >= 1 && first_dist < lo_dist - 1e-12 * mesh.rbound)
    c[count++] = {Dot(t1, deepest), Dot(t2, deepest), first_dist, Dot(n, deepest)};
  if (count < 2)
    return 0;
  int kept[kMaxMeshContacts] = {0, 1, 2};
  if (count > kMaxMeshContacts) {
    // The first corner: the deepest, or on a flat patch the farthest along t1.
    kept[0] = manifold::FirstKept(c, count);
    const manifold::Candidate& a = c[kept[0]];
    double best = -1;
    for (int i = 0; i < count; ++i) {
      for (int j = i + 1; j < count; ++j) {
        const double area = std::fabs(manifold::Cross2(a.u, a.v, c[i].u, c[i].v, c[j].u, c[j].v));
        if (area > best * (1 + 1e-9)) {
          best = area;
          kept[1] = i;
          kept[2] = j;
        }
      }
    }
    count = kMaxMeshContacts;
  }
  for (int i = 0; i < count; ++i) {
    const manifold::Candidate& k = c[kept[i]];
    PlaneContact(t1 * k.u + t2 * k.v + n * k.h, n, plane_pos, out + i);
  }
  return count;
}

// Fast mode's patch from the mesh's face table (MeshView::faces): when the support vertex
// (`support`, hull-local) lies on a large face whose largest inscribed triangle (fixed in the
// mesh, chosen when the table was built) has every corner within the margin and within the band
// of the deepest point (`first_dist`) that MeshFacePatch gathers, the three corners are the
// contacts. A face lying flat then stands on the same three points every step, whatever rounding
// picks as its deepest vertex, and no walk or selection runs. On a tilted face the deepest vertex
// (`deepest`) lies deeper than every corner: when by more than manifold::kFlatPatch × rbound, it
// replaces the corner nearest it (the other two stay spread around it), so that the patch carries
// the full depth; within that, the face counts as flat and the corners stand. A face standing up
// or tilted onto its rim has corners out of the margin: 0, and the caller goes on with
// MeshFacePatch. Writes the contacts over `out` and returns 3.
MJP_HD inline int MeshFaceTriangle(const GeomView& mesh_geom, int support, const Vec3& n,
                                   const Vec3& plane_pos, double margin, const Vec3& deepest,
                                   double first_dist, Contact* out) {
  const MeshView& mesh = *mesh_geom.mesh;
  const int face = mesh.faces[support];
  if (face < 0)
    return 0;
  const double ceiling = first_dist + FeatureBand(mesh.rbound, margin - first_dist);
  const Vec3 mesh_pos = Load3(mesh_geom.pos);
  Vec3 corner[kMaxMeshContacts];
  double lowest = 1e300;  // the deepest corner's dist
  for (int i = 0; i < kMaxMeshContacts; ++i) {
    corner[i] =
        Rotate(mesh_geom.mat, support_field::EntryPoint(mesh, mesh.faces[face + 1 + i])) + mesh_pos;
    const double dist = Dot(n, corner[i] - plane_pos);
    if (!(dist <= margin && dist <= ceiling))
      return 0;
    lowest = dist < lowest ? dist : lowest;
  }
  // A tilted face: the deepest vertex in place of the corner nearest it.
  if (first_dist < lowest - manifold::kFlatPatch * mesh.rbound) {
    int nearest = 0;
    double nearest2 = 1e300;
    for (int i = 0; i < kMaxMeshContacts; ++i) {
      const Vec3 offset = corner[i] - deepest;
      const double d2 = Dot(offset, offset);
      nearest = d2 < nearest2 ? i : nearest;
      nearest2 = d2 < nearest2 ? d2 : nearest2;
    }
    corner[nearest] = deepest;
  }
  for (int i = 0; i < kMaxMeshContacts; ++i)
    PlaneContact(corner[i], n, plane_pos, out + i);
  return kMaxMeshContacts;
}

}  // namespace plane_convex

// Ellipsoid support along world direction `dir` (world point), MuJoCo's CCD variant with zero
// margin: local u = e ∘ d normalized (unit x when tiny), s = e ∘ u, then + d·0/2 (which only turns
// -0 into +0), rotated and translated to the world.
MJP_HD inline Vec3 EllipsoidSupport(const GeomView& ellipsoid, const Vec3& dir) {
  const double* e = ellipsoid.size;
  const Vec3 local_dir = RotateT(ellipsoid.mat, dir);
  Vec3 s = {local_dir.x * e[0], local_dir.y * e[1], local_dir.z * e[2]};
  Normalize(s);
  s = {s.x * e[0], s.y * e[1], s.z * e[2]};
  s = s + local_dir * 0.0 * 0.5;
  return Rotate(ellipsoid.mat, s) + Load3(ellipsoid.pos);
}

// Plane (geom 1) against ellipsoid (geom 2). Returns 0 or 1 contacts.
MJP_HD inline int CollidePlaneEllipsoid(const GeomView& plane, const GeomView& ellipsoid,
                                        double margin, Contact* out) {
  const Vec3 n = Column(plane.mat, 2);
  const Vec3 deepest = EllipsoidSupport(ellipsoid, -n);
  const double dist = Dot(n, deepest - Load3(plane.pos));
  if (dist > margin) {
    return 0;
  }
  plane_convex::PlaneContact(deepest, n, Load3(plane.pos), out);
  return 1;
}

// Plane (geom 1) against convex mesh (geom 2). Returns 0–3 contacts, or -1 when the geom comes
// without its mesh view.
MJP_HD inline int CollidePlaneMesh(const GeomView& plane, const GeomView& mesh_geom, double margin,
                                   Contact* out) {
  using plane_convex::kMaxMeshContacts;
  if (mesh_geom.mesh == nullptr) {
    return -1;
  }
  const MeshView& mesh = *mesh_geom.mesh;
  const Vec3 n = Column(plane.mat, 2);
  const Vec3 plane_pos = Load3(plane.pos);
  const Vec3 mesh_pos = Load3(mesh_geom.pos);

  // Support vertex along -n (local frame), then the CCD support's zero-margin term and the world.
  const Vec3 local_dir = RotateT(mesh_geom.mat, -n);
  // (No vertex wins only for a NaN direction; MuJoCo then warns and uses the mesh origin.)
  int hull_index = -1;
  int support;
  if (mesh.field != nullptr && mesh.graph != nullptr &&
      mesh.graph[0] >= plane_convex::kFieldMinHull) {
    // Fast mode: the support field's vertex, climbed to the exact one; the walk below then starts
    // from its hull-local id.
    support = QuerySupportField({mesh.field_res, mesh.field}, mesh, local_dir, mesh.field_refine,
                                nullptr, &hull_index);
  } else {
    support = plane_convex::ExactSupportVertex(mesh, local_dir, &hull_index);
  }
  Vec3 local = {0.0, 0.0, 0.0};
  if (support >= 0) {
    local = {static_cast<double>(mesh.vert[3 * support]),
             static_cast<double>(mesh.vert[3 * support + 1]),
             static_cast<double>(mesh.vert[3 * support + 2])};
  }
  local = local + local_dir * 0.0 * 0.5;
  const Vec3 deepest = Rotate(mesh_geom.mat, local) + mesh_pos;

  // First contact.
  const double dist = Dot(n, deepest - plane_pos);
  if (dist > margin) {
    return 0;
  }
  plane_convex::PlaneContact(deepest, n, plane_pos, out);
  int count = 1;
  if (mesh.feature_walk > kMaxFeaturePoints) {  // fast mode, a face of many vertices
    if (mesh.faces != nullptr && mesh.hillclimb && hull_index >= 0) {
      const int corners = plane_convex::MeshFaceTriangle(mesh_geom, hull_index, n, plane_pos,
                                                         margin, deepest, dist, out);
      if (corners > 0)
        return corners;
    }
    if (mesh.hillclimb)        // hull_index is then hull-local: the walk starts from the
      mesh.hint = hull_index;  // support vertex
    const int patch =
        plane_convex::MeshFacePatch(mesh_geom, local_dir, n, plane_pos, margin, deepest, dist, out);
    if (patch > 0)
      return patch;
  }

  // More vertices below the threshold: d·v > n·(c - p) - margin  <=>  height(v) < margin.
  const double threshold = Dot(n, mesh_pos - plane_pos) - margin;
  const Vec3 first = out[0].pos;
  auto try_vertex = [&](int vertex) {
    const Vec3 v = {static_cast<double>(mesh.vert[3 * vertex]),
                    static_cast<double>(mesh.vert[3 * vertex + 1]),
                    static_cast<double>(mesh.vert[3 * vertex + 2])};
    const Vec3 point = Rotate(mesh_geom.mat, v) + mesh_pos;
    const Vec3 offset = point - first;
    if (std::sqrt(offset.x * offset.x + offset.y * offset.y + offset.z * offset.z) <
        plane_convex::kSpreadFraction * mesh.rbound) {
      return;
    }
    plane_convex::PlaneContact(point, n, plane_pos, out + count);
    ++count;
  };
  if (mesh.graph == nullptr) {
    for (int i = 0; i < mesh.nvert && count < kMaxMeshContacts; ++i) {
      if (DotVertex(local_dir, mesh.vert, i) > threshold && i != hull_index) {
        try_vertex(i);
      }
    }
  } else if (hull_index >= 0) {
    const int numvert = mesh.graph[0];
    const int* vert_edgeadr = mesh.graph + 2;
    const int* vert_globalid = mesh.graph + 2 + numvert;
    const int* edge_localid = mesh.graph + 2 + 2 * numvert;
    for (int e = vert_edgeadr[hull_index]; edge_localid[e] >= 0 && count < kMaxMeshContacts; ++e) {
      const int vertex = vert_globalid[edge_localid[e]];
      if (DotVertex(local_dir, mesh.vert, vertex) > threshold) {
        try_vertex(vertex);
      }
    }
  }
  return count;
}

}  // namespace mjportal::collision
