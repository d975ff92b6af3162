// Fast mode per call: MuJoCo's original table entry against mjportal's (fast mode: MPR with
// GJK/EPA hand-off, perturbation contacts, support fields), in one process, on the same seeded
// resting poses (pairs within 1% of their reach of touching, as in a settled pile; about half in
// contact), single thread, fast mode without temporal coherence (coherence="false": every call
// solved from scratch, as stock's are). Prints Google Benchmark's table,
// then per pair type the fastest repetition's ns/call, contacts/call and contacts/s of both, the
// time ratio, and how often each solver path ran.
//
//   build/bin/mjportal-bench-fast [--benchmark_repetitions=N] [google benchmark flags]
//
// With --benchmark_filter, only the pair types it selects are set up.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>
#include <regex.h>

#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "plugin/mjportal.h"
#include "tools/bench/bench_common.h"
#include "tools/common/pair_scene.h"
#include "tools/common/plugin_api.h"

namespace mjportal::tools {
namespace {

constexpr int kCases = 1024;

struct FastPair {
  int type1, type2;
  int mesh_vertices;        // points per mesh cloud (0: no mesh)
  bool on_surface = false;  // every cloud point a hull vertex (PairScene::Create)
};

// The general convex pairs (where stock runs its GJK/EPA), two analytic references, plane–mesh
// (MuJoCo's answer, its support vertex from the field), the primitives against meshes of 200 cloud
// points (hulls of 89 vertices), meshes of about 20, 200 and 2,000 cloud points (hulls of 19, 89
// and 247 vertices), and hulls of 200 and 2,000 vertices.
constexpr FastPair kPairs[] = {
    {mjGEOM_SPHERE, mjGEOM_ELLIPSOID, 0},   {mjGEOM_CAPSULE, mjGEOM_CYLINDER, 0},
    {mjGEOM_CAPSULE, mjGEOM_ELLIPSOID, 0},  {mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID, 0},
    {mjGEOM_ELLIPSOID, mjGEOM_CYLINDER, 0}, {mjGEOM_CYLINDER, mjGEOM_CYLINDER, 0},
    {mjGEOM_CYLINDER, mjGEOM_BOX, 0},       {mjGEOM_ELLIPSOID, mjGEOM_BOX, 0},
    {mjGEOM_PLANE, mjGEOM_BOX, 0},          {mjGEOM_BOX, mjGEOM_BOX, 0},
    {mjGEOM_PLANE, mjGEOM_MESH, 2000},      {mjGEOM_CAPSULE, mjGEOM_MESH, 200},
    {mjGEOM_ELLIPSOID, mjGEOM_MESH, 200},   {mjGEOM_CYLINDER, mjGEOM_MESH, 200},
    {mjGEOM_BOX, mjGEOM_MESH, 200},         {mjGEOM_MESH, mjGEOM_MESH, 20},
    {mjGEOM_MESH, mjGEOM_MESH, 200},        {mjGEOM_MESH, mjGEOM_MESH, 2000},
    {mjGEOM_MESH, mjGEOM_MESH, 200, true},  {mjGEOM_MESH, mjGEOM_MESH, 2000, true},
};

std::string PairName(const FastPair& p) {
  std::string name = std::string(GeomTypeName(p.type1)) + "-" + GeomTypeName(p.type2);
  if (p.mesh_vertices == 0)
    return name;
  return name + "/" + std::to_string(p.mesh_vertices) + (p.on_surface ? "hull" : "v");
}

}  // namespace
}  // namespace mjportal::tools

