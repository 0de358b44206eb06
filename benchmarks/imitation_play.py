"""Does the shipped path-following imitation policy walk the pathways when it plays? One table.

    python benchmarks/imitation_play.py [--level-seed 0] [--episodes 4] [--steps 300]
    python benchmarks/imitation_play.py --preset large --start random --level-seed 100 --steps 1000

Each agent plays ``--episodes`` episodes from the park's start (on a pathway; ``--start
random``: uniformly random walkable cells, as PPGTA's evaluation) on a level no model was
trained or demonstrated on, through ``evo.search.play.play`` with the ``detect``
wrapper (frames OD-masked by the shipped detector, as the imitation student learned on masked
frames). Per agent: the share of steps spent on pathway cells, the pathway cells visited, all
cells visited, and the mean style reward ``preference_kl`` gives its play (0: acts as the
imitation policy would). Torch on one thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.search.agents.imitation import ImitationSpec  # noqa: E402
from evo.search.agents.uniform import UniformAgent  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games.core.wrappers import wrap  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.doom.park.layout import CELL  # noqa: E402
from objectives import build_objectives  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level-seed", type=int, default=0)
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--weights", default=None, help="imitation policy (default: the shipped one)")
    parser.add_argument("--preset", default="small", choices=("small", "large"))
    parser.add_argument("--start", default="fixed", choices=("fixed", "random"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    raw = DoomParkVector(args.episodes, level_seed=args.level_seed, max_steps=args.steps, preset=args.preset,
                         start=args.start)
    pathway = raw.pathway
    game = wrap(raw, [("detect", {})])
    spec = game.game_spec
    (style,) = build_objectives([("preference_kl", {"weights": args.weights, "novelty": None})], spec)
    draws = draw_episodes([5], args.episodes, args.steps, spec.n_actions)
    agents = {
        "imitation (sampled)": ImitationSpec(spec.obs_shape, args.weights, 1.0).build(args.episodes, draws.gumbel),
        "imitation (greedy)": ImitationSpec(spec.obs_shape, args.weights, 0.0).build(args.episodes, draws.gumbel),
        "uniform random": UniformAgent(draws.gumbel),
    }
    print(f"{args.preset} park level {args.level_seed}, {args.episodes} episodes of {args.steps} steps, "
          f"{args.start} starts\n")
    print(f"{'agent':<22}{'on pathway':>12}{'pathway cells':>15}{'cells':>8}{'style reward':>14}{'seconds':>9}")
    try:
        for name, agent in agents.items():
            start = time.perf_counter()
            batch = play(game, draws.seeds, list(range(args.episodes)), agent,
                         columns=frozenset({"obs", "probs"})).rollouts
            seconds = time.perf_counter() - start
            cells = (batch.features[:, 1:, :2] // CELL).astype(int).reshape(-1, 2)
            on = pathway[cells[:, 0], cells[:, 1]]
            visited = {tuple(c) for c in cells}
            visited_path = {c for c, p in zip(map(tuple, cells), on) if p}
            print(f"{name:<22}{on.mean():>12.1%}{len(visited_path):>15}{len(visited):>8}"
                  f"{style.score(batch):>14.3f}{seconds:>9.1f}")
    finally:
        game.close()
    print(f"\npathway cells in the park: {int(pathway.sum())} of {pathway.size}")


if __name__ == "__main__":
    main()
