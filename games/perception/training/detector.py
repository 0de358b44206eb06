"""Training and scoring the park's object detector (:mod:`games.perception.detector`).

    evo vision train detector --out games/perception/weights/detector.pt --levels 1-16,18-25 \\
        --frames 500 --epochs 30 --seed 0
    evo vision eval detector --level-seed 0 --frames 960 --seed 1

Frames and boxes come from :func:`games.perception.park_frames.park_frames` on parks generated
with the ``--levels`` seeds; scoring plays the same kind of walks on a park none of them is
(level 0 by default). Training is CenterNet's: a focal loss on the heatmaps (penalty-reduced
by a Gaussian around each centre, alpha 2, beta 4) and an L1 loss on the offsets and log
sizes at the centres; the frames are mirrored left-right half the time.

Which objects count when scoring (and which are taught): the labels buffer boxes every OOI
with at least a pixel in view, down to 1 x 1 specks at the horizon. An object counts from
:data:`MIN_HEIGHT` pixels tall: below that a lamp is one or two pixels wide, no texture can
be judged in its crop, and a box one pixel off has an IoU under 0.5. Smaller objects are
neither misses nor false alarms: a detection that matches one, or is itself smaller, is left
out of precision (as the Caltech pedestrian benchmark treats its ignore regions).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from games.perception.base import Detections, box_iou
from games.perception.detector import STRIDE, WEIGHTS, CenterNet, CNNDetector, frames_tensor, load_detector, save_detector
from games.perception.park_frames import TYPES, LabelledFrames, park_frames, parse_levels

MIN_HEIGHT = 8
"""Pixels an object's box must be tall to count (see the module)."""
TEACH_HEIGHT = 4
"""Boxes from this tall are taught as objects; smaller specks are neither object nor
background (their cells are left out of the heatmap loss)."""
IOU = 0.5
REG_AREA = 0.3
"""Gaussian value from which a cell is taught its object's box (see :func:`targets`)."""


@dataclass(frozen=True)
class TrainConfig:
    """How the detector is trained."""

    epochs: int = 30
    """Passes over the training frames."""
    batch_size: int = 32
    """Frames per gradient step."""
    lr: float = 3e-3
    """AdamW's learning rate at its peak (one-cycle schedule)."""
    width: int = 16
    """Channels of the network at stride 4 (:class:`CenterNet`)."""
    seed: int = 0
    """Seeds the network's initialisation, the batches and the mirroring."""


def targets(boxes: tuple[np.ndarray, ...], types: tuple[np.ndarray, ...], n_types: int,
            grid: tuple[int, int]) -> dict[str, torch.Tensor]:
    """CenterNet's targets for frames with these boxes: ``heat [N, T, gh, gw]`` (a Gaussian
    per object, 1 at its centre cell), ``care [N, 1, gh, gw]`` (0 around specks too small to
    teach), and ``reg [N, 4, gh, gw]`` (the centre's offset from the cell, x and y, and the
    log width and height, in cells) with its weight ``mask [N, 1, gh, gw]``.

    The box is taught at every cell where the object's Gaussian is at least
    :data:`REG_AREA`, weighted by it and summing to 1 per object (TTFNet, Liu et al. 2020):
    the peak of a tall lamp's heatmap may land a cell or two off its centre, and must still
    give the whole box. Where objects overlap, the smaller one is taught."""
    n, (gh, gw) = len(boxes), grid
    heat = np.zeros((n, n_types, gh, gw), dtype=np.float32)
    care = np.ones((n, 1, gh, gw), dtype=np.float32)
    reg = np.zeros((n, 4, gh, gw), dtype=np.float32)
    mask = np.zeros((n, 1, gh, gw), dtype=np.float32)
    ys, xs = np.arange(gh, dtype=np.float32)[:, None], np.arange(gw, dtype=np.float32)[None]
    for i, (frame_boxes, frame_types) in enumerate(zip(boxes, types)):
        largest_first = np.argsort(-(frame_boxes[:, 2] * frame_boxes[:, 3]), kind="stable")
        for (x, y, w, h), t in zip(frame_boxes[largest_first].tolist(),
                                   frame_types[largest_first].tolist()):
            cx, cy = (x + w / 2) / STRIDE, (y + h / 2) / STRIDE
            ix, iy = min(int(cx), gw - 1), min(int(cy), gh - 1)
            if h < TEACH_HEIGHT:
                care[i, 0, max(iy - 1, 0): iy + 2, max(ix - 1, 0): ix + 2] = 0.0
                continue
            sx, sy = max(w / STRIDE / 6, 0.5), max(h / STRIDE / 6, 0.5)
            blob = np.exp(-((xs - ix) ** 2) / (2 * sx * sx) - ((ys - iy) ** 2) / (2 * sy * sy))
            np.maximum(heat[i, t], blob, out=heat[i, t])
            area = blob >= REG_AREA
            reg[i, 0][area] = (cx - xs + 0 * ys)[area]
            reg[i, 1][area] = (cy - ys + 0 * xs)[area]
            reg[i, 2][area], reg[i, 3][area] = np.log(w / STRIDE), np.log(h / STRIDE)
            mask[i, 0][area] = (blob / blob[area].sum())[area]
    return {k: torch.from_numpy(v) for k, v in
            {"heat": heat, "care": care, "reg": reg, "mask": mask}.items()}


