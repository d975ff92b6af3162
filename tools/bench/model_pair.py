"""A bundled model twice: as written (stock MuJoCo) and with mjportal's fast mode declared.

The plugin library is loaded into MuJoCo first; the fast variant gets the <extension> snippet in
front of <worldbody>. Mesh and include paths are relative to the model, so the working directory
moves to its folder.
"""
import os

import mujoco

SNIPPET = ('<extension><plugin plugin="mjportal.collision"><instance name="np">'
           '<config key="mode" value="fast"/></instance></plugin></extension>')


def load_stock_and_fast(plugin, path):
    path = os.path.abspath(path)
    mujoco.mj_loadPluginLibrary(plugin)
    xml = open(path).read()
    os.chdir(os.path.dirname(path))
    head, _, tail = xml.partition("<worldbody>")
    stock = mujoco.MjModel.from_xml_string(xml)
    fast = mujoco.MjModel.from_xml_string(head + SNIPPET + "<worldbody>" + tail)
    return stock, fast
