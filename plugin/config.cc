#include "plugin/config.h"

#include <cstring>

namespace mjportal {
namespace {

// Parses one enumerated key: an empty value takes the default, anything else must be listed.
template <typename T, size_t N>
bool ParseChoice(const char* key, const char* value, const std::array<const char*, N>& names,
                 const std::array<T, N>& values, T* out, std::string* error) {
  if (value == nullptr || value[0] == '\0') {
    return true;
  }
  for (size_t i = 0; i < N; ++i) {
    if (std::strcmp(value, names[i]) == 0) {
      *out = values[i];
      return true;
    }
  }
  std::string allowed;
  for (size_t i = 0; i < N; ++i) {
    allowed += (i ? ", '" : "'") + std::string(names[i]) + "'";
  }
  *error = "mjportal: config key '" + std::string(key) + "' has invalid value '" + value +
           "'; allowed values: " + allowed;
  return false;
}

}  // namespace

std::optional<Config> Config::FromModel(const mjModel* m, int instance, std::string* error) {
  Config config;
  if (!ParseChoice<Mode, 2>("mode", mj_getPluginConfig(m, instance, "mode"), {"fast", "compat"},
                            {Mode::kFast, Mode::kCompat}, &config.mode, error)) {
    return std::nullopt;
  }
  if (!ParseChoice<bool, 2>("stats", mj_getPluginConfig(m, instance, "stats"), {"false", "true"},
                            {false, true}, &config.stats, error)) {
    return std::nullopt;
  }
  return config;
}

const char* ModeName(Mode mode) {
  return mode == Mode::kCompat ? "compat" : "fast";
}

}  // namespace mjportal
