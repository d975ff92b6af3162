"""Python loading: mujoco.mj_loadPluginLibrary in the venv's interpreter, then a model that declares
the plugin loads and steps, bitwise equal to the same model without it (compat mode).

usage: python load_plugin_test.py PLUGIN_PATH MODELS_DIR
"""
import os
import sys
import unittest

import mujoco
import numpy as np

PLUGIN, MODELS = sys.argv[1], sys.argv[2]
del sys.argv[1:3]

SNIPPET = """<extension><plugin plugin="mjportal.collision"><instance name="np">
  <config key="mode" value="{mode}"/></instance></plugin></extension>"""


def with_plugin(xml: str, mode: str) -> str:
    head, _, tail = xml.partition("<worldbody>")
    return head + SNIPPET.format(mode=mode) + "<worldbody>" + tail


class LoadPluginTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        mujoco.mj_loadPluginLibrary(PLUGIN)

    def test_plugin_steps_bitwise_like_stock(self):
        with open(os.path.join(MODELS, "capsule_pile.xml")) as f:
            xml = f.read()
        stock = mujoco.MjModel.from_xml_string(xml)
        ours = mujoco.MjModel.from_xml_string(with_plugin(xml, "compat"))
        self.assertEqual(ours.nplugin, 1)
        d_stock, d_ours = mujoco.MjData(stock), mujoco.MjData(ours)
        max_contacts = 0
        for _ in range(400):
            mujoco.mj_step(stock, d_stock)
            mujoco.mj_step(ours, d_ours)
            self.assertEqual(d_stock.ncon, d_ours.ncon)
            np.testing.assert_array_equal(d_stock.qpos, d_ours.qpos)
            np.testing.assert_array_equal(d_stock.qvel, d_ours.qvel)
            max_contacts = max(max_contacts, d_ours.ncon)
        self.assertGreater(max_contacts, 0)

    def test_rollout_threads_and_copies_match_stock(self):
        """mujoco.rollout (2 threads, copied states) and copied MjData work with the plugin."""
        import copy
        from mujoco import rollout
        with open(os.path.join(MODELS, "capsule_pile.xml")) as f:
            xml = f.read()
        stock = mujoco.MjModel.from_xml_string(xml)
        ours = mujoco.MjModel.from_xml_string(with_plugin(xml, "compat"))
        spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        data = mujoco.MjData(stock)
        initial = np.zeros((4, mujoco.mj_stateSize(stock, spec)))
        for i in range(4):
            mujoco.mj_resetData(stock, data)
            data.qpos[2] += 0.01 * i
            mujoco.mj_getState(stock, data, initial[i], spec)
        states_stock, _ = rollout.rollout([stock] * 4, [mujoco.MjData(stock) for _ in range(2)],
                                          initial, nstep=300)
        states_ours, _ = rollout.rollout([ours] * 4, [mujoco.MjData(ours) for _ in range(2)],
                                         initial, nstep=300)
        np.testing.assert_array_equal(states_stock, states_ours)
        copied = copy.copy(mujoco.MjData(ours))
        mujoco.mj_step(ours, copied)

    def test_bad_config_value_is_a_clear_error(self):
        xml = "<mujoco><worldbody><geom type='plane' size='1 1 1'/></worldbody></mujoco>"
        with self.assertRaises(ValueError) as ctx:
            mujoco.MjModel.from_xml_string(with_plugin(xml, "warp"))
        self.assertIn("'mode'", str(ctx.exception))
        self.assertIn("'warp'", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
