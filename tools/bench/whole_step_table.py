"""The README's whole-step table in one run: fast vs stock per step, from the start and settled.

For each model, mjportal-compare --json --mode fast runs from the model's initial state and with
--settle SETTLE (both runs stepping stock's settled state). Every model and start is run ROUNDS
times, the rounds one after another over all models (a slow stretch of the host then touches
every row alike rather than all runs of one). Prints one markdown row per model: ns per step of
the run with the median speedup, the speedup as median (lowest-highest), and contacts per step
stock / fast, for both starts.

usage: whole_step_table.py COMPARE_BINARY [--rounds N] [--steps N] [--settle N] [MODEL.xml...]
Without models: the bundled piles and scenes of the README's table. Run it pinned to a core
(taskset -c 1) with the other core idle.
"""
import json
import statistics
import subprocess
import sys

DEFAULT_MODELS = [
    "models/cylinder_pile.xml",
    "models/mesh200_pile.xml",
    "models/mesh_pile.xml",
    "models/mesh_cans.xml",
    "models/bench/mesh_bin.xml",
    "models/bench/mixed_bin.xml",
    "models/bench/cylinder_bin.xml",
    "models/libccd_scene.xml",
    "models/primitive_mix.xml",
    "models/box_pyramid.xml",
    "models/humanoid.xml",
]


def compare(binary, model, steps, settle):
    args = [binary, model, "--json", "--mode", "fast", "--steps", str(steps)]
    if settle > 0:
        args += ["--settle", str(settle)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"whole_step_table: {' '.join(args)} failed:\n{out.stderr}")
    r = json.loads(out.stdout)
    if r["pairs_delegated"] != 0:
        sys.exit(f"whole_step_table: {model} delegated {r['pairs_delegated']} pairs in fast mode")
    return r


def speedup(run):
    return run["ns_per_step_stock"] / run["ns_per_step_plugin"]


def summary(runs):
    """ns of the median run, speedup median (lowest-highest), contacts stock / fast."""
    ordered = sorted(runs, key=speedup)
    middle = ordered[len(ordered) // 2]
    median = statistics.median(speedup(r) for r in ordered)
    return (f'{middle["ns_per_step_stock"]:,.0f} / {middle["ns_per_step_plugin"]:,.0f}',
            f"{median:.2f} ({speedup(ordered[0]):.2f}–{speedup(ordered[-1]):.2f})",
            f'{middle["contacts_per_step"]:.1f} / {middle["plugin_contacts_per_step"]:.1f}')


def main(argv):
    binary, rest = argv[1], argv[2:]
    counts, models = {"--rounds": 3, "--steps": 3000, "--settle": 3000}, []
    while rest:
        flag = rest.pop(0)
        if flag in counts:
            text = rest.pop(0) if rest else ""
            if not text.isdigit():
                sys.exit(f"whole_step_table: {flag} needs a whole number, got '{text}'")
            counts[flag] = int(text)
        elif flag.startswith("--"):
            sys.exit(f"whole_step_table: unknown flag '{flag}' (allowed: --rounds, --steps, "
                     "--settle)")
        else:
            models.append(flag)
    models = models or DEFAULT_MODELS
    rounds, steps, settle = counts["--rounds"], counts["--steps"], counts["--settle"]
    if rounds < 1 or steps < 1 or settle < 1:
        sys.exit("whole_step_table: --rounds, --steps and --settle must be at least 1")
    runs = {(m, s): [] for m in models for s in (0, settle)}
    for k in range(rounds):
        for m in models:
            for s in (0, settle):
                runs[(m, s)].append(compare(binary, m, steps, s))
        print(f"round {k + 1} of {rounds} done", file=sys.stderr, flush=True)
    print("| model | from the start: stock / fast ns | speedup | contacts | "
          "settled pile: stock / fast ns | speedup | contacts |")
    print("|---|---:|---:|---|---:|---:|---|")
    for m in models:
        start, settled = summary(runs[(m, 0)]), summary(runs[(m, settle)])
        print(f"| {m} | " + " | ".join(start) + " | " + " | ".join(settled) + " |")


if __name__ == "__main__":
    main(sys.argv)
