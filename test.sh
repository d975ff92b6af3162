#!/usr/bin/env bash
# Sets up what is missing, builds, and runs the whole test suite with ctest.
#   ./test.sh                      Release build in build/
#   MJPORTAL_SANITIZE=1 ./test.sh  ASan + UBSan build in build-asan/
# Long runs: MJPORTAL_ORACLE_CASES, MJPORTAL_TRAJECTORY_STEPS, MJPORTAL_KERNEL_CASES (see README).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh

if [ "${MJPORTAL_SANITIZE:-0}" = "1" ]; then
  build_dir="$MJPORTAL_ROOT/build-asan"
  mjportal_setup "$build_dir" -DMJPORTAL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
else
  build_dir="$MJPORTAL_ROOT/build"
  mjportal_setup "$build_dir"
fi
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
