"""Raw park rendering against the engine with the park experiments' pipeline, by number of
workers and device: how close the engine gets to what the cores render.

    python benchmarks/pixel_scale.py --workers 1,2,4,8,16 --device cpu,cuda --csv scale.csv

Prints one table (steps per wall second and the engine's share of raw) and writes it as a
CSV. Nothing asserts a timing.

- **raw**: ``workers`` processes (joblib's loky), each stepping ``--copies`` bare park copies
  (small preset, level 0, labels on, random actions) for ``--seconds``; the sum of their
  rates. What the machine's cores render with nothing else on them.
- **engine**: ``evo run`` of the experiment (default ``ppgta_park_novelty`` without
  fine-tuning: the detect and encode wrappers, the MLP population's batched forward, RND
  novelty, the objects and visual oracles) with ``parallel.n_jobs=workers`` and
  ``device=...``, ``--population`` policies of ``--episode-steps``-step episodes, for
  ``--generations`` generations, in this process. ``engine steps/s`` is the steady rate:
  the env steps of the generations after the warm-up (below) over their wall time (the first
  generation pays for starting the workers and loading their networks: ``first gen s``). ``play wait``
  and ``between gens`` are the shares of the run's wall time spent waiting for the workers' play
  and everything else, done in this process between generations (the objectives' scoring,
  selection; the CSV has the timed phases): time the workers stand idle at the generation's
  barrier. A generation's tail (the objectives' learning, the oracles, the row and checkpoint)
  runs while the next generation plays (:mod:`evo.run.recorder`), so its phases overlap ``play
  wait`` where it ran meanwhile.

``run ms/step`` is the CPU this process spends per env step over the steady generations (all
its threads: collecting the workers' results, scoring, RND's learning, the oracles), and
``busiest thread`` the thread that spent most and its ms per step. No number of workers takes
that work off this process: at 0.25 ms a step of one thread, the run cannot go past 4,000
steps per second however many cores play.

A device written ``cuda+batched`` (or ``cpu+batched``) runs the engine the other way: one
process plays every copy, rendered in ``workers`` processes (``parallel.render_processes``),
and runs the detector, encoder and population once per step for all of them; from 2 workers
on it plays in two lanes (threads) of half the copies and half the renderers each, one lane
computing while the other's frames render (:mod:`evo.run.parallel`). Written
``cuda+batchedK`` (``cuda+batched2``, ``cuda+batched4``), K loky workers share the copies, each
running the networks on its share, rendered in ``workers / K`` processes: while one waits for
its frames, another runs its networks (one process alone leaves its renderers idle while
it computes, and computes nothing while they render).

The steady rate leaves out the first ``--warmup`` generations (default 2): the first starts
the workers and their games, and in the second parents play again beside their children, so
every worker's game grows (a game rendered in processes starts them all again).

Budget per point: raw ``--seconds`` (6 s) plus its start; the engine's first generation plus
``generations - 1`` of ``2 x population x episode-steps`` steps. With the defaults (population
32, 200-step episodes, 4 generations: 44,800 steps) one engine point took 25-45 s on a
16-core H100 machine, and ``--workers 16 --device cpu,cuda+batched,cuda+batched2,cuda+batched4``
about 3 minutes. On 2 cores: ``--workers 1,2 --device cpu,cpu+batched --population 16`` takes
about 4 minutes.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PARK = {"preset": "small", "level_seed": 0}
PHASES = ("evaluation", "scoring", "learning", "oracles", "fine-tuning", "selection", "bookkeeping")
"""The phases of a generation the engine times (evo.run.phases.Phases)."""
COLUMNS = ["workers", "device", "raw_steps_per_s", "engine_steps_per_s", "engine_share_of_raw",
           "engine_first_gen_s", "engine_env_steps", *(f"share_{p.replace('-', '_')}" for p in PHASES),
           "share_between_generations", "run_cpu_ms_per_step", "busiest_thread",
           "busiest_thread_ms_per_step", "experiment"]


class ThreadClock:
    """CPU seconds of this process and of each of its threads, read at each generation: what
    the run's own process spends per env step, which no number of workers takes off it."""

    def __init__(self) -> None:
        self.marks: list[tuple[int, float, dict[str, float]]] = []

    def __call__(self, report) -> None:  # noqa: ANN001 - a GenerationReport (progress callback)
        threads = {}
        for t in threading.enumerate():
            try:
                threads[t.name] = time.clock_gettime(time.pthread_getcpuclockid(t.ident))
            except (OSError, TypeError):  # a thread that ended meanwhile
                pass
        self.marks.append((int(report.env_steps), time.process_time(), threads))

    def per_step(self, first: int) -> dict[str, float | str]:
        """ms of CPU per env step from generation ``first``'s end to the last: the whole
        process, and its busiest thread (a thread that held on over the whole span)."""
        (s0, c0, t0), (s1, c1, t1) = self.marks[first], self.marks[-1]
        steps = max(s1 - s0, 1)
        spent = {name: t1[name] - t0[name] for name in t1.keys() & t0.keys()}
        busiest = max(spent, key=spent.get, default="")
        return {"run_cpu_ms_per_step": round(1000 * (c1 - c0) / steps, 4), "busiest_thread": busiest,
                "busiest_thread_ms_per_step": round(1000 * spent.get(busiest, 0.0) / steps, 4)}


