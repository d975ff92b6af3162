// Fast mode's narrowphase for general convex pairs: one contact from Newton, GJK, MPR or EPA,
// then the rest of the contact patch by clipping support features (or perturbed re-solves).
//
// Which solver answers (ccd = auto, the default):
//  -1. With the caller's separating axis from the pair's previous call (CollideConvex's
//      SeparationHint): a gap along it beyond margin + tolerance ends the call (`axis_hint`);
//      a mesh's support query along it climbs from the mesh's support vertex of that call.
//      Once the axis has proved a gap, later calls first bound the gap from below by how far
//      the geoms moved since (GapDrift): a bound beyond margin + tolerance ends the call with
//      no support query at all (`axis_bound`).
//   0. With a box or cylinder in the pair, face first (FaceFirst): the box axis (cylinder axis)
//      of least overlap, oriented towards the other geom; a separation beyond the margin along it
//      ends the call, and a shallow contact whose other geom's deepest point lies over that face
//      is that face's, exactly. Counted as `face`. Against a mesh, an axis whose overlap is
//      bounded from below (the mesh's inner ball) beyond the least one measured needs no
//      support query.
//      Sphere–ellipsoid and ellipsoid–ellipsoid, sphere or ellipsoid against a box (a corner,
//      edge or face contact; started where the box's least point predicts), ellipsoid–capsule
//      and ellipsoid–cylinder (the axis as a box's edge, its ends as corners, swept by a sphere or
//      a disk), and ellipsoid–mesh (SmoothMeshDistance: hull vertices, edges and faces): Newton's
//      method on the direction sphere (smooth_contact.h), exact to second order. Its minimum
//      answers when
//      certified global (no deeper than the geoms' least curvature radii together); a deeper
//      one (`uncertified`) goes on to the steps below and stands if they answer deeper;
//      non-convergence and features Newton does not follow go on.
//      Otherwise, with a sphere or capsule in the pair: GJK between the cores (a sphere's centre,
//      a capsule's axis segment; other geoms whole), cutoff = margin + radii. Cores that stay
//      apart give the contact exactly: dist = core distance − radii, normal along the closest
//      points (Bullet's and Jolt's convex radius). A core touching or inside the other geom, or
//      a GJK that stalls before its tolerance, goes on to the steps below.
//   1. MPR along the ray from centre to centre: overlapping geoms go on to step 3 with its
//      contact.
//   2. Apart by MPR and margin > 0: GJK with cutoff = margin. Farther than the margin: no
//      contact. Separated within it: one contact at GJK's closest points, dist = their distance.
//      (GJK after MPR: an overlapping pair pays no GJK run up to its enclosing simplex. GJK
//      starts from MPR's portal points and the support that proved the miss, not from scratch:
//      after a miss in MPR's refinement 39% fewer GJK iterations on random hulls.)
//   3. Hand-off to EPA, seeded with GJK's enclosing simplex (MPR's final tetrahedron when GJK
//      ends on a smaller one; for pairs of polytopes, boxes and meshes, MPR's tetrahedron first,
//      GJK only when EPA does not converge from it), when
//        (a) MPR did not converge within ccd_iterations, or
//        (b) MPR's portal is not the minimal one: with a flat-featured geom in the pair, the
//            origin's projection on the final portal falls outside it (on curved pairs the
//            portal shrinks around the hit point and this says nothing); for a pair of
//            polytopes (boxes, meshes), neither MPR's final tetrahedron nor its hull with the
//            points of ∂M that MPR left behind proves its depth minimal (TetrahedronProvesDepth,
//            HullProvesDepth: a face of that polytope nearer the origin than the portal; near an
//            edge of M the ray can leave through the farther of two faces whose planes both pass
//            within the projection, up to 37° off the minimal normal on bench-fast's resting
//            poses before this check; EPA then goes on from the hull); or for a box (its
//            three frame axes) or a cylinder (its axis; a mesh's frame axes are its principal
//            axes of inertia, not face normals, so meshes rely on the portal test), the overlap of
//            the two geoms along an axis (two support calls, oriented like MPR's normal) is smaller
//            than MPR's depth by more than ccd_tolerance. MPR's depth is the overlap along its own
//            normal, so a smaller overlap along another direction proves a shallower exit exists.
//            When the axis of least overlap is a box face's or a cylinder cap's normal and the
//            other geom's deepest point along it projects inside that face, that face is the answer
//            (exact, no EPA; counted as `face`). Otherwise, with a curved geom in the pair,
//            MPR runs again along the best normal found (RefineAlongNormal, `along_normal`):
//            EPA's polytope creeps over curved surfaces; or
//        (c) the contact is deep: MPR's depth exceeds kDeepContact (5%) of the smaller geom's
//            scale. Far from the boundary the centre-to-centre ray need not leave M through the
//            face nearest the origin; shallow resting contacts (the common case) stay with MPR.
//      EPA's answer replaces MPR's when EPA converged (unconverged: when the overlap along
//      EPA's normal is smaller than MPR's depth). MPR's tetrahedron is the second choice because
//      its interior point is the centre of M for symmetric pairs, which makes EPA's faces
//      through it degenerate. With a curved geom in the pair, the answer (EPA's or MPR's) is
//      then polished by MPR along its normal (RefineAlongNormal, `along_normal`): EPA's polytope
//      creeps over curved surfaces, and a deep contact's centre ray is slanted.
// ccd = mpr runs step 2 before step 1 (as auto did before) and skips step 3; ccd = gjk runs GJK
// first whatever the margin and EPA from GJK's enclosing simplex (MPR only when GJK ends on a
// smaller simplex).
//
// Each geom's frame origin must lie inside it (MPR's interior point): true for primitives and for
// MuJoCo's meshes, which the compiler re-centres on their centre of mass.
//
// Multi-contact (no patch when a sphere or ellipsoid is in the pair):
//   manifold = clip (default): the support features of both geoms along the first normal are
//   clipped against each other (contact_manifold.h); two or more contacts replace the first one.
//   manifold = perturb (as Bullet's convex–convex algorithm does it): when either geom has
//   flat features (box, cylinder, mesh), rotate that geom by kPerturbAngle about the first
//   contact point, about two axes perpendicular to the normal with both signs, and solve again
//   (MPR only: the re-solve needs the new deepest feature, not a refined depth). Each new
//   witness point on the rotated geom is rotated back; its distance to the other witness along
//   the first normal is the contact's dist; the point is placed from the witness on the geom that
//   did not move. Contacts within the margin and farther than 1e-3 × the smaller geom's scale
//   from every kept one are added (at most 5 per pair). When more are found than the caller's
//   capacity (MuJoCo sizes each pair's slot with mj_maxContact: 4 for mesh–mesh and mesh–box),
//   the first, central contact is dropped in favour of the perturbed ones, which span the patch.
#pragma once

#include <cmath>

#include "collision/contact.h"
#include "collision/contact_manifold.h"
#include "collision/cylinder_box_exit.h"
#include "collision/epa.h"
#include "collision/gjk.h"
#include "collision/mpr.h"
#include "collision/smooth_contact.h"
#include "collision/smooth_mesh_contact.h"

