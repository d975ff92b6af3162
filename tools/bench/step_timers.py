"""Where a whole step's time goes, stock vs fast mode: MuJoCo's own stage timers (mjData.timer).

Steps each variant of one model from its default start, twice in turn (stock, fast, stock, fast),
and prints per variant and run the contacts per step and each stage's microseconds per step
(stages under 0.3 us left out). mjTIMER_COL_NARROW holds the narrowphase collision functions and
MuJoCo's per-pair work around them; the functions alone are what mjportal-bench-scene replays.
With SETTLE > 0, stock first steps the model SETTLE times (untimed) and every run starts from that
state, so that both variants step the same settled pile (as mjportal-compare --settle).

usage: step_timers.py PLUGIN.so MODEL.xml [STEPS] [SETTLE]
"""
import sys

import mujoco
import numpy as np

from model_pair import load_stock_and_fast


# State a run starts from: everything but plugin state (the stock model has none).
START_STATE = int(mujoco.mjtState.mjSTATE_INTEGRATION) & ~int(mujoco.mjtState.mjSTATE_PLUGIN)


def settled_state(model, settle):
    """Stock's state `settle` steps after reset, or None for the reset state."""
    if settle <= 0:
        return None
    data = mujoco.MjData(model)
    for _ in range(settle):
        mujoco.mj_step(model, data)
    state = np.empty(mujoco.mj_stateSize(model, START_STATE))
    mujoco.mj_getState(model, data, state, START_STATE)
    return state


def stage_times(model, steps, start=None):
    data = mujoco.MjData(model)
    if start is not None:
        mujoco.mj_setState(model, data, start, START_STATE)
    contacts = 0
    for _ in range(steps):
        mujoco.mj_step(model, data)
        contacts += data.ncon
    times = {}
    for name in dir(mujoco.mjtTimer):
        if not name.startswith("mjTIMER_") or name == "mjNTIMER":
            continue
        timer = data.timer[getattr(mujoco.mjtTimer, name)]
        if timer.number:
            times[name[len("mjTIMER_"):]] = timer.duration / steps * 1e6
    return contacts / steps, times


def main(argv):
    steps = int(argv[3]) if len(argv) > 3 else 3000
    settle = int(argv[4]) if len(argv) > 4 else 0
    stock, fast = load_stock_and_fast(argv[1], argv[2])
    start = settled_state(stock, settle)
    for name, model in (("stock", stock), ("fast", fast)) * 2:
        contacts, times = stage_times(model, steps, start)
        stages = " ".join(f"{k}={v:.1f}" for k, v in sorted(times.items()) if v > 0.3)
        print(f"{name:5s} contacts/step {contacts:.2f}  us/step: {stages}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
