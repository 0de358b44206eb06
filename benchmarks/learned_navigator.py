"""A plan suite completed by a navigation policy trained with the engine's RL, against the
scripted (BFS) navigator (issue 15, item 7: plans as RL tasks).

Trains a reach policy on the released Block Maze (:func:`evo.plans.learned_navigator.
train_navigator`: PPO through :func:`evo.search.finetune.loop.finetune`), then runs a generated
suite of plans (start, then three places each within the radius of the last) with the
maze's BFS navigator, with the untrained policy, and with the trained one, sampled and
greedy. Prints one table; nothing is asserted.

    python benchmarks/learned_navigator.py            # about a minute of training on one core
    python benchmarks/learned_navigator.py --updates 20 --plans 10   # a smoke test
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evo.plans.learned_navigator import done_at, reach_plans, train_navigator  # noqa: E402
from evo.plans.run import run_plan  # noqa: E402
from games.registry import GameFactory  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=150)
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--plans", type=int, default=30)
    parser.add_argument("--radius", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    factory = GameFactory(name="block_maze", kwargs=(("inject_bugs", False), ("max_steps", 100), ("preset", "small")))
    start = time.perf_counter()
    trained, curve = train_navigator(factory, updates=args.updates, episodes=args.episodes, radius=args.radius,
                                     seed=args.seed)
    seconds = time.perf_counter() - start
    untrained, _ = train_navigator(factory, updates=0, episodes=args.episodes, radius=args.radius, seed=args.seed)
    plans = reach_plans(factory, args.plans, radius=args.radius, seed=args.seed + 1, max_steps=100)
    rows = [("BFS (the maze's navigator)", None), ("untrained policy, sampled", untrained),
            ("trained policy, greedy", replace(trained, temperature=0.0)), ("trained policy, sampled", trained)]
    print(f"Block Maze small (released), {len(plans)} plans of 3 places within {args.radius} moves, 100 steps each")
    print(f"training: PPO, {args.updates} updates x {args.episodes} episodes, {seconds:.0f} s; "
          f"targets reached per episode {curve[0] if curve else 0:.2f} -> {np.mean(curve[-10:]):.2f}\n")
    print(f"| {'navigator':<28} | plans completed | mean steps to complete |")
    print(f"|{'-' * 30}|----------------:|-----------------------:|")
    for label, navigator in rows:
        results = [run_plan(plan, factory, navigator=navigator) for plan in plans]
        steps = [done_at(r.lines) for r in results if r.passed]
        mean = f"{np.mean([s for s in steps if s is not None]):.1f}" if steps else "-"
        print(f"| {label:<28} | {sum(r.passed for r in results):>8} of {len(plans):<3} | {mean:>22} |")


if __name__ == "__main__":
    main()
