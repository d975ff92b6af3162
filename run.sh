#!/usr/bin/env bash
# The main job: set up what is missing, build Release, then run mjportal-compare in compat mode on
# every bundled model and print one table (bitwise verdict, contacts, time per step, pair counts).
#   ./run.sh [--mode compat|fast] [--steps N]
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
mjportal_setup "$MJPORTAL_ROOT/build"
exec "$MJPORTAL_ROOT/.venv/bin/python" "$MJPORTAL_ROOT/tools/compare_table.py" \
  "$MJPORTAL_ROOT/build/bin/mjportal-compare" "$MJPORTAL_ROOT"/models/*.xml -- "$@"
