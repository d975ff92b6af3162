"""Runs mjportal-compare --json on each model and prints one table.

usage: compare_table.py COMPARE_BINARY MODEL.xml... [-- extra mjportal-compare flags]
"""
import json
import os
import subprocess
import sys


def main(argv):
    binary, rest = argv[1], argv[2:]
    extra = []
    if "--" in rest:
        cut = rest.index("--")
        rest, extra = rest[:cut], rest[cut + 1:]
    if not any(flag == "--mode" for flag in extra):
        extra = ["--mode", "compat"] + extra
    header = ("model", "mode", "steps", "bitwise", "diverge@", "contacts/step", "stock ns/step",
              "plugin ns/step", "ratio", "pairs ours", "pairs delegated")
    rows, failed = [], False
    for model in rest:
        out = subprocess.run([binary, model, "--json", *extra], capture_output=True, text=True)
        name = os.path.splitext(os.path.basename(model))[0]
        if out.returncode != 0:
            failed = True
            rows.append((name, "error: " + out.stderr.strip().replace("\n", " ")))
            continue
        r = json.loads(out.stdout)
        rows.append((name, r["mode"], str(r["steps"]), "yes" if r["bitwise_identical"] else "NO",
                     "-" if r["first_divergence_step"] is None else str(r["first_divergence_step"]),
                     f'{r["contacts_per_step"]:.1f}', f'{r["ns_per_step_stock"]:.0f}',
                     f'{r["ns_per_step_plugin"]:.0f}',
                     f'{r["ns_per_step_plugin"] / r["ns_per_step_stock"]:.3f}',
                     str(r["pairs_ours"]), str(r["pairs_delegated"])))
    widths = [max(len(str(row[i])) for row in [header] + [r for r in rows if len(r) == len(header)])
              for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for row in rows:
        if len(row) == len(header):
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
        else:
            print(f"{row[0]}: {row[1]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
