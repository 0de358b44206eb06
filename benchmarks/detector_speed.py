"""How fast the shipped park detector and encoder see frames on one core, by batch size.

Prints one table. Each row runs ``CNNDetector.detect`` (one forward pass, peak decoding and
crops), or the ``encode`` wrapper's work (the 64x64 downscale and the encoder's forward pass),
on batches of real 160x120 frames of the evaluation park, and the ``detect``
wrapper's OD mask on the same batches; frames per second of wall time and of this process's
CPU time (on a shared machine the wall clock also counts the waits for a core). Torch runs
one thread; pin the process with ``taskset -c 0 python benchmarks/detector_speed.py``.
Nothing asserts a timing.
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

from games.perception.base import od_mask  # noqa: E402
from games.perception.detector import load_detector  # noqa: E402
from games.perception.encoder import downscale, encode, load_encoder  # noqa: E402
from games.doom.park.data.frames import park_frames  # noqa: E402


def measure(run, frames: np.ndarray, batch: int, repeats: int) -> tuple[float, float]:
    """``(frames per wall second, frames per CPU second)`` of ``run`` on ``batch`` frames."""
    chunk = frames[:batch]
    run(chunk)  # warm-up: the first forward allocates
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeats):
        run(chunk)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return batch * repeats / wall, batch * repeats / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000, help="frames per row (about)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    detector = load_detector()
    frames = park_frames([0], 64, seed=1).frames
    print("| what | batch | frames/s (wall) | frames/s (CPU) |")
    print("|---|---:|---:|---:|")
    encoder = load_encoder(None)
    batches = (1, 2, 4, 8, 16, 32, 64)  # 4: a worker's copies with 16 workers and population 32
    for batch in batches:
        repeats = max(args.frames // batch, 1)
        wall, cpu = measure(detector.detect, frames, batch, repeats)
        print(f"| detect | {batch} | {wall:,.0f} | {cpu:,.0f} |")
    for batch in batches:
        repeats = max(args.frames // batch, 1)
        wall, cpu = measure(lambda f: encode(encoder, downscale(f)), frames, batch, repeats)
        print(f"| encode | {batch} | {wall:,.0f} | {cpu:,.0f} |")
    found = detector.detect(frames[:16])
    boxes = [d.boxes for d in found]
    wall, cpu = measure(lambda f: od_mask(f, boxes), frames, 16, max(args.frames // 16, 1))
    print(f"| od_mask | 16 | {wall:,.0f} | {cpu:,.0f} |")


if __name__ == "__main__":
    main()
