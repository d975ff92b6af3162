// Signed distance of a smooth geom (sphere, ellipsoid) and a convex mesh by Newton's method on the
// sphere of directions (smooth_contact.h's method, the box's corners replaced by hull vertices):
// fast mode's first solver for ellipsoid–mesh, where MPR creeps over the ellipsoid's curved side
// of the Minkowski difference (15 to 30 refinement steps on bench-fast's resting poses).
//
// h(n) = n · (S_A(n) − S_B(−n)) is least over unit n at the signed distance's negative. The mesh's
// support is a hull vertex v, flat within v's normal cone (J = 0), so on that cone h is smooth
// and Newton's step uses the smooth geom's curvature alone. The optimum sits
//   - inside a vertex's cone (a vertex contact): Newton converges with the vertex unchanged;
//   - on the arc between two vertices' cones (an edge contact): the vertex flips between them
//     and back; Newton then keeps n perpendicular to the edge and runs in one dimension, the edge's
//     midpoint standing for the mesh's support, and the answer holds when the smooth geom's
//     deepest point lies over the edge (else Newton goes on from the vertex at that end);
//   - at a face normal (a face contact): a third vertex answers in edge mode; the face through
//     the three is the answer when it supports the mesh (no vertex beyond its plane by more than
//     the tolerance) and the smooth geom's deepest point towards it lies over the triangle.
// Where the face test fails with that point beyond the triangle's edge from the third vertex,
// Newton goes on along that edge: without this step, paths circled between neighbouring faces
// until the cap below (hand-overs 2.7% -> 1.3% of the kernel test's random hulls; general-solver
// runs 9.0% -> 6.5% of bench-fast's resting ellipsoid-mesh calls). Beyond the edge Newton is on
// (away from the third vertex), n crossed that edge's arc past the face's normal: it goes back
// just inside the arc and edge mode goes on. Otherwise Newton goes on from the third vertex.
// With the hull graph's ids (fast mode's warm-started climbs), a flip back to the vertex before
// across others' cones (no hull edge joins the two) halves the step instead of starting edge
// mode on a segment that is no edge of the hull. Hand-overs of bench-fast's resting
// ellipsoid-mesh calls: 1.85% before these two, 1.17% with the edge check, 0.39% with both.
// It hands over after more than kMaxMeshSwitches feature changes, or without convergence
// within the iteration cap. A converged minimum is the global one when no deeper than the smooth
// geom's least curvature radius (CertifiedDepth; the mesh's is 0) or when certified by the
// ellipsoid's foot point (smooth::CertifyByFoot), else kUncertified, as for the box.
//
// Vertices are told apart by their world points (the same vertex gives the same bits).
#pragma once

#include <cmath>

#include "collision/smooth_contact.h"

