// What a pair kernel reports, and how a geom is handed to it.
#pragma once

#include <cstdint>

#include "collision/vec3.h"

namespace mjportal::collision {

// One contact between geom 1 and geom 2, in world coordinates.
//   dist     signed surface distance (negative: penetration); only dist <= margin is reported
//   pos      midpoint between the two surfaces
//   normal   unit normal pointing from geom 1 towards geom 2
//   tangent  first tangent direction, or zero to let the caller pick one
// Its layout (ten doubles in this order) matches MuJoCo's mjPreContact; the plugin checks that.
struct Contact {
  double dist;
  Vec3 pos;
  Vec3 normal;
  Vec3 tangent;
};

// A mesh's hull as MPR's start on polytope pairs sees it (collision/mpr_start.h, MeshShape): its
// half-extents along the mesh frame's axes, and the radius of a ball about the frame origin
// inside the hull (0: unknown; MPR's interior point then stays at the centres).
struct HullShape {
  Vec3 half_extent = {0, 0, 0};
  double inner_radius = 0;
};

// A convex mesh as MuJoCo compiles it, borrowed.
//   vert       vertex positions in the mesh (geom) frame, float[nvert][3]
//   nvert      vertex count
//   graph      MuJoCo's hull graph (mesh_graph at the mesh's address), or nullptr when the model
//              has none: {numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
//              edge_localid[...] (-1 terminated per vertex), ...}
//   hillclimb  support queries climb the graph (MuJoCo: graph present and nvert >= 10); else they
//              scan every vertex
//   rbound     radius of the geom's bounding sphere
//   field      fast mode only: the mesh's support field (support_field.h), res × res entries, or
//              nullptr to use the exact search above; field_refine climbs to the exact vertex
//   warm_start fast mode only: support queries climb the hull graph from `hint`, the hull-local
//              id of the last support vertex (-1: none) when there is one. Queries of
//              one solve have nearby directions, so climbing from it beats a fresh lookup; it
//              is a start point only, every answer is still the exact extreme vertex
struct MeshView {
  const float* vert;
  int nvert;
  const int* graph;
  bool hillclimb;
  double rbound;
  const double* hull_vert = nullptr;  // optional: hull vertices in hull-local order, widened
  const std::int32_t* field = nullptr;
  int field_res = 0;
  bool field_refine = true;
  bool warm_start = false;
  mutable int hint = -1;
  mutable Vec3 hint_dir = {0, 0, 0};  // the local direction `hint` answered
  // With a field: a query climbs from `hint` when its direction turned by less than the warm
  // cone since, cos² of the cone's half-angle (support_field::WarmConeCos2; 0.75: 30°).
  double warm_cos2 = 0.75;
  // Vertex count of the mesh's largest face (MuJoCo's merged coplanar polygons; fast mode): the
  // contact patch's feature walk (contact_manifold.h) gathers up to that many hull vertices,
  // at least kMaxFeaturePoints and at most kMaxWalkPoints, so that a face lying flat comes whole.
  int feature_walk = 16;
  // Fast mode, polytope pairs: the hull's shape that starts MPR (mpr_start.h), or nullptr (MPR
  // starts from the centres as usual). Held by pointer: MeshView is built per call, and its
  // size and layout move the support queries' code generation.
  const HullShape* shape = nullptr;
  // Optional (fast mode, meshes with a face of more than kMaxFeaturePoints vertices): per hull
  // vertex (hull-local id) the offset in this array of its largest such face, or -1; a face is
  // its vertex count, the hull-local ids of its largest inscribed triangle's corners, then its
  // vertices' hull-local ids in boundary order (contact_manifold.h gathers a face lying flat from
  // here instead of walking the hull graph across it; plane_convex.h stands it on the triangle).
  const std::int32_t* faces = nullptr;
};

// A geom as the kernels see it: borrowed pointers into caller-owned arrays.
//   pos   world position of the geom frame, double[3]
//   mat   world rotation, row-major double[9] (columns are the local axes)
//   size  type-specific sizes, double[3] (sphere: r; capsule/cylinder: r, half-length; box:
//         half-extents; ellipsoid: semi-axes)
//   mesh  the mesh of a mesh geom, else nullptr
struct GeomView {
  const double* pos;
  const double* mat;
  const double* size;
  const MeshView* mesh = nullptr;
};

// Shape types, numbered as MuJoCo numbers its geom types (the plugin asserts the match).
enum class ShapeType : int {
  kPlane = 0,
  kHeightField = 1,
  kSphere = 2,
  kCapsule = 3,
  kEllipsoid = 4,
  kCylinder = 5,
  kBox = 6,
  kMesh = 7,
  kSdf = 8,
};
constexpr int kShapeTypeCount = 9;

}  // namespace mjportal::collision
