"""Where one process's step goes with the park pipeline's networks on a device, alone and
beside other processes doing the same: what bounds every layout of ``pixel_scale.py``.

    python benchmarks/gpu_step.py --device cuda --layouts 1x4,1x16,1x64,4x16,16x4 --profile 1x16

A layout ``PxC`` is P processes (spawned, started together) of C park copies each. Each
process builds the experiment's game factory (``ppgta_park_novelty``: the ``detect`` and
``encode`` wrappers on ``--device``) and its MLP population, then times ``--steps`` steps of
three loops, one after the other, every process in the same loop at once:

- **render**: the bare park copies (no wrappers), random actions: what raw rendering costs.
- **networks**: the wrappers and the population's forward pass over frames rendered
  beforehand and replayed (:class:`Replayed`): the networks, the mask, the downscale, the
  host's work around them and the record, without any rendering.
- **full**: the experiment's game, wrappers included, played as a worker plays
  (:func:`evo.search.play.play`).

It prints, per layout, milliseconds per step (the mean over processes) and the steps per
second of all processes together. Where ``networks`` grows with P at the same C, the
processes wait for one another on something they share (the GPU: kernels of different
processes do not run at once without CUDA MPS); where it grows with C, the work per copy
dominates. ``--profile PxC`` prints cProfile's top functions of that layout's first process
over its ``full`` loop. ``--mps`` runs the layouts as clients of a CUDA MPS server started for
the run (and stopped after it), under which kernels of different processes share the GPU at
once: the same layouts with and without it tell whether the processes' contexts taking turns
is what a step waits for. Nothing asserts a timing.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import dataclasses
import io
import multiprocessing as mp
import os
import pstats
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.core.base import GameSpec, VecStep, VectorGame  # noqa: E402

LOOPS = ("render", "networks", "full")
RECORDED = 24
"""Steps of frames each copy records for the ``networks`` loop, replayed in turn."""


class Replayed(VectorGame):
    """A vector game that shows frames recorded from another: no rendering at all."""

    def __init__(self, spec: GameSpec, frames: np.ndarray, features: np.ndarray) -> None:
        self.game_spec, self.num_envs = spec, frames.shape[1]
        self._frames, self._features, self._t = frames, features, 0

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        self._t = 0
        return self._frames[0].copy(), self._features.copy()

    def step(self, actions: np.ndarray) -> VecStep:
        self._t += 1
        n = self.num_envs
        return VecStep(obs=self._frames[self._t % len(self._frames)].copy(), reward=np.zeros(n),
                       terminated=np.zeros(n, dtype=bool), truncated=np.zeros(n, dtype=bool),
                       features=self._features.copy(), frame_ms=np.zeros(n))

    def close(self) -> None:
        pass


def _timed_play(game: VectorGame, agent_of: Any, steps: int, columns: frozenset[str]) -> float:
    """Milliseconds per step of one ``steps``-step episode in every copy (after a short one), the
    episode's reset left out."""
    from evo.search.play import play

    n = game.num_envs
    seeds, ids = list(range(n)), np.arange(n)
    play(game, seeds, ids, agent_of(n), max_steps=8, columns=columns)  # warm: shapes, kernels, caches
    start = time.perf_counter()
    game.reset(seeds)  # what the episode's reset costs, left out below
    reset_s = time.perf_counter() - start
    start = time.perf_counter()
    play(game, seeds, ids, agent_of(n), max_steps=steps, columns=columns)
    return (time.perf_counter() - start - reset_s) * 1000.0 / steps


def _process(device: str, copies: int, steps: int, profile: bool, barrier: Any, out: Any) -> None:
    """One process of a layout; its failure is reported, and breaks the others' barrier."""
    try:
        out.put(_measure(device, copies, steps, profile, barrier))
    except BaseException as exc:  # noqa: BLE001 - said by the parent, the other layouts still run
        barrier.abort()
        out.put({"error": f"{type(exc).__name__}: {exc}"})


def _measure(device: str, copies: int, steps: int, profile: bool, barrier: Any) -> dict[str, Any]:
    """Build, then time each loop when every process of the layout is ready for it."""
    import torch

    from evo.run.built import Built
    from evo.run.config import load_experiment
    from evo.search.play import draw_episodes
    from games.core.wrappers import wrap

    torch.set_num_threads(1)
    exp = load_experiment(ROOT / "experiments" / "ppgta_park_novelty.yaml", [f"device={device}"])
    with Built.from_experiment(exp) as built:
        factory = built.factory
        bare = dataclasses.replace(factory, wrappers=(), render_processes=0).make_vector(copies)
        spec = built.spec

        def agent_of(n: int) -> Any:
            genomes = built.agents.init_genomes(n, np.random.default_rng(0))
            return built.agents.spec(genomes).build(1, draw_episodes(np.arange(n), 1, spec.max_steps, spec.n_actions).gumbel)

        result: dict[str, Any] = {}
        rng = np.random.default_rng(0)
        obs, features = bare.reset(list(range(copies)))
        barrier.wait()
        start = time.perf_counter()
        for _ in range(steps):
            bare.step(rng.integers(bare.game_spec.n_actions, size=copies))
        result["render"] = (time.perf_counter() - start) * 1000.0 / steps
        # The frames the networks loop replays; then the bare copies hand their engines on to
        # the experiment's game (games.doom.engine_pool), which starts none of its own.
        frames = [obs]
        for _ in range(RECORDED - 1):
            frames.append(bare.step(rng.integers(bare.game_spec.n_actions, size=copies)).obs)
        bare.close()
        replayed = wrap(Replayed(bare.game_spec, np.stack(frames), features), factory.wrappers)
        full = factory.make_vector(copies)
        barrier.wait()
        result["networks"] = _timed_play(replayed, agent_of, steps, built.columns)
        barrier.wait()
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        result["full"] = _timed_play(full, agent_of, steps, built.columns)
        if profiler is not None:
            profiler.disable()
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
            result["profile"] = text.getvalue()
        replayed.close()
        full.close()
    return result


