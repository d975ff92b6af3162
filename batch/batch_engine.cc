#include "batch/batch_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "batch/candidates.h"
#include "batch/thread_pool.h"
#include "cuda/batch_pass.h"
#include "plugin/collision_table.h"
#include "plugin/instance.h"

namespace mjportal {
namespace {

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One world's pairs for the pass: the candidates its cache has room for, in candidate order.
struct WorldPairs {
  std::vector<batch::Candidate> pairs;
  std::vector<PairRoute> routes;
  int candidates = 0;
};

// Per-thread scratch of the candidate search.
struct PassScratch {
  batch::CandidateScratch candidates;
  std::vector<batch::Candidate> list;
};

// Starts d's cache for this step and lists the pairs it will hold: candidates the mode answers,
// up to max_collision_pairs.
void ListWorldPairs(const mjModel* m, mjData* d, WorldPairs* out) {
  thread_local PassScratch scratch;
  out->pairs.clear();
  out->routes.clear();
  InstanceState* state = FindInstance(m, d);
  batch::FindCandidates(m, d, &scratch.candidates, &scratch.list);
  out->candidates = static_cast<int>(scratch.list.size());
  PairCache& cache = state->cache();
  cache.Begin(state->config().max_collision_pairs);
  for (const batch::Candidate& c : scratch.list) {
    const PairRoute route = RoutePair(m, state, c.g1, c.g2);
    if (route != PairRoute::kDelegated && cache.Room()) {
      out->pairs.push_back(c);
      out->routes.push_back(route);
    }
  }
}

// Opens d's cache, warning once per mjData when the buffer was too small.
void FinishWorld(InstanceState* state) {
  PairCache& cache = state->cache();
  cache.Finish();
  if (cache.wanted() > cache.size() && state->FirstFullBuffer()) {
    mju_warning(
        "mjportal: the batched pass found %d candidate pairs in one world but "
        "max_collision_pairs is %d; the other pairs are computed during the step (set "
        "max_collision_pairs to at least %d to cache them all)",
        cache.wanted(), state->config().max_collision_pairs, cache.wanted());
  }
}

// Phase (b) on the CPU for one world: each listed pair computed by the plugin's own path.
void FillWorldOnCpu(const mjModel* m, mjData* d, const WorldPairs& list) {
  InstanceState* state = FindInstance(m, d);
  mjPreContact con[mjMAXCONPAIR];
  for (const batch::Candidate& c : list.pairs) {
    const int count = ComputeOurs(m, d, state, con, c.g1, c.g2, c.margin);
    if (count >= 0) {
      state->cache().Add(d, c.g1, c.g2, c.margin, con, count);
    }
  }
  FinishWorld(state);
}

// ---- CUDA backend --------------------------------------------------------------------------

// The device copy of a model, made once per model: shared by the mjData that step with it (each
// instance holds it) and found again through a registry of weak references, so it goes with the
// last of them and a later model at the same address gets its own. Null when the device cannot be
// used.
struct DeviceEntry {
  std::unique_ptr<cuda::DevicePass> pass;
  std::string why;                  // why there is none
  std::atomic<bool> warned{false};  // the fallback was reported (once per model)
};

std::shared_ptr<DeviceEntry> DeviceFor(const mjModel* m, const InstanceState* state) {
  static std::mutex mutex;
  static std::map<const mjModel*, std::weak_ptr<DeviceEntry>> registry;
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<DeviceEntry> alive = registry[m].lock()) {
    return alive;
  }
  // Forget the models whose mjData are all gone.
  for (auto it = registry.begin(); it != registry.end();) {
    it = it->second.expired() && it->first != m ? registry.erase(it) : std::next(it);
  }
  auto made = std::make_shared<DeviceEntry>();
  registry[m] = made;
  DeviceEntry& entry = *made;
  std::vector<int> geom_mesh(m->ngeom);
  for (int g = 0; g < m->ngeom; ++g) {
    geom_mesh[g] = m->geom_type[g] == mjGEOM_MESH ? m->geom_dataid[g] : -1;
  }
  const ModelSupportFields* fields =
      state->config().mode == Mode::kFast ? state->fields() : nullptr;
  std::vector<long> field_offset(m->nmesh, -1), faces_offset(m->nmesh, -1);
  std::vector<int> feature_walk(m->nmesh, 0);
  for (int k = 0; k < m->nmesh && fields != nullptr; ++k) {
    field_offset[k] = fields->offset(k);
    feature_walk[k] = fields->feature_walk(k);
    faces_offset[k] = fields->faces_offset(k);
  }
  cuda::DeviceModelSource source = {};
  source.ngeom = m->ngeom;
  source.geom_type = m->geom_type;
  source.geom_size = m->geom_size;
  source.geom_mesh = geom_mesh.data();
  source.geom_rbound = m->geom_rbound;
  source.nmesh = m->nmesh;
  source.mesh_vert = m->mesh_vert;
  source.nmeshvert = m->nmeshvert;
  source.mesh_vertadr = m->mesh_vertadr;
  source.mesh_vertnum = m->mesh_vertnum;
  source.mesh_graph = m->mesh_graph;
  source.nmeshgraph = m->nmeshgraph;
  source.mesh_graphadr = m->mesh_graphadr;
  source.fields = fields != nullptr ? fields->data() : nullptr;
  source.nfield_entries = fields != nullptr ? static_cast<long>(fields->bytes() / 4) : 0;
  source.field_offset = field_offset.data();
  source.mesh_feature_walk = fields != nullptr ? feature_walk.data() : nullptr;
  source.faces = fields != nullptr && fields->faces_entries() > 0 ? fields->faces_data() : nullptr;
  source.nface_entries = fields != nullptr ? fields->faces_entries() : 0;
  source.faces_offset = faces_offset.data();
  source.mesh_shape = fields != nullptr && m->nmesh > 0 ? fields->shape(0) : nullptr;
  source.field_res = fields != nullptr ? fields->res() : 0;
  source.field_refine = state->config().support_refine;
  source.settings.max_iterations = m->opt.ccd_iterations;
  source.settings.tolerance = m->opt.ccd_tolerance;
  source.settings.algorithm = state->config().ccd;
  source.settings.multicontact = state->config().multicontact;
  source.settings.manifold = state->config().manifold;
  // MJPORTAL_DEVICE_EMULATION=1: the device path on the host (cuda/batch_pass_host.cc).
  const char* emulate = std::getenv("MJPORTAL_DEVICE_EMULATION");
  entry.pass = emulate != nullptr && emulate[0] == '1'
                   ? cuda::DevicePass::CreateHostEmulation(source)
                   : cuda::DevicePass::Create(source, &entry.why);
  return made;
}

// Phase (b) on the device for all worlds: tasks in world order, one launch, then each world's
// cache filled from its tasks' slots. False (nothing filled) when the device failed.
// Host side of the device pass, reused from step to step (per thread: batch steps and in-step
// refills may run concurrently for different models).
struct DeviceScratch {
  std::vector<cuda::DeviceTask> tasks;
  std::vector<int> first;
  std::vector<double> pos, mat;
  std::vector<collision::Contact> contacts;
  std::vector<int> count;
  std::vector<long> offset;
};

bool FillOnDevice(const mjModel* m, mjData** d, int nworld, const std::vector<WorldPairs>& lists,
                  cuda::DevicePass* pass, batch::ThreadPool* pool, std::string* why) {
  thread_local DeviceScratch scratch;
  std::vector<cuda::DeviceTask>& tasks = scratch.tasks;
  std::vector<int>& first = scratch.first;
  // Tasks in world order: each world's first task, then the lists and poses world by world on
  // the pool.
  first.assign(nworld + 1, 0);
  for (int w = 0; w < nworld; ++w) {
    first[w + 1] = first[w] + static_cast<int>(lists[w].pairs.size());
  }
  tasks.resize(first[nworld]);
  std::vector<double>& pos = scratch.pos;
  std::vector<double>& mat = scratch.mat;
  pos.resize(static_cast<size_t>(nworld) * m->ngeom * 3);
  mat.resize(static_cast<size_t>(nworld) * m->ngeom * 9);
  pool->Run(nworld, [&](int w) {
    const WorldPairs& list = lists[w];
    for (size_t k = 0; k < list.pairs.size(); ++k) {
      const batch::Candidate& c = list.pairs[k];
      const bool convex = list.routes[k] == PairRoute::kConvex;
      tasks[first[w] + k] = {w,
                             c.g1,
                             c.g2,
                             convex ? 1 : 0,
                             convex ? mj_maxContact(m, c.g1, c.g2, c.margin > 0) : mjMAXCONPAIR,
                             c.margin};
    }
    std::copy(d[w]->geom_xpos, d[w]->geom_xpos + 3 * m->ngeom, pos.begin() + 3L * w * m->ngeom);
    std::copy(d[w]->geom_xmat, d[w]->geom_xmat + 9 * m->ngeom, mat.begin() + 9L * w * m->ngeom);
  });
  std::vector<collision::Contact>& contacts = scratch.contacts;
  std::vector<int>& count = scratch.count;
  contacts.resize(tasks.size() * cuda::kMaxTaskContacts);
  count.resize(tasks.size());
  if (!pass->Run(nworld, pos.data(), mat.data(), tasks.data(), static_cast<int>(tasks.size()),
                 contacts.data(), count.data(), why)) {
    return false;
  }
  // Where each task's packed contacts start.
  std::vector<long>& offset = scratch.offset;
  offset.resize(tasks.size());
  long packed = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    offset[i] = packed;
    packed += std::max(count[i], 0);
  }
  pool->Run(nworld, [&](int w) {
    InstanceState* state = FindInstance(m, d[w]);
    for (int i = first[w]; i < first[w + 1]; ++i) {
      const cuda::DeviceTask& t = tasks[i];
      int n = count[i];
      if (n < 0) {  // a non-finite pose: no contact, warned as the per-pair path does
        n = 0;
        state->WarnBadPose(t.g1, t.g2);
      }
      state->cache().Add(d[w], t.g1, t.g2, t.margin,
                         reinterpret_cast<const mjPreContact*>(contacts.data() + offset[i]), n);
    }
    FinishWorld(state);
  });
  return true;
}