int main(int argc, char** argv) {
  using namespace mjportal::tools;
  std::string error;
  const PluginApi* api = LoadPluginApi(DefaultPluginPath(), &error);
  if (api == nullptr) {
    std::fprintf(stderr, "mjportal-bench-fast: %s\n", error.c_str());
    return 1;
  }

  // Only the pair types whose rows --benchmark_filter selects get a scene (their setup, a mesh
  // hull and its support field in two instances, dominates a filtered run, under callgrind most of
  // all). Every pair type when there is no filter, a negative one ("-..."), one that does not
  // compile (POSIX extended, as Google Benchmark reads it), or one that selects nothing here
  // (Google Benchmark then reports it).
  benchmark::Initialize(&argc, argv);
  const std::string filter = benchmark::GetBenchmarkFilter();
  std::vector<FastPair> pairs;
  regex_t selects;
  if (!filter.empty() && filter != "all" && filter[0] != '-' &&
      regcomp(&selects, filter.c_str(), REG_EXTENDED | REG_NOSUB) == 0) {
    for (const FastPair& p : kPairs) {
      const std::string stock = PairName(p) + "/stock", fast = PairName(p) + "/fast";
      if (regexec(&selects, stock.c_str(), 0, nullptr, 0) == 0 ||
          regexec(&selects, fast.c_str(), 0, nullptr, 0) == 0)
        pairs.push_back(p);
    }
    regfree(&selects);
  }
  if (pairs.empty())
    pairs.assign(std::begin(kPairs), std::end(kPairs));

  // Per pair type: a fast-mode scene (both entries run on it) and a twin with stats on, used once
  // to count the solver paths. Both without temporal coherence: the loop revisits each case at an
  // unchanged pose, where an axis kept at the last visit would end every apart case for free (a
  // cache hit that stock has no counterpart of); bench-scene's replays, whose poses move from step
  // to step as in a simulation, keep the axes as fast mode does by default.
  const PluginConfig stateless = {{"mode", "fast"}, {"coherence", "false"}};
  PluginConfig counting = stateless;
  counting["stats"] = "true";
  std::vector<PairScene> scenes, counted;
  for (const FastPair& p : pairs) {
    scenes.push_back(PairScene::Create(p.type1, p.type2, kCases, stateless, &error, p.mesh_vertices,
                                       p.on_surface));
    counted.push_back(PairScene::Create(p.type1, p.type2, kCases, counting, &error, p.mesh_vertices,
                                        p.on_surface));
    if (!scenes.back().ok() || !counted.back().ok()) {
      std::fprintf(stderr, "mjportal-bench-fast: %s\n", error.c_str());
      return 1;
    }
    scenes.back().RandomizeResting(20261202, api->originalCollision(p.type1, p.type2));
    counted.back().RandomizeResting(20261202, api->originalCollision(p.type1, p.type2));
  }
  for (size_t k = 0; k < scenes.size(); ++k) {
    const std::string name = PairName(pairs[k]);
    const int t1 = pairs[k].type1, t2 = pairs[k].type2;
    benchmark::RegisterBenchmark((name + "/stock").c_str(), CallEntry, &scenes[k],
                                 api->originalCollision(t1, t2));
    benchmark::RegisterBenchmark((name + "/fast").c_str(), CallEntry, &scenes[k],
                                 mjCOLLISIONFUNC[t1][t2]);
  }

  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);

  std::printf("\n%-22s %9s %9s %7s %8s %8s %11s %11s\n", "pair", "stock ns", "fast ns", "speedup",
              "con/call", "con/call", "Mcon/s", "Mcon/s");
  std::printf("%-22s %9s %9s %7s %8s %8s %11s %11s\n", "", "", "", "", "stock", "fast", "stock",
              "fast");
  for (const FastPair& p : pairs) {
    const std::string name = PairName(p);
    const double stock = reporter.Best(name + "/stock"), fast = reporter.Best(name + "/fast");
    const double cs = reporter.Contacts(name + "/stock"), cf = reporter.Contacts(name + "/fast");
    if (stock > 0 && fast > 0) {
      std::printf("%-22s %9.1f %9.1f %7.2f %8.2f %8.2f %11.2f %11.2f\n", name.c_str(), stock, fast,
                  stock / fast, cs, cf, 1e3 * cs / stock, 1e3 * cf / fast);
    }
  }

  // Solver paths: one pass over every case with counting on.
  std::printf("\nsolver paths per 1000 calls (fast mode)\n%-22s", "pair");
  for (int i = 0; i < MJPORTAL_SOLVER_COUNTERS; ++i) {
    const char* counter = api->solverCounterName(i);  // null past an older library's counters
    std::printf(" %9.9s", counter != nullptr ? counter : "-");
  }
  std::printf("\n");
  mjPreContact con[mjMAXCONPAIR];
  for (size_t k = 0; k < counted.size(); ++k) {
    PairScene& scene = counted[k];
    for (const PairCase& c : scene.cases()) {
      mjCOLLISIONFUNC[pairs[k].type1][pairs[k].type2](scene.model(), scene.data(), con, c.geom1,
                                                      c.geom2, c.margin);
    }
    long long counts[MJPORTAL_SOLVER_COUNTERS] = {};
    api->solverCounts(scene.model(), scene.data(), counts, MJPORTAL_SOLVER_COUNTERS);
    std::printf("%-22s", PairName(pairs[k]).c_str());
    for (long long n : counts)
      std::printf(" %9.1f", 1000.0 * static_cast<double>(n) / kCases);
    std::printf("\n");
  }
  benchmark::Shutdown();
  return 0;
}
