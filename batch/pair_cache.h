// One world's cache of narrowphase answers, filled by the batched pass before MuJoCo's step and
// read by the dispatcher during it (DESIGN.md §6).
//
// An entry is keyed by the geom pair as MuJoCo orders it (g1, g2) and by the margin it is called
// with, and stamped with the exact bits of both geoms' poses (geom_xpos, geom_xmat) it was
// computed from. The dispatcher answers from an entry only when key, margin and every pose bit
// match: the entry then holds exactly what the kernel would return now (the kernels are pure
// functions of the model, the poses and the margin). Anything else is computed on the spot and
// counted as a miss. A full buffer (max_collision_pairs entries) leaves the rest of the pairs
// uncached, never dropped.
//
// Filling is single-threaded (one world, one worker); reading may run on MuJoCo's thread pool,
// so lookups only read and the counters are relaxed atomics.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "plugin/entry_route.h"

namespace mjportal {

class PairCache {
 public:
  PairCache() = default;
  PairCache(const PairCache&) = delete;
  PairCache& operator=(const PairCache&) = delete;
  ~PairCache() { SetActive(false); }

  // Pose bits of one geom: position (3) and rotation (9).
  static constexpr int kPoseDoubles = 12;
  // Contacts reserved per entry (the contact store grows beyond it if needed).
  static constexpr int kContactsPerPair = 4;

  // Starts a fill for `capacity` pairs; drops the previous entries.
  void Begin(int capacity) {
    capacity_ = capacity;
    entries_.clear();
    contacts_.clear();
    entries_.reserve(static_cast<size_t>(capacity));
    contacts_.reserve(
        std::max<size_t>(static_cast<size_t>(capacity) * kContactsPerPair, mjMAXCONPAIR));
    wanted_ = 0;
    reserved_ = 0;
    SetActive(false);
  }

  // Reserves an entry when one is left. Counts every pair offered, so that wanted() tells how
  // large the buffer should have been.
  bool Room() {
    ++wanted_;
    if (reserved_ >= capacity_)
      return false;
    ++reserved_;
    return true;
  }

  // Adds the answer `con[0..count)` of pair (g1, g2) at `margin`, computed from d's poses.
  void Add(const mjData* d, int g1, int g2, mjtNum margin, const mjPreContact* con, int count) {
    Entry e;
    e.key = Key(g1, g2);
    e.margin = margin;
    StorePose(d, g1, e.pose);
    StorePose(d, g2, e.pose + kPoseDoubles);
    e.first = static_cast<int>(contacts_.size());
    e.count = count;
    contacts_.insert(contacts_.end(), con, con + count);
    entries_.push_back(e);
  }

  // Sorts the entries for lookup and opens the cache to the dispatcher.
  void Finish() {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.key < b.key; });
    SetActive(true);
  }

  // Closes the cache (the dispatcher computes everything).
  void Close() { SetActive(false); }

  bool active() const { return active_; }

  // The simulation time the entries were filled at (in-step mode refills when it moves on).
  void set_time(double time) { time_ = time; }
  bool FilledAt(double time) const { return std::memcmp(&time_, &time, sizeof(time)) == 0; }
  int size() const { return static_cast<int>(entries_.size()); }
  int wanted() const { return wanted_; }

  // What the cache holds for (g1, g2) at `margin`: the answer for d's current poses of both
  // geoms (kHit: contacts written to con, their number to *count), an answer for other poses
  // (kStale), or nothing (kAbsent). Counts hits and misses when `count_it`.
  enum class Answer { kHit, kStale, kAbsent };
  Answer Find(const mjData* d, int g1, int g2, mjtNum margin, mjPreContact* con, int* count,
              bool count_it = true) {
    const std::uint64_t key = Key(g1, g2);
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const Entry& e, std::uint64_t k) { return e.key < k; });
    double pose[2 * kPoseDoubles];
    StorePose(d, g1, pose);
    StorePose(d, g2, pose + kPoseDoubles);
    Answer answer = Answer::kAbsent;
    for (; it != entries_.end() && it->key == key; ++it) {
      if (std::memcmp(&it->margin, &margin, sizeof(margin)) != 0)
        continue;
      if (std::memcmp(it->pose, pose, sizeof(pose)) == 0) {
        std::copy(contacts_.begin() + it->first, contacts_.begin() + it->first + it->count, con);
        *count = it->count;
        if (count_it)
          hits_.fetch_add(1, std::memory_order_relaxed);
        return Answer::kHit;
      }
      answer = Answer::kStale;
    }
    if (count_it)
      misses_.fetch_add(1, std::memory_order_relaxed);
    return answer;
  }

  // Find, as a yes or no.
  bool Lookup(const mjData* d, int g1, int g2, mjtNum margin, mjPreContact* con, int* count) {
    return Find(d, g1, g2, margin, con, count) == Answer::kHit;
  }

  // Counts one call as a hit or a miss (for callers that Find without counting).
  void Count(bool hit) { (hit ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed); }

  std::int64_t hits() const { return hits_.load(); }
  std::int64_t misses() const { return misses_.load(); }
  void ResetCounts() {
    hits_.store(0);
    misses_.store(0);
  }

 private:
  struct Entry {
    std::uint64_t key;
    mjtNum margin;
    double pose[2 * kPoseDoubles];
    int first, count;
  };

  // Opens or closes the cache; an open one makes the dispatcher look every call up
  // (plugin/entry_route.h).
  void SetActive(bool active) {
    if (active != active_) {
      CountPerCallState(active ? 1 : -1);
    }
    active_ = active;
  }

  static std::uint64_t Key(int g1, int g2) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(g1)) << 32) |
           static_cast<std::uint32_t>(g2);
  }
  static void StorePose(const mjData* d, int g, double* out) {
    std::memcpy(out, d->geom_xpos + 3 * g, 3 * sizeof(double));
    std::memcpy(out + 3, d->geom_xmat + 9 * g, 9 * sizeof(double));
  }

  int capacity_ = 0;
  double time_ = -1;
  int wanted_ = 0;
  int reserved_ = 0;
  bool active_ = false;
  std::vector<Entry> entries_;
  std::vector<mjPreContact> contacts_;
  std::atomic<std::int64_t> hits_{0}, misses_{0};
};

}  // namespace mjportal