namespace mjportal::collision {

enum class CcdAlgorithm : int { kAuto = 0, kMpr = 1, kGjk = 2 };

// How contacts beyond the first are found: clipping the support features (contact_manifold.h) or
// re-solving under small rotations of the pose (perturbation).
enum class ManifoldMethod : int { kClip = 0, kPerturb = 1 };

struct ConvexSettings {
  int max_iterations = 35;  // every solver loop's cap (the model's ccd_iterations)
  double tolerance = 1e-6;  // solvers' stopping distance (the model's ccd_tolerance)
  CcdAlgorithm algorithm = CcdAlgorithm::kAuto;
  bool multicontact = true;
  ManifoldMethod manifold = ManifoldMethod::kClip;
};

// How often each path ran; the caller owns it and sums it up (debug statistics).
struct ConvexCounters {
  long gjk = 0;              // GJK distance runs
  long mpr = 0;              // MPR runs
  long epa = 0;              // EPA runs
  long epa_unconverged = 0;  // hand-offs because MPR did not converge
  long epa_deep = 0;         // hand-offs because the contact is deep
  long epa_not_minimal = 0;  // hand-offs because a frame axis showed a shallower exit
  long perturbed = 0;        // perturbed re-solves
  long bad_pose = 0;         // calls refused for a non-finite pose
  long clipped = 0;          // manifolds from clipping support features (2+ contacts)
  long core = 0;             // GJK runs on a sphere's or capsule's core (step 0)
  long face = 0;             // step 3(b) answered by a box face or cylinder cap, not EPA
  long along_normal = 0;     // step 3 on curved pairs: MPR re-run along the best normal
  long newton = 0;           // sphere/ellipsoid pairs: Newton on the direction sphere (step 0)
  long axis_hint = 0;        // calls ended by the caller's separating axis from an earlier call
  long shallower_exit = 0;   // cylinder–box: the exact search's exit shallower than MPR's answer
  long uncertified = 0;      // Newton's minimum deeper than certified: the general solvers ran too
  long hull_proof = 0;       // polytope pairs: MPR's depth proved by its points' hull, not EPA
  long seeded = 0;           // polytope pairs: MPR took its seeded portal as it stood (step 1)
  long axis_bound = 0;       // calls ended by the gap bound along the earlier call's axis
};

// One solved contact: signed distance, unit normal from A to B, witness points.
struct ConvexHit {
  double dist;
  Vec3 normal;
  Vec3 on_a, on_b;
};

// Depth, as a fraction of the smaller geom's scale, beyond which MPR's ray is not trusted to exit
// through the nearest face (step 3(c)).
constexpr double kDeepContact = 0.05;

// Rotation angle of the multi-contact perturbation, radians.
constexpr double kPerturbAngle = 1e-2;
constexpr int kMaxConvexContacts = 5;

namespace convex {

MJP_HD inline double SmallerScale(const ConvexGeom& a, const ConvexGeom& b) {
  const double sa = GeomScale(a), sb = GeomScale(b);
  return sa < sb ? sa : sb;
}

// Spheres and ellipsoids touch anything in one point: no patch.
MJP_HD inline bool StrictlyConvex(ShapeType type) {
  return type == ShapeType::kSphere || type == ShapeType::kEllipsoid;
}

MJP_HD inline bool HasFlatFeatures(ShapeType type) {
  return type == ShapeType::kBox || type == ShapeType::kMesh || type == ShapeType::kCylinder;
}

// A frame axis of a flat-featured geom (box: its three axes; cylinder: its axis), oriented like
// MPR's normal, with the overlap of the geoms along it.
struct FaceAxis {
  const ConvexGeom* owner = nullptr;  // the geom whose axis it is (nullptr: none smaller)
  int k = 0;                          // which axis of the owner
  Vec3 axis = {0, 0, 0};
  double overlap = 0;
};

// Curved geoms (ellipsoid, cylinder) in the pair: EPA's polytope creeps over their surfaces, so
// MPR along the best normal refines instead (RefineAlongNormal).
MJP_HD inline bool HasCurvedSurface(const ConvexGeom& a, const ConvexGeom& b) {
  const auto curved = [](ShapeType t) {
    return t == ShapeType::kEllipsoid || t == ShapeType::kCylinder || t == ShapeType::kSphere ||
           t == ShapeType::kCapsule;
  };
  return curved(a.type) || curved(b.type);
}

// Step 3(b) for polytope pairs: whether MPR's final tetrahedron proves its depth minimal. The
// tetrahedron (interior point v0, portal v1 v2 v3) lies in M and holds the origin, so M holds
// every ball around the origin that the tetrahedron holds: the depth (the radius of the largest
// ball around the origin inside M) is at least the origin's distance to the tetrahedron's
// nearest face. The portal's plane is at `depth` (and supports M), so when each side face
// (v0, vi, vj) is at least that far too (less the tolerance), no exit is shallower than MPR's.
// A side face nearer than the portal leaves it open: near an edge of M both faces along it can
// have the origin's projection inside them, and the centre ray may leave through the farther one.
MJP_HD inline bool TetrahedronProvesDepth(const MprResult& r, double tolerance) {
  const Vec3 v0 = r.tetrahedron[0].v;
  const double room = r.depth - tolerance;
  for (int k = 1; k <= 3; ++k) {
    const Vec3 n = Cross(r.tetrahedron[k].v - v0, r.tetrahedron[k % 3 + 1].v - v0);
    // |n · v0| / |n| >= room, squared (both sides non-negative); a flat side proves nothing.
    const double offset = Dot(n, v0), nn = Dot(n, n);
    if (room > 0 && !(nn > 0 && offset * offset >= room * room * nn))
      return false;
  }
  return true;
}

// The same proof from a larger polytope, when the tetrahedron's is not enough (a side face
// (v0, vi, vj) is nearer than the portal whenever the origin projects closer than about the depth
// to the portal's edge vi vj, common on hulls of many small faces): the tetrahedron grown by the
// points of ∂M that MPR left behind (MprHistory). Those surround the final portal, so the faces
// that replace the side faces run from the portal's edges to points of ∂M beside it, nearly along
// ∂M, instead of down to v0. No support query is made. *hull receives the polytope (or nvert = 0
// when it could not be started), from which EPA goes on when it proves nothing.
MJP_HD inline bool HullProvesDepth(const MprResult& r, const MprHistory& history,
                                   epa::Polytope* hull, double tolerance) {
  if (!epa::Begin(hull, r.tetrahedron, tolerance)) {
    hull->nvert = 0;
    return false;
  }
  return epa::ProveDepth(hull, history.point, history.size(), r.depth, tolerance);
}

// A geom with face axes (FaceAxis): a box's three frame axes, a cylinder's axis.
MJP_HD inline bool HasFaceAxes(ShapeType type) {
  return type == ShapeType::kBox || type == ShapeType::kCylinder;
}

// Calls visit(owner, k, axis) for each face axis of the pair, in order: a box's three frame axes,
// a cylinder's axis (k = 2), each oriented along `toward` (its sign flipped when it points away);
// a's first.
template <typename Visit>
MJP_HD inline void ForEachFaceAxis(const ConvexGeom& a, const ConvexGeom& b, const Vec3& toward,
                                   Visit visit) {
  const ConvexGeom* geoms[2] = {&a, &b};
  for (const ConvexGeom* g : geoms) {
    if (!HasFaceAxes(g->type))
      continue;
    for (int k = g->type == ShapeType::kCylinder ? 2 : 0; k < 3; ++k) {
      Vec3 axis = Column(g->view.mat, k);
      if (Dot(axis, toward) < 0)
        axis = -axis;
      visit(g, k, axis);
    }
  }
}

// Step 3(b): true when no frame axis of a flat-featured geom shows a shallower exit than MPR's,
// the origin projects inside MPR's final portal, and, for a pair of polytopes, MPR's final
// tetrahedron (or, with `history`, its hull with MPR's other points) proves the depth. *smallest
// receives the axis of least overlap below MPR's depth, if any; *hull (given with `history`) the
// polytope of a hull proof that was tried (nvert = 0 when none was).
MJP_HD inline bool PortalIsMinimal(const ConvexGeom& a, const ConvexGeom& b, const MprResult& r,
                                   double tolerance, FaceAxis* smallest,
                                   const MprHistory* history = nullptr,
                                   epa::Polytope* hull = nullptr) {
  const bool flat = HasFlatFeatures(a.type) || HasFlatFeatures(b.type);
  bool minimal = !(flat && r.barycentric_min < -1e-9);
  if (hull != nullptr)
    hull->nvert = 0;
  if (minimal && !HasCurvedSurface(a, b) && r.has_tetrahedron &&
      !TetrahedronProvesDepth(r, tolerance)) {
    minimal =
        history != nullptr && hull != nullptr && HullProvesDepth(r, *history, hull, tolerance);
  }
  ForEachFaceAxis(a, b, r.normal, [&](const ConvexGeom* g, int k, const Vec3& axis) {
    const double overlap = OverlapAlong(a, b, axis);
    if (overlap < r.depth - tolerance) {
      minimal = false;
      if (smallest->owner == nullptr || overlap < smallest->overlap)
        *smallest = {g, k, axis, overlap};
    }
  });
  return minimal;
}

// The face shortcut (step 0 and step 3(b)): the contact is that of the axis's box face or
// cylinder cap (not a mesh: its frame axes are not face normals), exactly, when q, the other
// geom's deepest point towards the face, lies
//   - overlapping (depth o > 0): at least o inside the owner from each of its faces (a box's six,
//     a cylinder's side and caps). Then the ball of radius o around q lies in the owner, so M
//     holds the ball of radius o around the origin: depth >= o, and the overlap along the axis
//     says depth <= o. (Over the face is not enough: a corner under a cap near its rim leaves
//     M sooner through the side.)
//   - separated (o <= 0): over the face. q's distance to the owner is then its height above the
//     face, and the axis separates by that much.
// False otherwise.
MJP_HD inline bool FaceContact(const ConvexGeom& a, const ConvexGeom& b, const FaceAxis& f,
                               ConvexHit* hit) {
  if (f.owner == nullptr || f.owner->type == ShapeType::kMesh)
    return false;
  const bool owner_a = f.owner == &a;
  const ConvexGeom& other = owner_a ? b : a;
  // The other geom's deepest point towards the owner's face, in the owner's frame.
  const Vec3 q = SupportPoint(other.type, other.view, owner_a ? -f.axis : f.axis);
  const Vec3 local = RotateT(f.owner->view.mat, q - Load3(f.owner->view.pos));
  const double* size = f.owner->view.size;
  const double c[3] = {local.x, local.y, local.z};
  // Required room from the side faces (and, overlapping, from the far face).
  const double room = f.overlap > 0 ? f.overlap : 0;
  if (f.owner->type == ShapeType::kCylinder) {
    const double radial = size[0] - room;
    if (!(radial >= 0 && c[0] * c[0] + c[1] * c[1] <= radial * radial))
      return false;
  } else {
    for (int j = 0; j < 3; ++j) {
      if (j != f.k && !(std::fabs(c[j]) <= size[j] - room))
        return false;
    }
  }
  // Along the axis, overlapping: inside, and at least o from the opposite face (cap) as well.
  // (Separated, q lies beyond the face by the gap: the overlap along the axis says so.)
  const double half = f.owner->type == ShapeType::kCylinder ? size[1] : size[f.k];
  if (f.overlap > 0 && !(std::fabs(c[f.k]) <= half && half + std::fabs(c[f.k]) >= room))
    return false;
  *hit = owner_a ? ConvexHit{-f.overlap, f.axis, q + f.axis * f.overlap, q}
                 : ConvexHit{-f.overlap, f.axis, q, q - f.axis * f.overlap};
  return true;
}

// Rounding allowance of a gap compared through GapDrift (or of an overlap against a bound of it,
// FaceFirst): the gaps come from support values of magnitude up to |p| + ρ per geom, each exact
// to a few ulps.
MJP_HD inline double GapRounding(const ConvexGeom& a, const ConvexGeom& b) {
  const double* pa = a.view.pos;
  const double* pb = b.view.pos;
  const double size = std::fabs(pa[0]) + std::fabs(pa[1]) + std::fabs(pa[2]) + std::fabs(pb[0]) +
                      std::fabs(pb[1]) + std::fabs(pb[2]) + GeomScale(a) + GeomScale(b);
  return 1e-12 * size;
}

// A lower bound of h_g(n) = max over g of n·x for unit n, with no support query: a mesh holds the
// ball of its inner radius about its frame origin (HullShape; 0 when unknown, the origin still
// inside), so h_g(n) >= n·c + ρ; other shapes give their exact closed form (SupportExtent).
MJP_HD inline double SupportAtLeast(const ConvexGeom& g, const Vec3& n) {
  if (g.type != ShapeType::kMesh)
    return SupportExtent(g.type, g.view, n);
  const double inner = g.view.mesh != nullptr && g.view.mesh->shape != nullptr
                           ? g.view.mesh->shape->inner_radius
                           : 0;
  return Dot(Load3(g.view.pos), n) + inner;
}

// The face axis of least overlap (the first of equals), every overlap measured; owner nullptr
// when the pair has no box or cylinder.
MJP_HD inline FaceAxis LeastOverlapFaceAxis(const ConvexGeom& a, const ConvexGeom& b) {
  FaceAxis best;
  ForEachFaceAxis(a, b, Load3(b.view.pos) - Load3(a.view.pos),
                  [&](const ConvexGeom* g, int k, const Vec3& axis) {
                    const double overlap = OverlapAlong(a, b, axis);
                    if (best.owner == nullptr || overlap < best.overlap)
                      best = {g, k, axis, overlap};
                  });
  return best;
}

// The same axis, measuring fewer overlaps (for a pair with a mesh): a mesh's overlap along an axis
// takes a support query, so each axis first gets a lower bound (SupportAtLeast); the axis of least
// bound is measured, then, in order, each other axis whose bound does not exceed the least overlap
// so far by more than the rounding of both. A skipped axis overlaps by more than the least, so the
// first least overlap is the full scan's (a mesh leaning on a wall: the wall's long axes overlap by
// about their half-lengths, one query instead of three).
MJP_HD inline FaceAxis LeastOverlapFaceAxisBounded(const ConvexGeom& a, const ConvexGeom& b) {
  constexpr int kMaxAxes = 6;  // two boxes' frame axes: room for any pair, none dropped
  FaceAxis axes[kMaxAxes];
  double at_least[kMaxAxes];
  int count = 0, first = -1;
  ForEachFaceAxis(a, b, Load3(b.view.pos) - Load3(a.view.pos),
                  [&](const ConvexGeom* g, int k, const Vec3& axis) {
                    at_least[count] = SupportAtLeast(a, axis) + SupportAtLeast(b, -axis);
                    axes[count] = {g, k, axis, 0};
                    if (first < 0 || at_least[count] < at_least[first])
                      first = count;
                    ++count;
                  });
  if (count == 0)
    return FaceAxis();
  FaceAxis best = axes[first];
  best.overlap = OverlapAlong(a, b, best.axis);
  const double rounding = GapRounding(a, b);
  int chosen = first;
  for (int i = 0; i < count; ++i) {
    if (i == first || at_least[i] > best.overlap + rounding)
      continue;
    const double overlap = OverlapAlong(a, b, axes[i].axis);
    if (overlap < best.overlap || (overlap == best.overlap && i < chosen)) {
      best = axes[i];
      best.overlap = overlap;
      chosen = i;
    }
  }
  return best;
}

// Face first's verdict along face axis `best` (owner nullptr: none): 0 when the pair is apart
// beyond the margin along it, 1 (*hit) for a shallow contact (at most kDeepContact of the smaller
// scale) whose other geom's deepest point lies over that face (FaceContact), else -1 (undecided).
MJP_HD inline int FaceVerdict(const ConvexGeom& a, const ConvexGeom& b, const FaceAxis& best,
                              double margin, ConvexHit* hit) {
  if (best.owner == nullptr)
    return -1;
  if (best.overlap < -margin)
    return 0;
  if (best.overlap > kDeepContact * SmallerScale(a, b))
    return -1;
  return FaceContact(a, b, best, hit) ? 1 : -1;
}

// Step 0, face first, for pairs with a box or cylinder: of the box's three axes (the cylinder's
// axis), each oriented towards the other geom's side, the one of least overlap, and its verdict
// (FaceVerdict). Returns 1 (*hit), 0 (no contact) or -1 (undecided).
MJP_HD inline int FaceFirst(const ConvexGeom& a, const ConvexGeom& b, double margin,
                            ConvexHit* hit) {
  // No face axis in the pair: the scan would find none (mesh–mesh, smooth–mesh calls).
  if (!HasFaceAxes(a.type) && !HasFaceAxes(b.type))
    return -1;
  const bool mesh = a.type == ShapeType::kMesh || b.type == ShapeType::kMesh;
  const FaceAxis best = mesh ? LeastOverlapFaceAxisBounded(a, b) : LeastOverlapFaceAxis(a, b);
  return FaceVerdict(a, b, best, margin, hit);
}

// Rounds of MPR along the best normal so far (RefineAlongNormal): until a round gains less than
// the tolerance, at most this many. Each round removes a fixed share of the slant, slowly on a
// rim against a rim (about 0.4 of it left per round on one resting cylinder–cylinder pose, which
// six rounds left 2.5e-6 × size off). Rare: at ccd_tolerance 1e-6, none of 1,357 along-normal calls
// on 8,192 resting cylinder–cylinder poses ran more than four.
constexpr int kNormalRounds = 12;

// MPR again with its ray along `normal` (MprPenetration's `ray`), at least twice and up to
// kNormalRounds times, each round starting from the last round's normal, while a round gains
// more than the tolerance on the one before; keeps the shallowest converged answer, starting
// from `best`. Along the minimal direction the ray leaves M where M's normal is that direction,
// so each round removes most of the remaining slant (the error shrinks with depth × curvature).
MJP_HD inline MprResult RefineAlongNormal(const ConvexGeom& a, const ConvexGeom& b,
                                          const ConvexSettings& s, MprResult best, Vec3 normal,
                                          ConvexCounters* counters) {
  double previous = best.depth;
  for (int round = 0; round < kNormalRounds; ++round) {
    ++counters->mpr;
    // v0 just behind the origin: a thousandth of the depth so far stays inside M unless the
    // true depth is a thousand times shallower.
    const MprResult r =
        MprPenetration(a, b, s.max_iterations, s.tolerance, &normal, 1e-3 * best.depth);
    if (!(r.hit && r.converged))
      break;
    const double gain = previous - r.depth;
    previous = r.depth;
    if (r.depth < best.depth) {
      best = r;
      best.has_tetrahedron = false;
    }
    if (round >= 1 && !(gain > s.tolerance))
      break;
    normal = r.normal;
  }
  return best;
}

// Step 3's refinement along the best normal. Cylinder–box: MPR along a normal settles in a local
// minimum of the overlap now and then (a box edge on the rim where a vertex on the side is
// shallower, or the reverse), so the direction comes from the exact search over the overlap's
// patches instead (cylinder_box_exit.h: the least overlap, when below the answer's depth plus the
// tolerance), and one MPR run along it gives the contact; counted as `shallower_exit` when that
// exit is shallower than the answer by more than the tolerance. Other curved pairs, or no such
// direction: RefineAlongNormal from `start`.
MJP_HD inline MprResult AlongBestNormal(const ConvexGeom& a, const ConvexGeom& b,
                                        const ConvexSettings& s, const MprResult& answer,
                                        const Vec3& start, ConvexCounters* counters) {
  const bool cylinder_a = a.type == ShapeType::kCylinder && b.type == ShapeType::kBox;
  const bool cylinder_b = b.type == ShapeType::kCylinder && a.type == ShapeType::kBox;
  if (cylinder_a || cylinder_b) {
    const ShallowerExit exit = CylinderBoxShallowerExit(cylinder_a ? a : b, cylinder_a ? b : a,
                                                        answer.depth + s.tolerance);
    if (exit.found) {
      // The search's normal points from the cylinder to the box.
      Vec3 normal = cylinder_a ? exit.normal : -exit.normal;
      ++counters->mpr;
      const MprResult r =
          MprPenetration(a, b, s.max_iterations, s.tolerance, &normal, 1e-3 * exit.overlap);
      if (r.hit && r.converged) {
        counters->shallower_exit += r.depth < answer.depth - s.tolerance;
        MprResult out = r;
        out.has_tetrahedron = false;
        return out;
      }
    }
  }
  return RefineAlongNormal(a, b, s, answer, start, counters);
}

MJP_HD inline ConvexHit HitOf(double depth, const Vec3& normal, const Vec3& on_a,
                              const Vec3& on_b) {
  return {-depth, normal, on_a, on_b};
}

// A converged contact as MPR's result (to continue refining it along its normal).
MJP_HD inline MprResult MprOf(const ConvexHit& h) {
  MprResult r;
  r.hit = r.converged = true;
  r.depth = -h.dist;
  r.normal = h.normal;
  r.on_a = h.on_a;
  r.on_b = h.on_b;
  return r;
}

// EPA's contact. Unconverged, its face depth is only a lower bound: the overlap along its normal
// (one support call) is the depth that separating along that normal really needs.
MJP_HD inline ConvexHit EpaHit(const ConvexGeom& a, const ConvexGeom& b, const EpaResult& e) {
  const double depth = e.converged ? e.depth : OverlapAlong(a, b, e.normal);
  return HitOf(depth, e.normal, e.on_a, e.on_b);
}

// Spheres and capsules are a core (point, segment) swept by a radius.
MJP_HD inline bool Rounded(ShapeType type) {
  return type == ShapeType::kSphere || type == ShapeType::kCapsule;
}

// p lies strictly inside ellipsoid e: |E⁻¹ Rᵀ (p − c)| < 1.
MJP_HD inline bool InsideEllipsoid(const ConvexGeom& e, const Vec3& p) {
  const Vec3 l = RotateT(e.view.mat, p - Load3(e.view.pos));
  const double* size = e.view.size;
  const Vec3 q = {l.x / size[0], l.y / size[1], l.z / size[2]};
  return Dot(q, q) < 1;
}

// Step 0: the rounded geoms' cores by GJK (cutoff margin + radii). Returns 1 with *hit when the
// cores stay apart (dist = core distance − radii), 0 when nothing is within the margin, and -1
// when they touch or overlap or GJK did not meet its tolerance (the full solvers decide).
MJP_HD inline int SolveCore(const ConvexGeom& a, const ConvexGeom& b, const ConvexSettings& s,
                            double margin, ConvexHit* hit, ConvexCounters* counters) {
  // Each rounded geom shrinks to its core (radius 0); the other keeps its shape.
  const double ra = Rounded(a.type) ? a.view.size[0] : 0;
  const double rb = Rounded(b.type) ? b.view.size[0] : 0;
  const double core_a_size[3] = {0, a.view.size[1], a.view.size[2]};
  const double core_b_size[3] = {0, b.view.size[1], b.view.size[2]};
  ConvexGeom core_a = a, core_b = b;
  if (ra > 0)
    core_a.view.size = core_a_size;
  if (rb > 0)
    core_b.view.size = core_b_size;
  ++counters->core;
  // A sphere against an ellipsoid (Newton handed the pair over as deep): the sphere's centre
  // and the ellipsoid are strictly convex, so with the centre outside their distance has one
  // minimum over directions, which Newton finds in a few steps where GJK crawls along the curved
  // surface. The centre inside: the cores overlap, the full solvers decide.
  const bool sphere_a = a.type == ShapeType::kSphere && b.type == ShapeType::kEllipsoid;
  const bool sphere_b = b.type == ShapeType::kSphere && a.type == ShapeType::kEllipsoid;
  if (sphere_a || sphere_b) {
    if (InsideEllipsoid(sphere_a ? b : a, Load3((sphere_a ? a : b).view.pos)))
      return -1;
    const SmoothResult r =
        SmoothDistance(core_a, core_b, s.max_iterations, s.tolerance, margin + ra + rb);
    if (r.status == SmoothStatus::kBeyond)
      return 0;
    if (r.status == SmoothStatus::kContact) {
      if (!(r.dist > 1e-9 * (GeomScale(a) + GeomScale(b))))
        return -1;  // touching cores: no reliable direction
      const double dist = r.dist - ra - rb;
      if (dist > margin)
        return 0;
      *hit = {dist, r.normal, r.on_a + r.normal * ra, r.on_b - r.normal * rb};
      return 1;
    }
  }
  const GjkResult g = GjkDistance(core_a, core_b, s.max_iterations, s.tolerance, margin + ra + rb);
  if (g.status == GjkStatus::kBeyondCutoff)
    return 0;
  if (g.status != GjkStatus::kSeparated || !g.converged)
    return -1;  // stalled short of the tolerance (curved shapes, numerical floor): not trusted
  const Vec3 gap = g.on_b - g.on_a;
  const double length = std::sqrt(Dot(gap, gap));
  // A core touching the other geom has no reliable direction: the full solvers decide.
  if (!(length > 1e-9 * (GeomScale(a) + GeomScale(b))))
    return -1;
  const double dist = length - ra - rb;
  if (dist > margin)
    return 0;
  const Vec3 n = gap * (1 / length);
  *hit = {dist, n, g.on_a + n * ra, g.on_b - n * rb};
  return 1;
}

// True when GJK's separated answer is a touch within rounding: closest points less than 1e-12 of
// the geoms' scales apart. That is also where a run stalls with the origin on its simplex's
// plane, overlapping geoms included (its bracket then starts at 0, no proof of separation).
MJP_HD inline bool GjkTouching(const ConvexGeom& a, const ConvexGeom& b, const GjkResult& g) {
  const Vec3 gap = g.on_b - g.on_a;
  return !(std::sqrt(Dot(gap, gap)) > 1e-12 * (GeomScale(a) + GeomScale(b)));
}

// Step 1: GJK with cutoff = margin. 1 with *hit when the geoms are apart by at most the margin;
// 0 when farther; -1 when they overlap or touch (no reliable direction: the penetration solvers
// decide). *g receives GJK's result (its enclosing simplex can seed EPA).
// "Farther" needs a proof: a converged run's distance, or an unconverged run's lower bound. A run
// that stalled (GJK zig-zagging on a flat face of a curved pair's Minkowski difference) with the
// margin inside its bracket [lower, distance] may be within the margin: it answers a contact at
// dist = margin, inside the bracket like any stalled distance, rather than dropping it.
MJP_HD inline int GjkWithinMargin(const ConvexGeom& a, const ConvexGeom& b, const ConvexSettings& s,
                                  double margin, ConvexHit* hit, GjkResult* g,
                                  const Vec3* start = nullptr, const GjkSimplex* seed = nullptr) {
  *g = GjkDistance(a, b, s.max_iterations, s.tolerance, margin, start, seed);
  if (g->status == GjkStatus::kBeyondCutoff)
    return 0;
  if (g->status != GjkStatus::kSeparated)
    return -1;
  // Touching within rounding: no proof of separation, whatever the margin.
  if (GjkTouching(a, b, *g))
    return -1;
  const Vec3 gap = g->on_b - g->on_a;
  const double length = std::sqrt(Dot(gap, gap));
  if (g->distance > margin && (g->converged || g->lower > margin))
    return 0;
  const double dist = g->distance > margin ? margin : g->distance;
  *hit = {dist, gap * (1 / length), g->on_a, g->on_b};
  return 1;
}

// Steps 0 (cores) to 3 of the header: Solve's general solvers, after the face and Newton.
MJP_HD inline bool SolveGeneral(const ConvexGeom& a, const ConvexGeom& b, const ConvexSettings& s,
                                double margin, ConvexHit* hit, ConvexCounters* counters,
                                Vec3* separating) {
  const int it = s.max_iterations;
  if (s.algorithm == CcdAlgorithm::kAuto && (Rounded(a.type) || Rounded(b.type))) {
    const int core = SolveCore(a, b, s, margin, hit, counters);
    if (core >= 0)
      return core == 1;
  }
  GjkResult g;  // step 1's GJK, when it ran: its enclosing simplex can seed EPA later
  bool gjk_ran = false;
  // One polytope for every EPA run and step 3(b)'s hull proof (which EPA then goes on from).
  epa::Polytope poly;
  const auto epa_from = [&](const MinkowskiVertex start[4]) {
    return epa::Begin(&poly, start, s.tolerance) ? EpaPenetration(a, b, &poly, it, s.tolerance)
                                                 : EpaResult();
  };
  // ccd = auto proves overlap with MPR first and asks GJK for the distance only when MPR finds
  // the geoms apart: an overlapping pair (most pairs with a margin in a settled scene) then
  // pays no GJK run up to its enclosing simplex. The answers are step 1's either way: GJK's
  // contact when apart within the margin, MPR's when overlapping.
  const bool gjk_after_mpr = s.algorithm == CcdAlgorithm::kAuto && margin > 0;
  const bool gjk_first =
      s.algorithm == CcdAlgorithm::kGjk || (s.algorithm == CcdAlgorithm::kMpr && margin > 0);
  if (gjk_first) {
    ++counters->gjk;
    gjk_ran = true;
    const int within = convex::GjkWithinMargin(a, b, s, margin, hit, &g);
    if (within >= 0)
      return within == 1;
    // A converged EPA answers; an unconverged one goes on with MPR below, which keeps the
    // shallower of the two.
    if (s.algorithm == CcdAlgorithm::kGjk && g.status == GjkStatus::kOverlap &&
        (g.simplex.n == 4 ||
         epa::RaiseToTetrahedron(a, b, g.simplex.p, &g.simplex.n, s.tolerance))) {
      ++counters->epa;
      const EpaResult e = epa_from(g.simplex.p);
      if (e.ok && e.converged) {
        *hit = EpaHit(a, b, e);
        return true;
      }
    }
  }

  ++counters->mpr;
  // Polytope pairs under auto keep MPR's other points for step 3(b)'s hull proof.
  const bool polytopes = s.algorithm == CcdAlgorithm::kAuto && !convex::HasCurvedSurface(a, b);
  MprHistory history;
  // Polytope pairs under auto start from a guess of the normal (mpr_start.h): fewer refinement
  // rounds, and a ray nearer the minimal normal (`ccd="mpr"` keeps the centre ray).
  MprStart guess;
  const bool guessed = polytopes && PolytopeMprStart(a, b, &guess);
  const MprResult r = MprPenetration(a, b, it, s.tolerance, nullptr, 0,
                                     polytopes ? &history : nullptr, guessed ? &guess : nullptr);
  counters->seeded += r.seeded;
  if (!r.hit) {
    if (separating != nullptr)
      *separating = r.separating;
    if (gjk_after_mpr) {  // apart: within the margin? (GJK starts from MPR's last points)
      ++counters->gjk;
      GjkSimplex seed;
      seed.n = r.n_apart;
      for (int i = 0; i < r.n_apart; ++i)
        seed.p[i] = r.apart[i];
      return convex::GjkWithinMargin(a, b, s, margin, hit, &g, &r.separating, &seed) == 1;
    }
    return false;
  }
  bool refine = s.algorithm == CcdAlgorithm::kGjk;
  convex::FaceAxis smallest;
  poly.nvert = 0;  // no hull proof tried yet
  if (s.algorithm == CcdAlgorithm::kAuto) {
    if (!r.converged) {
      refine = true;
      ++counters->epa_unconverged;
    } else if (r.depth > kDeepContact * convex::SmallerScale(a, b)) {
      refine = true;
      ++counters->epa_deep;
    } else if (PortalIsMinimal(a, b, r, s.tolerance, &smallest, polytopes ? &history : nullptr,
                               &poly)) {
      counters->hull_proof += poly.nvert > 0;
    } else {
      if (convex::FaceContact(a, b, smallest, hit)) {
        ++counters->face;
        return true;
      }
      if (convex::HasCurvedSurface(a, b)) {
        ++counters->along_normal;
        const Vec3 start = smallest.owner != nullptr ? smallest.axis : r.normal;
        const MprResult n = convex::AlongBestNormal(a, b, s, r, start, counters);
        *hit = HitOf(n.depth, n.normal, n.on_a, n.on_b);
        return true;
      }
      refine = true;
      ++counters->epa_not_minimal;
    }
  }
  if (refine) {
    // Polytope pairs: EPA straight from step 3(b)'s hull or MPR's tetrahedron, when it
    // converges from there.
    if (polytopes && r.has_tetrahedron && !gjk_ran) {
      ++counters->epa;
      const EpaResult e =
          poly.nvert > 0 ? EpaPenetration(a, b, &poly, it, s.tolerance) : epa_from(r.tetrahedron);
      if (e.ok && e.converged) {
        *hit = EpaHit(a, b, e);
        return true;
      }
    }
    // EPA from GJK's enclosing simplex (a few GJK steps on overlapping geoms); MPR's tetrahedron
    // only when GJK ends on a smaller simplex (MPR's interior point is the centre of M for
    // symmetric pairs, which makes EPA's faces through it degenerate).
    if (!(gjk_ran && g.status == GjkStatus::kOverlap)) {
      ++counters->gjk;
      g = GjkDistance(a, b, it, s.tolerance, 1e300);
    }
    const MinkowskiVertex* start = nullptr;
    if (g.status == GjkStatus::kOverlap && g.simplex.n == 4) {
      start = g.simplex.p;
    } else if (r.has_tetrahedron) {
      start = r.tetrahedron;
    } else if (g.status == GjkStatus::kOverlap &&
               epa::RaiseToTetrahedron(a, b, g.simplex.p, &g.simplex.n, s.tolerance)) {
      start = g.simplex.p;  // the origin on GJK's segment or triangle (mirror-symmetric pairs)
    }
    ConvexHit answer = HitOf(r.depth, r.normal, r.on_a, r.on_b);
    if (start != nullptr) {
      ++counters->epa;
      const EpaResult e = epa_from(start);
      if (e.ok) {
        const ConvexHit refined = EpaHit(a, b, e);
        if (e.converged || refined.dist > -r.depth)
          answer = refined;
      }
    }
    if (s.algorithm == CcdAlgorithm::kAuto && convex::HasCurvedSurface(a, b)) {
      // EPA's polytope creeps over curved surfaces (and MPR's deep ray is slanted): MPR along
      // the answer's normal polishes it, keeping the shallower.
      ++counters->along_normal;
      const MprResult polished =
          convex::AlongBestNormal(a, b, s, convex::MprOf(answer), answer.normal, counters);
      answer = HitOf(polished.depth, polished.normal, polished.on_a, polished.on_b);
    }
    *hit = answer;
    return true;
  }
  *hit = HitOf(r.depth, r.normal, r.on_a, r.on_b);
  return true;
}

// One contact of a and b within margin (the hand-off in the header); false when none.
// On a miss that MPR proved with a support query, *separating (when given) receives that
// query's direction; otherwise it is left alone.
MJP_HD inline bool Solve(const ConvexGeom& a, const ConvexGeom& b, const ConvexSettings& s,
                         double margin, ConvexHit* hit, ConvexCounters* counters,
                         Vec3* separating = nullptr) {
  if (s.algorithm == CcdAlgorithm::kAuto) {
    const int face = convex::FaceFirst(a, b, margin, hit);
    if (face >= 0) {
      counters->face += face;
      return face == 1;
    }
  }
  const bool smooth_a = IsSmoothConvex(a.type), smooth_b = IsSmoothConvex(b.type);
  // Capsules and cylinders only against ellipsoids: against a sphere the cores' GJK (a point and
  // a segment) is exact in a few steps, and sphere–cylinder is analytic.
  const bool ellipsoid_capsule =
      (a.type == ShapeType::kEllipsoid && smooth::SweptSegment(b.type)) ||
      (smooth::SweptSegment(a.type) && b.type == ShapeType::kEllipsoid);
  const bool ellipsoid_mesh = (a.type == ShapeType::kEllipsoid && b.type == ShapeType::kMesh) ||
                              (a.type == ShapeType::kMesh && b.type == ShapeType::kEllipsoid);
  const bool newton = (smooth_a && smooth_b) || (smooth_a && b.type == ShapeType::kBox) ||
                      (a.type == ShapeType::kBox && smooth_b) || ellipsoid_capsule ||
                      ellipsoid_mesh;
  if (!(s.algorithm == CcdAlgorithm::kAuto && newton))
    return convex::SolveGeneral(a, b, s, margin, hit, counters, separating);
  ++counters->newton;
  const SmoothResult r = ellipsoid_mesh
                             ? SmoothMeshDistance(a, b, s.max_iterations, s.tolerance, margin)
                             : SmoothDistance(a, b, s.max_iterations, s.tolerance, margin);
  // Apart beyond the margin: Newton's normal separates (the overlap along it is below −margin),
  // the caller's hint for the next call as MPR's missing query is.
  if (r.status == SmoothStatus::kBeyond ||
      (r.status == SmoothStatus::kContact && r.dist > margin)) {
    if (separating != nullptr)
      *separating = r.normal;
    return false;
  }
  if (r.status == SmoothStatus::kContact) {
    *hit = {r.dist, r.normal, r.on_a, r.on_b};
    return true;
  }
  const bool found = convex::SolveGeneral(a, b, s, margin, hit, counters, separating);
  if (r.status != SmoothStatus::kUncertified)
    return found;
  // Newton's local minimum, deeper than it can certify, is still the overlap along its normal:
  // it stands where the general solvers answer deeper (or not at all).
  ++counters->uncertified;
  if (!found || hit->dist < r.dist)
    *hit = {r.dist, r.normal, r.on_a, r.on_b};
  return true;
}

// Row-major rotation by `angle` about unit `axis` (Rodrigues' formula).
MJP_HD inline void AxisRotation(const Vec3& axis, double angle, double r[9]) {
  const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
  const double x = axis.x, y = axis.y, z = axis.z;
  r[0] = c + t * x * x;
  r[1] = t * x * y - s * z;
  r[2] = t * x * z + s * y;
  r[3] = t * x * y + s * z;
  r[4] = c + t * y * y;
  r[5] = t * y * z - s * x;
  r[6] = t * x * z - s * y;
  r[7] = t * y * z + s * x;
  r[8] = c + t * z * z;
}

}  // namespace convex

// Contacts of convex geoms a (geom 1) and b (geom 2) with dist <= margin, written to out (at most
// `capacity`, and at most kMaxConvexContacts). Returns the count. A non-finite pose gives no
// contact and counts bad_pose.
// What a caller keeps per pair between calls (temporal coherence): the unit axis that separated
// the pair at its last call (zero: none), and each mesh's last support vertex (hull-local id; -1:
// none), where the next check along the axis starts its climbs instead of a field lookup.
// Once a check along the axis proved a gap (> margin + tolerance, so positive; 0: none), also
// that gap and both geoms as they were then, from which later calls bound the gap without support
// queries (GapDrift).
struct KeptGeom {
  double pos[3] = {}, mat[9] = {}, size[3] = {};
  double scale = 0;  // GeomScale
};
struct SeparationHint {
  Vec3 axis = {0, 0, 0};
  int vertex_a = -1, vertex_b = -1;
  double gap = 0;
  KeptGeom geom_a, geom_b;
};

namespace convex {

// How far geom g's support h(n) = n·p + max over the geom's local points x of (Rᵀn)·x can have
// moved along unit n since it was as kept in `then` (KeepGeom): by the translation,
// |n·Δp|, and by the turn, at most ρ·|ΔRᵀn| with ρ ≥ |x| the geom's scale (GeomScale; for a mesh
// MuJoCo's rbound, the norm of its bounding box's farthest corner), widened by 1e-6 for the
// float vertices' rounding. Both geoms' drifts together bound how much the gap along n can have
// shrunk. No support query: a few dozen flops. A geom whose sizes or scale changed since (a model
// edited between steps) may have moved any distance: infinity.
MJP_HD inline double GapDrift(const ConvexGeom& g, const KeptGeom& then, const Vec3& n) {
  const double scale = GeomScale(g);
  const double* size = g.view.size;
  if (size[0] != then.size[0] || size[1] != then.size[1] || size[2] != then.size[2] ||
      scale != then.scale)
    return INFINITY;
  const double* p = g.view.pos;
  const double* r = g.view.mat;
  const double* r0 = then.mat;
  const double shift =
      n.x * (p[0] - then.pos[0]) + n.y * (p[1] - then.pos[1]) + n.z * (p[2] - then.pos[2]);
  Vec3 turn;  // (R − R0)ᵀ n
  turn.x = (r[0] - r0[0]) * n.x + (r[3] - r0[3]) * n.y + (r[6] - r0[6]) * n.z;
  turn.y = (r[1] - r0[1]) * n.x + (r[4] - r0[4]) * n.y + (r[7] - r0[7]) * n.z;
  turn.z = (r[2] - r0[2]) * n.x + (r[5] - r0[5]) * n.y + (r[8] - r0[8]) * n.z;
  return std::fabs(shift) + scale * (1 + 1e-6) * std::sqrt(Dot(turn, turn));
}

// Geom g as GapDrift compares it later.
MJP_HD inline KeptGeom KeepGeom(const ConvexGeom& g) {
  KeptGeom kept;
  for (int i = 0; i < 3; ++i) {
    kept.pos[i] = g.view.pos[i];
    kept.size[i] = g.view.size[i];
  }
  for (int i = 0; i < 9; ++i)
    kept.mat[i] = g.view.mat[i];
  kept.scale = GeomScale(g);
  return kept;
}

// Makes the next support query of `mesh` along world direction `dir` climb from hull vertex
// `vertex` (the query then finds its direction "near" its last one). Only where the climb is
// exact: a graph, and a field (if any) that refines. A vertex out of range is ignored.
MJP_HD inline void ClimbNextFrom(const MeshView* mesh, const double* mat, const Vec3& dir,
                                 int vertex) {
  if (mesh == nullptr || !mesh->warm_start || mesh->graph == nullptr || vertex < 0 ||
      vertex >= mesh->graph[0] || (mesh->field != nullptr && !mesh->field_refine))
    return;
  mesh->hint = vertex;
  mesh->hint_dir = RotateT(mat, dir);
}

}  // namespace convex

MJP_HD inline int CollideConvex(const ConvexGeom& a, const ConvexGeom& b, const ConvexSettings& s,
                                double margin, Contact* out, int capacity, ConvexCounters* counters,
                                SeparationHint* coherence = nullptr) {
  if (!FinitePose(a.view) || !FinitePose(b.view)) {
    ++counters->bad_pose;
    return 0;
  }
  if (capacity < 1)
    return 0;

  // Temporal coherence (the caller keeps one axis per pair between calls): geoms that stayed
  // apart along the axis that separated them last time are still apart, proven by two support
  // queries. The gap must exceed the margin by the solver tolerance, so the answer (no contact)
  // is the one the solvers give: the hint changes the cost, never the result. A mesh's query
  // climbs from its vertex of the last call (an exact maximum like the field's, so the same gap).
  const MeshView* mesh_a = a.view.mesh;
  const MeshView* mesh_b = b.view.mesh;
  if (coherence != nullptr) {
    const Vec3 n = coherence->axis;
    // The gap the axis proved, less how far the geoms can have moved it since: still beyond the
    // margin and the tolerance (and the rounding of the gaps compared), the check below would
    // pass too, and so the solvers' answer is no contact.
    if (coherence->gap > 0) {
      const double least_gap = coherence->gap - convex::GapDrift(a, coherence->geom_a, n) -
                               convex::GapDrift(b, coherence->geom_b, n);
      if (least_gap > margin + s.tolerance + convex::GapRounding(a, b)) {
        ++counters->axis_bound;
        return 0;
      }
    }
    if (n.x != 0 || n.y != 0 || n.z != 0) {
      // The check's support queries must not move the meshes' warm starts (ties among hull
      // vertices would then resolve differently in the solve below).
      const int hint_a = mesh_a != nullptr ? mesh_a->hint : -1;
      const int hint_b = mesh_b != nullptr ? mesh_b->hint : -1;
      const Vec3 dir_a = mesh_a != nullptr ? mesh_a->hint_dir : Vec3{0, 0, 0};
      const Vec3 dir_b = mesh_b != nullptr ? mesh_b->hint_dir : Vec3{0, 0, 0};
      convex::ClimbNextFrom(mesh_a, a.view.mat, n, coherence->vertex_a);
      convex::ClimbNextFrom(mesh_b, b.view.mat, -n, coherence->vertex_b);
      const double gap = -OverlapAlong(a, b, n);
      if (gap > margin + s.tolerance) {
        ++counters->axis_hint;
        coherence->vertex_a = mesh_a != nullptr ? mesh_a->hint : -1;
        coherence->vertex_b = mesh_b != nullptr ? mesh_b->hint : -1;
        coherence->gap = gap;
        coherence->geom_a = convex::KeepGeom(a);
        coherence->geom_b = convex::KeepGeom(b);
        return 0;
      }
      if (mesh_a != nullptr) {
        mesh_a->hint = hint_a;
        mesh_a->hint_dir = dir_a;
      }
      if (mesh_b != nullptr) {
        mesh_b->hint = hint_b;
        mesh_b->hint_dir = dir_b;
      }
    }
  }
  ConvexHit first;
  Vec3 miss = {0, 0, 0};
  const bool touching = convex::Solve(a, b, s, margin, &first, counters, &miss);
  if (coherence != nullptr) {
    const double length = std::sqrt(Dot(miss, miss));
    coherence->axis =
        !touching && length > 0 && length < 1e300 ? miss * (1 / length) : Vec3{0, 0, 0};
    coherence->gap = 0;  // the next check along the new axis measures its gap
    coherence->vertex_a = mesh_a != nullptr ? mesh_a->hint : -1;
    coherence->vertex_b = mesh_b != nullptr ? mesh_b->hint : -1;
  }
  if (!touching)
    return 0;
  out[0] = {first.dist, (first.on_a + first.on_b) * 0.5, first.normal, {0, 0, 0}};
  if (!s.multicontact || capacity < 2 || convex::StrictlyConvex(a.type) ||
      convex::StrictlyConvex(b.type))
    return 1;
  if (s.manifold == ManifoldMethod::kClip) {
    Contact patch[kMaxConvexContacts];
    const int cap = capacity < kMaxConvexContacts ? capacity : kMaxConvexContacts;
    const int n = ClipManifold(a, b, out[0], margin, patch, cap);
    if (n < 2)
      return 1;
    ++counters->clipped;
    for (int i = 0; i < n; ++i)
      out[i] = patch[i];
    return n;
  }
  const bool rotate_a = convex::HasFlatFeatures(a.type);
  if (!(rotate_a || convex::HasFlatFeatures(b.type)))
    return 1;

  // Perturbed re-solves: rotate the flat geom about the first contact point. Candidates gather
  // locally; the caller's buffer may be smaller.
  Contact found[kMaxConvexContacts];
  found[0] = out[0];
  int count = 1;
  const ConvexGeom& moving = rotate_a ? a : b;
  const Vec3 pivot = found[0].pos;
  const double scale_a = GeomScale(a), scale_b = GeomScale(b);
  const double duplicate = 1e-3 * (scale_a < scale_b ? scale_a : scale_b);
  Vec3 t1, t2;
  TangentFrame(first.normal, &t1, &t2);
  // Re-solves only need the new deepest feature, not a refined minimal depth: MPR alone (with GJK
  // first for contacts within a margin).
  ConvexSettings perturbed = s;
  perturbed.algorithm = CcdAlgorithm::kMpr;
  const double perturbed_margin = first.dist < 0 ? 0.0 : margin;
  // No point of A lies farther along the first normal n than A's support, nor a point of B
  // nearer than B's, so no contact of the patch is deeper than the overlap along n. A re-solve
  // whose witness points left the geoms (the origin's projection outside MPR's final portal
  // extrapolates them: a thin hull deep in a wall gave 0.094 where the overlap is 0.020) is
  // dropped.
  const double deepest = -OverlapAlong(a, b, first.normal) - duplicate;
  for (int k = 0; k < 4; ++k) {
    const Vec3 axis = (k < 2 ? t1 : t2) * (k % 2 == 0 ? 1.0 : -1.0);
    double rot[9], pos[3], mat[9];
    convex::AxisRotation(axis, kPerturbAngle, rot);
    Store3(pos, pivot + Rotate(rot, Load3(moving.view.pos) - pivot));
    for (int row = 0; row < 3; ++row) {
      for (int col = 0; col < 3; ++col) {
        mat[3 * row + col] = rot[3 * row] * moving.view.mat[col] +
                             rot[3 * row + 1] * moving.view.mat[3 + col] +
                             rot[3 * row + 2] * moving.view.mat[6 + col];
      }
    }
    ConvexGeom rotated = moving;
    rotated.view.pos = pos;
    rotated.view.mat = mat;
    ++counters->perturbed;
    ConvexHit hit;
    if (!convex::Solve(rotate_a ? rotated : a, rotate_a ? b : rotated, perturbed, perturbed_margin,
                       &hit, counters))
      continue;
    // Back to the unperturbed pose: the rotated geom's witness turns back about the pivot.
    Vec3& moved = rotate_a ? hit.on_a : hit.on_b;
    moved = pivot + RotateT(rot, moved - pivot);
    const double dist = Dot(first.normal, hit.on_b - hit.on_a);
    if (!(dist <= margin) || dist < deepest)
      continue;
    // The point: halfway along the first normal from the witness on the geom that did not move
    // (the moved geom's witness carries an offset of order depth × kPerturbAngle).
    const Vec3 p =
        rotate_a ? hit.on_b - first.normal * (0.5 * dist) : hit.on_a + first.normal * (0.5 * dist);
    bool duplicate_point = false;
    for (int i = 0; i < count; ++i) {
      const Vec3 d = p - found[i].pos;
      duplicate_point |= Dot(d, d) < duplicate * duplicate;
    }
    if (!duplicate_point)
      found[count++] = {dist, p, first.normal, {0, 0, 0}};
  }

  // More than fit: the perturbed points span the patch, so the first (central) one goes first.
  const int skip = count > capacity ? 1 : 0;
  const int kept = count - skip < capacity ? count - skip : capacity;
  for (int i = 0; i < kept; ++i)
    out[i] = found[i + skip];
  return kept;
}

}  // namespace mjportal::collision
