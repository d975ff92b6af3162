// mjportal-rollout: steps N worlds of one model K steps with mjportal's batched engine (the
// batched pass, then every world's mj_step served from its cache), and the same rollout with stock
// MuJoCo as the baseline in the same run, both spread over the same number of threads (one world
// per task). The two alternate in chunks of 50 steps so that this shared machine's drifts hit
// both alike; one untimed step of each comes first (set-up: the device's context, the model's
// upload). Prints a table, or one JSON object with --json.
//
//   mjportal-rollout MODEL.xml --worlds N --steps K [--device cpu|cuda] [--mode fast|compat]
//                    [--threads T] [--json] [--plugin PATH]
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "batch/thread_pool.h"
#include "plugin/mjportal.h"
#include "tools/common/model_variants.h"
#include "tools/common/plugin_api.h"
#include "tools/common/worlds.h"

namespace mjportal::tools {
namespace {

struct Options {
  std::string model;
  std::string mode = "fast";
  std::string device = "cpu";
  std::string plugin = DefaultPluginPath();
  int worlds = 0;
  int steps = 0;
  int threads = 0;  // 0: the machine's hardware threads
  bool json = false;
};

int Usage(const char* why) {
  std::fprintf(stderr,
               "mjportal-rollout: %s\n"
               "usage: mjportal-rollout MODEL.xml --worlds N --steps K [--device cpu|cuda] "
               "[--mode fast|compat] [--threads T] [--json] [--plugin PATH]\n",
               why);
  return 2;
}

// A positive integer flag value, or -1.
int PositiveInt(const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 && value <= (1 << 24) ? static_cast<int>(value)
                                                                        : -1;
}

// MuJoCo's warnings go to stderr, keeping stdout for the table or the JSON object.
void WarnToStderr(const char* msg) {
  std::fprintf(stderr, "WARNING: %s\n", msg);
}

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace
}  // namespace mjportal::tools

int main(int argc, char** argv) {
  using namespace mjportal::tools;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--json") {
      o.json = true;
    } else if ((arg == "--worlds" || arg == "--steps" || arg == "--threads") && has_value) {
      const int value = PositiveInt(argv[++i]);
      if (value < 0)
        return Usage((arg + " takes a positive integer, got '" + argv[i] + "'").c_str());
      (arg == "--worlds" ? o.worlds : arg == "--steps" ? o.steps : o.threads) = value;
    } else if (arg == "--mode" && has_value) {
      o.mode = argv[++i];
      if (o.mode != "fast" && o.mode != "compat")
        return Usage(("--mode takes fast or compat, got '" + o.mode + "'").c_str());
    } else if (arg == "--device" && has_value) {
      o.device = argv[++i];
      if (o.device != "cpu" && o.device != "cuda")
        return Usage(("--device takes cpu or cuda, got '" + o.device + "'").c_str());
    } else if (arg == "--plugin" && has_value) {
      o.plugin = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && o.model.empty()) {
      o.model = arg;
    } else {
      return Usage(("unknown or incomplete argument '" + arg + "'").c_str());
    }
  }
  if (o.model.empty() || o.worlds == 0 || o.steps == 0)
    return Usage("MODEL.xml, --worlds and --steps are required");
  if (o.threads == 0)
    o.threads = std::max(1u, std::thread::hardware_concurrency());

  mju_user_warning = WarnToStderr;
  std::string error;
  const PluginApi* api = LoadPluginApi(o.plugin, &error);
  if (api == nullptr) {
    std::fprintf(stderr, "mjportal-rollout: %s\n", error.c_str());
    return 1;
  }
  ModelPtr stock = LoadStock(o.model, &error);
  ModelPtr plugin =
      stock ? LoadWithPlugin(o.model, {{"mode", o.mode}, {"device", o.device}}, &error) : nullptr;
  if (!stock || !plugin) {
    std::fprintf(stderr, "mjportal-rollout: %s\n", error.c_str());
    return 1;
  }
  Worlds stock_worlds(stock.get(), o.worlds), plugin_worlds(plugin.get(), o.worlds);

  // One untimed step each first: the device's context, the model's upload and the buffers'
  // first growth are set-up costs, not per-step ones.
  mjportal::batch::ThreadPool pool(o.threads);
  pool.Run(o.worlds, [&](int w) { mj_step(stock.get(), stock_worlds.raw[w]); });
  mjportalBatchStats warmup = {};
  if (api->batchStep(plugin.get(), plugin_worlds.raw.data(), o.worlds, 1, o.threads, &warmup) !=
      0) {
    std::fprintf(stderr, "mjportal-rollout: the batched engine refused the model\n");
    return 1;
  }
  // Alternating chunks: stock on the pool, then the batched engine.
  constexpr int kChunk = 50;
  double stock_s = 0, plugin_s = 0;
  mjportalBatchStats total = {};
  for (int done = 0; done < o.steps; done += kChunk) {
    const int chunk = std::min(kChunk, o.steps - done);
    double t0 = Seconds();
    for (int s = 0; s < chunk; ++s)
      pool.Run(o.worlds, [&](int w) { mj_step(stock.get(), stock_worlds.raw[w]); });
    stock_s += Seconds() - t0;
    mjportalBatchStats stats = {};
    t0 = Seconds();
    if (api->batchStep(plugin.get(), plugin_worlds.raw.data(), o.worlds, chunk, o.threads,
                       &stats) != 0) {
      std::fprintf(stderr, "mjportal-rollout: the batched engine refused the model\n");
      return 1;
    }
    plugin_s += Seconds() - t0;
    mjportal_addBatchStats(&total, &stats);
  }

  const double world_steps = static_cast<double>(o.worlds) * o.steps;
  const double calls = static_cast<double>(total.hits + total.misses);
  const double hit_rate = calls > 0 ? total.hits / calls : 1.0;
  // Where the pass ran: the CPU twin when no device was usable (the plugin warns once).
  const char* ran_on = total.device ? "cuda" : "cpu";
  if (o.json) {
    std::printf(
        "{\"model\": \"%s\", \"worlds\": %d, \"steps\": %d, \"threads\": %d, \"device\": \"%s\", "
        "\"device_requested\": \"%s\", \"mode\": \"%s\", \"steps_per_s\": %.6g, "
        "\"steps_per_s_stock\": %.6g, \"speedup\": %.4g, \"batched_pass_s\": %.6g, "
        "\"kinematics_s\": %.6g, \"step_s\": %.6g, \"cache_hit_rate\": %.6g, "
        "\"contacts_per_world_step\": %.6g, \"candidates_per_world_step\": %.6g}\n",
        o.model.c_str(), o.worlds, o.steps, o.threads, ran_on, o.device.c_str(), o.mode.c_str(),
        world_steps / plugin_s, world_steps / stock_s, stock_s / plugin_s, total.pass_s,
        total.kinematics_s, total.step_s, hit_rate, total.contacts / world_steps,
        total.candidates / world_steps);
    return 0;
  }
  std::printf("model:                    %s\n", o.model.c_str());
  std::printf("worlds x steps:           %d x %d on %d threads\n", o.worlds, o.steps, o.threads);
  std::printf("mode, device:             %s, %s (requested %s)\n", o.mode.c_str(), ran_on,
              o.device.c_str());
  std::printf("world-steps/s:            mjportal %.0f, stock %.0f, ratio %.3f\n",
              world_steps / plugin_s, world_steps / stock_s, stock_s / plugin_s);
  std::printf("mjportal time:            %.3f s: kinematics %.3f, batched pass %.3f, steps %.3f\n",
              plugin_s, total.kinematics_s, total.pass_s, total.step_s);
  std::printf("cache hit rate:           %.4f (%lld hits, %lld misses)\n", hit_rate, total.hits,
              total.misses);
  std::printf("per world-step:           %.2f contacts, %.2f candidate pairs, %.2f cached\n",
              total.contacts / world_steps, total.candidates / world_steps,
              total.cached / world_steps);
  return 0;
}
