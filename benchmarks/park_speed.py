"""How fast the generated park (``doom_park``) plays on one core, by resolution and labels.

Prints one table. Each row steps one copy of the park with random actions (frame skip 4) and
reports steps per second of wall time and per second of CPU time (this process and its
engine together): on a shared machine the wall clock also counts the time spent waiting for
a core, the CPU clock does not, so the second column is what one free core would give. Pin
it to one core with ``taskset -c 0 python benchmarks/park_speed.py``. Nothing asserts a
timing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.doom.engine import child_pids, cpu_seconds  # noqa: E402
from games.doom.park.doom_park import ACTIONS, DoomParkVector  # noqa: E402


def measure(preset: str, resolution: str, labels: bool, steps: int) -> tuple[float, float, float]:
    """``(start seconds, steps per wall second, steps per CPU second)`` of one copy."""
    before = child_pids("vizdoom")
    t0 = time.perf_counter()
    game = DoomParkVector(1, preset=preset, resolution=resolution, labels=labels,
                          max_steps=steps + 1)
    start = time.perf_counter() - t0
    (engine,) = child_pids("vizdoom") - before
    try:
        game.reset([0])
        actions = np.random.default_rng(0).integers(len(ACTIONS), size=steps)
        wall, cpu, engine_cpu = time.perf_counter(), time.process_time(), cpu_seconds(engine)
        for a in actions:
            game.step(np.array([a]))
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu + cpu_seconds(engine) - engine_cpu
    finally:
        game.close()
    return start, steps / wall, steps / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="steps per row")
    args = parser.parse_args()
    print(f"{'preset':<7}{'resolution':>11}{'labels':>8}{'start s':>9}{'steps/s wall':>14}"
          f"{'steps/s CPU':>13}")
    for preset in ("small", "large"):
        for resolution in ("160x120", "320x240"):
            for labels in (True, False):
                start, per_wall, per_cpu = measure(preset, resolution, labels, args.steps)
                print(f"{preset:<7}{resolution:>11}{str(labels):>8}{start:>9.2f}"
                      f"{per_wall:>14,.0f}{per_cpu:>13,.0f}", flush=True)


if __name__ == "__main__":
    main()
