// Case counts that an environment variable may raise (soak runs), shared by the test suites.
#pragma once

#include <cstdlib>

namespace mjportal::testing {

// The positive integer in $name, or `fallback` when it is unset or not a positive integer.
inline long EnvCount(const char* name, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) {
    return fallback;
  }
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (end != text && *end == '\0' && value > 0) ? value : fallback;
}

}  // namespace mjportal::testing
