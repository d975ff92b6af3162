"""tools/bench/whole_step_table.py: one markdown row per model whose contacts and speedups are
mjportal-compare's own; bad flags, bad counts and a bad model exit non-zero with a message.

usage: python whole_step_table_cli_test.py COMPARE_BINARY MODELS_DIR SCRIPT
"""
import json
import os
import re
import subprocess
import sys
import unittest

BINARY, MODELS, SCRIPT = sys.argv[1], sys.argv[2], sys.argv[3]
del sys.argv[1:4]


def table(*args):
    return subprocess.run([sys.executable, SCRIPT, BINARY, *args], capture_output=True, text=True,
                          timeout=600)


def compare(model, *args):
    out = subprocess.run([BINARY, model, "--json", "--mode", "fast", *args], capture_output=True,
                         text=True, timeout=300)
    return json.loads(out.stdout)


class WholeStepTableTest(unittest.TestCase):
    def test_rows_carry_compares_figures(self):
        sphere = os.path.join(MODELS, "sphere_on_plane.xml")
        # cylinder_pile: fast mode's contacts differ from stock's (the columns cannot be swapped).
        cylinders = os.path.join(MODELS, "cylinder_pile.xml")
        out = table("--rounds", "2", "--steps", "60", "--settle", "400", sphere, cylinders)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("round 2 of 2 done", out.stderr)
        lines = out.stdout.strip().splitlines()
        self.assertEqual(len(lines), 4, out.stdout)  # header, rule, two models
        self.assertTrue(lines[0].startswith("| model | from the start"))
        for line, model in zip(lines[2:], (sphere, cylinders)):
            cells = [c.strip() for c in line.strip("|").split("|")]
            self.assertEqual(cells[0], model)
            # Both starts: speedup as median (lowest-highest), the median within the range.
            for speedup in (cells[2], cells[5]):
                m = re.fullmatch(r"(\d+\.\d\d) \((\d+\.\d\d)–(\d+\.\d\d)\)", speedup)
                self.assertIsNotNone(m, speedup)
                low, median, high = float(m[2]), float(m[1]), float(m[3])
                self.assertTrue(low <= median <= high, speedup)
            # Contacts per step are deterministic: the same as one mjportal-compare run's.
            for cell, settle in ((cells[3], ()), (cells[6], ("--settle", "400"))):
                r = compare(model, "--steps", "60", *settle)
                self.assertEqual(cell, f'{r["contacts_per_step"]:.1f} / '
                                       f'{r["plugin_contacts_per_step"]:.1f}')
        # The sphere falls for the first 60 steps (no contact) and rests after 400.
        sphere_cells = [c.strip() for c in lines[2].strip("|").split("|")]
        self.assertEqual(sphere_cells[3], "0.0 / 0.0")
        self.assertNotEqual(sphere_cells[6], "0.0 / 0.0")
        cylinder_cells = [c.strip() for c in lines[3].strip("|").split("|")]
        stock, fast = (float(x) for x in cylinder_cells[6].split(" / "))
        self.assertNotEqual(stock, fast)

    def test_bad_input_is_reported(self):
        out = table("--bogus")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("unknown flag '--bogus'", out.stderr)
        out = table("--steps", "many")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--steps needs a whole number, got 'many'", out.stderr)
        out = table("--rounds", "0", os.path.join(MODELS, "sphere_on_plane.xml"))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("must be at least 1", out.stderr)
        out = table("--rounds", "1", os.path.join(MODELS, "no_such_model.xml"))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no_such_model.xml", out.stderr)


if __name__ == "__main__":
    unittest.main()
