"""mjportal-compare's command line: --json on a bundled model gives the documented keys and a
bitwise verdict; --settle starts both runs from stock's settled state; a bad path or a bad flag
exits non-zero with a message.

usage: python compare_cli_test.py COMPARE_BINARY MODELS_DIR
"""
import json
import os
import subprocess
import sys
import unittest

BINARY, MODELS = sys.argv[1], sys.argv[2]
del sys.argv[1:3]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)


class CompareCliTest(unittest.TestCase):
    def test_json_keys_and_verdict(self):
        out = run(os.path.join(MODELS, "mesh_pile.xml"), "--mode", "compat", "--steps", "300",
                  "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        report = json.loads(out.stdout)
        for key in ("bitwise_identical", "steps", "first_divergence_step", "pairs_ours",
                    "pairs_delegated", "pairs_by_type", "ns_per_step_stock", "ns_per_step_plugin"):
            self.assertIn(key, report)
        self.assertIs(report["bitwise_identical"], True)
        self.assertIsNone(report["first_divergence_step"])
        self.assertEqual(report["steps"], 300)
        self.assertGreater(report["pairs_ours"], 0)
        # Compat answers every pair of this scene itself: plane-mesh analytically, mesh-mesh by
        # the port of MuJoCo's native GJK/EPA with its contact patch.
        for pair in ("plane-mesh", "mesh-mesh"):
            self.assertGreater(report["pairs_by_type"][pair]["ours"], 0)
            self.assertEqual(report["pairs_by_type"][pair]["delegated"], 0)
        self.assertEqual(report["pairs_delegated"], 0)
        self.assertEqual(report["pairs_ours"] + report["pairs_delegated"],
                         sum(v["ours"] + v["delegated"] for v in report["pairs_by_type"].values()))

    def test_text_report(self):
        out = run(os.path.join(MODELS, "sphere_on_plane.xml"), "--steps", "50")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("bitwise identical:   yes", out.stdout)

    def test_settle_starts_both_runs_at_rest(self):
        # The sphere falls for its first steps (no contact); after 1,000 settling steps both runs
        # start with it resting on the plane, in contact on every step.
        path = os.path.join(MODELS, "sphere_on_plane.xml")
        falling = json.loads(run(path, "--steps", "100", "--json").stdout)
        self.assertEqual(falling["settle"], 0)
        self.assertEqual(falling["contacts_per_step"], 0)
        out = run(path, "--steps", "100", "--settle", "1000", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        settled = json.loads(out.stdout)
        self.assertEqual(settled["settle"], 1000)
        self.assertEqual(settled["steps"], 100)
        self.assertIs(settled["bitwise_identical"], True)
        self.assertGreater(settled["contacts_per_step"], 0)
        self.assertEqual(settled["plugin_contacts_per_step"], settled["contacts_per_step"])

    def test_settled_compat_stays_bitwise(self):
        out = run(os.path.join(MODELS, "mesh_pile.xml"), "--mode", "compat", "--steps", "100",
                  "--settle", "500", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        report = json.loads(out.stdout)
        self.assertIs(report["bitwise_identical"], True)
        self.assertEqual(report["plugin_contacts_per_step"], report["contacts_per_step"])

    def test_bad_settle_fails_with_message(self):
        out = run(os.path.join(MODELS, "box_stack.xml"), "--settle", "-1")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--settle", out.stderr)

    def test_bad_path_fails_with_message(self):
        out = run("/nonexistent/model.xml")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("/nonexistent/model.xml", out.stderr)

    def test_bad_mode_fails_with_message(self):
        out = run(os.path.join(MODELS, "box_stack.xml"), "--mode", "quick")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--mode", out.stderr)


if __name__ == "__main__":
    unittest.main()
