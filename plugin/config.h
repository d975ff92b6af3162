// Plugin configuration: the <config key=... value=...> pairs of an mjportal instance.
#pragma once

#include <mujoco/mujoco.h>

#include <array>
#include <optional>
#include <string>

namespace mjportal {

enum class Mode { kFast, kCompat };

// Every config key, declared once: MuJoCo receives this list at registration and rejects keys
// outside it while compiling the model.
constexpr std::array<const char*, 2> kConfigKeys = {"mode", "stats"};

struct Config {
  Mode mode = Mode::kFast;  // mode:  fast (default) | compat
  bool stats = false;       // stats: false (default) | true — count calls per pair type

  // Reads and validates instance `instance` of m. On a bad value returns nullopt and sets *error to
  // a message that names the key, the value and what is allowed.
  static std::optional<Config> FromModel(const mjModel* m, int instance, std::string* error);
};

const char* ModeName(Mode mode);

}  // namespace mjportal
