"""How many agent steps per second the engine plays, against a naive loop and the hardware.

Prints one table, then one JSON line with the headline figures. Every row is measured in
this one run, so ratios hold on a noisy machine; nothing here asserts a timing.

    python benchmarks/throughput.py            # the issue's sizes (about a minute)
    python benchmarks/throughput.py --quick    # smaller, for a smoke test

Rows:
- Block Maze population evaluation (population 30, 64 episodes each, MLP 64-64): the engine
  in one process and with the parallel backend; a naive loop (one Gymnasium env and one
  policy forward per step); the compute limit from the policy's FLOPs and a measured matmul
  rate, and the engine's share of it.
- The same evaluation with the four oracles and run coverage switched on.
- MsPacman (ale-py): the engine with a small policy against raw emulator stepping with
  random actions.
- Go-Explore's returns (``benchmarks/return_rates.py``): episodes on the large Block Maze
  that replay an archived cell's prefix, then explore, against plain ones.
- The generated park (``benchmarks/park_rates.py``): raw rendering against the engine with
  a population, the detector, the encoder or a CNN policy, RND novelty and the visual oracle.
- One generation of the Wuji experiment, split into its phases.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from evo.search.agents import PopulationSpec  # noqa: E402
from evo.run.config import load_experiment  # noqa: E402
from evo.run.chunks import chunks  # noqa: E402
from evo.run.parallel import Executor, ParallelConfig  # noqa: E402
from evo.search.tasks import PlayTask, run_play  # noqa: E402
from evo.search.policy import PolicySpec  # noqa: E402
from evo.run.kinds.evolve import Evolve  # noqa: E402
from games import GameFactory  # noqa: E402
from games.core.record import RolloutBatch
from games.maze.block_maze import BlockMaze  # noqa: E402
from objectives.coverage import CoverageTracker  # noqa: E402
from oracles import build_oracles, check_all  # noqa: E402

MAZE = GameFactory(name="block_maze", kwargs=(("heavy_ms", 0.0),))


def best_rate(fn: Callable[[], int], repeats: int) -> float:
    """Steps per second of the fastest of ``repeats`` calls (``fn`` returns its steps)."""
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        steps = fn()
        best = max(best, steps / (time.perf_counter() - start))
    return best


def maze_tasks(population: int, episodes: int, hidden: tuple[int, ...], parts: int) -> list[PlayTask]:
    spec = PolicySpec(29, 4, hidden)
    genomes = spec.init_genomes(population, np.random.default_rng(0))
    ids = np.arange(population)
    seeds = np.arange(population) + 1000
    return [PlayTask(MAZE, PopulationSpec(spec, genomes[c]), ids[c], seeds[c], episodes)
            for c in chunks(population, parts)]


class _OneWorker:
    """One worker process (joblib runs ``n_jobs=1`` in the calling process instead)."""

    def __init__(self) -> None:
        from joblib.externals.loky import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(max_workers=1, initializer=torch.set_num_threads, initargs=(1,))

    def map(self, fn: Callable, tasks: list) -> list:
        return list(self.pool.map(fn, tasks))

    def close(self) -> None:
        self.pool.shutdown()


def engine_rate(executor: Executor, tasks: list[PlayTask], repeats: int, watch: Callable | None = None) -> float:
    executor.map(run_play, tasks)  # start workers, build games

    def once() -> int:
        # As the engine does: one columnar batch of every episode played.
        rollouts = RolloutBatch.concat([res.rollouts for res in executor.map(run_play, tasks)])
        if watch is not None:
            watch(rollouts)
        return rollouts.env_steps

    return best_rate(once, repeats)


def naive_rate(hidden: tuple[int, ...], steps: int) -> float:
    """One Gymnasium env, one policy forward and one sample per step: the textbook loop."""
    env = BlockMaze(heavy_ms=0.0)
    layers: list[torch.nn.Module] = []
    size = 29
    for h in hidden:
        layers += [torch.nn.Linear(size, h), torch.nn.Tanh()]
        size = h
    policy = torch.nn.Sequential(*layers, torch.nn.Linear(size, 4))
    obs, _ = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        with torch.no_grad():
            logits = policy(torch.as_tensor(obs))
        action = int(torch.distributions.Categorical(logits=logits).sample())
        try:
            obs, _, terminated, truncated, _ = env.step(action)
        except (RuntimeError, AssertionError):  # a crash bug: the episode is over
            terminated = truncated = True
        if terminated or truncated:
            obs, _ = env.reset(seed=0)
    return steps / (time.perf_counter() - start)


def matmul_flops(threads: int) -> float:
    """FLOP/s of a large float32 matmul with ``threads`` torch threads (best of several)."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    torch.mm(a, b)
    best = 0.0
    for _ in range(10):
        start = time.perf_counter()
        torch.mm(a, b)
        best = max(best, 2 * 1024**3 / (time.perf_counter() - start))
    torch.set_num_threads(before)
    return best


