"""Agent steps per second of episodes that return to an archived cell, against plain ones
(rows of ``benchmarks/throughput.py``; runs on its own too).

    python benchmarks/return_rates.py [--batches 40] [--repeats 3]

Go-Explore's episodes replay a cell's action prefix from the reset, then explore
(``evo/search/explore/``, ``evo/search/agents/returning.py``). On the large Block Maze (64x64, 400-step
episodes, 20 copies: ``large_go_explore``'s 10 policies x 2 episodes) uniform random play
first fills a cell archive by returning for ``warm`` batches, so that prefixes are as long
as a run's; then plain batches (every episode from the reset, as ``large_random``) and
returning batches (every episode returns, archive bookkeeping included: the plan, the check
that each copy landed in its cell, the archive update) alternate, best of ``repeats`` each,
so the ratio holds on a busy machine. Replayed prefix steps count as steps, as in a run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.search.agents import UniformSpec  # noqa: E402
from evo.search.explore.frontier import Frontier  # noqa: E402
from games.common.seeds import Stream, stream_rng  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games.maze.block_maze import BlockMazeVector  # noqa: E402

POLICIES, EPISODES = 10, 2


def _batch(game: BlockMazeVector, frontier: Frontier | None, seed: int, returning: bool) -> int:
    """Play one batch (returning where ``returning``); observe it into the archive; its steps."""
    spec = game.game_spec
    draws = draw_episodes(list(range(seed, seed + POLICIES)), EPISODES, spec.max_steps, spec.n_actions)
    plan = frontier.plan(POLICIES, EPISODES) if returning and frontier is not None else None
    agent = UniformSpec() if plan is None else plan.spec(UniformSpec(), slice(None))
    seeds = draws.seeds if plan is None else np.where(plan.seeds >= 0, plan.seeds, draws.seeds)
    batch = play(game, seeds, np.zeros(len(seeds), dtype=np.int64), agent.build(EPISODES, draws.gumbel)).rollouts
    if frontier is not None:
        frontier.observe(batch, 0, 0, plan)
    return batch.env_steps


def return_rows(batches: int = 40, repeats: int = 3, warm: int = 100) -> list[tuple[str, str, str]]:
    """The table rows: plain and returning episodes on the large Block Maze."""
    game = BlockMazeVector(POLICIES * EPISODES, preset="large", maze_seed=0, inject_bugs=False)
    frontier = Frontier(game.game_spec, 1.0, stream_rng(0, Stream.EXPLORE))
    for k in range(warm):
        _batch(game, frontier, 10_000 + k * POLICIES, returning=True)
    prefix = float(np.mean(frontier.archive.columns["length"]))
    seed = iter(range(100_000, 10**9, POLICIES))

    def rate(returning: bool) -> float:
        start, steps = time.perf_counter(), 0
        for _ in range(batches):
            steps += _batch(game, frontier if returning else None, next(seed), returning)
        return steps / (time.perf_counter() - start)

    plain = back = 0.0
    for _ in range(repeats):
        plain = max(plain, rate(False))
        back = max(back, rate(True))
    game.close()
    return [
        ("Large Block Maze, plain episodes (random)", f"{plain:,.0f}", f"{POLICIES * EPISODES} copies, 400-step episodes from the reset, 1 process"),
        ("Large Block Maze, every episode returns", f"{back:,.0f}",
         f"{back / plain:.1%} of plain; {len(frontier.archive):,} cells, prefixes {prefix:.0f} steps on average"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, default=40, help="batches per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements of each kind, best kept")
    args = parser.parse_args()
    for row in return_rows(args.batches, args.repeats):
        print(" | ".join(row))


if __name__ == "__main__":
    main()
