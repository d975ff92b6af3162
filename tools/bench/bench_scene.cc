// Narrowphase cost on a real trajectory: the calls MuJoCo makes while stepping a model (stock,
// after a settling phase) are recorded with the geom poses of each step, then replayed through
// MuJoCo's original table entries (stock model) and through mjportal's entries (the model with an
// mjportal instance in the chosen mode), same calls, same poses, one thread. Per pair type: calls
// per step, ns per call of both, and the ratio; then the narrowphase total per step.
// `--trajectory plugin` records the model with the mjportal instance instead: fast mode's answers
// differ from stock's by rounding, so a chaotic pile settles elsewhere, and this replays the pile
// the plugin's own run settles into.
//
// Per-call benchmarks on random poses (mjportal-bench-pairs, -fast) weigh every case alike; a
// settled pile is mostly resting contacts and near misses, which this replay measures as a step
// sees them.
//
//   build/bin/mjportal-bench-scene MODEL.xml [--mode fast|compat] [--settle N] [--steps N]
//                                  [--repeat N] [--trajectory stock|plugin]
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tools/common/model_variants.h"
#include "tools/common/pair_scene.h"
#include "tools/common/plugin_api.h"

namespace mjportal::tools {
namespace {

struct Call {
  int step;
  int g1, g2;
  mjtNum margin;
};

// The recorder: what the table entries are asked during the recorded steps.
struct Recording {
  mjfCollision saved[mjNGEOMTYPES][mjNGEOMTYPES] = {};
  std::vector<Call> calls;
  std::vector<mjtNum> xpos, xmat;  // per recorded step, every geom
  int step = -1;
  int ngeom = 0;
};
Recording* recording = nullptr;

int RecordCall(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2, mjtNum margin) {
  Recording& r = *recording;
  if (r.step >= 0) {
    r.calls.push_back({r.step, g1, g2, margin});
  }
  return r.saved[m->geom_type[g1]][m->geom_type[g2]](m, d, con, g1, g2, margin);
}

double NowNs() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Replays every recorded call through `table` on model m / data d (poses restored per step);
// adds each pair type's time to `ns` and its contacts to `hits` (both indexed t1 * mjNGEOMTYPES +
// t2) and returns the contacts.
long long Replay(const Recording& r, const mjModel* m, mjData* d,
                 const mjfCollision table[mjNGEOMTYPES][mjNGEOMTYPES], std::vector<double>* ns,
                 std::vector<long long>* hits) {
  mjPreContact con[mjMAXCONPAIR];
  long long contacts = 0;
  int step = -1;
  size_t i = 0;
  while (i < r.calls.size()) {
    if (r.calls[i].step != step) {
      step = r.calls[i].step;
      std::memcpy(d->geom_xpos, r.xpos.data() + 3L * r.ngeom * step, sizeof(mjtNum) * 3 * r.ngeom);
      std::memcpy(d->geom_xmat, r.xmat.data() + 9L * r.ngeom * step, sizeof(mjtNum) * 9 * r.ngeom);
    }
    // One run of consecutive calls of the same type pair, timed together.
    const int t1 = m->geom_type[r.calls[i].g1], t2 = m->geom_type[r.calls[i].g2];
    size_t j = i;
    while (j < r.calls.size() && r.calls[j].step == step && m->geom_type[r.calls[j].g1] == t1 &&
           m->geom_type[r.calls[j].g2] == t2) {
      ++j;
    }
    long long found = 0;
    const double start = NowNs();
    for (size_t k = i; k < j; ++k) {
      found += table[t1][t2](m, d, con, r.calls[k].g1, r.calls[k].g2, r.calls[k].margin);
    }
    (*ns)[t1 * mjNGEOMTYPES + t2] += NowNs() - start;
    (*hits)[t1 * mjNGEOMTYPES + t2] += found;
    contacts += found;
    i = j;
  }
  return contacts;
}

int Usage() {
  std::fprintf(stderr,
               "usage: mjportal-bench-scene MODEL.xml [--mode fast|compat] [--settle N] "
               "[--steps N] [--repeat N] [--trajectory stock|plugin]\n");
  return 2;
}

}  // namespace
}  // namespace mjportal::tools

