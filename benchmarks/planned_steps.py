"""Steps sent ahead to isolated copies against one round trip a step.

Plays uniform random episodes of a game in N isolated copies (one process each) with
:func:`evo.search.play.play`, once with the agent's plan (``Agent.planned``: each copy gets its
next 32 steps in one message and replies step by step) and once without it (a message and a
reply each step), in turns, and prints steps per second of each, best of ``--repeats``.

    python benchmarks/planned_steps.py --copies 4 16 --steps 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from evo.search.agents.uniform import UniformAgent
from evo.search.play import play
from games.registry import GameFactory


class StepByStep(UniformAgent):
    """The same random agent without its plan."""

    planned = None  # type: ignore[assignment]


def rate(game, agent_cls: type, n: int, steps: int, seed: int) -> float:
    gumbel = np.random.default_rng(seed).gumbel(size=(n, steps, game.game_spec.n_actions)).astype(np.float32)
    start = time.perf_counter()
    result = play(game, list(range(seed, seed + n)), [0] * n, agent_cls(gumbel), max_steps=steps)
    return result.env_steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gym-id", default="MiniGrid-DoorKey-16x16-v0")
    parser.add_argument("--copies", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--steps", type=int, default=1000, help="horizon of each episode")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for n in args.copies:
        game = GameFactory(gym_id=args.gym_id, step_timeout_s=10.0).make_vector(n)
        try:
            best = {"planned": 0.0, "step by step": 0.0}
            for r in range(args.repeats):
                best["planned"] = max(best["planned"], rate(game, UniformAgent, n, args.steps, r))
                best["step by step"] = max(best["step by step"], rate(game, StepByStep, n, args.steps, r))
        finally:
            game.close()
        rows.append({"copies": n, **{f"{k} steps/s": round(v) for k, v in best.items()},
                     "speed-up": round(best["planned"] / best["step by step"], 2)})
        print(rows[-1], flush=True)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