def mirrored(data: LabelledFrames, rows: np.ndarray, flip: np.ndarray
             ) -> tuple[np.ndarray, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Frames ``rows`` of ``data``, those with ``flip`` mirrored left-right with their boxes."""
    frames = data.frames[rows].copy()
    frames[flip] = frames[flip][..., ::-1]
    width = frames.shape[-1]
    boxes = []
    for r, f in zip(rows.tolist(), flip.tolist()):
        b = data.boxes[r].copy()
        if f:
            b[:, 0] = width - b[:, 0] - b[:, 2]
        boxes.append(b)
    return frames, tuple(boxes), tuple(data.types[r] for r in rows.tolist())


def loss_terms(out: torch.Tensor, target: dict[str, torch.Tensor], n_types: int
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """CenterNet's focal heatmap loss and L1 regression loss, each per object."""
    logits, heat = out[:, :n_types], target["heat"]
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = heat.eq(1.0).float()
    pos = -centre * (1 - p) ** 2 * torch.log(p)
    neg = -(1 - centre) * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p) * target["care"]
    objects = target["mask"].sum().clamp(min=1.0)  # each object's weights sum to 1
    focal = (pos.sum() + neg.sum()) / objects
    reg = (torch.abs(out[:, n_types:] - target["reg"]) * target["mask"]).sum() / objects
    return focal, reg