// The model's device entry for d's instance, made on first use and shared by the model's mjData;
// warns once per model when no device is usable.
DeviceEntry& DeviceOf(const mjModel* m, InstanceState* state) {
  std::shared_ptr<void>& slot = state->device_slot();
  if (slot == nullptr) {
    slot = DeviceFor(m, state);
  }
  DeviceEntry& entry = *std::static_pointer_cast<DeviceEntry>(slot);
  if (entry.pass == nullptr && !entry.warned.exchange(true)) {
    mju_warning(
        "mjportal: config key 'device' is 'cuda' but %s; the batched pass runs on the CPU "
        "(reported once per model)",
        entry.why.c_str());
  }
  return entry;
}

}  // namespace

int InStepLookup(const mjModel* m, mjData* d, InstanceState* state, int g1, int g2, mjtNum margin,
                 mjPreContact* con, int* count) {
  if (state->batch_driving().load(std::memory_order_acquire)) {
    return -1;
  }
  int mode = state->in_step().load(std::memory_order_acquire);
  if (mode < 0) {
    std::unique_lock<std::shared_mutex> lock(state->cache_mutex());
    mode = DeviceOf(m, state).pass != nullptr ? 1 : 0;
    state->in_step().store(mode, std::memory_order_release);
  }
  if (mode == 0) {
    return -1;
  }
  PairCache& cache = state->cache();
  {
    std::shared_lock<std::shared_mutex> lock(state->cache_mutex());
    if (cache.active() && cache.FilledAt(d->time)) {
      const PairCache::Answer answer =
          cache.Find(d, g1, g2, margin, con, count, /*count_it=*/false);
      if (answer != PairCache::Answer::kStale) {
        cache.Count(answer == PairCache::Answer::kHit);
        return answer == PairCache::Answer::kHit ? 1 : 0;
      }
    }
  }
  // A new step, stale, or never filled: one call refills (the others wait, then find it fresh).
  {
    std::unique_lock<std::shared_mutex> lock(state->cache_mutex());
    if (!cache.active() || !cache.FilledAt(d->time) ||
        cache.Find(d, g1, g2, margin, con, count, /*count_it=*/false) ==
            PairCache::Answer::kStale) {
      thread_local std::vector<WorldPairs> lists(1);
      ListWorldPairs(m, d, &lists[0]);
      batch::ThreadPool pool(1);
      std::string why;
      DeviceEntry& entry = DeviceOf(m, state);
      if (!FillOnDevice(m, &d, 1, lists, entry.pass.get(), &pool, &why)) {
        mju_warning("mjportal: %s; the in-step pass runs on the CPU for this step", why.c_str());
        FillWorldOnCpu(m, d, lists[0]);
      }
      cache.set_time(d->time);
    }
  }
  std::shared_lock<std::shared_mutex> lock(state->cache_mutex());
  const bool hit =
      cache.Find(d, g1, g2, margin, con, count, /*count_it=*/false) == PairCache::Answer::kHit;
  cache.Count(hit);
  return hit ? 1 : 0;
}

