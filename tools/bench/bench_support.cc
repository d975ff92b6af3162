// Support queries on convex meshes: the support field (grid lookup, with and without hill-climb
// refinement) against MuJoCo-style answers (scan of every vertex; hull climb from a fixed seed),
// on hulls of about 20, 200 and 2,000 points compiled by MuJoCo; plus the field's build time.
// Prints the memory per field and, after the run, the unrefined field's worst error: in distance
// (how far short of the true support plane its vertex lies) and in angle (how far the query
// direction is from the directions its vertex does answer).
//
//   build/bin/mjportal-bench-support [google benchmark flags]
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collision/support_field.h"
#include "plugin/mesh_view.h"
#include "tools/common/cloud_mesh.h"

namespace {

using mjportal::collision::DotVertex;
using mjportal::collision::MeshView;
using mjportal::collision::Vec3;

constexpr int kRes = 180;

struct MeshCase {
  int points = 0;
  mjportal::tools::ModelPtr model;
  MeshView mesh{};
  std::vector<int32_t> field;
  std::vector<Vec3> dirs;
};

MeshCase* Case(int points) {
  static std::vector<std::unique_ptr<MeshCase>> cases;
  for (const auto& c : cases) {
    if (c->points == points)
      return c.get();
  }
  auto owned = std::make_unique<MeshCase>();
  MeshCase* c = owned.get();
  c->points = points;
  std::string error;
  c->model = mjportal::tools::CloudMeshModel(points, &error);
  if (!c->model) {
    std::fprintf(stderr, "mesh of %d points: %s\n", points, error.c_str());
    std::exit(1);
  }
  c->mesh = mjportal::MeshViewOf(c->model.get(), 0);
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

// Angle (radians) from unit direction d to the normal cone of hull vertex `vertex` (a MuJoCo
// vertex index): the least turn of d after which `vertex` is a true support point. The cone is
// {x : x·(w − v) ≤ 0 for every hull-graph neighbour w} (a local maximum on a convex hull is
// global). Its nearest point to d lies inside the cone, on one of its facets (a plane through the
// apex), on one of its edges (a ray) or at the apex; the least distance s over the feasible
// candidates of the four kinds is sin of the angle.
double AngleToNormalCone(const MeshView& mesh, int vertex, const Vec3& d) {
  using mjportal::collision::Cross;
  using mjportal::collision::Dot;
  const int* graph = mesh.graph;
  const int numvert = graph[0];
  const int* edgeadr = graph + 2;
  const int* localid = graph + 2 + 2 * numvert;
  int local = 0;
  while (local < numvert && mjportal::collision::support_field::VertexOf(mesh, local) != vertex)
    ++local;
  if (local == numvert)
    return std::nan("");
  const Vec3 v = mjportal::collision::MeshPoint(mesh.vert, vertex);
  std::vector<Vec3> normals;  // unit normals of the cone's facets
  for (int e = edgeadr[local]; localid[e] >= 0; ++e) {
    Vec3 a = mjportal::collision::MeshPoint(
                 mesh.vert, mjportal::collision::support_field::VertexOf(mesh, localid[e])) -
             v;
    mjportal::collision::Normalize(a);
    normals.push_back(a);
  }
  const auto inside = [&](const Vec3& x) {
    for (const Vec3& a : normals) {
      if (Dot(a, x) > 1e-12)
        return false;
    }
    return true;
  };
  double least = 1;  // the apex
  const auto consider = [&](const Vec3& x) {
    if (inside(x)) {
      const Vec3 gap = d - x;
      least = std::fmin(least, std::sqrt(Dot(gap, gap)));
    }
  };
  consider(d);
  for (size_t i = 0; i < normals.size(); ++i) {
    consider(d - normals[i] * Dot(normals[i], d));
    for (size_t j = i + 1; j < normals.size(); ++j) {
      Vec3 edge = Cross(normals[i], normals[j]);
      if (Dot(edge, edge) < 1e-24)
        continue;
      mjportal::collision::Normalize(edge);
      const double along = Dot(edge, d);
      consider(edge * std::fabs(along) * (along < 0 ? -1.0 : 1.0));
    }
  }
  return std::asin(std::fmin(least, 1.0));
}

// Worst shortfall of the unrefined field along unit directions, relative to rbound, and its worst
// angle (degrees; 180² cells span 2° by 1°); and the share of patches certified whole (a query
// there answers from the entry alone).
void ReportUnrefinedError() {
  std::printf("\n%-8s %10s %18s %16s %18s %14s\n", "points", "hull", "max error/rbound",
              "max angle deg", "wrong vertex %", "whole patch %");
  for (int points : {20, 200, 2000}) {
    MeshCase* c = Case(points);
    const mjportal::collision::SupportFieldView view = {kRes, c->field.data()};
    double worst = 0;
    double worst_angle = 0;
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
      if (exact != rough)
        worst_angle = std::fmax(worst_angle, AngleToNormalCone(c->mesh, rough, d));
    }
    int whole = 0;
    for (int32_t entry : c->field)
      whole += (entry & mjportal::collision::support_field::kWholePatch) != 0;
    std::printf("%-8d %10d %18.3g %16.3g %18.2f %14.1f\n", points, c->mesh.nvert, worst,
                worst_angle * 180 / mjportal::collision::support_field::kPi,
                100.0 * wrong / kSamples, 100.0 * whole / c->field.size());
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