def train(data: LabelledFrames, config: TrainConfig, console: Console | None = None) -> CenterNet:
    """A :class:`CenterNet` fitted to ``data`` as ``config`` says."""
    torch.manual_seed(config.seed)  # the network's initialisation; every draw after is rng's
    rng = np.random.default_rng([config.seed, 0xDE7])
    model = CenterNet(len(TYPES), config.width)
    n = len(data)
    steps = config.epochs * -(-n // config.batch_size)
    optim = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(optim, config.lr, total_steps=max(steps, 1))
    grid = (data.frames.shape[2] // STRIDE, data.frames.shape[3] // STRIDE)
    model.train()
    t0 = time.perf_counter()
    for epoch in range(config.epochs):
        order = rng.permutation(n)
        sums = np.zeros(2)
        for start in range(0, n, config.batch_size):
            rows = order[start: start + config.batch_size]
            frames, boxes, types = mirrored(data, rows, rng.random(len(rows)) < 0.5)
            out = model(frames_tensor(frames))
            focal, reg = loss_terms(out, targets(boxes, types, len(TYPES), grid), len(TYPES))
            optim.zero_grad()
            (focal + reg).backward()
            optim.step()
            sched.step()
            sums += (focal.item() * len(rows), reg.item() * len(rows))
        if console is not None:
            console.print(f"epoch {epoch + 1}/{config.epochs}: heatmap loss {sums[0] / n:.3f}, "
                          f"box loss {sums[1] / n:.3f} ({time.perf_counter() - t0:.0f} s)")
    return model.eval()


@dataclass(frozen=True)
class Score:
    """Matches at IoU 0.5 of one type (or all): true and false positives, misses."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / max(self.tp + self.fp, 1)

    @property
    def recall(self) -> float:
        return self.tp / max(self.tp + self.fn, 1)

    @property
    def f1(self) -> float:
        return 2 * self.tp / max(2 * self.tp + self.fp + self.fn, 1)


def score(found: list[Detections], data: LabelledFrames, min_height: int = MIN_HEIGHT
          ) -> dict[str, Score]:
    """Precision and recall at IoU 0.5 per type and ``"all"``: a detection is true when it
    matches, greedily by score, an unmatched labelled box of its type counted as an object
    (at least ``min_height`` tall); one that matches a smaller box, or is itself smaller, is
    ignored; any other is a false alarm."""
    counts = np.zeros((len(TYPES), 3), dtype=np.int64)  # tp, fp, fn
    for det, boxes, types in zip(found, data.boxes, data.types):
        counted = boxes[:, 3] >= min_height
        used = np.zeros(len(boxes), dtype=bool)
        iou = box_iou(det.boxes, boxes) * (det.types[:, None] == types[None, :])
        for k in np.argsort(-det.scores, kind="stable").tolist():
            free = np.where(used, 0.0, iou[k])
            j = int(np.argmax(free)) if len(boxes) else -1
            if j >= 0 and free[j] >= IOU:
                used[j] = True
                if counted[j]:
                    counts[det.types[k], 0] += 1
            elif det.boxes[k, 3] >= min_height:
                counts[det.types[k], 1] += 1
        np.add.at(counts[:, 2], types[counted & ~used], 1)
    table = {name: Score(*counts[t].tolist()) for t, name in enumerate(TYPES)}
    table["all"] = Score(*counts.sum(axis=0).tolist())
    return table


def detect_all(detector: CNNDetector, frames: np.ndarray, batch: int = 64) -> list[Detections]:
    """``detector.detect`` over many frames, ``batch`` at a time."""
    return [d for s in range(0, len(frames), batch) for d in detector.detect(frames[s: s + batch])]


def above(found: list[Detections], threshold: float) -> list[Detections]:
    """The detections scoring at least ``threshold``."""
    kept = []
    for d in found:
        keep = d.scores >= threshold
        crops = tuple(c for c, k in zip(d.crops, keep.tolist()) if k)
        kept.append(Detections(d.boxes[keep], d.types[keep], d.scores[keep], crops))
    return kept


def pick_threshold(model: CenterNet, data: LabelledFrames) -> float:
    """The score threshold (0.1 to 0.9 in steps of 0.05) with the best F1 on ``data``
    (frames of a held-out park, neither trained on nor the evaluation level)."""
    found = detect_all(CNNDetector(model, TYPES, threshold=0.05), data.frames)
    candidates = np.round(np.arange(0.1, 0.91, 0.05), 2).tolist()
    return max(candidates, key=lambda t: score(above(found, t), data)["all"].f1)


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """``evo vision train detector``'s options."""
    parser.add_argument("--out", default=str(WEIGHTS), help="where to write the weights")
    parser.add_argument("--levels", default="1-16,18-25", help="park level seeds to train on, e.g. 1-12")
    parser.add_argument("--frames", type=int, default=500, help="frames taken per level")
    parser.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    parser.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    parser.add_argument("--lr", type=float, default=TrainConfig.lr)
    parser.add_argument("--width", type=int, default=TrainConfig.width, help="channels at stride 4")
    parser.add_argument("--val-level", type=int, default=17,
                        help="held-out park on which the score threshold is chosen")
    parser.add_argument("--val-frames", type=int, default=240, help="frames taken on it")
    parser.add_argument("--seed", type=int, default=0)


def _positive(name: str, value: int) -> int:
    if value < 1:
        raise ValueError(f"--{name} must be at least 1, got {value}")
    return value


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Take frames of the training parks, train, write the weights; exit code 0."""
    levels = parse_levels(args.levels)
    if args.val_level in levels or args.val_level < 0:
        raise ValueError(f"--val-level must be a park seed not in --levels, got {args.val_level}")
    config = TrainConfig(epochs=_positive("epochs", args.epochs),
                         batch_size=_positive("batch-size", args.batch_size), lr=float(args.lr),
                         width=_positive("width", args.width), seed=int(args.seed))
    t0 = time.perf_counter()
    data = park_frames(levels, _positive("frames", args.frames), seed=config.seed)
    objects = sum(int((b[:, 3] >= MIN_HEIGHT).sum()) for b in data.boxes)
    console.print(f"{len(data)} frames of {len(levels)} parks, {objects} objects at least "
                  f"{MIN_HEIGHT} px tall ({time.perf_counter() - t0:.0f} s)")
    model = train(data, config, console)
    held_out = park_frames([args.val_level], _positive("val-frames", args.val_frames), seed=config.seed)
    threshold = pick_threshold(model, held_out)
    save_detector(args.out, model, TYPES, config.width, threshold)
    console.print(f"threshold {threshold} (best F1 on park {args.val_level}); wrote {args.out}")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """``evo vision eval detector``'s options."""
    parser.add_argument("--weights", default=None, help="weights to score (default: the shipped ones)")
    parser.add_argument("--level-seed", type=int, default=0, help="the park to score on (unseen in training)")
    parser.add_argument("--frames", type=int, default=960, help="frames taken on it")
    parser.add_argument("--threshold", type=float, default=None, help="score threshold (default: the saved one)")
    parser.add_argument("--min-height", type=int, default=MIN_HEIGHT, help="pixels an object must be tall to count")
    parser.add_argument("--seed", type=int, default=1, help="seeds the walks on the park")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Print precision and recall at IoU 0.5 per type on the park; exit code 0."""
    if args.level_seed < 0:
        raise ValueError(f"--level-seed must be a non-negative integer, got {args.level_seed}")
    detector = load_detector(args.weights, args.threshold)
    data = park_frames([args.level_seed], _positive("frames", args.frames), seed=int(args.seed))
    t0 = time.perf_counter()
    found = detect_all(detector, data.frames)
    seconds = time.perf_counter() - t0
    table = Table(title=f"detector on park {args.level_seed}: {len(data)} frames, objects at "
                        f"least {args.min_height} px tall, IoU {IOU}, threshold {detector.threshold}")
    for column in ("type", "objects", "found", "false alarms", "precision", "recall"):
        table.add_column(column, justify="left" if column == "type" else "right")
    for name, s in score(found, data, _positive("min-height", args.min_height)).items():
        table.add_row(name, str(s.tp + s.fn), str(s.tp), str(s.fp), f"{s.precision:.3f}", f"{s.recall:.3f}")
    console.print(table)
    console.print(f"detect: {len(data) / seconds:.0f} frames/s in batches of 64")
    return 0
