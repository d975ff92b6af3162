#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, checks the simulate layout
# (<prefix>/bin/mujoco_plugin/libmjportal.so), and builds a consumer with find_package(mjportal).
#   install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir="$1"
source_dir="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/bin/mujoco_plugin/libmjportal.so" || { echo "simulate layout missing"; exit 1; }
test -x "$work/prefix/bin/mjportal-compare" || { echo "mjportal-compare not installed"; exit 1; }
cmake -S "$source_dir/tests/install/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
