// Support queries on convex meshes: the support field (grid lookup, with and without hill-climb
// refinement) against MuJoCo-style answers (scan of every vertex; hull climb from a fixed seed),
// on hulls of about 20, 200 and 2,000 points compiled by MuJoCo; plus the field's build time.
// Prints the memory per field and, after the run, the unrefined field's worst error.
//
//   build/bin/mjportal-bench-support [google benchmark flags]
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "collision/support_field.h"
#include "plugin/mesh_view.h"

namespace {

using mjportal::collision::DotVertex;
using mjportal::collision::MeshView;
using mjportal::collision::Vec3;

constexpr int kRes = 180;

struct MeshCase {
  ~MeshCase() { mj_deleteModel(model); }
  int points = 0;
  mjModel* model = nullptr;
  MeshView mesh{};
  std::vector<int32_t> field;
  std::vector<Vec3> dirs;
};

// A model with one mesh geom: `points` random points near an ellipsoid surface (MuJoCo keeps
// their convex hull).
mjModel* CloudModel(int points) {
  std::mt19937_64 rng(points);
  std::normal_distribution<double> gauss;
  std::ostringstream xml;
  xml << "<mujoco><asset><mesh name=\"cloud\" vertex=\"";
  for (int i = 0; i < points; ++i) {
    Vec3 p = {gauss(rng), gauss(rng), gauss(rng)};
    mjportal::collision::Normalize(p);
    xml << 0.3 * p.x << " " << 0.2 * p.y << " " << 0.1 * p.z << " ";
  }
  xml << "\"/></asset><worldbody><geom type=\"mesh\" mesh=\"cloud\"/></worldbody></mujoco>";
  char error[512] = "";
  mjSpec* spec = mj_parseXMLString(xml.str().c_str(), nullptr, error, sizeof(error));
  mjModel* m = spec ? mj_compile(spec, nullptr) : nullptr;
  if (spec)
    mj_deleteSpec(spec);
  return m;
}

MeshCase* Case(int points) {
  static std::vector<std::unique_ptr<MeshCase>> cases;
  for (const auto& c : cases) {
    if (c->points == points)
      return c.get();
  }
  auto owned = std::make_unique<MeshCase>();
  MeshCase* c = owned.get();
  c->points = points;
  c->model = CloudModel(points);
  c->mesh = mjportal::MeshViewOf(c->model, 0);
  c->field.resize(kRes * kRes);
  mjportal::collision::BuildSupportField(c->mesh, kRes, c->field.data());
  std::mt19937_64 rng(1);
  std::normal_distribution<double> gauss;
  for (int i = 0; i < 1024; ++i)
    c->dirs.push_back({gauss(rng), gauss(rng), gauss(rng)});
  cases.push_back(std::move(owned));
  return c;
}

void Build(benchmark::State& state) {
  MeshCase* c = Case(static_cast<int>(state.range(0)));
  std::vector<int32_t> field(kRes * kRes);
  for (auto _ : state) {
    mjportal::collision::BuildSupportField(c->mesh, kRes, field.data());
    benchmark::DoNotOptimize(field.data());
  }
  state.counters["hull_vertices"] = c->mesh.nvert;
  state.counters["field_KiB"] = kRes * kRes * sizeof(int32_t) / 1024.0;
}

void Field(benchmark::State& state, bool refine) {
  MeshCase* c = Case(static_cast<int>(state.range(0)));
  const mjportal::collision::SupportFieldView view = {kRes, c->field.data()};
  size_t i = 0;
  for (auto _ : state) {
    int ties = 0;
    benchmark::DoNotOptimize(
        mjportal::collision::QuerySupportField(view, c->mesh, c->dirs[i], refine, &ties));
    i = (i + 1) & 1023;
  }
}

void Scan(benchmark::State& state) {
  MeshCase* c = Case(static_cast<int>(state.range(0)));
  const MeshView scan = {c->mesh.vert, c->mesh.nvert, nullptr, false, c->mesh.rbound};
  size_t i = 0;
  for (auto _ : state) {
    int hull = 0;
    benchmark::DoNotOptimize(mjportal::collision::MeshSupportVertex(scan, c->dirs[i], &hull));
    i = (i + 1) & 1023;
  }
}

void Climb(benchmark::State& state) {
  MeshCase* c = Case(static_cast<int>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    int hull = 0;
    benchmark::DoNotOptimize(mjportal::collision::MeshSupportVertex(c->mesh, c->dirs[i], &hull));
    i = (i + 1) & 1023;
  }
}

BENCHMARK(Build)->Arg(20)->Arg(200)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Field, refined, true)->Arg(20)->Arg(200)->Arg(2000);
BENCHMARK_CAPTURE(Field, unrefined, false)->Arg(20)->Arg(200)->Arg(2000);
BENCHMARK(Scan)->Arg(20)->Arg(200)->Arg(2000);
BENCHMARK(Climb)->Arg(20)->Arg(200)->Arg(2000);

// Worst shortfall of the unrefined field along unit directions, relative to rbound.
void ReportUnrefinedError() {
  std::printf("\n%-8s %10s %18s %18s\n", "points", "hull", "max error/rbound", "wrong vertex %");
  for (int points : {20, 200, 2000}) {
    MeshCase* c = Case(points);
    const mjportal::collision::SupportFieldView view = {kRes, c->field.data()};
    double worst = 0;
    int wrong = 0;
    std::mt19937_64 rng(5);
    std::normal_distribution<double> gauss;
    constexpr int kSamples = 20000;
    for (int k = 0; k < kSamples; ++k) {
      Vec3 d = {gauss(rng), gauss(rng), gauss(rng)};
      mjportal::collision::Normalize(d);
      int ties = 0;
      const int exact = mjportal::collision::QuerySupportField(view, c->mesh, d, true, &ties);
      const int rough = mjportal::collision::QuerySupportField(view, c->mesh, d, false, &ties);
      const double gap = DotVertex(d, c->mesh.vert, exact) - DotVertex(d, c->mesh.vert, rough);
      worst = std::fmax(worst, gap / c->mesh.rbound);
      wrong += exact != rough;
    }
    std::printf("%-8d %10d %18.3g %18.2f\n", points, c->mesh.nvert, worst,
                100.0 * wrong / kSamples);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  ReportUnrefinedError();
  benchmark::Shutdown();
  return 0;
}
