// The batched engine's CPU twin (batch/): N worlds stepped with the batched pass
// (mjportal_batchStep) give bitwise the trajectories of the same worlds stepped one pair call at a
// time (plain mj_step, no cache): contacts, qpos, qvel, act, qacc after every step. With the
// default buffer every call the mode answers hits the cache; with a one-pair buffer the results are
// still identical and one warning says how large the buffer should be.
//
// MJPORTAL_BATCH_STEPS sets the steps per run (default 100).
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "tests/env_count.h"
#include "tests/fixture.h"
#include "tools/common/lockstep.h"
#include "tools/common/model_variants.h"
#include "tools/common/worlds.h"

namespace mjportal::testing {
namespace {

int Steps() {
  return static_cast<int>(EnvCount("MJPORTAL_BATCH_STEPS", 100));
}

struct BatchParam {
  std::string model;
  std::string mode;
  int worlds;
  bool sleep;
};

void PrintTo(const BatchParam& p, std::ostream* os) {
  *os << ModelName(p.model) << " " << p.mode << " worlds=" << p.worlds << (p.sleep ? " sleep" : "");
}

class BatchEngineTest : public MujocoTest, public ::testing::WithParamInterface<BatchParam> {
 protected:
  // Steps the batched worlds and the reference worlds side by side; returns the batch statistics
  // and fails at the first bitwise difference.
  mjportalBatchStats RunBoth(const std::string& model, const tools::PluginConfig& config,
                             int worlds, bool sleep) {
    const tools::PluginApi& api = LoadPlugin();
    std::string error;
    tools::ModelPtr m = tools::LoadWithPlugin(model, config, &error);
    EXPECT_TRUE(m) << error;
    mjportalBatchStats total = {};
    if (!m)
      return total;
    if (sleep)
      m->opt.enableflags |= mjENBL_SLEEP;
    tools::Worlds batched(m.get(), worlds), reference(m.get(), worlds);
    for (int step = 0; step < Steps(); ++step) {
      mjportalBatchStats stats = {};
      EXPECT_EQ(api.batchStep(m.get(), batched.raw.data(), worlds, 1, 2, &stats), 0);
      mjportal_addBatchStats(&total, &stats);
      for (int w = 0; w < worlds; ++w) {
        mj_step(m.get(), reference.raw[w]);
        const std::string diff =
            tools::FirstDifference(m.get(), reference.raw[w], m.get(), batched.raw[w]);
        if (!diff.empty()) {
          ADD_FAILURE() << "world " << w << " differs at step " << step << " in " << diff;
          return total;
        }
      }
    }
    return total;
  }
};

TEST_P(BatchEngineTest, BitwiseLikePerPairPathWithFullHitRate) {
  const BatchParam& p = GetParam();
  const mjportalBatchStats stats = RunBoth(p.model, {{"mode", p.mode}}, p.worlds, p.sleep);
  // With sleep, a contact that wakes a body makes MuJoCo collide again in the same step, now
  // with pairs of bodies that were asleep when the pass ran (the pass skips those: its cost
  // follows the awake bodies); they are computed on the spot. Without sleep, every call hits.
  if (p.sleep) {
    EXPECT_LE(stats.misses * 50, stats.hits + stats.misses) << "hits " << stats.hits;
  } else {
    EXPECT_EQ(stats.misses, 0) << "hits " << stats.hits;
  }
  if (stats.contacts > 0) {
    EXPECT_GT(stats.hits, 0) << "no call was served from the cache";
  }
}

std::vector<BatchParam> Runs() {
  std::vector<BatchParam> runs;
  for (const std::string& model : BundledModels()) {
    for (const char* mode : {"fast", "compat"})
      runs.push_back({model, mode, 7, false});
    runs.push_back({model, "fast", 7, true});
  }
  for (const char* name : {"mesh_pile", "primitive_mix"}) {
    const std::string model = ModelsDir() + "/" + name + ".xml";
    for (int worlds : {1, 64})
      runs.push_back({model, "fast", worlds, false});
    runs.push_back({model, "compat", 64, false});
  }
  return runs;
}

std::string RunName(const ::testing::TestParamInfo<BatchParam>& info) {
  return ModelName(info.param.model) + "_" + info.param.mode + "_" +
         std::to_string(info.param.worlds) + (info.param.sleep ? "_sleep" : "");
}

INSTANTIATE_TEST_SUITE_P(Models, BatchEngineTest, ::testing::ValuesIn(Runs()), RunName);

// A one-pair buffer: every other pair is computed during the step. Same trajectories, misses
// counted, and one warning naming the key and the size needed.
class BatchBufferTest : public BatchEngineTest {};

TEST_F(BatchBufferTest, TinyBufferStillIdenticalAndWarnsOnce) {
  const std::string model = ModelsDir() + "/mesh_pile.xml";
  const mjportalBatchStats stats =
      RunBoth(model, {{"mode", "fast"}, {"max_collision_pairs", "1"}}, 7, false);
  EXPECT_GT(stats.misses, 0);
  const std::vector<std::string> warnings = TakeWarnings();
  // One warning per world (each mjData has its own instance state), all naming the key.
  ASSERT_EQ(warnings.size(), 7u);
  for (const std::string& w : warnings)
    EXPECT_NE(w.find("max_collision_pairs is 1"), std::string::npos) << w;
}

// device=cuda where no device is usable (no backend, or no device or driver): one clear warning
// per model, then the CPU twin. Skipped where a device is usable (the CUDA suite covers that).
TEST_F(BatchBufferTest, CudaDeviceFallsBackToCpuWithWarning) {
  const std::string model = ModelsDir() + "/primitive_mix.xml";
  const mjportalBatchStats stats = RunBoth(model, {{"mode", "fast"}, {"device", "cuda"}}, 2, false);
  if (stats.device) {
    GTEST_SKIP() << "a CUDA device is usable here";
  }
  EXPECT_EQ(stats.misses, 0);
  const std::vector<std::string> warnings = TakeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("'device' is 'cuda'"), std::string::npos) << warnings[0];
}

// The device path against the CPU twin: N worlds stepped with device=cuda and with device=cpu
// stay bitwise identical, compat and fast. On the GPU where one is usable (tools/gpu-check.sh;
// skipped elsewhere), and everywhere through the host emulation of the device pass
// (MJPORTAL_DEVICE_EMULATION=1: same flattened model, task list and result slots).
struct CudaParam {
  std::string model;
  std::string mode;
  int worlds;
  bool emulated;
};

void PrintTo(const CudaParam& p, std::ostream* os) {
  *os << ModelName(p.model) << " " << p.mode << " worlds=" << p.worlds
      << (p.emulated ? " emulated" : " device");
}

// Sets MJPORTAL_DEVICE_EMULATION while alive (read when a model's device pass is made).
struct EmulationScope {
  explicit EmulationScope(bool on) {
    if (on)
      setenv("MJPORTAL_DEVICE_EMULATION", "1", 1);
  }
  ~EmulationScope() { unsetenv("MJPORTAL_DEVICE_EMULATION"); }
};

class CudaPassTest : public MujocoTest, public ::testing::WithParamInterface<CudaParam> {};

TEST_P(CudaPassTest, DeviceMatchesCpuTwinBitwise) {
  const tools::PluginApi& api = LoadPlugin();
  const CudaParam& p = GetParam();
  const EmulationScope emulation(p.emulated);
  std::string error;
  tools::ModelPtr gpu =
      tools::LoadWithPlugin(p.model, {{"mode", p.mode}, {"device", "cuda"}}, &error);
  ASSERT_TRUE(gpu) << error;
  tools::ModelPtr cpu =
      tools::LoadWithPlugin(p.model, {{"mode", p.mode}, {"device", "cpu"}}, &error);
  ASSERT_TRUE(cpu) << error;
  tools::Worlds on_gpu(gpu.get(), p.worlds), on_cpu(cpu.get(), p.worlds);
  long long hits = 0, contacts = 0;
  for (int step = 0; step < Steps(); ++step) {
    mjportalBatchStats g = {}, c = {};
    ASSERT_EQ(api.batchStep(gpu.get(), on_gpu.raw.data(), p.worlds, 1, 2, &g), 0);
    if (!g.device) {
      TakeWarnings();
      GTEST_SKIP() << "no usable CUDA device";
    }
    ASSERT_EQ(api.batchStep(cpu.get(), on_cpu.raw.data(), p.worlds, 1, 2, &c), 0);
    EXPECT_EQ(g.misses, 0);
    hits += g.hits;
    contacts += g.contacts;
    for (int w = 0; w < p.worlds; ++w) {
      const std::string diff =
          tools::FirstDifference(cpu.get(), on_cpu.raw[w], gpu.get(), on_gpu.raw[w]);
      ASSERT_TRUE(diff.empty()) << "world " << w << " differs at step " << step << " in " << diff;
    }
  }
  if (contacts > 0) {
    EXPECT_GT(hits, 0);
  }
}

std::vector<CudaParam> CudaRuns() {
  std::vector<CudaParam> runs;
  for (const std::string& model : BundledModels()) {
    for (const char* mode : {"compat", "fast"}) {
      runs.push_back({model, mode, 64, false});
      runs.push_back({model, mode, 7, true});
    }
  }
  return runs;
}

std::string CudaRunName(const ::testing::TestParamInfo<CudaParam>& info) {
  return ModelName(info.param.model) + "_" + info.param.mode +
         (info.param.emulated ? "_emulated" : "_device");
}

INSTANTIATE_TEST_SUITE_P(Models, CudaPassTest, ::testing::ValuesIn(CudaRuns()), CudaRunName);

// In-step mode (device=cuda stepped by plain mj_step, as simulate does): one world, the first
// stale call of each step refills the cache; bitwise like device=cpu, serial and on MuJoCo's
// thread pool (several threads race for the refill). Emulated device everywhere; the real
// device where one is usable (skipped elsewhere).
struct InStepParam {
  std::string model;
  std::string mode;
  int threads;
  bool emulated;
};

void PrintTo(const InStepParam& p, std::ostream* os) {
  *os << ModelName(p.model) << " " << p.mode << " threads=" << p.threads
      << (p.emulated ? " emulated" : " device");
}

// True when `warnings` holds the plugin's "no usable device, CPU twin instead" warning.
bool NamesCudaFallback(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings)
    if (w.find("'device' is 'cuda'") != std::string::npos)
      return true;
  return false;
}

