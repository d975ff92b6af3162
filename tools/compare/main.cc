// mjportal-compare: runs any MJCF with stock MuJoCo and with mjportal from the same initial state
// and reports whether the trajectories are bitwise identical, where they first diverge, how far
// apart they drift, the time per step of each, and which pair types mjportal answered itself.
//
//   mjportal-compare MODEL.xml [--mode compat|fast] [--steps N] [--settle N] [--json]
//                    [--plugin PATH]
//
// --settle N: stock MuJoCo first steps the model N times from its initial state (untimed); both
// runs then start from that settled state, so that on a chaotic pile both step the same pile
// (from the initial state each settles its own way, and a pile's step cost follows where it
// settles).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "plugin/mjportal.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"
#include "tools/common/plugin_api.h"

namespace mjportal::tools {
namespace {

const char* const kTypeNames[mjNGEOMTYPES] = {
    "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"};

struct Options {
  std::string model;
  std::string mode = "compat";
  std::string plugin = DefaultPluginPath();
  int steps = 1000;
  int settle = 0;  // stock steps before both runs start (0: from the initial state)
  bool json = false;
};

int Usage(const char* why) {
  std::fprintf(stderr,
               "mjportal-compare: %s\n"
               "usage: mjportal-compare MODEL.xml [--mode compat|fast] [--steps N] [--settle N] "
               "[--json] [--plugin PATH]\n",
               why);
  return 2;
}

// A step count from the command line: an integer in [least, 10⁸], the whole text. False when not.
bool ParseCount(const char* text, long least, int* out) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < least || value > 100000000)
    return false;
  *out = static_cast<int>(value);
  return true;
}

// Nanoseconds for `count` steps of d from its current state.
double TimeChunk(const mjModel* m, mjData* d, int count) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    mj_step(m, d);
  }
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count();
}

// The state both runs start from: stock's, `settle` steps after reset (empty: the reset state).
// Plugin state is left out: the stock model has none.
constexpr int kStartState = mjSTATE_INTEGRATION & ~mjSTATE_PLUGIN;

std::vector<mjtNum> SettledState(const mjModel* m, mjData* d, int settle) {
  if (settle <= 0)
    return {};
  mj_resetData(m, d);
  for (int i = 0; i < settle; ++i)
    mj_step(m, d);
  std::vector<mjtNum> state(mj_stateSize(m, kStartState));
  mj_getState(m, d, state.data(), kStartState);
  return state;
}

// Resets d, then moves it to `state` when there is one.
void Start(const mjModel* m, mjData* d, const std::vector<mjtNum>& state) {
  mj_resetData(m, d);
  if (!state.empty())
    mj_setState(m, d, state.data(), kStartState);
}

// Nanoseconds per step of each model over `steps` steps from `start`. The two runs alternate in
// chunks of about 50 steps, so that slow drifts of this shared machine hit both alike; of three
// such rounds, the fastest of each model counts.
void TimeBoth(const mjModel* m1, mjData* d1, const mjModel* m2, mjData* d2,
              const std::vector<mjtNum>& start, int steps, double* ns1, double* ns2) {
  constexpr int kChunk = 50;
  *ns1 = *ns2 = 1e300;
  for (int round = 0; round < 3; ++round) {
    Start(m1, d1, start);
    Start(m2, d2, start);
    double t1 = 0, t2 = 0;
    for (int done = 0; done < steps; done += kChunk) {
      const int count = std::min(kChunk, steps - done);
      t1 += TimeChunk(m1, d1, count);
      t2 += TimeChunk(m2, d2, count);
    }
    *ns1 = std::min(*ns1, t1 / std::max(1, steps));
    *ns2 = std::min(*ns2, t2 / std::max(1, steps));
  }
}

struct PairRow {
  std::string name;
  long long ours;
  long long delegated;
};

void PrintText(const Options& opt, const LockstepReport& r, double ns_stock, double ns_plugin,
               const std::vector<PairRow>& pairs, long long ours, long long delegated) {
  std::printf("model:               %s\n", opt.model.c_str());
  std::printf("mode:                %s\n", opt.mode.c_str());
  std::printf("steps:               %d\n", r.steps);
  if (opt.settle > 0)
    std::printf("settled first:       %d stock steps (both runs start there)\n", opt.settle);
  std::printf("bitwise identical:   %s\n", r.bitwise_identical() ? "yes" : "no");
  if (!r.bitwise_identical()) {
    std::printf("first divergence:    step %d, field %s\n", r.first_divergence_step,
                r.first_divergence_field.c_str());
  }
  std::printf("max |dqpos|, |dqvel|: %.3g, %.3g\n", r.max_abs_dqpos, r.max_abs_dqvel);
  std::printf("contacts per step:   stock %.2f, plugin %.2f\n", r.contacts_per_step,
              r.plugin_contacts_per_step);
  std::printf("ns per step:         stock %.0f, plugin %.0f, ratio %.3f\n", ns_stock, ns_plugin,
              ns_plugin / ns_stock);
  std::printf("narrowphase calls:   mjportal %lld, delegated %lld\n", ours, delegated);
  for (const PairRow& row : pairs) {
    std::printf("  %-20s mjportal %10lld   delegated %10lld\n", row.name.c_str(), row.ours,
                row.delegated);
  }
}

