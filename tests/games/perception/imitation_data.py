"""Tiny demonstrations and a tiny imitation policy trained on them, shared by the tests of
demonstrations, the imitation policy, its agent and the preference objective (a few seconds)."""

from __future__ import annotations

from pathlib import Path

import torch

from games.perception.demos import load_demos, save_demo
from games.perception.imitation import save_policy
from games.perception.training.imitation import train
from games.doom.park.data.demos import ACTIONS, park_demos

STEPS = 40
"""Actions per tiny demonstration."""


def make_tiny_demos(folder: Path) -> Path:
    """Two path-following and two object-test episodes on each of park levels 1 and 2."""
    for demo in park_demos((1, 2), 2, 2, STEPS, seed=0):
        save_demo(folder, demo, ACTIONS)
    return folder


def make_tiny_policy(demos: Path, out: Path, epochs: int = 3) -> Path:
    """An imitation policy trained ``epochs`` epochs on the path demonstrations in ``demos``."""
    torch.set_num_threads(1)
    path = load_demos(demos, "path")
    model = train(path[:-1], path[-1:], epochs=epochs, seed=0, batch_size=2)
    save_policy(model, out, {"set": "path", "js_threshold": 0.5, "demonstrated": [1 / 9] * 9})
    return out
