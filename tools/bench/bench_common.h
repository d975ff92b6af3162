// Shared pieces of the per-call benchmarks: calling a table entry over a scene's cases, and a
// reporter that keeps each benchmark's fastest repetition for the ratio tables.
#pragma once

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tools/common/pair_scene.h"

namespace mjportal::tools {

// Calls `entry` on every case of the scene in turn, one call per iteration.
inline void CallEntry(benchmark::State& state, const PairScene* scene, mjfCollision entry) {
  mjPreContact con[mjMAXCONPAIR];
  const std::vector<PairCase>& cases = scene->cases();
  size_t i = 0;
  long long contacts = 0;
  for (auto _ : state) {
    const PairCase& c = cases[i];
    contacts += entry(scene->model(), scene->data(), con, c.geom1, c.geom2, c.margin);
    benchmark::DoNotOptimize(con);
    i = (i + 1 == cases.size()) ? 0 : i + 1;
  }
  state.counters["contacts/call"] =
      benchmark::Counter(static_cast<double>(contacts) / static_cast<double>(state.iterations()));
}

// Keeps the fastest repetition (ns per iteration) and its contacts/call of each benchmark.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.iterations == 0)
        continue;
      const double ns = run.GetAdjustedRealTime();
      const std::string& name = run.run_name.function_name;
      auto [it, inserted] = best_.emplace(name, ns);
      if (!inserted)
        it->second = std::min(it->second, ns);
      auto counter = run.counters.find("contacts/call");
      if (counter != run.counters.end())
        contacts_[name] = counter->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double Best(const std::string& name) const {
    auto it = best_.find(name);
    return it == best_.end() ? 0 : it->second;
  }
  double Contacts(const std::string& name) const {
    auto it = contacts_.find(name);
    return it == contacts_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, double> best_;
  std::map<std::string, double> contacts_;
};

}  // namespace mjportal::tools
