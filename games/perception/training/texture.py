"""Train and score the texture judge (:mod:`games.perception.texture`) on labelled crops.

The game cuts the crops (:class:`games.perception.training.data.CropSet`; the park's come from
circling walks around every object of a level, :func:`games.doom.park.data.walks.level_crops`)
and labels each by its object's true bug, which is what training and scoring are for.
Training boxes are jittered a little (:data:`JITTER`), as a detector's boxes are never exact.
Levels trained on and the level scored are different seeds.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from games.perception.texture import TextureJudge, TextureNet, prepare
from games.perception.training.data import CropSet

JITTER = 0.2
"""Training boxes move each edge by up to this share of the box's size by default (a small
CNN detector's boxes at 160x120 are a few pixels off; a judge trained on exact boxes called
normal objects in such boxes stretched)."""


def train_judge(data: CropSet, epochs: int, seed: int, width: int = 16,
                batch_size: int = 128, lr: float = 2e-3) -> TextureJudge:
    """Fit a :class:`TextureNet` to labelled crops (cross-entropy, Adam, random flips)."""
    if len(data.crops) == 0:
        raise ValueError("no crops to train the texture judge on (levels too short?)")
    torch.manual_seed(seed)  # the initial weights; batches come from the seeded generator below
    gen = torch.Generator().manual_seed(seed)
    images, extra = prepare(data.crops, data.types, data.frame_height, len(data.type_names))
    labels = torch.from_numpy(data.labels)
    net = TextureNet(len(data.type_names), len(data.classes), width)
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
    return TextureJudge(net, data.type_names, data.classes)


def crop_scores(judge: TextureJudge, data: CropSet, threshold: float = 0.5) -> dict[str, float]:
    """Crop-level accuracy (bugged or not, and which class), precision and recall of "bugged"."""
    probs = judge.probabilities(data.crops, [data.type_names[t] for t in data.types], data.frame_height)
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


def concat(sets: Sequence[CropSet]) -> CropSet:
    """The crops of several sets (of one game: the first set's frame height, types and classes)."""
    first = sets[0]
    return CropSet(tuple(c for s in sets for c in s.crops), np.concatenate([s.types for s in sets]),
                   np.concatenate([s.labels for s in sets]), first.frame_height, first.type_names, first.classes)


def part(data: CropSet, keep: np.ndarray) -> CropSet:
    """The crops ``keep`` (indices) of ``data``."""
    return CropSet(tuple(data.crops[k] for k in keep), data.types[keep], data.labels[keep], data.frame_height,
                   data.type_names, data.classes)
