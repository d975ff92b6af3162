#include "plugin/collision_table.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "batch/batch_engine.h"
#include "collision/native_ccd.h"
#include "collision/pair_kernels.h"
#include "plugin/distance_query.h"
#include "plugin/instance.h"
#include "plugin/mesh_view.h"
#include "plugin/routing.h"

namespace mjportal {
namespace {

static_assert(mjNGEOMTYPES == collision::kShapeTypeCount, "shape types must mirror mjtGeom");
static_assert(mjGEOM_PLANE == static_cast<int>(collision::ShapeType::kPlane) &&
                  mjGEOM_SPHERE == static_cast<int>(collision::ShapeType::kSphere) &&
                  mjGEOM_CAPSULE == static_cast<int>(collision::ShapeType::kCapsule) &&
                  mjGEOM_BOX == static_cast<int>(collision::ShapeType::kBox) &&
                  mjGEOM_MESH == static_cast<int>(collision::ShapeType::kMesh),
              "shape type numbers must match mjtGeom");
// Kernels write straight into MuJoCo's buffer: Contact has mjPreContact's exact layout (checked
// here), and the plugin is compiled with -fno-strict-aliasing so that the cast is well defined.
// Writing through a local array and copying instead costs a store-forwarding stall per contact.
static_assert(sizeof(collision::Contact) == sizeof(mjPreContact) &&
                  offsetof(collision::Contact, dist) == offsetof(mjPreContact, dist) &&
                  offsetof(collision::Contact, pos) == offsetof(mjPreContact, pos) &&
                  offsetof(collision::Contact, normal) == offsetof(mjPreContact, normal) &&
                  offsetof(collision::Contact, tangent) == offsetof(mjPreContact, tangent) &&
                  sizeof(collision::Vec3) == 3 * sizeof(mjtNum),
              "Contact must mirror mjPreContact");
inline collision::Contact* AsContacts(mjPreContact* con) {
  return reinterpret_cast<collision::Contact*>(con);
}

// Written once by InstallCollisionTable (load time); read-only on every call path.
mjfCollision original_table[mjNGEOMTYPES][mjNGEOMTYPES] = {};
bool installed = false;

// Fast mode's general convex pair: MPR / GJK / EPA with perturbation contacts
// (collision/convex_contact.h), meshes through their support fields. A distance query
// (mj_geomDistance) gets one contact, from a solve that leaves the pair's hint alone.
template <int Type1, int Type2>
int CollideConvexFast(const mjModel* m, mjData* d, InstanceState* state, mjPreContact* con, int g1,
                      int g2, mjtNum margin, bool distance_query = false) {
  const Config& config = state->config();
  if (config.stats) {
    state->CountCall(Type1, Type2, /*ours=*/true);
  }
  collision::MeshView mesh1{}, mesh2{};
  collision::ConvexGeom a = {static_cast<collision::ShapeType>(Type1),
                             {d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1, m->geom_size + 3 * g1}};
  collision::ConvexGeom b = {static_cast<collision::ShapeType>(Type2),
                             {d->geom_xpos + 3 * g2, d->geom_xmat + 9 * g2, m->geom_size + 3 * g2}};
  if constexpr (Type1 == mjGEOM_MESH) {
    mesh1 = state->FastMeshView(m, g1);
    a.view.mesh = &mesh1;
  }
  if constexpr (Type2 == mjGEOM_MESH) {
    mesh2 = state->FastMeshView(m, g2);
    b.view.mesh = &mesh2;
  }
  collision::ConvexSettings settings;
  settings.max_iterations = m->opt.ccd_iterations;
  settings.tolerance = m->opt.ccd_tolerance;
  settings.algorithm = config.ccd;
  settings.multicontact = config.multicontact && !distance_query;
  settings.manifold = config.manifold;
  collision::ConvexCounters counters;
  // MuJoCo reserves mj_maxContact contacts for this pair in its shared buffer (1 for spheres and
  // ellipsoids; 4 for mesh–mesh and mesh–box, 5 with a margin; 1 without multiccd).
  const int capacity = distance_query ? 1 : mj_maxContact(m, g1, g2, margin > 0);
  SeparationHints* hints = distance_query ? nullptr : state->hints();
  collision::SeparationHint* hint = hints != nullptr ? hints->Find(g1, g2) : nullptr;
  const int count =
      collision::CollideConvex(a, b, settings, margin, AsContacts(con), capacity, &counters, hint);
  if (counters.bad_pose != 0) {
    state->WarnBadPose(g1, g2);
  }
  if (config.stats) {
    state->AddSolverCounts(counters);
  }
  return count;
}

// Native solver scratch for this thread, grown to the model's ccd_iterations, vertex degree and
// polygon size (at least what boxes need: 3 and 4).
collision::NativeScratch NativeScratchFor(const mjModel* m) {
  thread_local std::vector<double> memory;
  const int iterations = m->opt.ccd_iterations;
  const int degree = m->nmeshdegmax > 3 ? static_cast<int>(m->nmeshdegmax) : 3;
  const int poly = m->npolygonmax > 4 ? static_cast<int>(m->npolygonmax) : 4;
  const size_t epa_words = (collision::NativeEpaScratchBytes(iterations) + 7) / 8;
  const size_t words = epa_words + (collision::NativePatchScratchBytes(degree, poly) + 7) / 8;
  if (memory.size() < words) {
    memory.resize(words);
  }
  collision::NativeScratch scratch;
  scratch.epa = collision::NativeEpaScratchIn(memory.data(), iterations);
  scratch.patch = collision::NativePatchScratchIn(memory.data() + epa_words, degree, poly);
  return scratch;
}

// Geom g (of type Type) as MuJoCo 3.12's native convex path reads it (mjc_initCCDObj), inflated
// by margin / 2 as that path does.
template <int Type>
collision::NativeShape NativeShapeOf(const mjModel* m, const mjData* d, int g, mjtNum margin) {
  collision::NativeShape shape =
      collision::MakeNativeShape(static_cast<collision::ShapeType>(Type), d->geom_xpos + 3 * g,
                                 d->geom_xmat + 9 * g, m->geom_size + 3 * g, margin);
  if constexpr (Type == mjGEOM_MESH) {
    shape.mesh = NativeMeshOf(m, g);
  }
  return shape;
}

// MuJoCo's warning for a native solve's warning code (none for kNativeWarnNone).
void WarnNative(int warning) {
  if (warning == collision::kNativeWarnOriginOnFace) {
    mju_warning("EPA: origin lies on affine hull of face");
  } else if (warning == collision::kNativeWarnOutOfFaces) {
    mju_warning("EPA: out of memory for faces on expanding polytope");
  }
}

// Compat's general convex pair: MuJoCo 3.12's native GJK/EPA collider reproduced
// (collision/native_ccd.h), or with nativeccd disabled its libccd MPR path (native_mpr.h).
template <int Type1, int Type2>
int CollideConvexCompat(const mjModel* m, mjData* d, InstanceState* state, mjPreContact* con,
                        int g1, int g2, mjtNum margin) {
  collision::NativeShape a = NativeShapeOf<Type1>(m, d, g1, margin);
  collision::NativeShape b = NativeShapeOf<Type2>(m, d, g2, margin);
  collision::NativeSettings settings;
  settings.iterations = m->opt.ccd_iterations;
  settings.tolerance = m->opt.ccd_tolerance;
  settings.multiccd = !(m->opt.disableflags & mjDSBL_MULTICCD);
  settings.nativeccd = !(m->opt.disableflags & mjDSBL_NATIVECCD);
  if (settings.iterations < 1) {
    return -1;
  }
  if (state->config().stats) {
    state->CountCall(Type1, Type2, /*ours=*/true);
  }
  collision::NativeOutcome outcome;
  const int count =
      collision::NativeConvex(a, b, settings, margin, m->geom_rbound[g1], m->geom_rbound[g2],
                              AsContacts(con), NativeScratchFor(m), &outcome);
  WarnNative(outcome.warning);
  if (outcome.lost_vertex) {
    mju_warning("mesh_support could not find support vertex");
  }
  return count;
}

// How the instance's mode answers (Type1, Type2): an analytic kernel, the convex solver, or
// MuJoCo's original.
template <int Type1, int Type2>
PairRoute RouteOf(Mode mode) {
  constexpr auto kType1 = static_cast<collision::ShapeType>(Type1);
  constexpr auto kType2 = static_cast<collision::ShapeType>(Type2);
  if constexpr (collision::HasPairKernel(kType1, kType2)) {
    return PairRoute::kKernel;
  }
  if constexpr (UsesConvexSolver(Type1, Type2)) {
    if (mode == Mode::kFast)
      return PairRoute::kConvex;
  }
  return PairRoute::kDelegated;
}

// Whether the analytic kernel for (Type1, Type2) takes a mesh (plane–mesh), which in fast mode
// finds its support vertex through the instance's support field: its calls need the instance.
template <int Type1, int Type2>
constexpr bool KernelTakesMesh() {
  return Type1 == mjGEOM_MESH || Type2 == mjGEOM_MESH;
}

// Geom g's mesh as the analytic kernels see it: MuJoCo's arrays, plus the support field in fast
// mode (state may be null: no instance, compat's view).
collision::MeshView KernelMeshView(const mjModel* m, const InstanceState* state, int g) {
  return state != nullptr && state->config().mode == Mode::kFast ? state->FastMeshView(m, g)
                                                                 : MeshViewOf(m, g);
}

// The analytic kernel's answer for (g1, g2): MuJoCo's bits in both modes; plane–mesh finds the
// same support vertex faster in fast mode (plane_convex.h).
template <int Type1, int Type2>
int AnalyticPair(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2, mjtNum margin,
                 const InstanceState* state = nullptr) {
  constexpr auto kType1 = static_cast<collision::ShapeType>(Type1);
  constexpr auto kType2 = static_cast<collision::ShapeType>(Type2);
  collision::MeshView mesh1{}, mesh2{};
  collision::GeomView geom1 = {d->geom_xpos + 3 * g1, d->geom_xmat + 9 * g1, m->geom_size + 3 * g1};
  collision::GeomView geom2 = {d->geom_xpos + 3 * g2, d->geom_xmat + 9 * g2, m->geom_size + 3 * g2};
  if constexpr (Type1 == mjGEOM_MESH) {
    mesh1 = KernelMeshView(m, state, g1);
    geom1.mesh = &mesh1;
  }
  if constexpr (Type2 == mjGEOM_MESH) {
    mesh2 = KernelMeshView(m, state, g2);
    geom2.mesh = &mesh2;
  }
  return collision::CollidePairOf<kType1, kType2>(geom1, geom2, margin, AsContacts(con));
}

// mjportal's answer for (g1, g2) in the instance's mode; -1 when the mode delegates the pair.
template <int Type1, int Type2>
int Ours(const mjModel* m, mjData* d, InstanceState* state, mjPreContact* con, int g1, int g2,
         mjtNum margin) {
  constexpr auto kType1 = static_cast<collision::ShapeType>(Type1);
  constexpr auto kType2 = static_cast<collision::ShapeType>(Type2);
  if constexpr (collision::HasPairKernel(kType1, kType2)) {
    if (state->config().stats) {
      state->CountCall(Type1, Type2, /*ours=*/true);
    }
    return AnalyticPair<Type1, Type2>(m, d, con, g1, g2, margin, state);
  }
  if constexpr (UsesConvexSolver(Type1, Type2)) {
    if (state->config().mode == Mode::kFast) {
      return CollideConvexFast<Type1, Type2>(m, d, state, con, g1, g2, margin);
    }
    return CollideConvexCompat<Type1, Type2>(m, d, state, con, g1, g2, margin);
  }
  return -1;
}

// Our answer, or MuJoCo's original where the mode delegates the pair at run time.
template <int Type1, int Type2>
int OursOrOriginal(const mjModel* m, mjData* d, InstanceState* state, mjPreContact* con, int g1,
                   int g2, mjtNum margin) {
  constexpr auto kType1 = static_cast<collision::ShapeType>(Type1);
  constexpr auto kType2 = static_cast<collision::ShapeType>(Type2);
  if constexpr (collision::HasPairKernel(kType1, kType2)) {
    return Ours<Type1, Type2>(m, d, state, con, g1, g2, margin);  // never delegates
  } else {
    const int count = Ours<Type1, Type2>(m, d, state, con, g1, g2, margin);
    if (count >= 0) {
      return count;
    }
    if (state->config().stats) {
      state->CountCall(Type1, Type2, /*ours=*/false);
    }
    return original_table[Type1][Type2](m, d, con, g1, g2, margin);
  }
}

// With a cache in play (the batched pass's, or the in-step device pass's on CUDA): its answer
// for these exact poses when it holds one, else ours. A call with a buffer of its own, outside
// the mjData's arena (mj_geomDistance's, a direct caller's: plugin/distance_query.h), never asks
// the cache, which holds the narrowphase's calls. Out of line, so that the common path of
// Dispatch stays a bare tail call.
template <int Type1, int Type2>
[[gnu::noinline]] int CachedOrOurs(const mjModel* m, mjData* d, InstanceState* state,
                                   mjPreContact* con, int g1, int g2, mjtNum margin) {
  if (!InNarrowphaseBuffer(d, con)) {
    return OursOrOriginal<Type1, Type2>(m, d, state, con, g1, g2, margin);
  }
  int count;
  const int in_step = state->config().device == Device::kCuda
                          ? InStepLookup(m, d, state, g1, g2, margin, con, &count)
                          : -1;
  PairCache& cache = state->cache();
  if (in_step == 1 ||
      (in_step < 0 && cache.active() && cache.Lookup(d, g1, g2, margin, con, &count))) {
    return count;
  }
  return OursOrOriginal<Type1, Type2>(m, d, state, con, g1, g2, margin);
}

// The dispatcher's path through the calling model's instance: a model without an mjportal
// instance goes straight to MuJoCo's original; with one, a pair the instance answers comes from
// the batched pass's cache when that holds it for these exact poses, else from our kernel; the
// rest goes to the original. Every path is a tail call.
template <int Type1, int Type2>
[[gnu::noinline]] int DispatchThroughInstance(const mjModel* m, mjData* d, mjPreContact* con,
                                              int g1, int g2, mjtNum margin) {
  InstanceState* state = FindInstance(m, d);
  if (state == nullptr) {
    return original_table[Type1][Type2](m, d, con, g1, g2, margin);
  }
  if (RouteOf<Type1, Type2>(state->config().mode) != PairRoute::kDelegated &&
      (state->config().device == Device::kCuda || state->cache().active())) {
    return CachedOrOurs<Type1, Type2>(m, d, state, con, g1, g2, margin);
  }
  return OursOrOriginal<Type1, Type2>(m, d, state, con, g1, g2, margin);
}

// A distance query (mj_geomDistance: distmax as the margin; plugin/distance_query.h). On a pair
// MuJoCo measures with mjc_ccd: in fast mode, fast mode's solvers with one contact (box–box too:
// its analytic kernel, like mjc_BoxBox, is made for margins of a contact's size); otherwise, with
// nativeccd on, the direct call's answer from compat's port of mjc_ccd (the geoms in table order,
// margin 0, one contact, distmax as the cutoff), its witness points rebuilt as mj_geomDistance's
// fromto, and with it off the pair's usual answer, as MuJoCo then calls the entry. Plane–mesh
// gets MuJoCo's answer in every mode: fast mode's three-point patch of a flat cap need not hold
// the lowest vertex.
template <int Type1, int Type2>
[[gnu::noinline]] int DistanceQuery(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2,
                                    mjtNum distmax) {
  if constexpr (!MeasuredByCcd(Type1, Type2)) {
    return AnalyticPair<Type1, Type2>(m, d, con, g1, g2, distmax);
  } else {
    InstanceState* state = FindInstance(m, d);
    if (state != nullptr && state->config().mode == Mode::kFast) {
      return CollideConvexFast<Type1, Type2>(m, d, state, con, g1, g2, distmax,
                                             /*distance_query=*/true);
    }
    if ((m->opt.disableflags & mjDSBL_NATIVECCD) || m->opt.ccd_iterations < 1) {
      return state != nullptr ? OursOrOriginal<Type1, Type2>(m, d, state, con, g1, g2, distmax)
                              : original_table[Type1][Type2](m, d, con, g1, g2, distmax);
    }
    if (state != nullptr && state->config().stats) {
      state->CountCall(Type1, Type2, /*ours=*/true);
    }
    collision::NativeShape a = NativeShapeOf<Type1>(m, d, g1, 0);
    collision::NativeShape b = NativeShapeOf<Type2>(m, d, g2, 0);
    collision::NativeStatus status;
    const double dist = collision::NativeCcd(m->opt.ccd_iterations, m->opt.ccd_tolerance, 1,
                                             distmax, &status, a, b, NativeScratchFor(m));
    WarnNative(status.warning);
    if (!(dist < distmax)) {
      return 0;  // mj_geomDistance then returns distmax
    }
    // Without witness points (EPA gave up) MuJoCo leaves fromto zero: pos and normal zero.
    const collision::Vec3 zero = {0, 0, 0};
    FromtoContact(status.nx > 0 ? status.x1[0] : zero, status.nx > 0 ? status.x2[0] : zero, dist,
                  con);
    return 1;
  }
}

// The dispatcher installed at [Type1][Type2]. It runs on every narrowphase call: an analytic
// pair without a mesh goes straight to its kernel while no live instance needs per-call state
// (plugin/entry_route.h), leaving the instance path out of line so that this one sets nothing
// up; everything else takes the instance path. A call from mj_geomDistance is a distance query
// (DistanceQuery) on the pairs where the narrowphase's answer is not the one mj_geomDistance
// gives without the dispatchers: the CCD-measured pairs, and plane–mesh in fast mode.
template <int Type1, int Type2>
int Dispatch(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2, mjtNum margin) {
  if constexpr (MeasuredByCcd(Type1, Type2) ||
                (collision::HasPairKernel(static_cast<collision::ShapeType>(Type1),
                                          static_cast<collision::ShapeType>(Type2)) &&
                 KernelTakesMesh<Type1, Type2>())) {
    if (CalledFromGeomDistance(__builtin_return_address(0), d, con)) [[unlikely]] {
      return DistanceQuery<Type1, Type2>(m, d, con, g1, g2, margin);
    }
  }
  if constexpr (collision::HasPairKernel(static_cast<collision::ShapeType>(Type1),
                                         static_cast<collision::ShapeType>(Type2)) &&
                !KernelTakesMesh<Type1, Type2>()) {
    if (AnalyticPairsDirect()) {
      return AnalyticPair<Type1, Type2>(m, d, con, g1, g2, margin);
    }
  }
  return DispatchThroughInstance<Type1, Type2>(m, d, con, g1, g2, margin);
}

// The batched pass's entry, per type pair: Ours without the cache.
using OursFn = int (*)(const mjModel*, mjData*, InstanceState*, mjPreContact*, int, int, mjtNum);
template <size_t... I>
constexpr std::array<OursFn, sizeof...(I)> MakeOurs(std::index_sequence<I...>) {
  return {&Ours<static_cast<int>(I) / mjNGEOMTYPES, static_cast<int>(I) % mjNGEOMTYPES>...};
}
constexpr auto kOurs = MakeOurs(std::make_index_sequence<mjNGEOMTYPES * mjNGEOMTYPES>());
using RouteFn = PairRoute (*)(Mode);
template <size_t... I>
constexpr std::array<RouteFn, sizeof...(I)> MakeRoutes(std::index_sequence<I...>) {
  return {&RouteOf<static_cast<int>(I) / mjNGEOMTYPES, static_cast<int>(I) % mjNGEOMTYPES>...};
}
constexpr auto kRoutes = MakeRoutes(std::make_index_sequence<mjNGEOMTYPES * mjNGEOMTYPES>());

// The table of dispatchers, one instantiation per type pair.
template <size_t... I>
constexpr std::array<mjfCollision, sizeof...(I)> MakeDispatchers(std::index_sequence<I...>) {
  return {&Dispatch<static_cast<int>(I) / mjNGEOMTYPES, static_cast<int>(I) % mjNGEOMTYPES>...};
}
constexpr auto kDispatchers =
    MakeDispatchers(std::make_index_sequence<mjNGEOMTYPES * mjNGEOMTYPES>());

}  // namespace

void InstallCollisionTable() {
  if (installed) {
    return;
  }
  std::memcpy(original_table, mjCOLLISIONFUNC, sizeof(original_table));
  geom_distance_code = FindGeomDistanceCode(original_table[mjGEOM_BOX][mjGEOM_BOX]);
  for (int i = 0; i < mjNGEOMTYPES; ++i) {
    for (int j = 0; j < mjNGEOMTYPES; ++j) {
      if (original_table[i][j] != nullptr) {
        mjCOLLISIONFUNC[i][j] = kDispatchers[i * mjNGEOMTYPES + j];
      }
    }
  }
  installed = true;
}

bool CollisionTableInstalled() {
  return installed;
}

PairRoute RoutePair(const mjModel* m, const InstanceState* state, int g1, int g2) {
  const int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  if (t1 > t2 || original_table[t1][t2] == nullptr) {
    return PairRoute::kDelegated;
  }
  return kRoutes[t1 * mjNGEOMTYPES + t2](state->config().mode);
}

int ComputeOurs(const mjModel* m, mjData* d, InstanceState* state, mjPreContact* con, int g1,
                int g2, mjtNum margin) {
  const int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  if (t1 > t2 || original_table[t1][t2] == nullptr) {
    return -1;
  }
  return kOurs[t1 * mjNGEOMTYPES + t2](m, d, state, con, g1, g2, margin);
}

mjfCollision OriginalCollision(int type1, int type2) {
  if (type1 < 0 || type2 < 0 || type1 >= mjNGEOMTYPES || type2 >= mjNGEOMTYPES) {
    return nullptr;
  }
  return installed ? original_table[type1][type2] : mjCOLLISIONFUNC[type1][type2];
}

}  // namespace mjportal
