#include "plugin/config.h"

#include <cstdlib>
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

// Parses an integer key: empty takes the default; anything else must be a whole number in
// [lo, hi].
bool ParseInt(const char* key, const char* value, int lo, int hi, int* out, std::string* error) {
  if (value == nullptr || value[0] == '\0') {
    return true;
  }
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || parsed < lo || parsed > hi) {
    *error = "mjportal: config key '" + std::string(key) + "' has invalid value '" + value +
             "'; allowed values: integers from " + std::to_string(lo) + " to " + std::to_string(hi);
    return false;
  }
  *out = static_cast<int>(parsed);
  return true;
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
  using collision::CcdAlgorithm;
  if (!ParseChoice<CcdAlgorithm, 3>(
          "ccd", mj_getPluginConfig(m, instance, "ccd"), {"auto", "mpr", "gjk"},
          {CcdAlgorithm::kAuto, CcdAlgorithm::kMpr, CcdAlgorithm::kGjk}, &config.ccd, error)) {
    return std::nullopt;
  }
  if (!ParseChoice<bool, 2>("multicontact", mj_getPluginConfig(m, instance, "multicontact"),
                            {"false", "true"}, {false, true}, &config.multicontact, error)) {
    return std::nullopt;
  }
  using collision::ManifoldMethod;
  if (!ParseChoice<ManifoldMethod, 2>(
          "manifold", mj_getPluginConfig(m, instance, "manifold"), {"clip", "perturb"},
          {ManifoldMethod::kClip, ManifoldMethod::kPerturb}, &config.manifold, error)) {
    return std::nullopt;
  }
  if (!ParseInt("support_res", mj_getPluginConfig(m, instance, "support_res"), kSupportResMin,
                kSupportResMax, &config.support_res, error)) {
    return std::nullopt;
  }
  if (!ParseChoice<bool, 2>("support_refine", mj_getPluginConfig(m, instance, "support_refine"),
                            {"false", "true"}, {false, true}, &config.support_refine, error)) {
    return std::nullopt;
  }
  if (!ParseChoice<bool, 2>("coherence", mj_getPluginConfig(m, instance, "coherence"),
                            {"false", "true"}, {false, true}, &config.coherence, error)) {
    return std::nullopt;
  }
  if (!ParseChoice<Device, 2>("device", mj_getPluginConfig(m, instance, "device"), {"cpu", "cuda"},
                              {Device::kCpu, Device::kCuda}, &config.device, error)) {
    return std::nullopt;
  }
  if (!ParseInt("max_collision_pairs", mj_getPluginConfig(m, instance, "max_collision_pairs"),
                kMaxCollisionPairsMin, kMaxCollisionPairsMax, &config.max_collision_pairs, error)) {
    return std::nullopt;
  }
  return config;
}

const char* ModeName(Mode mode) {
  return mode == Mode::kCompat ? "compat" : "fast";
}

}  // namespace mjportal
