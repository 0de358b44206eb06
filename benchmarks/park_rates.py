"""Agent steps per second on the generated park: raw rendering against the engine with the
pixel pipeline on (rows of ``benchmarks/throughput.py``; runs on its own too).

    taskset -c 1 python benchmarks/park_rates.py [--steps 2000] [--copies 8]

Raw: ``DoomParkVector`` copies stepped with random actions, labels buffer on (as the game
plays), nothing else. Engine: ``evo.search.play.play`` with a population of policies, each step
one batched forward of the detector (``detect``: OD mask and ``info.detections``), then
either the encoder (``encode``: 128 features, an MLP population: PPGTA's design and the park
experiments') or a small CNN population on the masked frames; after play, ``rnd_novelty``
scores each policy's episode (5 predictors; behind ``encode`` it reads the features the
policies observed) and, but in the first row, the visual oracle judges the detected crops.
The last row detects every 4th step only (the wrapper's ``every``: the boxes carried
between, published without crops, so the oracle judges a quarter of the views). All are
measured in this one process, torch on one thread, interleaved, best of ``repeats``, so the
ratios hold on a busy machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.search.agents import PopulationAgent  # noqa: E402
from evo.search.policy import PolicySpec  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games import GameFactory  # noqa: E402
from games.doom.engine import child_pids, cpu_seconds  # noqa: E402
from objectives import build_objectives  # noqa: E402
from evo.run.game_facts import GameFacts  # noqa: E402
from oracles import Context, build_oracles  # noqa: E402

PARK = (("level_seed", 0), ("max_steps", 500), ("preset", "small"))
MLP, CNN = {"hidden": (64,)}, {"hidden": (64,), "conv": ((8, 8, 4), (16, 4, 2))}
PIPELINES: dict[str, tuple[tuple, dict, bool]] = {
    "detect + encode, MLP population, novelty": ((("detect", ()), ("encode", ())), MLP, False),
    "detect + encode, MLP population, novelty + visual oracle": ((("detect", ()), ("encode", ())), MLP, True),
    "detect, CNN population, novelty + visual oracle": ((("detect", ()),), CNN, True),
    "detect every 2 + encode, MLP population, novelty + visual oracle": (
        (("detect", (("every", 2),)), ("encode", ())), MLP, True),
    "detect every 4 + encode, MLP population, novelty + visual oracle": (
        (("detect", (("every", 4),)), ("encode", ())), MLP, True),
}
"""Engine rows: the wrappers, the policy each plays with, whether the visual oracle judges."""


def _cpu() -> float:
    """CPU seconds of this process and of its ViZDoom engines (child processes)."""
    return time.process_time() + sum(cpu_seconds(pid) for pid in child_pids("vizdoom"))


def _rates(fn: Callable[[], int]) -> tuple[float, float]:
    """``(steps per wall second, steps per CPU second)`` of one run of ``fn``."""
    wall, cpu = time.perf_counter(), _cpu()
    steps = fn()
    return steps / (time.perf_counter() - wall), steps / (_cpu() - cpu)


def raw_rate(steps: int, copies: int) -> Callable[[], int]:
    """Random actions on ``copies`` bare park copies (resets included)."""
    from games.doom.park.doom_park import DoomParkVector

    game = DoomParkVector(copies, **dict(PARK))
    rng = np.random.default_rng(0)
    n_actions = game.game_spec.n_actions

    def run() -> int:
        played, episode = 0, 0
        while played < steps:
            game.reset(list(range(episode, episode + copies)))
            episode += copies
            for _ in range(game.game_spec.max_steps):
                game.step(rng.integers(n_actions, size=copies))
                played += copies
                if played >= steps:
                    break
        return played

    return run


def engine_rate(steps: int, copies: int, wrappers: tuple, policy: dict, oracle: bool = True) -> Callable[[], int]:
    """``play`` with a population on the wrapped park, then novelty (and the visual oracle)."""
    factory = GameFactory(name="doom_park", kwargs=PARK, wrappers=wrappers)
    game = factory.make_vector(copies)
    spec = game.game_spec
    obs_dim = int(np.prod(spec.obs_shape))
    image = tuple(spec.obs_shape) if policy.get("conv") else None
    pspec = PolicySpec(obs_dim, spec.n_actions, policy["hidden"], policy.get("conv", ()), image)
    genomes = pspec.init_genomes(copies, np.random.default_rng(0))
    novelty = build_objectives([("rnd_novelty", {})], spec)[0]
    facts = GameFacts.of_game("doom_park", spec, game)  # the visual oracle reads the park's scene
    visual = build_oracles([("visual", {"frame_size": (160, 120)})], spec, Context(facts=facts))[0]
    columns = frozenset(novelty.requires) | (frozenset(visual.requires) if oracle else frozenset())
    horizon = spec.max_steps

    def run() -> int:
        played, episode = 0, 0
        while played < steps:
            draws = draw_episodes(list(range(episode, episode + copies)), 1, horizon, spec.n_actions)
            episode += copies
            result = play(game, draws.seeds, list(range(copies)),
                          PopulationAgent(genomes, pspec, 1, draws.gumbel),
                          max_steps=min(horizon, max(steps - played, 1) // copies + 1), columns=columns)
            for p in range(copies):  # one episode per policy, as a generation scores them
                novelty.score(result.rollouts[p:p + 1])
            if oracle:
                visual.check(result.rollouts)
            played += result.env_steps
        return played

    return run


def park_rows(steps: int, copies: int, repeats: int) -> list[tuple[str, str, str]]:
    """Table rows: raw park, then each engine pipeline with its share of raw speed, by the
    wall clock and by CPU time (this process and its engines: what a free core gives; the
    wall clock of a loaded machine also counts each hand-over between the process and its
    engines waiting for the core, which slows the raw park more than the engine)."""
    torch.set_num_threads(1)
    runs = {"park raw (random actions, labels on)": raw_rate(steps, copies)}
    for name, (wrappers, policy, oracle) in PIPELINES.items():
        runs[f"park engine: {name}"] = engine_rate(steps, copies, wrappers, policy, oracle)
    wall, cpu = dict.fromkeys(runs, 0.0), dict.fromkeys(runs, 0.0)
    for _ in range(repeats):  # interleaved: a busy machine slows them alike
        for name, run in runs.items():
            per_wall, per_cpu = _rates(run)
            wall[name], cpu[name] = max(wall[name], per_wall), max(cpu[name], per_cpu)
    raw_wall, raw_cpu = wall[next(iter(runs))], cpu[next(iter(runs))]
    rows = []
    for k, name in enumerate(runs):
        if k == 0:
            note = f"{copies} copies, one process; by CPU time {cpu[name]:,.0f}"
        else:
            note = (f"{wall[name] / raw_wall:.0%} of raw; by CPU time {cpu[name]:,.0f}, "
                    f"{cpu[name] / raw_cpu:.0%} of raw")
        rows.append((name, f"{wall[name]:,.0f}", note))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    for row in park_rows(args.steps, args.copies, args.repeats):
        print(" | ".join(row))


if __name__ == "__main__":
    main()