def actor_flops(obs_dim: int, hidden: tuple[int, ...], n_actions: int) -> int:
    """Multiply-adds x 2 of one actor forward (hidden layers and action head)."""
    sizes = [obs_dim, *hidden, n_actions]
    return sum(2 * a * b for a, b in zip(sizes[:-1], sizes[1:]))


def mspacman_rates(steps: int, copies: int, repeats: int = 3) -> tuple[float, float] | None:
    """(engine, raw) agent steps per second on MsPacman, or None without ale-py.

    Raw: one bare ``ale_py.ALEInterface`` acting with random actions, frames per second
    divided by the game's frameskip (4): the emulator's agent steps per second. Engine:
    ``play`` with a population of MLP policies over the ``mspacman_perf`` vector game (bugs
    off, so that no step runs a heavy operation), resets included.
    """
    try:
        from ale_py import ALEInterface, LoggerMode, roms
    except ImportError:
        return None
    from evo.search.agents import PopulationAgent
    from evo.search.play import draw_episodes, play
    from games.atari.mspacman import FRAMESKIP

    ALEInterface.setLoggerMode(LoggerMode.Error)
    ale = ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(roms.get_rom_path("ms_pacman"))
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(0)
    picks = rng.integers(len(actions), size=steps * FRAMESKIP)

    def raw() -> int:
        for k in picks:
            ale.act(actions[k])
            if ale.game_over():
                ale.reset_game()
        return steps

    make = GameFactory(name="mspacman_perf", kwargs=(("inject_bugs", False),))
    game = make.make_vector(copies)
    spec = PolicySpec(128, game.game_spec.n_actions, (32,))
    genomes = spec.init_genomes(copies, np.random.default_rng(0))
    horizon = min(max(steps // copies, 1), game.game_spec.max_steps)

    def engine() -> int:
        played = 0
        while played < steps:
            draws = draw_episodes(list(range(played, played + copies)), 1, horizon, spec.n_actions)
            result = play(game, draws.seeds, list(range(copies)),
                          PopulationAgent(genomes, spec, 1, draws.gumbel), max_steps=horizon)
            played += result.env_steps
        return played

    # Interleaved, best of each: a noisy machine slows both alike, not one of them.
    raw_rate = engine_rate = 0.0
    for _ in range(repeats):
        raw_rate = max(raw_rate, best_rate(raw, 1))
        engine_rate = max(engine_rate, best_rate(engine, 1))
    game.close()
    return engine_rate, raw_rate


def wuji_generation(generations: int) -> dict[str, float]:
    """Seconds per generation of the Wuji experiment, by phase (the first generation excluded)."""
    exp = load_experiment(ROOT / "experiments" / "wuji_block_maze.yaml", [f"budget.generations={generations + 1}"])
    snapshot: dict[str, float] = {}

    def progress(report: Any) -> None:
        if report.generation == 0:
            snapshot.update(search.seconds)
            snapshot["start"] = time.perf_counter()

    with tempfile.TemporaryDirectory() as tmp:
        search = Evolve(exp, Path(tmp) / "run", progress=progress)
        search.run()
        total = time.perf_counter() - snapshot["start"]
    phases = {k: (v - snapshot.get(k, 0.0)) / generations for k, v in search.seconds.items()}
    phases["total (one generation)"] = total / generations
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke test")
    args = parser.parse_args()
    population, episodes, hidden = 30, 64, (64, 64)
    repeats, naive_steps, pacman_steps, park_steps, gens = (5, 20_000, 4_000, 4_000, 3)
    if args.quick:
        population, episodes, repeats, naive_steps, pacman_steps, park_steps, gens = 8, 16, 2, 2_000, 400, 400, 1
    torch.set_num_threads(1)
    cores = os.cpu_count() or 1

    serial = Executor(ParallelConfig(backend="serial"))
    parallel = Executor(ParallelConfig(backend="loky", n_jobs=cores))
    rows: list[tuple[str, str, str]] = []

    one = engine_rate(serial, maze_tasks(population, episodes, hidden, 1), repeats)
    spec = MAZE.spec()
    oracles = build_oracles([("crash", {}), ("stuck", {}), ("logic", {}), ("performance", {"floor_ms": 1.0})], spec)
    tracker = CoverageTracker(spec)
    warm = serial.map(run_play, maze_tasks(4, 8, hidden, 1))[0].rollouts
    oracles[-1].calibrate(warm)

    def watch(rollouts: list) -> None:
        tracker.update(rollouts)
        check_all(oracles, rollouts)

    # Plain and watched alternately, best of each, so that a burst of load on the machine
    # does not land on one of the two and pass for the cost (or saving) of watching.
    tasks = maze_tasks(population, episodes, hidden, 1)
    watched_one = 0.0
    for _ in range(repeats):
        one = max(one, engine_rate(serial, tasks, 1))
        watched_one = max(watched_one, engine_rate(serial, tasks, 1, watch))
    one_worker = _OneWorker()
    worker = engine_rate(one_worker, maze_tasks(population, episodes, hidden, 2), repeats)
    one_worker.close()
    many = engine_rate(parallel, maze_tasks(population, episodes, hidden, cores), repeats)
    engine = max(one, many)
    naive = naive_rate(hidden, naive_steps)
    flops = actor_flops(29, hidden, 4)
    rate = matmul_flops(cores)
    limit = rate / flops
    rows += [
        ("Block Maze engine, 1 process", f"{one:,.0f}", f"population {population} x {episodes} episodes, MLP {hidden}"),
        ("Block Maze engine, loky x 1 worker", f"{worker:,.0f}", "the population in 2 chunks through one worker process"),
        (f"Block Maze engine, loky x {cores} workers", f"{many:,.0f}", f"chunks of the population in {cores} worker processes"),
        ("naive loop (1 env, 1 forward per step)", f"{naive:,.0f}", f"engine / naive = {engine / naive:,.0f}x"),
        ("compute limit (policy FLOPs)", f"{limit:,.0f}", f"{flops:,} FLOP per step at {rate / 1e9:.1f} GFLOP/s ({cores} threads); engine {engine / limit:.1%}"),
    ]

    overhead = 1.0 - watched_one / one
    rows.append(("Block Maze + oracles + coverage, 1 process", f"{watched_one:,.0f}", f"watching costs {overhead:.1%} of the 1-process rate"))

    pac = mspacman_rates(pacman_steps, 8, repeats)
    if pac is None:
        mspacman_share = None
        rows.append(("MsPacman", "n/a", "ale-py is not installed"))
    else:
        pac_engine, pac_raw = pac
        mspacman_share = pac_engine / pac_raw
        rows += [
            ("MsPacman raw ale-py, random actions", f"{pac_raw:,.0f}", "ALEInterface.act, 4 frames per agent step, 1 process"),
            ("MsPacman engine, 8 copies, MLP 32", f"{pac_engine:,.0f}", f"{mspacman_share:.1%} of raw emulator speed, 1 process"),
        ]
    from return_rates import return_rows

    rows += return_rows(10 if args.quick else 40, 2 if args.quick else repeats, 20 if args.quick else 100)
    try:
        from park_rates import park_rows  # the park's rows need vizdoom
    except ImportError as exc:
        rows.append(("park", "n/a", f"cannot play the park: {exc}"))
    else:
        rows += park_rows(park_steps, 8, 2 if args.quick else 3)
    serial.close()
    parallel.close()

    phases = wuji_generation(gens)
    total = phases.pop("total (one generation)")
    split = ", ".join(f"{k} {v:.2f} s" for k, v in sorted(phases.items(), key=lambda kv: -kv[1]))
    rows.append(("Wuji generation (30 + 30 offspring, A2C)", f"{total:.2f} s", split))

    width = [max(len(r[i]) for r in rows + [("measurement", "agent steps/s", "notes")]) for i in range(3)]
    header = ("measurement", "agent steps/s", "notes")
    print(" | ".join(h.ljust(w) for h, w in zip(header, width)))
    print("-+-".join("-" * w for w in width))
    for r in rows:
        print(" | ".join(c.ljust(w) if i != 1 else c.rjust(w) for i, (c, w) in enumerate(zip(r, width))))
    print(json.dumps({
        "engine_steps_per_s": round(engine),
        "scaling": {"in_process": round(one), "loky_1": round(worker), f"loky_{cores}": round(many)},
        "naive_steps_per_s": round(naive),
        "ratio": round(engine / naive, 1),
        "limit_share": round(engine / limit, 4),
        "oracle_overhead": round(overhead, 4),
        "mspacman_share": None if mspacman_share is None else round(mspacman_share, 4),
        "wuji_generation_s": {k: round(v, 3) for k, v in {**phases, "total": total}.items()},
    }))


if __name__ == "__main__":
    main()