int main(int argc, char** argv) {
  using namespace mjportal::tools;
  if (argc < 2)
    return Usage();
  const std::string path = argv[1];
  std::string mode = "fast";
  int settle = 1000, steps = 500, repeat = 5;
  std::string trajectory = "stock";
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
      return Usage();
    const std::string value = argv[++i];
    if (flag == "--mode" && (value == "fast" || value == "compat")) {
      mode = value;
    } else if (flag == "--settle") {
      settle = std::atoi(value.c_str());
    } else if (flag == "--steps") {
      steps = std::atoi(value.c_str());
    } else if (flag == "--trajectory" && (value == "stock" || value == "plugin")) {
      trajectory = value;
    } else if (flag == "--repeat") {
      repeat = std::atoi(value.c_str());
    } else {
      std::fprintf(stderr, "mjportal-bench-scene: bad flag or value: %s %s\n", flag.c_str(),
                   value.c_str());
      return Usage();
    }
  }
  if (settle < 0 || steps < 1 || repeat < 1)
    return Usage();

  std::string error;
  const PluginApi* api = LoadPluginApi(DefaultPluginPath(), &error);
  if (api == nullptr) {
    std::fprintf(stderr, "mjportal-bench-scene: %s\n", error.c_str());
    return 1;
  }
  ModelPtr stock = LoadStock(path, &error);
  ModelPtr plugin = stock ? LoadWithPlugin(path, {{"mode", mode}}, &error) : nullptr;
  if (!stock || !plugin) {
    std::fprintf(stderr, "mjportal-bench-scene: %s\n", error.c_str());
    return 1;
  }
  const mjModel* stepped = trajectory == "stock" ? stock.get() : plugin.get();
  DataPtr d(mj_makeData(stepped));

  // Record: settle, then log every call and the poses of each step (of the stepped model: the
  // table's entries are mjportal's, which delegate for the stock model).
  Recording r;
  recording = &r;
  r.ngeom = stock->ngeom;
  std::memcpy(r.saved, mjCOLLISIONFUNC, sizeof(r.saved));
  for (int t1 = 0; t1 < mjNGEOMTYPES; ++t1) {
    for (int t2 = 0; t2 < mjNGEOMTYPES; ++t2) {
      if (r.saved[t1][t2] != nullptr)
        mjCOLLISIONFUNC[t1][t2] = RecordCall;
    }
  }
  for (int s = 0; s < settle; ++s)
    mj_step(stepped, d.get());
  for (int s = 0; s < steps; ++s) {
    r.step = s;
    mj_step1(stepped, d.get());  // kinematics and collision: the poses the calls saw
    r.xpos.insert(r.xpos.end(), d->geom_xpos, d->geom_xpos + 3 * r.ngeom);
    r.xmat.insert(r.xmat.end(), d->geom_xmat, d->geom_xmat + 9 * r.ngeom);
    mj_step2(stepped, d.get());
  }
  std::memcpy(mjCOLLISIONFUNC, r.saved, sizeof(r.saved));
  recording = nullptr;

  // Replay through both tables, fastest of `repeat` runs per pair type.
  mjfCollision original[mjNGEOMTYPES][mjNGEOMTYPES];
  for (int t1 = 0; t1 < mjNGEOMTYPES; ++t1)
    for (int t2 = 0; t2 < mjNGEOMTYPES; ++t2)
      original[t1][t2] = api->originalCollision(t1, t2);
  DataPtr d_stock(mj_makeData(stock.get()));
  DataPtr d_plugin(mj_makeData(plugin.get()));
  const int ntype = mjNGEOMTYPES * mjNGEOMTYPES;
  std::vector<double> best_stock(ntype, 1e300), best_plugin(ntype, 1e300);
  long long con_stock = 0, con_plugin = 0;
  std::vector<long long> hits_stock(ntype), hits_plugin(ntype);
  for (int rep = 0; rep < repeat; ++rep) {
    std::vector<double> ns_stock(ntype, 0.0), ns_plugin(ntype, 0.0);
    hits_stock.assign(ntype, 0);
    hits_plugin.assign(ntype, 0);
    con_stock = Replay(r, stock.get(), d_stock.get(), original, &ns_stock, &hits_stock);
    con_plugin = Replay(r, plugin.get(), d_plugin.get(), mjCOLLISIONFUNC, &ns_plugin, &hits_plugin);
    for (int k = 0; k < ntype; ++k) {
      best_stock[k] = std::min(best_stock[k], ns_stock[k]);
      best_plugin[k] = std::min(best_plugin[k], ns_plugin[k]);
    }
  }

  std::map<int, long long> calls;
  for (const Call& c : r.calls)
    calls[stock->geom_type[c.g1] * mjNGEOMTYPES + stock->geom_type[c.g2]]++;
  std::printf(
      "%s: %d steps after %d settling steps of the %s model, mode %s, fastest of %d "
      "replays\n",
      path.c_str(), steps, settle, trajectory.c_str(), mode.c_str(), repeat);
  std::printf("%-18s %11s %14s %15s %7s %15s %16s\n", "pair", "calls/step", "stock ns/call",
              "plugin ns/call", "ratio", "stock con/call", "plugin con/call");
  double total_stock = 0, total_plugin = 0;
  for (const auto& [k, n] : calls) {
    const std::string name =
        std::string(GeomTypeName(k / mjNGEOMTYPES)) + "-" + GeomTypeName(k % mjNGEOMTYPES);
    std::printf("%-18s %11.2f %14.1f %15.1f %7.3f %15.2f %16.2f\n", name.c_str(),
                static_cast<double>(n) / steps, best_stock[k] / n, best_plugin[k] / n,
                best_plugin[k] / best_stock[k], static_cast<double>(hits_stock[k]) / n,
                static_cast<double>(hits_plugin[k]) / n);
    total_stock += best_stock[k];
    total_plugin += best_plugin[k];
  }
  std::printf("%-18s %11.2f %14.1f %15.1f %7.3f   (narrowphase ns per step)\n", "all",
              static_cast<double>(r.calls.size()) / steps, total_stock / steps,
              total_plugin / steps, total_plugin / total_stock);
  std::printf("contacts per step: stock %.2f, plugin %.2f\n",
              static_cast<double>(con_stock) / steps, static_cast<double>(con_plugin) / steps);

  // Which solver paths the plugin's calls took (a separate replay with the stats key on).
  if (mode == "fast") {
    ModelPtr counted = LoadWithPlugin(path, {{"mode", mode}, {"stats", "true"}}, &error);
    if (!counted) {
      std::fprintf(stderr, "mjportal-bench-scene: %s\n", error.c_str());
      return 1;
    }
    DataPtr d_counted(mj_makeData(counted.get()));
    std::vector<double> unused(ntype, 0.0);
    std::vector<long long> unused_hits(ntype, 0);
    Replay(r, counted.get(), d_counted.get(), mjCOLLISIONFUNC, &unused, &unused_hits);
    long long counts[MJPORTAL_SOLVER_COUNTERS] = {};
    api->solverCounts(counted.get(), d_counted.get(), counts, MJPORTAL_SOLVER_COUNTERS);
    std::printf("solver paths per step (all convex-solver calls):");
    for (int i = 0; i < MJPORTAL_SOLVER_COUNTERS; ++i) {
      if (counts[i] != 0)
        std::printf(" %s %.2f", api->solverCounterName(i), static_cast<double>(counts[i]) / steps);
    }
    std::printf("\n");
  }
  return 0;
}
