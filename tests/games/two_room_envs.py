"""A game whose first episodes never leave its first room, written as a new user would.

:class:`TwoRooms` is a plain ``gymnasium.Env``: it declares ``state_features`` (the position)
and ground truth, but no ``game_spec`` and no bounds. Two rooms, 7 rows tall, share a wall
with one door in the far corner of the first: room A holds columns 0 to 8, the wall is
column 9 with its door at row 6, room B holds columns 10 to 39. The walk starts at (0, 0);
random play of its 100-step episodes almost never finds the door. Six logic bugs (a
non-fatal ``info["violations"]``, as a game's own consistency check would word it) are
seeded in room B, every one further east than any cell the first episodes reach, four of
them further than a random walk gets from the door within an episode.

Use from a YAML as ``game: {entry_point: "tests.games.two_room_envs:TwoRooms"}``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import InjectedBug

ROWS, WALL, COLUMNS = 7, 9, 40
DOOR = (WALL, ROWS - 1)
MOVES = np.array([[0, -1], [0, 1], [1, 0], [-1, 0]])  # N, S, E, W as (dx, dy)
BUG_CELLS = ((12, 2), (17, 5), (22, 1), (27, 4), (32, 0), (38, 3))
"""Where room B's logic bugs fire: a step that ends on the cell."""


class TwoRooms(gym.Env[np.ndarray, int]):
    """Two rooms and a door; reward 1 for reaching the far east column, -0.01 a step."""

    metadata: dict[str, Any] = {"render_modes": []}
    max_steps = 100

    def __init__(self) -> None:
        self.action_space = spaces.Discrete(4)
        self.observation_space = spaces.Box(-np.inf, np.inf, (3,), np.float32)
        self.injected_bugs = tuple(
            InjectedBug(i, "logic", (float(x), float(y)), f"duplicated item at column {x}, row {y}")
            for i, (x, y) in enumerate(BUG_CELLS)
        )
        self.pos = np.zeros(2, dtype=np.int64)
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.pos[:] = 0
        self.t = 0
        return self._obs(), {}

    def step(self, action: int):
        x, y = self.pos + MOVES[int(action)]
        if 0 <= x < COLUMNS and 0 <= y < ROWS and (x != WALL or (x, y) == DOOR):
            self.pos[:] = (x, y)
        self.t += 1
        cell = (int(self.pos[0]), int(self.pos[1]))
        info: dict[str, Any] = {}
        if cell in BUG_CELLS:
            info["violations"] = [f"item duplicated at column {cell[0]}, row {cell[1]}"]
        won = cell[0] == COLUMNS - 1
        return self._obs(), 1.0 if won else -0.01, won, self.t >= self.max_steps, info

    def _obs(self) -> np.ndarray:
        return np.array([self.pos[0], self.pos[1], self.t], dtype=np.float32)

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs[:2], dtype=np.float64)

    def match(self, bug: Any) -> int | None:
        """A logic report of one of the seeded cells (the column and row its message names)."""
        if bug.kind != "logic":
            return None
        for b in self.injected_bugs:
            x, y = (int(v) for v in b.location)
            if f"column {x}, row {y}" in bug.message:
                return b.id
        return None
