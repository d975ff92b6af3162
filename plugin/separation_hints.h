// Fast mode's temporal coherence: per geom pair of one mjData, the unit axis that separated the
// pair at its last call and the meshes' last support vertices (collision/convex_contact.h checks
// the axis first: two support queries, climbing from those vertices, instead of a solve while the
// pair stays apart; once a check proved a gap, a bound on it from the geoms' moves since, with no
// query at all). A hint only ever saves time; results do not depend on it (see CollideConvex).
//
// MuJoCo's thread pool calls different pairs of one mjData concurrently, never the same pair
// twice at once, and its task joins order one step's calls before the next step's. So slots are
// claimed with a compare-and-swap on the key, and a slot's axis is touched only by calls of its
// own pair. A full table (open addressing, bounded probing) just gives no hint.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "collision/convex_contact.h"

namespace mjportal {

class SeparationHints {
 public:
  // Room for about `pairs` pairs (rounded up to a power of two, at least 256).
  explicit SeparationHints(int pairs) {
    std::size_t size = 256;
    while (size < static_cast<std::size_t>(pairs) * 2 && size < (std::size_t{1} << 22)) {
      size *= 2;
    }
    slots_ = std::make_unique<Slot[]>(size);
    mask_ = size - 1;
  }

  // The hint slot of pair (g1, g2), claimed on first use; nullptr when the table is full.
  collision::SeparationHint* Find(int g1, int g2) {
    const std::uint64_t key = ((static_cast<std::uint64_t>(static_cast<std::uint32_t>(g1)) << 32) |
                               static_cast<std::uint32_t>(g2)) +
                              1;
    std::size_t i = (key * 0x9E3779B97F4A7C15ULL) >> 20 & mask_;
    for (int probe = 0; probe < kMaxProbe; ++probe, i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      std::uint64_t current = slot.key.load(std::memory_order_acquire);
      if (current == 0 &&
          slot.key.compare_exchange_strong(current, key, std::memory_order_acq_rel)) {
        return &slot.hint;
      }
      if (current == key) {
        return &slot.hint;
      }
    }
    return nullptr;
  }

 private:
  static constexpr int kMaxProbe = 16;
  struct Slot {
    std::atomic<std::uint64_t> key{0};
    collision::SeparationHint hint;
  };
  std::unique_ptr<Slot[]> slots_;
  std::size_t mask_ = 0;
};

}  // namespace mjportal
