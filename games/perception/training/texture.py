"""Train and score the texture judge (:mod:`games.perception.texture`) on crops of generated parks.

    evo vision train texture --out games/perception/weights/texture.pt --levels 1-8 --seed 0
    evo vision eval texture --weights games/perception/weights/texture.pt --level-seed 0

Crops come from circling walks (:mod:`games.perception.park_walks`) around every OOI of a level,
at radii drawn between :data:`RADII` (near and far views, from all sides), cut by the labels
buffer's boxes; the label of a crop is its OOI's bug in the layout (ground truth, which is
what training and scoring are for). Training boxes are jittered a little, as a detector's
boxes are never exact. Levels trained on and the level scored are different seeds.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from rich.console import Console

from games.doom.park.doom_park import DoomParkVector
from games.doom.park.layout import PRESETS
from games.perception.park_walks import circle_walk
from games.perception.texture import (
    CLASSES, DEFAULT_WEIGHTS, MIN_HEIGHT, TYPES, TextureJudge, TextureNet, crop, judgeable,
    load_texture_judge, prepare, save_texture_judge,
)

RADII = (96.0, 448.0)
"""Map units: the circles' radii are drawn from this range (a box 40 to 8 pixels tall at
160x120 for most types)."""
JITTER = 0.2
"""Training boxes move each edge by up to this share of the box's size by default (a small
CNN detector's boxes at 160x120 are a few pixels off; a judge trained on exact boxes called
normal objects in such boxes stretched)."""


@dataclass(frozen=True)
class CropSet:
    """Crops with their labels.

    Attributes:
        crops: ``[3, h, w]`` uint8 crops.
        types: ``[N]`` index into :data:`TYPES`.
        labels: ``[N]`` index into :data:`CLASSES`.
        frame_height: Height of the frames they were cut from.
    """

    crops: tuple[np.ndarray, ...]
    types: np.ndarray
    labels: np.ndarray
    frame_height: int


def parse_levels(text: str) -> list[int]:
    """``"1-8"`` or ``"1,3,5"`` -> level seeds.

    Raises:
        ValueError: anything else.
    """
    try:
        if "-" in text:
            first, last = (int(v) for v in text.split("-"))
            levels = list(range(first, last + 1))
        else:
            levels = [int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"--levels must be a range such as 1-8 or a list such as 1,3,5, got {text!r}") from None
    if not levels or min(levels) < 0:
        raise ValueError(f"--levels must name non-negative level seeds, got {text!r}")
    return levels


def level_crops(level_seed: int, steps: int, rng: np.random.Generator, *, preset: str = "small",
                jitter: float = 0.0, min_height: int = MIN_HEIGHT) -> CropSet:
    """Circle every OOI of one level and cut a crop for every judgeable box it shows."""
    game = DoomParkVector(1, level_seed=level_seed, preset=preset, max_steps=steps)
    try:
        oois = game.oois
        order = rng.permutation(len(oois))
        walk = circle_walk(game, [(oois[k].x, oois[k].y) for k in order],
                           rng.uniform(*RADII, size=len(oois)), max(steps // len(oois), 1),
                           int(rng.integers(2**31)), rng)
    finally:
        game.close()
    shape = walk.frames.shape[2:]
    crops, types, labels = [], [], []
    for frame, visible in zip(walk.frames, walk.visible):
        for v in visible:
            if v.ooi < 0 or not judgeable(v.box, shape, min_height):
                continue
            x, y, w, h = v.box
            if jitter:
                dx0, dy0, dx1, dy1 = rng.uniform(-jitter, jitter, 4)
                x, y = round(x + dx0 * w), round(y + dy0 * h)
                w, h = max(round(w * (1 + dx1 - dx0)), 2), max(round(h * (1 + dy1 - dy0)), 2)
            crops.append(crop(frame, (x, y, w, h)))
            types.append(TYPES.index(v.type))
            labels.append(CLASSES.index(oois[v.ooi].bug or "normal"))
    return CropSet(tuple(crops), np.asarray(types, dtype=np.int64),
                   np.asarray(labels, dtype=np.int64), int(shape[0]))


def train_judge(data: CropSet, epochs: int, seed: int, width: int = 16,
                batch_size: int = 128, lr: float = 2e-3) -> TextureJudge:
    """Fit a :class:`TextureNet` to labelled crops (cross-entropy, Adam, random flips)."""
    if len(data.crops) == 0:
        raise ValueError("no crops to train the texture judge on (levels too short?)")
    torch.manual_seed(seed)  # the initial weights; batches come from the seeded generator below
    gen = torch.Generator().manual_seed(seed)
    images, extra = prepare(data.crops, data.types, data.frame_height)
    labels = torch.from_numpy(data.labels)
    net = TextureNet(width)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    n = len(labels)
    for _ in range(epochs):
        net.train()
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, batch_size):
            idx = perm[start:start + batch_size]
            batch = images[idx]
            flip = torch.rand(len(idx), generator=gen) < 0.5  # sprites look alike mirrored
            batch = torch.where(flip[:, None, None, None], batch.flip(3), batch)
            loss = F.cross_entropy(net(batch, extra[idx]), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    return TextureJudge(net)


def crop_scores(judge: TextureJudge, data: CropSet, threshold: float = 0.5) -> dict[str, float]:
    """Crop-level accuracy (bugged or not, and which class), precision and recall of "bugged"."""
    probs = judge.probabilities(data.crops, [TYPES[t] for t in data.types], data.frame_height)
    said = (1.0 - probs[:, 0]) > threshold
    truth = data.labels > 0
    tp = int((said & truth).sum())
    return {
        "crops": float(len(truth)),
        "accuracy": float((said == truth).mean()) if len(truth) else 0.0,
        "class_accuracy": float((probs.argmax(1) == data.labels).mean()) if len(truth) else 0.0,
        "precision": tp / max(int(said.sum()), 1),
        "recall": tp / max(int(truth.sum()), 1),
    }


def _concat(sets: Sequence[CropSet]) -> CropSet:
    return CropSet(tuple(c for s in sets for c in s.crops), np.concatenate([s.types for s in sets]),
                   np.concatenate([s.labels for s in sets]), sets[0].frame_height)


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train texture``."""
    parser.add_argument("--out", default=str(DEFAULT_WEIGHTS), help="where to write the weights")
    parser.add_argument("--levels", default="1-8", help="park level seeds to train on (1-8 or 1,3,5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of walks, jitter and training")
    parser.add_argument("--steps", type=int, default=2000, help="steps of circling walk per level")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--width", type=int, default=16, help="channels of the first conv layer")
    parser.add_argument("--jitter", type=float, default=JITTER,
                        help="move training boxes' edges by up to this share of their size")
    parser.add_argument("--preset", default="small", choices=sorted(PRESETS))


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Collect crops from ``--levels``, train, write ``--out``, print the training scores."""
    levels = parse_levels(args.levels)
    if args.steps < 1 or args.epochs < 1 or args.width < 1:
        raise ValueError("--steps, --epochs and --width must be at least 1")
    if not 0.0 <= args.jitter < 0.5:
        raise ValueError(f"--jitter must be in [0, 0.5), got {args.jitter}")
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    sets = []
    for level in levels:
        sets.append(level_crops(level, args.steps, rng, preset=args.preset, jitter=args.jitter))
        console.print(f"level {level}: {len(sets[-1].crops)} crops")
    data = _concat(sets)
    judge = train_judge(data, args.epochs, args.seed, width=args.width)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_texture_judge(judge, args.out)
    scores = crop_scores(judge, data)
    console.print(f"trained on {len(data.crops)} crops of levels {args.levels} in "
                  f"{time.perf_counter() - t0:.0f} s; training accuracy {scores['accuracy']:.3f}; "
                  f"wrote {args.out} ({Path(args.out).stat().st_size / 1024:.0f} KiB)")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval texture``."""
    parser.add_argument("--weights", default=str(DEFAULT_WEIGHTS), help="the judge to score")
    parser.add_argument("--level-seed", type=int, default=0, help="the (unseen) level scored")
    parser.add_argument("--seed", type=int, default=0, help="seed of the circling walk")
    parser.add_argument("--steps", type=int, default=2000, help="steps of circling walk")
    parser.add_argument("--preset", default="small", choices=sorted(PRESETS))


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Crop-level accuracy, precision and recall of "bugged" on one level, by crop height."""
    if args.level_seed < 0 or args.steps < 1:
        raise ValueError("--level-seed must be non-negative and --steps at least 1")
    torch.set_num_threads(1)
    judge = load_texture_judge(args.weights)
    data = level_crops(args.level_seed, args.steps, np.random.default_rng(args.seed), preset=args.preset)
    heights = np.array([c.shape[1] for c in data.crops])
    console.print(f"texture judge {args.weights} on level {args.level_seed} ({args.preset}), "
                  f"crops at least {MIN_HEIGHT} px tall")
    console.print("| crops | height px | accuracy | class accuracy | precision | recall |")
    console.print("|---|---|---:|---:|---:|---:|")
    for name, low, high in (("all", 0, 10**6), ("small", 0, 16), ("large", 16, 10**6)):
        keep = np.flatnonzero((heights >= low) & (heights < high))
        part = CropSet(tuple(data.crops[k] for k in keep), data.types[keep], data.labels[keep],
                       data.frame_height)
        s = crop_scores(judge, part)
        span = f"{max(low, MIN_HEIGHT)}+" if high > 10**5 else f"{max(low, MIN_HEIGHT)}-{high - 1}"
        console.print(f"| {name} ({int(s['crops'])}) | {span} | {s['accuracy']:.3f} | "
                      f"{s['class_accuracy']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} |")
    return 0