bool BatchStep(const mjModel* m, mjData** d, int nworld, int nstep, int nthread,
               BatchStats* stats) {
  for (int w = 0; w < nworld; ++w) {
    if (FindInstance(m, d[w]) == nullptr) {
      return false;
    }
  }
  batch::ThreadPool pool(nthread < 1 ? 1 : nthread);
  // The device, when asked for and usable; one warning per model otherwise.
  cuda::DevicePass* device = nullptr;
  if (nworld > 0 && FindInstance(m, d[0])->config().device == Device::kCuda) {
    device = DeviceOf(m, FindInstance(m, d[0])).pass.get();
    for (int w = 1; w < nworld; ++w) {
      FindInstance(m, d[w])->device_slot() = FindInstance(m, d[0])->device_slot();
    }
  }
  // This call fills the caches itself: in-step refills stay off meanwhile.
  for (int w = 0; w < nworld; ++w) {
    FindInstance(m, d[w])->cache().ResetCounts();
    FindInstance(m, d[w])->batch_driving().store(true, std::memory_order_release);
  }
  std::vector<WorldPairs> lists(nworld);
  for (int step = 0; step < nstep; ++step) {
    const double t0 = Seconds();
    pool.Run(nworld, [&](int w) { mj_kinematics(m, d[w]); });
    const double t1 = Seconds();
    pool.Run(nworld, [&](int w) { ListWorldPairs(m, d[w], &lists[w]); });
    std::string why;
    if (device == nullptr || !FillOnDevice(m, d, nworld, lists, device, &pool, &why)) {
      if (device != nullptr) {
        mju_warning("mjportal: %s; the batched pass runs on the CPU from now on", why.c_str());
        device = nullptr;
      }
      pool.Run(nworld, [&](int w) { FillWorldOnCpu(m, d[w], lists[w]); });
    }
    const double t2 = Seconds();
    pool.Run(nworld, [&](int w) {
      mj_step(m, d[w]);
      FindInstance(m, d[w])->cache().Close();
    });
    const double t3 = Seconds();
    stats->kinematics_s += t1 - t0;
    stats->pass_s += t2 - t1;
    stats->step_s += t3 - t2;
    for (int w = 0; w < nworld; ++w) {
      stats->contacts += d[w]->ncon;
      stats->candidates += lists[w].candidates;
      stats->cached += FindInstance(m, d[w])->cache().size();
    }
    stats->world_steps += nworld;
  }
  stats->device = device != nullptr;
  for (int w = 0; w < nworld; ++w) {
    FindInstance(m, d[w])->batch_driving().store(false, std::memory_order_release);
  }
  for (int w = 0; w < nworld; ++w) {
    const PairCache& cache = FindInstance(m, d[w])->cache();
    stats->hits += cache.hits();
    stats->misses += cache.misses();
  }
  return true;
}

}  // namespace mjportal