def _render(copies: int, seconds: float, seed: int) -> float:
    """One raw worker: steps per second of ``copies`` bare park copies for ``seconds``."""
    from games.doom.park.doom_park import DoomParkVector

    game = DoomParkVector(copies, max_steps=10_000, **PARK)
    try:
        rng = np.random.default_rng(seed)
        game.reset(list(range(seed * copies, (seed + 1) * copies)))
        n_actions, steps = game.game_spec.n_actions, 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            game.step(rng.integers(n_actions, size=copies))
            steps += copies
        return steps / (time.perf_counter() - start)
    finally:
        game.close()


def raw_rate(workers: int, copies: int, seconds: float) -> float:
    """Steps per second of ``workers`` processes rendering at once (the sum of their rates)."""
    from joblib import Parallel, delayed

    from joblib.externals.loky import get_reusable_executor

    rates = Parallel(n_jobs=workers, backend="loky")(
        delayed(_render)(copies, seconds, seed) for seed in range(workers))
    # The engine's workers must start as they would in a run. Left alive, these would serve
    # its first tasks with the memory they hold already.
    get_reusable_executor().shutdown(wait=True)
    return float(sum(rates))


def layout_of(device: str) -> tuple[str, int]:
    """``cuda`` -> ``("cuda", 0)`` (workers that render and compute), ``cuda+batched`` -> 1
    (one process computes for all), ``cuda+batched4`` -> 4 (four of them)."""
    base, batched, k = device.partition("+batched")
    if batched and not (k == "" or (k.isdigit() and int(k) >= 1)):
        raise SystemExit(f"pixel_scale: device {device!r}: expected DEVICE, DEVICE+batched or DEVICE+batchedK")
    return base, (int(k or 1) if batched else 0)


