#!/bin/bash
# Instructions per narrowphase call for one mjportal-bench-fast benchmark, by callgrind: counting
# only inside the bench's call loop (CallEntry), the inclusive cost of the called entry divided by
# its call count. Deterministic, unlike wall time on a shared VM; under a minute per benchmark
# (bench-fast builds only the scenes its --benchmark_filter selects).
#
#   tools/bench/instructions_per_call.sh BUILD_DIR BENCHMARK [ENTRY]
#   tools/bench/instructions_per_call.sh build mesh-mesh/200v/fast              # ours: Dispatch<>
#   tools/bench/instructions_per_call.sh build mesh-mesh/200v/stock mjc_Convex  # MuJoCo's entry
#
# Use a RelWithDebInfo build (symbols) with the same optimization flags as the release build.
set -euo pipefail
build=$1
bench=$2
entry=${3:-Dispatch<}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
  --toggle-collect='*CallEntry*' "$build/bin/mjportal-bench-fast" \
  --benchmark_filter="^$bench\$" --benchmark_min_time=0.5 >/dev/null 2>&1
python3 - "$out" "$bench" "$entry" <<'PY'
import re, sys
path, bench, entry = sys.argv[1:]
names, calls, inclusive = {}, 0, 0
lines = open(path).read().split('\n')
for k, line in enumerate(lines):
    m = re.match(r'c?fn=\((\d+)\)(.*)', line)
    if not m:
        continue
    if m.group(2).strip():
        names[m.group(1)] = m.group(2).strip()
    # A call record: cfn=(id) then calls=N ... then the inclusive cost line.
    if line.startswith('cfn=') and entry in names.get(m.group(1), '') and \
            k + 2 < len(lines) and lines[k + 1].startswith('calls='):
        calls += int(lines[k + 1].split()[0][len('calls='):])
        inclusive += int(lines[k + 2].split()[1])
print(f"{bench}: calls={calls} instructions/call={inclusive / max(calls, 1):.0f}")
PY
