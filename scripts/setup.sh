#!/usr/bin/env bash
# Shared setup for run.sh and test.sh: Debian packages, the pinned MuJoCo wheel in .venv, and a
# configured + built tree. Idempotent and quiet when everything is already in place.
#
#   source scripts/setup.sh; mjportal_setup BUILD_DIR [extra cmake args...]
set -euo pipefail

MJPORTAL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MJPORTAL_MUJOCO_VERSION="3.12.0"
MJPORTAL_APT_PACKAGES=(cmake g++ make libgtest-dev libbenchmark-dev python3 python3-venv)

# Debian packages the build needs; apt-get only runs when one is missing.
mjportal_apt() {
  local missing=()
  for pkg in "${MJPORTAL_APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  # python3 may come from elsewhere (pyenv); only ask apt for it when no python3 runs at all.
  if command -v python3 >/dev/null 2>&1 && python3 -c 'import venv' 2>/dev/null; then
    missing=("${missing[@]/python3-venv/}")
    missing=("${missing[@]/python3/}")
  fi
  local wanted=()
  for pkg in "${missing[@]}"; do [ -n "$pkg" ] && wanted+=("$pkg"); done
  if [ "${#wanted[@]}" -gt 0 ]; then
    echo "setup: installing Debian packages: ${wanted[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${wanted[@]}" >/dev/null
  fi
}

# The pinned MuJoCo wheel (and numpy for the Python tests) in the project's .venv.
mjportal_venv() {
  local py="$MJPORTAL_ROOT/.venv/bin/python"
  if [ -x "$py" ] && "$py" -c "import mujoco, numpy, sys; sys.exit(mujoco.__version__ != '$MJPORTAL_MUJOCO_VERSION')" 2>/dev/null; then
    return
  fi
  echo "setup: installing mujoco==$MJPORTAL_MUJOCO_VERSION into .venv"
  [ -x "$py" ] || python3 -m venv "$MJPORTAL_ROOT/.venv"
  "$py" -m pip install -q --disable-pip-version-check "mujoco==$MJPORTAL_MUJOCO_VERSION" numpy
}

# Configure (first time only) and build.
mjportal_build() {
  local build_dir="$1"
  shift
  mkdir -p "$build_dir"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$MJPORTAL_ROOT" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DMJPORTAL_WERROR=ON \
      "$@" >"$build_dir/configure.log" 2>&1 || { cat "$build_dir/configure.log"; return 1; }
  fi
  local log="$build_dir/build.log"
  cmake --build "$build_dir" -j "$(nproc)" >"$log" 2>&1 || { cat "$log"; return 1; }
}

mjportal_setup() {
  mjportal_apt
  mjportal_venv
  mjportal_build "$@"
}
