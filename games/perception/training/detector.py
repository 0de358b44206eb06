"""Training and scoring the object detector (:mod:`games.perception.detector`).

Frames and boxes come from the game (:class:`games.perception.training.data.LabelledFrames`;
the park's are :func:`games.doom.park.data.frames.park_frames`, levels generated from seeds);
scoring takes the same kind of frames on a level none of them is (level 0 by default).
Training is CenterNet's: a focal loss on the heatmaps (penalty-reduced by a Gaussian around
each centre, alpha 2, beta 4) and an L1 loss on the offsets and log sizes at the centres; the
frames are mirrored left-right half the time.

Which objects count when scoring (and which are taught): the labels buffer boxes every OOI
with at least a pixel in view, down to 1 x 1 specks at the horizon. An object counts from
:data:`MIN_HEIGHT` pixels tall: below that a lamp is one or two pixels wide, no texture can
be judged in its crop, and a box one pixel off has an IoU under 0.5. Smaller objects are
neither misses nor false alarms: a detection that matches one, or is itself smaller, is left
out of precision (as the Caltech pedestrian benchmark treats its ignore regions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from games.perception.base import Detections, box_iou
from games.perception.detector import STRIDE, CenterNet, CNNDetector, frames_tensor
from games.perception.training.data import LabelledFrames

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


def train(data: LabelledFrames, config: TrainConfig,
          log: Callable[[int, float, float, float], None] | None = None) -> CenterNet:
    """A :class:`CenterNet` fitted to ``data`` as ``config`` says; ``log(epoch, heatmap loss,
    box loss, seconds so far)`` after each epoch."""
    torch.manual_seed(config.seed)  # the network's initialisation; every draw after is rng's
    rng = np.random.default_rng([config.seed, 0xDE7])
    n_types = len(data.type_names)
    model = CenterNet(n_types, config.width)
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
            focal, reg = loss_terms(out, targets(boxes, types, n_types, grid), n_types)
            optim.zero_grad()
            (focal + reg).backward()
            optim.step()
            sched.step()
            sums += (focal.item() * len(rows), reg.item() * len(rows))
        if log is not None:
            log(epoch, sums[0] / n, sums[1] / n, time.perf_counter() - t0)
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
    counts = np.zeros((len(data.type_names), 3), dtype=np.int64)  # tp, fp, fn
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
    table = {name: Score(*counts[t].tolist()) for t, name in enumerate(data.type_names)}
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
    found = detect_all(CNNDetector(model, data.type_names, threshold=0.05), data.frames)
    candidates = np.round(np.arange(0.1, 0.91, 0.05), 2).tolist()
    return max(candidates, key=lambda t: score(above(found, t), data)["all"].f1)