namespace mjportal::collision {

// Feature changes before a hand-over: more than the box's kMaxCornerSwitches, Newton's path
// crossing several of a hull's vertex cones (on the kernel test's random hulls of 12 to 40
// points, 8 handed 4.8% of the pairs over, 16 2.7%).
constexpr int kMaxMeshSwitches = 16;

namespace smooth_mesh {

MJP_HD MJP_INLINE bool Same(const Vec3& p, const Vec3& q) {
  return p.x == q.x && p.y == q.y && p.z == q.z;
}

// The hull-local id of the mesh's last support answer, where its queries keep one (fast mode's
// warm start on a hull graph, with exact answers: a refining field or a hill climb); else -1.
MJP_HD inline int LastEntry(const MeshView* mesh) {
  const bool kept = mesh != nullptr && mesh->warm_start && mesh->graph != nullptr &&
                    (mesh->field != nullptr ? mesh->field_refine : mesh->hillclimb);
  return kept ? mesh->hint : -1;
}

// False only when hull vertices x and y (hull-local ids) are known and share no hull edge: then
// no optimum lies on a segment between them.
MJP_HD inline bool MayShareEdge(const MeshView* mesh, int x, int y) {
  if (x < 0 || y < 0)
    return true;
  const int numvert = mesh->graph[0];
  const int* vert_edgeadr = mesh->graph + 2;
  const int* edge_localid = mesh->graph + 2 + 2 * numvert;
  for (int e = vert_edgeadr[x]; edge_localid[e] >= 0; ++e) {
    if (edge_localid[e] == y)
      return true;
  }
  return false;
}

// Edge mode on the edge from p to q: its ends and unit direction.
MJP_HD inline void StartEdge(Vec3 p, Vec3 q, Vec3* end1, Vec3* end2, Vec3* axis) {
  *end1 = p;
  *end2 = q;
  *axis = q - p;
  *axis = *axis * (1 / std::sqrt(Dot(*axis, *axis)));
}

// The face through world points p1, p2, p3 of `mesh` (oriented like n, from A to B) when it is a
// local minimum of h no higher than `reached`: the mesh has no vertex beyond the face's plane by
// more than `tolerance`, and the smooth geom's deepest point towards the face projects into the
// triangle. False (result untouched) otherwise; then *beyond is 0, 1 or 2 when that deepest
// point lies outside the triangle beyond the edge opposite p1, p2 or p3 (the edge from p3 to p2,
// from p3 to p1, or from p1 to p2), else -1; *face then holds the face's unit normal (oriented
// like n) whenever the triangle has one.
MJP_HD inline bool TriangleOptimum(const ConvexGeom& a, const ConvexGeom& b, bool mesh_a,
                                   const Vec3& p1, const Vec3& p2, const Vec3& p3, const Vec3& n,
                                   double reached, double tolerance, SmoothResult* result,
                                   int* beyond, Vec3* face) {
  *beyond = -1;
  Vec3 axis = Cross(p2 - p1, p3 - p1);
  const double length = std::sqrt(Dot(axis, axis));
  if (!(length > 0))
    return false;
  axis = axis * ((Dot(axis, n) < 0 ? -1 : 1) / length);
  *face = axis;
  const ConvexGeom& mesh = mesh_a ? a : b;
  const ConvexGeom& other = mesh_a ? b : a;
  // The mesh's extreme point along its outward direction (axis for A, −axis for B) must lie on
  // the plane within the tolerance.
  const Vec3 out = mesh_a ? axis : -axis;
  const Vec3 extreme = SupportPoint(mesh.type, mesh.view, out);
  if (!(Dot(out, extreme - p1) <= tolerance))
    return false;
  const smooth::CurvedSupport deepest = smooth::Support(other, mesh_a ? -axis : axis);
  const Vec3 q = deepest.point;
  const double h = mesh_a ? Dot(axis, p1 - q) : Dot(axis, q - p1);
  if (!(h <= reached))
    return false;
  // q over the triangle: its projection's barycentric coordinates all >= 0.
  const Vec3 zero = {0, 0, 0};
  const TriangleWitness over = WitnessOnTriangle({p1, p1, zero}, {p2, p2, zero}, {p3, p3, zero}, q);
  if (!(over.weight_min >= 0)) {
    *beyond = over.weakest;
    return false;
  }
  smooth::FaceResult(axis, q, h, mesh_a, result);
  return true;
}

// SmoothMeshDistance on a pair given in the smooth geom's frame (that geom at the origin,
// unrotated): its support and curvature come without rotations.
MJP_HD inline SmoothResult DistanceInSmoothFrame(const ConvexGeom& a, const ConvexGeom& b,
                                                 int max_iterations, double tolerance,
                                                 double margin) {
  SmoothResult result;
  const bool mesh_a = a.type == ShapeType::kMesh;
  const ConvexGeom& mesh = mesh_a ? a : b;
  const ConvexGeom& smooth_geom = mesh_a ? b : a;
  const double deep = LeastCurvatureRadius(smooth_geom);
  Vec3 n = Load3(b.view.pos) - Load3(a.view.pos);
  const double centre = std::sqrt(Dot(n, n));
  if (!(centre > 1e-12 * (GeomScale(a) + GeomScale(b))))
    return result;  // nothing to go by when the centres coincide
  // Start as smooth::StartDirection does for a box, the mesh standing in as the ellipsoid
  // inscribed in its hull's bounding box (HullShape's half-extents; a point when unknown).
  // Instructions per call on bench-fast's resting ellipsoid-mesh poses: 4,988 with the mesh as
  // a point, 4,541 with its box's ellipsoid (semi-axes scaled by 0.5: 4,831, by 1.5: 4,650).
  {
    double q[6] = {0, 0, 0, 0, 0, 0};
    smooth::AddShapeMatrix(smooth_geom, q);
    const HullShape* hull = mesh.view.mesh != nullptr ? mesh.view.mesh->shape : nullptr;
    if (hull != nullptr) {
      const double e[3] = {hull->half_extent.x, hull->half_extent.y, hull->half_extent.z};
      smooth::AddShapeMatrix(mesh.view.mat, e, q);
    }
    n = smooth::ShapeNormal(q, n * (1 / centre));
  }

  double h_last = 1e300;
  Vec3 n_last = n, step = {0, 0, 0};
  bool have_vertex = false, edge = false;
  // Vertex mode: the mesh's support point, and the one before it (a step back to that one is
  // the ping-pong of an edge optimum).
  Vec3 vertex = {0, 0, 0}, previous = {0, 0, 0};
  int vertex_id = -1;  // vertex's hull-local id (LastEntry), -1 when unknown
  Vec3 end1 = {0, 0, 0}, end2 = {0, 0, 0}, axis = {0, 0, 0};  // edge mode: ends, unit direction
  int switches = 0, backtracks = 0;
  for (result.iterations = 0; result.iterations < max_iterations; ++result.iterations) {
    Vec3 t1, t2;
    smooth::IterateFrame(edge, axis, &n, &t1, &t2);
    const Vec3 on_mesh = SupportPoint(mesh.type, mesh.view, mesh_a ? n : -n);
    const int on_id = smooth_mesh::LastEntry(mesh.view.mesh);
    const smooth::CurvedSupport curved = smooth::FrameSupport(smooth_geom, mesh_a ? -n : n);
    const bool off_edge =
        edge && !smooth_mesh::Same(on_mesh, end1) && !smooth_mesh::Same(on_mesh, end2);
    if (off_edge) {
      // A third vertex: n crossed near the normal of the face through the edge and it.
      if (h_last < 1e300 && backtracks < kMaxFlipBacktracks) {
        ++backtracks;
        smooth::Retreat(n_last, 0.25, &step, &n);
        continue;
      }
      const Vec3 sa = mesh_a ? on_mesh : curved.point, sb = mesh_a ? curved.point : on_mesh;
      const double h = Dot(n, sa - sb);
      const double reached = h < h_last ? h : h_last;
      int beyond;
      Vec3 face;
      if (smooth_mesh::TriangleOptimum(a, b, mesh_a, end1, end2, on_mesh, n, reached + tolerance,
                                       tolerance, &result, &beyond, &face)) {
        if (result.dist < -deep)
          result.status = SmoothStatus::kUncertified;
        return result;
      }
      if (++switches > kMaxMeshSwitches)
        return result;
      if (beyond == 2) {
        // Beyond the edge Newton is on, away from the third vertex: n crossed the edge's arc
        // past the face's normal. Back inside the arc, just short of that normal (turned away
        // from the third vertex), and Newton goes on along the edge.
        Vec3 w = on_mesh - end1;
        w = w - axis * Dot(w, axis);
        w = w * (1 / std::sqrt(Dot(w, w)));
        n = face + w * (mesh_a ? -1e-3 : 1e-3);
        n = n * (1 / std::sqrt(Dot(n, n)));
        h_last = 1e300;
        backtracks = 0;
        continue;
      }
      if (beyond >= 0) {
        // The smooth geom's deepest point lies beyond the triangle's edge from the third vertex:
        // Newton goes on along that edge.
        smooth_mesh::StartEdge(beyond == 0 ? end2 : end1, on_mesh, &end1, &end2, &axis);
        h_last = 1e300;
        backtracks = 0;
        continue;
      }
      // Not that face's contact: Newton goes on from the third vertex.
      edge = false;
      previous = end2;
      vertex = on_mesh;
      vertex_id = on_id;
      h_last = 1e300;
      backtracks = 0;
      continue;
    }
    // In edge mode the edge's midpoint stands for the mesh's support (n is perpendicular to it).
    const Vec3 mesh_point = edge ? (end1 + end2) * 0.5 : on_mesh;
    const Vec3 sa = mesh_a ? mesh_point : curved.point, sb = mesh_a ? curved.point : mesh_point;
    const Vec3 s = sa - sb;
    const double h = Dot(n, s);
    if (h < -margin) {
      result.status = SmoothStatus::kBeyond;
      result.normal = n;  // a separating axis: the overlap along it is h < −margin
      return result;
    }
    if (!edge && have_vertex && !smooth_mesh::Same(on_mesh, vertex)) {
      if (++switches > kMaxMeshSwitches)
        return result;
      if (smooth_mesh::Same(on_mesh, previous) &&
          !smooth_mesh::MayShareEdge(mesh.view.mesh, vertex_id, on_id) && h_last < 1e300) {
        // Back to the vertex met before, across cones between the two (no hull edge joins
        // them): the step was too long, halve it (the edge below would be no edge of the hull,
        // and its face tests fail: 19% of the edges entered on bench-fast's resting poses).
        smooth::Retreat(n_last, 0.5, &step, &n);
        continue;
      }
      if (smooth_mesh::Same(on_mesh, previous)) {
        // Back to the vertex met before: the optimum lies on the edge between the two. Restart
        // this iterate on it (n is projected onto the edge's plane above).
        smooth_mesh::StartEdge(vertex, on_mesh, &end1, &end2, &axis);
        edge = true;
        h_last = 1e300;
        backtracks = 0;
        continue;
      }
      // Another vertex's cone: a step down goes on from there; a step up (halved below) keeps
      // the vertex and remembers the one it met.
      previous = h > h_last + tolerance ? on_mesh : vertex;
    }
    if (h > h_last + tolerance) {
      smooth::Retreat(n_last, 0.5, &step, &n);  // the step overshot: halve it
      continue;
    }
    if (!edge) {
      vertex = on_mesh;
      vertex_id = on_id;
      have_vertex = true;
    }
    const double g1 = Dot(t1, s), g2 = edge ? 0.0 : Dot(t2, s);
    if (g1 * g1 + g2 * g2 <= tolerance * tolerance) {
      Vec3 on_a = sa, on_b = sb;
      if (edge) {
        // On the edge only if the smooth geom's deepest point is over it; the mesh's witness is
        // the edge point beside that point.
        const double along = Dot(curved.point - end1, axis);
        const double extent = Dot(end2 - end1, axis);
        if (!(along >= 0 && along <= extent)) {
          // Past an end: go on from that end's vertex, n turned off the edge's plane just enough
          // for the mesh's support to be that vertex.
          if (!(along == along) || ++switches > kMaxMeshSwitches)
            return result;
          const double toward = (along > 0) == mesh_a ? 1e-6 : -1e-6;
          n = n + axis * toward;
          n = n * (1 / std::sqrt(Dot(n, n)));
          vertex = along > 0 ? end2 : end1;
          vertex_id = -1;
          previous = along > 0 ? end1 : end2;
          edge = false;
          h_last = 1e300;
          continue;
        }
        (mesh_a ? on_a : on_b) = end1 + axis * along;
      }
      smooth::Converged(h, deep, n, on_a, on_b, &result);
      return result;
    }
    // Newton's step with the smooth geom's curvature (the mesh's is 0).
    double j11, j12, j22;
    smooth::FrameCurvature(smooth_geom, curved, t1, t2, &j11, &j12, &j22);
    double d1, d2;
    smooth::NewtonStep(g1, g2, j11, j12, j22, h, edge, &d1, &d2);
    h_last = h;
    n_last = n;
    smooth::Advance(t1 * d1 + t2 * d2, &step, &n);
  }
  return result;
}

}  // namespace smooth_mesh

// Signed distance of a and b, one smooth (sphere, ellipsoid) and one a mesh, as in the header;
// `margin` is the distance beyond which only kBeyond matters. Solved in the smooth geom's frame
// (the mesh turned by R_sᵀ R_m, placed at R_sᵀ (p_m − p_s)): per Newton iteration four
// rotations fewer; the answer turned back into the world.
MJP_HD inline SmoothResult SmoothMeshDistance(const ConvexGeom& a, const ConvexGeom& b,
                                              int max_iterations, double tolerance, double margin) {
  const bool mesh_a = a.type == ShapeType::kMesh;
  const smooth::FramedPair pair(mesh_a ? b : a, mesh_a ? a : b, !mesh_a);
  SmoothResult r =
      smooth_mesh::DistanceInSmoothFrame(pair.a(), pair.b(), max_iterations, tolerance, margin);
  pair.Finish(&r);
  return r;
}

}  // namespace mjportal::collision