void PrintJson(const Options& opt, const LockstepReport& r, double ns_stock, double ns_plugin,
               const std::vector<PairRow>& pairs, long long ours, long long delegated) {
  std::printf(
      "{\"model\": \"%s\", \"mode\": \"%s\", \"steps\": %d, \"settle\": %d, "
      "\"bitwise_identical\": %s, ",
      opt.model.c_str(), opt.mode.c_str(), r.steps, opt.settle,
      r.bitwise_identical() ? "true" : "false");
  if (r.bitwise_identical()) {
    std::printf("\"first_divergence_step\": null, \"first_divergence_field\": null, ");
  } else {
    std::printf("\"first_divergence_step\": %d, \"first_divergence_field\": \"%s\", ",
                r.first_divergence_step, r.first_divergence_field.c_str());
  }
  std::printf(
      "\"max_abs_dqpos\": %.17g, \"max_abs_dqvel\": %.17g, \"contacts_per_step\": %.17g, "
      "\"plugin_contacts_per_step\": %.17g, ",
      r.max_abs_dqpos, r.max_abs_dqvel, r.contacts_per_step, r.plugin_contacts_per_step);
  std::printf("\"ns_per_step_stock\": %.17g, \"ns_per_step_plugin\": %.17g, ", ns_stock, ns_plugin);
  std::printf("\"pairs_ours\": %lld, \"pairs_delegated\": %lld, \"pairs_by_type\": {", ours,
              delegated);
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::printf("%s\"%s\": {\"ours\": %lld, \"delegated\": %lld}", i ? ", " : "",
                pairs[i].name.c_str(), pairs[i].ours, pairs[i].delegated);
  }
  std::printf("}}\n");
}

int Run(const Options& opt) {
  std::string error;
  const PluginApi* api = LoadPluginApi(opt.plugin, &error);
  if (api == nullptr) {
    std::fprintf(stderr, "mjportal-compare: %s\n", error.c_str());
    return 1;
  }

  // Stock, plugin with call counting (verification), plugin without (timing).
  ModelPtr stock = LoadStock(opt.model, &error);
  ModelPtr counted =
      stock ? LoadWithPlugin(opt.model, {{"mode", opt.mode}, {"stats", "true"}}, &error) : nullptr;
  ModelPtr timed = counted
                       ? LoadWithPlugin(opt.model, {{"mode", opt.mode}, {"stats", "false"}}, &error)
                       : nullptr;
  if (!timed) {
    std::fprintf(stderr, "mjportal-compare: %s\n", error.c_str());
    return 1;
  }
  DataPtr d_stock(mj_makeData(stock.get()));
  DataPtr d_counted(mj_makeData(counted.get()));
  DataPtr d_timed(mj_makeData(timed.get()));
  if (!d_stock || !d_counted || !d_timed) {
    std::fprintf(stderr, "mjportal-compare: cannot allocate mjData for '%s'\n", opt.model.c_str());
    return 1;
  }

  // Lockstep verification from the same initial state (the settled one with --settle).
  const std::vector<mjtNum> start = SettledState(stock.get(), d_stock.get(), opt.settle);
  Start(stock.get(), d_stock.get(), start);
  Start(counted.get(), d_counted.get(), start);
  const LockstepReport report =
      RunLockstep(stock.get(), d_stock.get(), counted.get(), d_counted.get(), opt.steps);

  // Timing, stock and plugin alternating (this machine is noisy).
  double ns_stock = 0, ns_plugin = 0;
  TimeBoth(stock.get(), d_stock.get(), timed.get(), d_timed.get(), start, opt.steps, &ns_stock,
           &ns_plugin);

  // Narrowphase calls by pair type.
  long long ours_table[mjNGEOMTYPES * mjNGEOMTYPES] = {};
  long long delegated_table[mjNGEOMTYPES * mjNGEOMTYPES] = {};
  api->pairCounts(counted.get(), d_counted.get(), ours_table, delegated_table);
  std::vector<PairRow> pairs;
  long long ours = 0, delegated = 0;
  for (int i = 0; i < mjNGEOMTYPES * mjNGEOMTYPES; ++i) {
    ours += ours_table[i];
    delegated += delegated_table[i];
    if (ours_table[i] || delegated_table[i]) {
      pairs.push_back(
          {std::string(kTypeNames[i / mjNGEOMTYPES]) + "-" + kTypeNames[i % mjNGEOMTYPES],
           ours_table[i], delegated_table[i]});
    }
  }

  (opt.json ? PrintJson : PrintText)(opt, report, ns_stock, ns_plugin, pairs, ours, delegated);
  return 0;
}

}  // namespace
}  // namespace mjportal::tools

int main(int argc, char** argv) {
  mjportal::tools::Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--json") {
      opt.json = true;
    } else if (arg == "--mode" && has_value) {
      opt.mode = argv[++i];
      if (opt.mode != "compat" && opt.mode != "fast") {
        return mjportal::tools::Usage("--mode must be 'compat' or 'fast'");
      }
    } else if (arg == "--steps" && has_value) {
      if (!mjportal::tools::ParseCount(argv[++i], 1, &opt.steps)) {
        return mjportal::tools::Usage("--steps must be an integer in [1, 100000000]");
      }
    } else if (arg == "--settle" && has_value) {
      if (!mjportal::tools::ParseCount(argv[++i], 0, &opt.settle)) {
        return mjportal::tools::Usage("--settle must be an integer in [0, 100000000]");
      }
    } else if (arg == "--plugin" && has_value) {
      opt.plugin = argv[++i];
    } else if (arg == "-h" || arg == "--help") {
      return mjportal::tools::Usage("compare stock MuJoCo and mjportal on one model");
    } else if (!arg.empty() && arg[0] != '-' && opt.model.empty()) {
      opt.model = arg;
    } else {
      return mjportal::tools::Usage(("unexpected argument '" + arg + "'").c_str());
    }
  }
  if (opt.model.empty()) {
    return mjportal::tools::Usage("missing MODEL.xml");
  }
  return mjportal::tools::Run(opt);
}
