"""mjportal-rollout's command line: --json on a bundled model gives the documented keys, a full
cache hit rate and positive rates; the table prints; bad flags exit non-zero with a message.

usage: python rollout_cli_test.py ROLLOUT_BINARY MODELS_DIR
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


class RolloutCliTest(unittest.TestCase):
    def test_json_keys_and_hit_rate(self):
        for mode in ("fast", "compat"):
            out = run(os.path.join(MODELS, "mesh_pile.xml"), "--worlds", "8", "--steps", "60",
                      "--mode", mode, "--threads", "2", "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            report = json.loads(out.stdout)
            for key in ("worlds", "steps", "device", "mode", "steps_per_s", "steps_per_s_stock",
                        "batched_pass_s", "cache_hit_rate", "contacts_per_world_step"):
                self.assertIn(key, report)
            self.assertEqual(report["worlds"], 8)
            self.assertEqual(report["steps"], 60)
            self.assertEqual(report["mode"], mode)
            self.assertEqual(report["device"], "cpu")
            self.assertEqual(report["cache_hit_rate"], 1)
            self.assertGreater(report["steps_per_s"], 0)
            self.assertGreater(report["steps_per_s_stock"], 0)
            self.assertGreater(report["batched_pass_s"], 0)
            self.assertGreater(report["contacts_per_world_step"], 0)

    def test_cuda_request_falls_back_with_warning(self):
        out = run(os.path.join(MODELS, "primitive_mix.xml"), "--worlds", "2", "--steps", "10",
                  "--device", "cuda", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        report = json.loads(out.stdout)
        self.assertEqual(report["device_requested"], "cuda")
        self.assertEqual(report["device"], "cpu")
        self.assertEqual(out.stderr.count("'device' is 'cuda'"), 1)

    def test_text_table(self):
        out = run(os.path.join(MODELS, "box_stack.xml"), "--worlds", "3", "--steps", "20")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("cache hit rate:", out.stdout)
        self.assertIn("world-steps/s:", out.stdout)

    def test_bad_flags_fail_with_message(self):
        model = os.path.join(MODELS, "box_stack.xml")
        for args, text in (((model, "--worlds", "0", "--steps", "5"), "--worlds"),
                           ((model, "--worlds", "2"), "--steps"),
                           ((model, "--worlds", "2", "--steps", "5", "--device", "tpu"), "tpu"),
                           ((model, "--worlds", "2", "--steps", "5", "--mode", "turbo"), "turbo"),
                           (("/nonexistent/model.xml", "--worlds", "1", "--steps", "1"),
                            "/nonexistent/model.xml")):
            out = run(*args)
            self.assertNotEqual(out.returncode, 0, args)
            self.assertIn(text, out.stderr, args)


if __name__ == "__main__":
    unittest.main()
