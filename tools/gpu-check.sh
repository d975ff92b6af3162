#!/usr/bin/env bash
# GPU check of the batched engine (issue 4), for a machine with a CUDA GPU and nothing to install
# (the `device` tool's machine). Prints its tables; about 40 seconds on an H200 machine.
#
#   tools/gpu-check.sh
#
# Build: the carried build outputs (build/bin, build/lib: made here with nvcc, sm_90 + PTX) when
# present; else CMake + nvcc build there (GoogleTest may be missing: then only the rollout runs).
# MuJoCo's library (and, to build there, its headers) must be carried; with the device tool:
#   carry: build/bin, build/lib, .venv/lib/python3.11/site-packages/mujoco/libmujoco.so.3.12.0,
#          .venv/lib/python3.11/site-packages/mujoco/include          (about 17 MB)
# Runs the CUDA-vs-CPU bitwise suite (Models/CudaPassTest: every bundled model, compat and fast,
# 64 worlds; Models/InStepTest's device runs; a compute-sanitizer memcheck of two of them) and
# mjportal-rollout at 1, 64, 1024 and 8192 worlds on a 200-vertex mesh pile, a cylinder pile and
# the articulated humanoid, device cuda and cpu, fast mode, with the device pass's stage times.
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
mujoco_dir=$(ls -d "$root"/.venv/lib/python3*/site-packages/mujoco 2>/dev/null | head -1)
if [ -z "$mujoco_dir" ] || [ ! -f "$mujoco_dir/libmujoco.so.3.12.0" ]; then
  echo "gpu-check: carry .venv/lib/python3*/site-packages/mujoco (libmujoco.so.3.12.0, include/)" >&2
  exit 1
fi
export LD_LIBRARY_PATH="$mujoco_dir:${LD_LIBRARY_PATH:-}"
export MJPORTAL_PLUGIN_PATH="$root/build/lib/libmjportal.so"
export MJPORTAL_MODELS_DIR="$root/models"

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2

if [ ! -x build/bin/mjportal-rollout ] || [ ! -f "$MJPORTAL_PLUGIN_PATH" ]; then
  echo "== building (no carried build outputs)"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUJOCO_DIR="$mujoco_dir" \
    -DMJPORTAL_BUILD_BENCHMARKS=OFF >build-gpu-configure.log 2>&1 ||
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUJOCO_DIR="$mujoco_dir" \
      -DMJPORTAL_BUILD_BENCHMARKS=OFF -DMJPORTAL_BUILD_TESTS=OFF >build-gpu-configure.log 2>&1 ||
    { tail -20 build-gpu-configure.log; exit 1; }
  cmake --build build -j "$(nproc)" >build-gpu.log 2>&1 || { tail -30 build-gpu.log; exit 1; }
fi

echo "== CUDA pass vs CPU twin (bitwise, 50 steps each; batched and in-step)"
if [ -x build/bin/mjportal_plugin_tests ]; then
  MJPORTAL_BATCH_STEPS=50 timeout 150 build/bin/mjportal_plugin_tests \
    --gtest_filter='Models/CudaPassTest.*_device:Models/InStepTest.*_device:BatchBufferTest.*' \
    --gtest_brief=1 2>&1 | tail -25
  if command -v compute-sanitizer >/dev/null; then
    echo "== compute-sanitizer memcheck (5 steps, mesh_pile and cylinder_pile, fast)"
    MJPORTAL_BATCH_STEPS=5 timeout 120 compute-sanitizer --tool memcheck --print-limit 5 \
      build/bin/mjportal_plugin_tests --gtest_brief=1 \
      --gtest_filter='*CudaPassTest*/mesh_pile_fast_device:*CudaPassTest*/cylinder_pile_fast_device' \
      2>&1 | tail -8
  fi
else
  echo "(no test binary: GoogleTest missing here and no carried build)"
fi

echo "== mjportal-rollout, fast mode"
timing=$(mktemp)
printf '| model | worlds | steps | device | stock world-steps/s | mjportal world-steps/s | speedup | kinematics s | pass s | step s | hit rate | contacts/world-step |\n'
printf '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for model in mesh200_pile cylinder_pile humanoid; do
  for worlds in 1 64 1024 8192; do
    steps=$((worlds >= 8192 ? 10 : (worlds >= 1024 ? 20 : (worlds >= 64 ? 100 : 500))))
    for device in cuda cpu; do
      json=$(MJPORTAL_CUDA_TIMING=1 timeout 30 build/bin/mjportal-rollout "models/$model.xml" \
        --worlds "$worlds" --steps "$steps" --device "$device" --mode fast --json \
        2>"$timing.err") || {
        echo "| $model | $worlds | $steps | $device | (failed or over 30 s) |"; continue; }
      python3 - "$json" <<'PY' 2>/dev/null || echo "| $model | $worlds | $steps | $device | $json |"
import json, sys
r = json.loads(sys.argv[1])
name = r["model"].split("/")[-1][:-4]
print(f"| {name} | {r['worlds']} | {r['steps']} | {r['device']} | {r['steps_per_s_stock']:.0f} "
      f"| {r['steps_per_s']:.0f} | {r['speedup']:.2f} | {r['kinematics_s']:.3f} "
      f"| {r['batched_pass_s']:.3f} | {r['step_s']:.3f} "
      f"| {r['cache_hit_rate']:.3f} | {r['contacts_per_world_step']:.1f} |")
PY
      sed -n "s/^mjportal cuda pass: /| $model | $worlds | /p" "$timing.err" >>"$timing"
    done
  done
done
echo "== device pass stages (MJPORTAL_CUDA_TIMING=1; totals over the rollout's steps)"
echo "| model | worlds | runs, tasks, contacts; stage times |"
cat "$timing"
rm -f "$timing" "$timing.err"
