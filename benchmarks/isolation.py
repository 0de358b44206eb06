"""What isolating a plug-in game's copies costs: N copies of a small Gymnasium game in the
engine's process against each in a process of its own (the default for games given by
``entry_point`` or ``gym_id``), started, stepped and closed.

    python benchmarks/isolation.py [--copies 60] [--steps 100] [--repeats 3]

Prints one table: seconds to start the copies, steps per second (all copies stepped
together, as ``play`` does), seconds to close them. Best of ``--repeats``. Run it with
another checkout's code first on ``PYTHONPATH`` to compare two versions on one machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from games.adapter.vector_game import GymVectorGame
from tests.games.two_room_envs import TwoRooms


def measure(copies: int, steps: int, isolated: bool) -> tuple[float, float, float]:
    """(start s, steps per s, close s) of one vector game of ``copies`` copies."""
    started = time.perf_counter()
    game = GymVectorGame(TwoRooms, copies, step_timeout_s=10.0 if isolated else None)
    start_s = time.perf_counter() - started
    rng = np.random.default_rng(0)
    try:
        game.reset(list(range(copies)))
        began = time.perf_counter()
        for _ in range(steps):
            game.step(rng.integers(0, 4, size=copies))
        rate = steps * copies / (time.perf_counter() - began)
    finally:
        closing = time.perf_counter()
        game.close()
    return start_s, rate, time.perf_counter() - closing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=60, help="copies of the game (a loky worker's share)")
    parser.add_argument("--steps", type=int, default=100, help="steps of every copy (under the game's 100)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each row; the best is shown")
    args = parser.parse_args()
    print(f"| copies of TwoRooms ({args.copies}) | start s | steps/s | close s |")
    print("|---|---:|---:|---:|")
    for isolated in (False, True):
        runs = [measure(args.copies, args.steps, isolated) for _ in range(args.repeats)]
        start_s = min(r[0] for r in runs)
        rate = max(r[1] for r in runs)
        close_s = min(r[2] for r in runs)
        name = "isolated, a process each" if isolated else "in-process"
        print(f"| {name} | {start_s:.2f} | {rate:,.0f} | {close_s:.2f} |")


if __name__ == "__main__":
    main()
