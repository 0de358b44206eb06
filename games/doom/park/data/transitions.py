"""Random play on park levels as the encoder's training data: adjacent frames, their masks and
the actions between them (:class:`games.perception.training.data.Transitions`).

Each copy plays sticky random actions (:func:`games.perception.training.encoder.random_actions`).
Frames are shrunk to 64x64; their masks are made at full resolution from the labels buffer's
boxes (``DoomParkVector.visible``), ground truth used only to make the training input.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from games.common.seeds import EPISODE_SEED_MAX
from games.doom.park.doom_park import ACTIONS, DoomParkVector
from games.perception.base import od_mask
from games.perception.encoder import downscale
from games.perception.training.data import Transitions
from games.perception.training.encoder import random_actions


def collect(levels: Sequence[int], steps: int, copies: int, seed: int, preset: str = "small") -> Transitions:
    """Play ``steps`` transitions on each park level (split over ``copies`` engines).

    Args:
        levels: Park level seeds.
        steps: Transitions per level.
        copies: Engines per level, stepped together.
        seed: Seeds the episodes and the actions.
        preset: Park size.
    """
    if steps < 1 or copies < 1:
        raise ValueError(f"--steps and --copies must be at least 1, got {steps} and {copies}")
    rng = np.random.default_rng(seed)
    per_copy = -(-steps // copies)
    frames, masked, before, after, actions, level_of = [], [], [], [], [], []
    count = 0
    for level in levels:
        game = DoomParkVector(copies, level_seed=int(level), preset=preset, max_steps=per_copy)
        try:
            obs, _ = game.reset(rng.integers(0, EPISODE_SEED_MAX, size=copies).tolist())
            plan = random_actions(rng, copies, per_copy, len(ACTIONS))
            index = np.zeros((per_copy + 1, copies), dtype=np.int64)
            alive = np.ones(copies, dtype=bool)
            for t in range(per_copy + 1):
                boxes = [np.array([v.box for v in seen], dtype=np.int64).reshape(-1, 4) for seen in game.visible]
                frames.append(downscale(obs))
                masked.append(downscale(od_mask(obs, boxes)))
                index[t] = count + np.arange(copies)
                count += copies
                if t == per_copy:
                    break
                out = game.step(plan[t])
                ok = alive.copy()
                ok[list(out.errors)] = False
                for i in np.flatnonzero(ok):
                    before.append(index[t, i])
                    after.append(count + i)
                    actions.append(plan[t, i])
                    level_of.append(level)
                alive = ok
                obs = out.obs
        finally:
            game.close()
    keep = np.arange(len(actions))
    if len(keep) > steps * len(levels):  # the copies' last share rounds up: trim per level
        level_arr = np.asarray(level_of)
        keep = np.concatenate([np.flatnonzero(level_arr == lv)[:steps] for lv in levels])
    return Transitions(
        frames=np.concatenate(frames), masked=np.concatenate(masked),
        before=np.asarray(before, dtype=np.int64)[keep], after=np.asarray(after, dtype=np.int64)[keep],
        actions=np.asarray(actions, dtype=np.int64)[keep], level=np.asarray(level_of, dtype=np.int64)[keep],
    )

