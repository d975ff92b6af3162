// Per-call cost of the narrowphase pairs mjportal answers itself: MuJoCo's original table entry
// against mjportal's installed table entry (compat mode: instance lookup + kernel), in one process,
// on the same seeded random poses (about half of them in contact); plus the kernel called alone
// (analytic pairs). The general convex pairs run compat's port of MuJoCo's native GJK/EPA.
// Prints Google Benchmark's table, then the fastest repetition of each and the ratio.
//
//   build/bin/mjportal-bench-pairs [--benchmark_repetitions=N] [google benchmark flags]
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "collision/pair_kernels.h"
#include "plugin/mesh_view.h"
#include "plugin/mjportal.h"
#include "tools/bench/bench_common.h"
#include "tools/common/pair_scene.h"
#include "tools/common/plugin_api.h"

namespace mjportal::tools {
namespace {

constexpr int kCases = 1024;
// Every pair type mjportal answers (collision/pair_kernels.h's list).
constexpr int kPairs[][2] = {
#define MJPORTAL_PAIR_TYPES(A, B, KERNEL) \
  {static_cast<int>(collision::ShapeType::A), static_cast<int>(collision::ShapeType::B)},
    MJPORTAL_PAIR_KERNELS(MJPORTAL_PAIR_TYPES)
#undef MJPORTAL_PAIR_TYPES
};

// Calls the kernel alone (no table entry, no instance lookup): the share of the dispatcher.
template <int Type1, int Type2>
void CallKernel(benchmark::State& state, const PairScene* scene) {
  using collision::ShapeType;
  collision::Contact con[collision::kMaxPairContacts];
  const std::vector<PairCase>& cases = scene->cases();
  const mjModel* m = scene->model();
  const mjData* d = scene->data();
  size_t i = 0;
  for (auto _ : state) {
    const PairCase& c = cases[i];
    collision::MeshView mesh2{};
    const collision::GeomView g1 = {d->geom_xpos + 3 * c.geom1, d->geom_xmat + 9 * c.geom1,
                                    m->geom_size + 3 * c.geom1};
    collision::GeomView g2 = {d->geom_xpos + 3 * c.geom2, d->geom_xmat + 9 * c.geom2,
                              m->geom_size + 3 * c.geom2};
    if constexpr (Type2 == mjGEOM_MESH) {  // every mesh pair has the mesh second
      mesh2 = MeshViewOf(m, c.geom2);
      g2.mesh = &mesh2;
    }
    benchmark::DoNotOptimize(
        collision::CollidePairOf<static_cast<ShapeType>(Type1), static_cast<ShapeType>(Type2)>(
            g1, g2, c.margin, con));
    benchmark::DoNotOptimize(con);
    i = (i + 1 == cases.size()) ? 0 : i + 1;
  }
}

using KernelBench = void (*)(benchmark::State&, const PairScene*);
constexpr KernelBench kKernels[] = {
#define MJPORTAL_KERNEL_BENCH(A, B, KERNEL) \
  &CallKernel<static_cast<int>(collision::ShapeType::A), static_cast<int>(collision::ShapeType::B)>,
    MJPORTAL_PAIR_KERNELS(MJPORTAL_KERNEL_BENCH)
#undef MJPORTAL_KERNEL_BENCH
};
static_assert(std::size(kKernels) == std::size(kPairs), "one kernel benchmark per pair");

// The general convex pairs (MuJoCo's mjc_Convex entries), answered by the native port in compat.
constexpr int kConvexPairs[][2] = {
    {mjGEOM_SPHERE, mjGEOM_ELLIPSOID},   {mjGEOM_SPHERE, mjGEOM_MESH},
    {mjGEOM_CAPSULE, mjGEOM_ELLIPSOID},  {mjGEOM_CAPSULE, mjGEOM_CYLINDER},
    {mjGEOM_CAPSULE, mjGEOM_MESH},       {mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID},
    {mjGEOM_ELLIPSOID, mjGEOM_CYLINDER}, {mjGEOM_ELLIPSOID, mjGEOM_BOX},
    {mjGEOM_ELLIPSOID, mjGEOM_MESH},     {mjGEOM_CYLINDER, mjGEOM_CYLINDER},
    {mjGEOM_CYLINDER, mjGEOM_BOX},       {mjGEOM_CYLINDER, mjGEOM_MESH},
    {mjGEOM_BOX, mjGEOM_MESH},           {mjGEOM_MESH, mjGEOM_MESH},
};

}  // namespace
}  // namespace mjportal::tools

int main(int argc, char** argv) {
  using namespace mjportal::tools;
  std::string error;
  const PluginApi* api = LoadPluginApi(DefaultPluginPath(), &error);
  if (api == nullptr) {
    std::fprintf(stderr, "mjportal-bench-pairs: %s\n", error.c_str());
    return 1;
  }

  // One scene per pair type; stock and mjportal registered side by side.
  std::vector<PairScene> scenes;
  std::vector<std::string> names;
  for (const auto& pair : kPairs) {
    scenes.push_back(PairScene::Create(pair[0], pair[1], kCases, {{"mode", "compat"}}, &error));
    if (!scenes.back().ok()) {
      std::fprintf(stderr, "mjportal-bench-pairs: %s\n", error.c_str());
      return 1;
    }
    scenes.back().Randomize(20261202);
  }
  const size_t analytic = scenes.size();
  for (const auto& pair : kConvexPairs) {
    scenes.push_back(PairScene::Create(pair[0], pair[1], kCases, {{"mode", "compat"}}, &error));
    if (!scenes.back().ok()) {
      std::fprintf(stderr, "mjportal-bench-pairs: %s\n", error.c_str());
      return 1;
    }
    scenes.back().Randomize(20261202);
  }
  for (size_t k = 0; k < scenes.size(); ++k) {
    const PairScene* scene = &scenes[k];
    const int t1 = scene->type1(), t2 = scene->type2();
    const std::string name = std::string(GeomTypeName(t1)) + "-" + GeomTypeName(t2);
    names.push_back(name);
    benchmark::RegisterBenchmark((name + "/stock").c_str(), CallEntry, scene,
                                 api->originalCollision(t1, t2));
    benchmark::RegisterBenchmark((name + "/mjportal").c_str(), CallEntry, scene,
                                 mjCOLLISIONFUNC[t1][t2]);
    if (k < analytic) {
      benchmark::RegisterBenchmark((name + "/kernel").c_str(), kKernels[k], scene);
    }
  }

  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);

  // Ratio table: fastest repetition of each.
  std::printf("\n%-18s %10s %12s %8s %14s\n", "pair", "stock ns", "mjportal ns", "ratio",
              "kernel-only ns");
  for (const std::string& name : names) {
    const double stock = reporter.Best(name + "/stock");
    const double ours = reporter.Best(name + "/mjportal");
    const double kernel = reporter.Best(name + "/kernel");
    if (stock > 0 && ours > 0) {
      if (kernel > 0) {
        std::printf("%-18s %10.2f %12.2f %8.3f %14.2f\n", name.c_str(), stock, ours, ours / stock,
                    kernel);
      } else {
        std::printf("%-18s %10.2f %12.2f %8.3f %14s\n", name.c_str(), stock, ours, ours / stock,
                    "-");
      }
    }
  }
  benchmark::Shutdown();
  return 0;
}
