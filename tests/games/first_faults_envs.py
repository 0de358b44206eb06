"""A game without a spec whose faults fire in its first episodes, written as a new user would.

:class:`FaultyYard` is a walk on a 10 x 10 yard from the corner (0, 0); it declares
``state_features`` (the position) and ground truth, nothing else, so the engine plays it for
a while before the first generation to learn the size of its cells. Three cells near the
start break the game's process as a game engine's C code can: one crashes it (SIGSEGV), one
hangs it when reached within the first 12 steps (a level that streams in too late, as
loaders deadlock), one leaks memory at every step from then on (200 MiB a step, written so
that it is resident). Random play steps on each of them within its first episodes.

Use from a YAML as ``game: {entry_point: "tests.games.first_faults_envs:FaultyYard"}``.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import InjectedBug

SIZE = 10
MOVES = np.array([[0, -1], [0, 1], [1, 0], [-1, 0]])
SEGFAULT, HANG, LEAK = (3, 0), (0, 5), (2, 2)
HANG_BEFORE = 12
"""The hang fires when the walk reaches its cell within this many steps (about 3% of random
episodes: each costs the engine's step timeout)."""
LEAK_MB = 200
"""Resident memory the leak adds at every step: over the engine's default bound of 2048 MiB
within about ten steps."""
FAULT_WORDS = {0: "killed by SIGSEGV", 1: "did not return within", 2: "max_rss_mb"}
"""What the engine's crash report of each fault says (its ground truth, for ``match``)."""


class FaultyYard(gym.Env[np.ndarray, int]):
    """A 60-step walk on a yard with three faulty cells; reward 1 at the far corner."""

    metadata: dict[str, Any] = {"render_modes": []}
    max_steps = 60

    def __init__(self) -> None:
        self.action_space = spaces.Discrete(4)
        self.observation_space = spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.injected_bugs = (
            InjectedBug(0, "crash", SEGFAULT, "the renderer reads a null texture"),
            InjectedBug(1, "crash", HANG, "the cellar streams in too late and its loader deadlocks"),
            InjectedBug(2, "crash", LEAK, "particles spawned every frame, never freed"),
        )
        self.pos = np.zeros(2, dtype=np.int64)
        self.t = 0
        self._leaked: list[np.ndarray] = []
        self._leaking = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.pos[:] = 0
        self.t = 0
        return self._obs(), {}

    def step(self, action: int):
        self.pos = np.clip(self.pos + MOVES[int(action)], 0, SIZE - 1)
        self.t += 1
        cell = (int(self.pos[0]), int(self.pos[1]))
        if cell == SEGFAULT:
            import ctypes

            ctypes.string_at(0)  # SIGSEGV: no Python exception, the process is gone
        if cell == HANG and self.t <= HANG_BEFORE:
            while True:
                time.sleep(0.05)
        self._leaking |= cell == LEAK
        if self._leaking:
            self._leaked.append(np.ones(LEAK_MB * 2**20, dtype=np.uint8))
        won = cell == (SIZE - 1, SIZE - 1)
        return self._obs(), 1.0 if won else -0.01, won, self.t >= self.max_steps, {}

    def _obs(self) -> np.ndarray:
        return self.pos.astype(np.float32)

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs, dtype=np.float64)

    def match(self, bug: Any) -> int | None:
        """A crash report of one of the faults, by what the engine's report says of it. A
        leaking step is slow too (it writes 200 MiB): a slow frame of an episode that had
        passed the leak's cell is the leak, seen by the performance oracle."""
        if bug.kind == "performance":
            pos = np.zeros(2, dtype=np.int64)
            for action in bug.actions:
                pos = np.clip(pos + MOVES[int(action)], 0, SIZE - 1)
                if tuple(int(v) for v in pos) == LEAK:
                    return 2
            return None
        if bug.kind != "crash":
            return None
        for i, words in FAULT_WORDS.items():
            if words in bug.message:
                return i
        return None