def layout(device: str, processes: int, copies: int, steps: int, profile: bool) -> list[dict[str, Any]]:
    context = mp.get_context("spawn")
    barrier, out = context.Barrier(processes, timeout=600), context.Queue()
    procs = [context.Process(target=_process, args=(device, copies, steps, profile and i == 0, barrier, out))
             for i in range(processes)]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--layouts", default="1x4,1x16,2x8", help="comma-separated PxC: P processes of C copies")
    parser.add_argument("--steps", type=int, default=100, help="timed steps of each loop")
    parser.add_argument("--profile", default="", help="a PxC of --layouts whose first process is profiled (full loop)")
    parser.add_argument("--mps", action="store_true", help="run the layouts' processes as clients of a CUDA MPS "
                        "server of this run's own (started here, stopped at the end): kernels of different "
                        "processes then share the GPU at once instead of taking turns")
    args = parser.parse_args()
    if not 1 <= args.steps <= 900:
        parser.error("--steps must be in 1..900 (the park's episodes are 1000 steps)")
    if args.mps and not args.device.startswith("cuda"):
        parser.error(f"--mps shares a CUDA GPU; --device is {args.device!r}")
    # A timeout's SIGTERM ends the run through its finally blocks: the MPS daemon stops too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"park pipeline per step, device {args.device}, {args.steps} steps; ms per step (mean over processes) "
          f"and steps/s of all processes", flush=True)
    print(f"{'layout':>7} {'render ms':>10} {'networks ms':>12} {'full ms':>8} {'render /s':>10} "
          f"{'networks /s':>12} {'full /s':>8}", flush=True)
    profiles = []
    with contextlib.ExitStack() as stack:
        if args.mps:
            stack.enter_context(mps_server())
        for item in args.layouts.split(","):
            profiles += _row(args, item)
    for item, text in profiles:
        print(f"\ncProfile of {item}'s first process, full loop (tottime):\n{text}", flush=True)


def _row(args: argparse.Namespace, item: str) -> list[tuple[str, str]]:
    """Measure one layout, print its row; its profile, if any."""
    p, _, c = item.partition("x")
    if not (p.isdigit() and c.isdigit() and int(p) >= 1 and int(c) >= 1):
        raise SystemExit(f"gpu_step: layout {item!r}: expected PxC, such as 4x16")
    results = layout(args.device, int(p), int(c), args.steps, item == args.profile)
    errors = sorted({r["error"] for r in results if "error" in r})
    if errors:
        print(f"{item:>7} failed: {'; '.join(errors)}", flush=True)
        return []
    ms = {loop: float(np.mean([r[loop] for r in results])) for loop in LOOPS}
    rate = {loop: sum(int(c) * 1000.0 / r[loop] for r in results) for loop in LOOPS}
    print(f"{item:>7} {ms['render']:>10.2f} {ms['networks']:>12.2f} {ms['full']:>8.2f} {rate['render']:>10,.0f} "
          f"{rate['networks']:>12,.0f} {rate['full']:>8,.0f}", flush=True)
    return [(item, r["profile"]) for r in results if "profile" in r]


@contextlib.contextmanager
def mps_server() -> Iterator[None]:
    """A CUDA MPS control daemon of this run's own, its pipes in a temporary folder; the
    layouts' processes (spawned after it) find it through the environment and share one
    context on the GPU. Stopped, and the environment restored, at the end."""
    control = shutil.which("nvidia-cuda-mps-control")
    if control is None:
        raise SystemExit("gpu_step: --mps needs nvidia-cuda-mps-control on PATH (CUDA's MPS), found none")
    folder = Path(tempfile.mkdtemp(prefix="gpu_step_mps_"))
    env = {"CUDA_MPS_PIPE_DIRECTORY": str(folder / "pipe"), "CUDA_MPS_LOG_DIRECTORY": str(folder / "log")}
    for path in env.values():
        Path(path).mkdir()
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        subprocess.run([control, "-d"], check=True, timeout=30)
        print(f"CUDA MPS daemon started (pipes in {folder})", flush=True)
        yield
    finally:
        subprocess.run([control], input=b"quit\n", timeout=30, check=False)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(folder, ignore_errors=True)

if __name__ == "__main__":
    main()