def engine_rate(experiment: Path, workers: int, device: str, args: argparse.Namespace) -> dict[str, float]:
    """``evo run`` of ``experiment`` on ``workers`` workers and ``device``, in this process: its
    steady env steps per second, the first generation's wall seconds, the steps played, and
    the share of the run's wall time each phase took (``evaluation``: waiting for the
    workers' play; the others run in this process between generations)."""
    import pandas as pd

    from evo.run.config import load_experiment
    from evo.run.kinds.evolve import Evolve

    device, batchers = layout_of(device)
    if batchers == 1:  # one process plays every copy, rendered in `workers` processes (one forward for all)
        layout = ["parallel.backend=serial", "parallel.n_jobs=1", f"parallel.render_processes={workers}"]
    elif batchers > 1:  # K workers, each one forward for its share, rendered in workers / K processes
        layout = [f"parallel.n_jobs={batchers}", f"parallel.render_processes={max(1, workers // batchers)}"]
    else:
        layout = [f"parallel.n_jobs={workers}"]
    overrides = [
        *layout, f"device={device}", f"search.population={args.population}",
        f"search.offspring={args.population}", f"game.kwargs.max_steps={args.episode_steps}",
        f"budget.generations={args.generations}", "budget.env_steps=100000000", "budget.wall_seconds=100000",
        *args.set,
    ]
    with tempfile.TemporaryDirectory(prefix="pixel_scale_") as tmp:
        try:
            clock = ThreadClock()
            search = Evolve(load_experiment(experiment, overrides), Path(tmp) / "run", clock)
            search.run()
        except Exception as exc:  # noqa: BLE001 - said, and the other points still measured
            print(f"evo run failed ({workers} workers, {device}): {type(exc).__name__}: {exc}", flush=True)
            return {"engine_steps_per_s": float("nan"), "engine_first_gen_s": float("nan"), "engine_env_steps": 0,
                    "run_cpu_ms_per_step": float("nan"), "busiest_thread": "",
                    "busiest_thread_ms_per_step": float("nan")}
        gens = pd.read_csv(Path(tmp) / "run" / "generations.csv")
    first, warm = gens.iloc[0], gens.iloc[args.warmup - 1]
    steady_steps = gens["env_steps"].iloc[-1] - warm["env_steps"]
    steady_s = gens["wall_s"].iloc[-1] - warm["wall_s"]
    total = float(gens["wall_s"].iloc[-1])
    shares = {f"share_{phase.replace('-', '_')}": round(search.seconds.get(phase, 0.0) / total, 3) for phase in PHASES}
    # Everything but waiting for play: the objectives' scoring, selection, and what of the
    # tail did not fit in the next play, all in this process while the workers stand idle.
    shares["share_between_generations"] = round(1.0 - shares["share_evaluation"], 3)
    return {"engine_steps_per_s": steady_steps / steady_s if steady_s > 0 else float("nan"),
            "engine_first_gen_s": float(first["wall_s"]), "engine_env_steps": int(gens["env_steps"].iloc[-1]),
            **shares, **clock.per_step(args.warmup - 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    parser.add_argument("--device", default="cpu", help="comma-separated devices: cpu, cuda, cuda:N; "
                        "DEVICE+batched: one process runs the networks on every copy, rendered in "
                        "`workers` processes (parallel.render_processes), instead of `workers` workers")
    parser.add_argument("--experiment", type=Path, default=ROOT / "experiments" / "ppgta_park_novelty.yaml")
    parser.add_argument("--population", type=int, default=32, help="policies (and offspring) per generation")
    parser.add_argument("--episode-steps", type=int, default=200, help="steps per episode (game.kwargs.max_steps)")
    parser.add_argument("--generations", type=int, default=4, help="engine generations, the warm-up included")
    parser.add_argument("--warmup", type=int, default=2, help="generations the steady rate leaves out (>= 1): "
                        "starting the workers, then growing their games once parents play beside children")
    parser.add_argument("--copies", type=int, default=4, help="park copies per raw worker")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds each raw point renders")
    parser.add_argument("--set", action="append", default=["finetune.algorithm=none"],
                        help="an extra key=value override of the experiment (repeatable; default "
                        "finetune.algorithm=none: play, not updates)")
    parser.add_argument("--csv", type=Path, help="also write the table here")
    args = parser.parse_args()
    if args.warmup < 1 or args.generations <= args.warmup:
        parser.error("--warmup must be at least 1 and --generations more than --warmup")
    workers = [int(w) for w in args.workers.split(",")]
    devices = args.device.split(",")
    print(f"{args.experiment.stem}, population {args.population}, {args.episode_steps}-step episodes, "
          f"{args.generations} generations; raw: {args.copies} copies per worker, {args.seconds:g} s; "
          f"{os.cpu_count()} CPUs", flush=True)
    print(f"{'workers':>7} {'device':>12} {'raw steps/s':>12} {'engine steps/s':>15} {'of raw':>7} "
          f"{'first gen s':>12} {'play wait':>10} {'between gens':>13} {'run ms/step':>12} "
          f"{'busiest thread':>26}", flush=True)
    out = None
    if args.csv is not None:  # row by row: a run cut short keeps the points it measured
        out = open(args.csv, "w", newline="")
        writer = csv.DictWriter(out, fieldnames=COLUMNS, restval="")
        writer.writeheader()
    for w in workers:
        raw = raw_rate(w, args.copies, args.seconds)
        for device in devices:
            engine = engine_rate(args.experiment, w, device, args)
            share = engine["engine_steps_per_s"] / raw
            row = {"workers": w, "device": device, "raw_steps_per_s": round(raw, 1), **engine,
                   "engine_steps_per_s": round(engine["engine_steps_per_s"], 1),
                   "engine_first_gen_s": round(engine["engine_first_gen_s"], 2),
                   "engine_share_of_raw": round(share, 4), "experiment": args.experiment.stem}
            if out is not None:
                writer.writerow(row)
                out.flush()
            print(f"{w:>7} {device:>12} {raw:>12,.0f} {engine['engine_steps_per_s']:>15,.0f} {share:>7.0%} "
                  f"{engine['engine_first_gen_s']:>12.1f} {row.get('share_evaluation', float('nan')):>10.0%} "
                  f"{row.get('share_between_generations', float('nan')):>13.0%} "
                  f"{row['run_cpu_ms_per_step']:>12.3f} "
                  f"{row['busiest_thread'][:16]:>16} {row['busiest_thread_ms_per_step']:>9.3f}", flush=True)
    if out is not None:
        out.close()


if __name__ == "__main__":
    main()