class InStepTest : public MujocoTest, public ::testing::WithParamInterface<InStepParam> {};

TEST_P(InStepTest, RefillsPerStepAndMatchesCpu) {
  const tools::PluginApi& api = LoadPlugin();
  const InStepParam& p = GetParam();
  const EmulationScope emulation(p.emulated);
  std::string error;
  tools::ModelPtr dev =
      tools::LoadWithPlugin(p.model, {{"mode", p.mode}, {"device", "cuda"}}, &error);
  ASSERT_TRUE(dev) << error;
  tools::ModelPtr cpu =
      tools::LoadWithPlugin(p.model, {{"mode", p.mode}, {"device", "cpu"}}, &error);
  ASSERT_TRUE(cpu) << error;
  tools::DataPtr d_dev(mj_makeData(dev.get())), d_cpu(mj_makeData(cpu.get()));
  tools::PerturbWorld(dev.get(), d_dev.get(), 3);
  tools::PerturbWorld(cpu.get(), d_cpu.get(), 3);
  if (p.threads > 0) {
    mju_threadpool(d_dev.get(), p.threads);
    mju_threadpool(d_cpu.get(), p.threads);
  }
  long long contacts = 0;
  for (int step = 0; step < Steps(); ++step) {
    mj_step(dev.get(), d_dev.get());
    if (!p.emulated) {
      // The fallback warning comes with the first narrowphase call: no device here. Any other
      // warning fails, as the fixture would.
      const std::vector<std::string> warnings = TakeWarnings();
      if (NamesCudaFallback(warnings)) {
        GTEST_SKIP() << "no usable CUDA device";
      }
      for (const std::string& w : warnings)
        ADD_FAILURE() << "MuJoCo warning: " << w;
    }
    mj_step(cpu.get(), d_cpu.get());
    contacts += d_dev->ncon;
    const std::string diff = tools::FirstDifference(cpu.get(), d_cpu.get(), dev.get(), d_dev.get());
    ASSERT_TRUE(diff.empty()) << "differs at step " << step << " in " << diff;
  }
  long long hits = 0, misses = 0;
  ASSERT_EQ(api.cacheCounts(dev.get(), d_dev.get(), &hits, &misses), 0);
  if (contacts > 0) {
    EXPECT_GT(hits, 0);
  }
  // Misses: pairs the pass did not list (none on these models) plus calls before a refill.
  EXPECT_LE(misses * 20, hits + misses) << "hits " << hits;
}

std::vector<InStepParam> InStepRuns() {
  std::vector<InStepParam> runs;
  for (const std::string& model : BundledModels()) {
    for (const bool emulated : {true, false}) {
      for (const char* mode : {"compat", "fast"})
        runs.push_back({model, mode, 0, emulated});
      runs.push_back({model, "fast", 3, emulated});
    }
  }
  return runs;
}

std::string InStepName(const ::testing::TestParamInfo<InStepParam>& info) {
  return ModelName(info.param.model) + "_" + info.param.mode +
         (info.param.threads ? "_threads" : "_serial") +
         (info.param.emulated ? "_emulated" : "_device");
}

INSTANTIATE_TEST_SUITE_P(Models, InStepTest, ::testing::ValuesIn(InStepRuns()), InStepName);

}  // namespace
}  // namespace mjportal::testing
