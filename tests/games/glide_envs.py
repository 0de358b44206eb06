"""A pixel game of the shape a user brings, whose sprite moves less than a cell a step.

:class:`Glide` observes 48 x 48 x 3 frames and declares nothing else: the engine gives it
Go-Explore's 11 x 8 cells, about 4 x 6 pixels each, and the dot moves one pixel a step, so
most steps change the frame but not the cell. Before the stuck oracle compared the frames'
digests too, such steps were "state unchanged" and a run of this game reported dozens of
stuck bugs in open ground.

It has one real stuck bug: a puddle (the dark red square right of the start) meant to slow
the dot down holds it for good; once in it, no action moves the dot again.

Use from a YAML as ``game: {entry_point: "tests.games.glide_envs:Glide"}``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

SIDE = 48
MOVES = np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
"""Stay, right, left, down, up: (x, y) pixels per step."""
PUDDLE = (31, 37, 21, 27)
"""x from, x to, y from, y to (ends excluded) of the puddle that holds the dot."""
HORIZON = 200


def in_puddle(x: int, y: int) -> bool:
    x0, x1, y0, y1 = PUDDLE
    return x0 <= x < x1 and y0 <= y < y1


class Glide(gym.Env[np.ndarray, int]):
    """A 3 x 3 white dot on a dark green field, one pixel a step, from near the centre;
    200 steps an episode, no reward; ``info`` gives the dot's ``x`` and ``y``."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self) -> None:
        self.observation_space = spaces.Box(0, 255, (SIDE, SIDE, 3), np.uint8)
        self.action_space = spaces.Discrete(len(MOVES))
        self.pos = np.array([SIDE // 2, SIDE // 2])
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.pos = SIDE // 2 + self.np_random.integers(-2, 3, size=2)
        self.t = 0
        return self._frame(), self._info()

    def step(self, action: int):
        self.t += 1
        if not in_puddle(*self.pos):
            self.pos = np.clip(self.pos + MOVES[int(action)], 1, SIDE - 2)
        return self._frame(), 0.0, False, self.t >= HORIZON, self._info()

    def _info(self) -> dict[str, Any]:
        return {"x": int(self.pos[0]), "y": int(self.pos[1])}

    def _frame(self) -> np.ndarray:
        frame = np.zeros((SIDE, SIDE, 3), dtype=np.uint8)
        frame[..., 1] = 40
        x0, x1, y0, y1 = PUDDLE
        frame[y0:y1, x0:x1] = (90, 0, 0)
        x, y = self.pos
        frame[y - 1 : y + 2, x - 1 : x + 2] = 255
        return frame
