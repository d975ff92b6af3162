"""Whole-step time, stock vs fast mode, over perturbed starts of one model.

A pile's step cost depends on where it settles, and fast mode's answers differ from stock's by
rounding, so one trajectory pair compares two different piles. This runs several: each seed moves
the initial qpos by N(0, 1e-6), both models start from that same state and step with
mujoco.rollout (no Python per step), fastest of two rollouts each. Prints ns per step and the
ratio per seed, then the median and range.

usage: whole_step_seeds.py PLUGIN.so MODEL.xml [STEPS] [SEEDS]
"""
import sys
import time

import mujoco
import numpy as np
from mujoco import rollout

from model_pair import load_stock_and_fast


def ns_per_step(model, state, steps):
    best = float("inf")
    for _ in range(2):
        data = mujoco.MjData(model)
        start = time.perf_counter()
        rollout.rollout(model, data, state[None, :], nstep=steps)
        best = min(best, time.perf_counter() - start)
    return best / steps * 1e9


def main(argv):
    steps = int(argv[3]) if len(argv) > 3 else 3000
    seeds = int(argv[4]) if len(argv) > 4 else 6
    stock, fast = load_stock_and_fast(argv[1], argv[2])
    kind = mujoco.mjtState.mjSTATE_FULLPHYSICS
    ratios = []
    for seed in range(seeds):
        noise = np.random.default_rng(seed).normal(scale=1e-6, size=stock.nq)
        times = []
        for model in (stock, fast):
            data = mujoco.MjData(model)
            data.qpos[:] += noise
            state = np.empty(mujoco.mj_stateSize(model, kind))
            mujoco.mj_getState(model, data, state, kind)
            times.append(ns_per_step(model, state, steps))
        t_stock, t_fast = times
        ratios.append(t_stock / t_fast)
        print(f"seed {seed}: stock {t_stock:.0f} ns  fast {t_fast:.0f} ns  ratio {ratios[-1]:.3f}",
              flush=True)
    print(f"median {np.median(ratios):.3f}  min {min(ratios):.3f}  max {max(ratios):.3f}")


if __name__ == "__main__":
    main(sys.argv)
