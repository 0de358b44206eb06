"""How fast the encoder and the RND-ensemble novelty run on one core.

Prints one table: frames per second of each stage, for batches of 16 frames (16 copies of the
park stepping together, what the ``encode`` wrapper sees each step) and of 4,096 (a
generation's record scored by ``rnd_novelty``), and the seconds of one ``rnd_novelty`` update
(a full buffer of 1,024 transitions, 4 epochs). Frames are real park frames (160x120, level 0,
random play). Wall and CPU seconds of this process (torch on one thread); pin it with
``taskset -c 0 python benchmarks/encode_speed.py``. Nothing asserts a timing.
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

from games.core.component import Context  # noqa: E402
from games.core.base import GameSpec  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.core.record import RolloutBatch  # noqa: E402
from games.perception.encoder import downscale, encode, load_encoder  # noqa: E402
from objectives.rnd_novelty import RndNovelty, RndNoveltyConfig  # noqa: E402


def park_frames(n: int) -> tuple[np.ndarray, GameSpec]:
    """``n`` frames of random play on park level 0 (8 copies)."""
    game = DoomParkVector(8, level_seed=0, max_steps=n)
    rng = np.random.default_rng(0)
    try:
        obs, _ = game.reset(list(range(8)))
        frames = [obs]
        while sum(f.shape[0] for f in frames) < n:
            frames.append(game.step(rng.integers(0, 9, size=8)).obs)
    finally:
        game.close()
    return np.concatenate(frames)[:n], game.game_spec


def rate(fn: Callable[[], object], frames: int, seconds: float) -> tuple[float, float]:
    """``(frames per wall second, frames per CPU second)`` of ``fn`` repeated for ``seconds``."""
    fn()  # warm up
    calls, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        fn()
        calls += 1
    return calls * frames / (time.perf_counter() - wall), calls * frames / (time.process_time() - cpu)


def batch_of(frames: np.ndarray) -> RolloutBatch:
    """One episode whose observations are ``frames`` (the first is the reset's)."""
    n = frames.shape[0] - 1
    return RolloutBatch(np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros((1, n), np.int64), np.zeros((1, n)),
                        np.zeros((1, n + 1, 3)), np.zeros((1, n)), np.array([n]), np.zeros(1, bool), np.ones(1, bool),
                        obs=frames.reshape(1, n + 1, -1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row")
    args = parser.parse_args()
    torch.set_num_threads(1)
    frames, spec = park_frames(4097)
    small = downscale(frames)
    encoder = load_encoder()
    rnd = RndNovelty(spec, RndNoveltyConfig(), Context(seed=0))
    rows = [
        ("downscale 160x120 -> 64x64", 16, lambda: downscale(frames[:16])),
        ("encoder forward (64x64)", 16, lambda: encode(encoder, small[:16])),
        ("encode wrapper (downscale + encoder)", 16, lambda: encode(encoder, downscale(frames[:16]))),
        ("rnd_novelty per-step reward", 16, lambda: rnd.novelty(small[:16])),
        ("encoder forward (64x64)", 4096, lambda: encode(encoder, small[:4096])),
        ("rnd_novelty score (encoder + ensemble)", 4096, lambda: rnd.novelty(small[:4096])),
    ]
    print("| stage | batch | frames/s (wall) | frames/s (CPU) |")
    print("|---|---:|---:|---:|")
    for name, n, fn in rows:
        wall, cpu = rate(fn, n, args.seconds)
        print(f"| {name} | {n} | {wall:,.0f} | {cpu:,.0f} |")
    record = batch_of(frames)
    rnd.update(record)  # fills the buffer
    wall, cpu = time.perf_counter(), time.process_time()
    rnd.update(record)
    print(f"| rnd_novelty update (4,096 frames in, buffer 1,024, 4 epochs) | - | {time.perf_counter() - wall:.2f} s | "
          f"{time.process_time() - cpu:.2f} s |")


if __name__ == "__main__":
    main()
