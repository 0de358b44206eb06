"""What stepping a game's copies in other processes costs over stepping them in this one: the
round trip of :class:`games.core.render_processes.RenderProcesses` (Sample Factory's shape,
the ``batched`` layouts of ``pixel_scale.py``), with the caller idle between steps and with it
busy, as a process running the networks for every copy is.

    python benchmarks/render_lockstep.py --renderers 1,2 --copies 4 --work 0,3

Per row: R rendering processes of C bare park copies each (small preset, level 0, labels on,
random actions), stepped in lockstep by this process, which spins for ``work`` ms after each
step (its networks' time). Columns, in ms per step:

- **alone**: C copies stepped in one process, in a loop (what raw rendering measures);
- **in child**: the same step timed inside each rendering process, the slowest of them per step
  (a lockstep step waits for the slowest);
- **round trip**: the caller's wait for a step, the spin left out: the slowest child's step,
  the pipes, the pickling, and the wake-ups of processes that slept while the other worked.

``in child`` above ``alone`` is what a renderer loses by idling between steps (its caches and
its core's clock gone cold) or by sharing a core; ``round trip`` above ``in child`` is the
protocol's own cost. Nothing asserts a timing.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.core.base import VecStep, VectorGame  # noqa: E402
from games.core.render_processes import RenderProcesses  # noqa: E402

STEP_MS = "step_ms"


class Timed(VectorGame):
    """A vector game that also says, per copy, how long its whole step took (``info``)."""

    def __init__(self, game: VectorGame) -> None:
        self.game, self.num_envs, self.game_spec = game, game.num_envs, game.game_spec

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        return self.game.reset(seeds)

    def step(self, actions: np.ndarray) -> VecStep:
        began = time.perf_counter()
        out = self.game.step(actions)
        took = np.full(self.num_envs, (time.perf_counter() - began) * 1000.0)
        return dataclasses.replace(out, info={**out.info, STEP_MS: took})

    def close(self) -> None:
        self.game.close()


def timed(factory: Any, n: int) -> Timed:
    """A picklable maker of :class:`Timed` bare copies, for the rendering processes."""
    return Timed(factory.make_vector(n))


def spin(ms: float) -> None:
    until = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < until:
        pass


def measure(factory: Any, renderers: int, copies: int, work: float, steps: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    alone = factory.make_vector(copies)
    alone.reset(list(range(copies)))
    began = time.perf_counter()
    for _ in range(steps):
        alone.step(rng.integers(alone.game_spec.n_actions, size=copies))
    alone_ms = (time.perf_counter() - began) * 1000.0 / steps
    alone.close()
    n = renderers * copies
    game = RenderProcesses(functools.partial(timed, factory), n, renderers)
    try:
        game.reset(list(range(n)))
        for _ in range(10):  # warm: the engines' first frames, the pipes
            game.step(rng.integers(game.game_spec.n_actions, size=n))
        waited, child = 0.0, 0.0
        for _ in range(steps):
            began = time.perf_counter()
            out = game.step(rng.integers(game.game_spec.n_actions, size=n))
            waited += time.perf_counter() - began
            child += float(np.max(out.info[STEP_MS].astype(float)))
            spin(work)
    finally:
        game.close()
    return {"alone": alone_ms, "child": child / steps, "round": waited * 1000.0 / steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renderers", default="1,2", help="comma-separated numbers of rendering processes")
    parser.add_argument("--copies", type=int, default=4, help="park copies per rendering process")
    parser.add_argument("--work", default="0,3", help="comma-separated ms the caller spins after each step")
    parser.add_argument("--steps", type=int, default=300, help="timed steps per row (at most 900)")
    args = parser.parse_args()
    try:
        renderers = [int(r) for r in args.renderers.split(",")]
        works = [float(w) for w in args.work.split(",")]
    except ValueError:
        parser.error("--renderers takes whole numbers and --work numbers of ms, comma-separated")
    if min(renderers) < 1 or args.copies < 1 or min(works) < 0 or not 1 <= args.steps <= 900:
        parser.error("--renderers and --copies must be at least 1, --work at least 0, --steps in 1..900 "
                     "(the park's episodes are 1000 steps)")
    from evo.run.built import Built
    from evo.run.config import load_experiment

    exp = load_experiment(ROOT / "experiments" / "ppgta_park_novelty.yaml")
    with Built.from_experiment(exp) as built:
        factory = dataclasses.replace(built.factory, wrappers=(), render_processes=0)
        print(f"park copies stepped in lockstep, {args.copies} per rendering process, {args.steps} steps; "
              f"ms per step", flush=True)
        print(f"{'renderers':>9} {'work ms':>8} {'alone':>7} {'in child':>9} {'round trip':>11}", flush=True)
        for r in renderers:
            for w in works:
                row = measure(factory, r, args.copies, w, args.steps)
                print(f"{r:>9} {w:>8.1f} {row['alone']:>7.2f} {row['child']:>9.2f} {row['round']:>11.2f}", flush=True)


if __name__ == "__main__":
    main()
