"""The frame work around the park's networks, per step of N copies: PPGTA's OD mask and the
64x64 downscale in numpy on the host (what the CPU runs) against their tensor forms on a device
(what a GPU runs, ``games.perception.device_frames``), the frames' upload included.

    python benchmarks/frame_work.py [--device cuda] [--steps 50]

Prints one table: milliseconds per step for each batch size. On a GPU the tensor rows count
the upload of the step's uint8 frames, the mask, the downscale and the wait for the GPU
(``torch.cuda.synchronize``); on the CPU they show why the CPU keeps the numpy forms. Real
frames of the evaluation park, boxes from the shipped detector. Nothing asserts a timing.
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

from games.common.device import torch_device  # noqa: E402
from games.perception.base import od_mask  # noqa: E402
from games.perception.detector import load_detector  # noqa: E402
from games.perception.device_frames import downscale_tensor, od_mask_tensor  # noqa: E402
from games.perception.encoder import downscale  # noqa: E402
from games.doom.park.data.frames import park_frames  # noqa: E402


def ms_per_call(run: Callable[[], object], steps: int, sync: Callable[[], None]) -> float:
    run()  # warm-up: the first call allocates (and, on a GPU, compiles nothing but loads kernels)
    sync()
    start = time.perf_counter()
    for _ in range(steps):
        run()
    sync()
    return (time.perf_counter() - start) / steps * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="where the tensor forms run: cpu, cuda, cuda:N")
    parser.add_argument("--steps", type=int, default=50, help="calls per row")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = torch_device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    frames = park_frames([0], 256, seed=1).frames
    boxes = [d.boxes for d in load_detector().detect(frames)]
    print(f"| copies | numpy mask ms | numpy downscale ms | {device} tensors: upload + mask + downscale ms |")
    print("|---:|---:|---:|---:|")
    for n in (16, 64, 256):
        x, b = frames[:n], boxes[:n]
        mask = ms_per_call(lambda: od_mask(x, b), args.steps, lambda: None)
        masked = od_mask(x, b)
        shrink = ms_per_call(lambda: downscale(masked), args.steps, lambda: None)
        tensors = ms_per_call(lambda: downscale_tensor(od_mask_tensor(torch.from_numpy(x).to(device), b)),
                              args.steps, sync)
        print(f"| {n} | {mask:.2f} | {shrink:.2f} | {tensors:.2f} |")


if __name__ == "__main__":
    main()
