// Plugin configuration: the <config key=... value=...> pairs of an mjportal instance.
#pragma once

#include <mujoco/mujoco.h>

#include <array>
#include <optional>
#include <string>

#include "collision/convex_contact.h"

namespace mjportal {

enum class Mode { kFast, kCompat };
enum class Device { kCpu, kCuda };

// max_collision_pairs bounds: candidate pairs cached per world by the batched pass.
constexpr int kMaxCollisionPairsMin = 1;
constexpr int kMaxCollisionPairsMax = 1 << 24;

// Every config key, declared once: MuJoCo receives this list at registration and rejects keys
// outside it while compiling the model.
constexpr std::array<const char*, 10> kConfigKeys = {
    "mode",        "stats",          "ccd",       "multicontact", "manifold",
    "support_res", "support_refine", "coherence", "device",       "max_collision_pairs"};

// support_res bounds: a field has support_res² cells (int32 each).
constexpr int kSupportResMin = 8;
constexpr int kSupportResMax = 1024;

struct Config {
  Mode mode = Mode::kFast;  // mode:  fast (default) | compat
  bool stats = false;       // stats: false (default) | true — count calls per pair type
  // Fast mode only (compat reproduces MuJoCo and ignores them):
  collision::CcdAlgorithm ccd = collision::CcdAlgorithm::kAuto;  // ccd: auto | mpr | gjk
  bool multicontact = true;  // multicontact: true (default) | false — contacts beyond the first
  // manifold: clip (default) | perturb — how multicontact finds them
  collision::ManifoldMethod manifold = collision::ManifoldMethod::kClip;
  int support_res = 180;       // support_res: 8..1024 — support-field grid per axis
  bool support_refine = true;  // support_refine: true (default) | false — exact vertex climb
  // coherence: true (default) | false — keep each pair's separating axis between calls (a cost
  // saving only: the answers are the same either way)
  bool coherence = true;
  // Batched engine (batch/): where the batched pass runs, and its per-world candidate buffer.
  Device device = Device::kCpu;    // device: cpu (default) | cuda
  int max_collision_pairs = 4096;  // max_collision_pairs: 1..2^24

  // Reads and validates instance `instance` of m. On a bad value returns nullopt and sets *error to
  // a message that names the key, the value and what is allowed.
  static std::optional<Config> FromModel(const mjModel* m, int instance, std::string* error);
};

const char* ModeName(Mode mode);

}  // namespace mjportal
