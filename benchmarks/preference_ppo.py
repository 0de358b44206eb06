"""PPGTA's exploring agent trained on the park for a few updates: what each update costs on this
machine and where the agent walks. One table.

    python benchmarks/preference_ppo.py [--updates 4] [--episodes 4] [--steps 300] [--level-seed 0]

``preference_ppo`` (PPO on preference_kl's mixed reward, novelty scaled by 100, actor and
critic from the shipped path-following imitation policy) on ``--episodes`` copies of the
park with the ``detect`` wrapper, from the park's start. Per update: the mean dense reward,
the mean style reward, PPO's approximate KL, the share of steps on pathway cells, the pathway
cells visited so far (of all), and the seconds the update took (play, scoring, PPO epochs and
the novelty's update). Torch on one thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.search.finetune.ppo import PPOConfig  # noqa: E402
from evo.search.finetune.preference_ppo import preference_ppo  # noqa: E402
from games.core.record import RolloutBatch  # noqa: E402
from games.core.wrappers import wrap  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.doom.park.layout import CELL  # noqa: E402
from games.perception.imitation import load_policy  # noqa: E402
from objectives import build_objectives  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--level-seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    raw = DoomParkVector(args.episodes, level_seed=args.level_seed, max_steps=args.steps)
    pathway = raw.pathway
    game = wrap(raw, [("detect", {})])
    (objective,) = build_objectives([("preference_kl", {"novelty_scale": 100.0})], game.game_spec)
    seen: set[tuple[int, int]] = set()
    on_pathway: list[float] = []
    pathway_seen: list[int] = []

    def on_rollouts(batch: RolloutBatch) -> None:
        cells = (batch.features[:, 1:, :2] // CELL).astype(int).reshape(-1, 2)
        on = pathway[cells[:, 0], cells[:, 1]]
        seen.update(tuple(c) for c, p in zip(cells, on) if p)
        on_pathway.append(float(on.mean()))
        pathway_seen.append(len(seen))

    config = PPOConfig(updates=args.updates, episodes=args.episodes, minibatches=2)
    start = time.perf_counter()
    try:
        _, stats = preference_ppo(game, objective, load_policy()[0], config, seed=0, on_rollouts=on_rollouts)
    finally:
        game.close()
    total = time.perf_counter() - start
    print(f"park level {args.level_seed}: {args.updates} updates of {args.episodes} episodes x {args.steps} steps, "
          f"{total:.0f} s ({total / args.updates:.1f} s an update, {args.updates * args.episodes * args.steps / total:.0f} "
          f"env steps/s)\n")
    print(f"{'update':>6}{'reward':>9}{'style':>8}{'approx KL':>11}{'on pathway':>12}{'pathway cells':>15}")
    for k, s in enumerate(stats):
        print(f"{k + 1:>6}{s.reward:>9.3f}{s.style:>8.3f}{s.approx_kl:>11.4f}{on_pathway[k]:>12.1%}"
              f"{pathway_seen[k]:>9} of {int(pathway.sum())}")


if __name__ == "__main__":
    main()
