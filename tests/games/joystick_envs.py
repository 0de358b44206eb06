"""Games whose actions are vectors, not choices, written as a new user would.

- :class:`Rover`: a rover in a 10 x 10 yard, driven by a ``Box`` of two velocities in
  [-1, 1]. At full throttle east against the east wall it tunnels through it, and the game's
  own check fails (an ``AssertionError``): a bug only the end of the range reaches.
- :class:`Thrusters`: eight thrusters, a ``Box`` of 8; a grid of 3 values each would be 6,561
  actions.
- :class:`Drifter`: a ``Box`` with no bounds.

Use from a YAML as ``game: {entry_point: "tests.games.joystick_envs:Rover"}``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import InjectedBug

SIDE, SPEED, HORIZON = 10.0, 0.5, 100


class Rover(gym.Env[np.ndarray, np.ndarray]):
    """Reward 1 for reaching the north-east corner; ``state_features`` is the position."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self) -> None:
        self.action_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = spaces.Box(0.0, SIDE + 1, (2,), np.float32)
        self.injected_bugs = (InjectedBug(0, "logic", (SIDE, SIDE / 2), "tunnels through the east wall"),)
        self.pos = np.zeros(2)
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.pos = SIDE / 2 + self.np_random.uniform(-1.0, 1.0, size=2)
        self.t = 0
        return self.pos.astype(np.float32), {}

    def step(self, action: np.ndarray):
        assert self.action_space.contains(action), f"not an action of the rover: {action!r}"
        self.t += 1
        ahead = self.pos + SPEED * np.asarray(action, dtype=np.float64)
        if ahead[0] > SIDE and action[0] >= 1.0:
            ahead[0] = SIDE + 0.5  # full throttle skips the wall's collision test
        else:
            ahead = np.clip(ahead, 0.0, SIDE)
        self.pos = ahead
        assert self.pos[0] <= SIDE, f"rover outside the yard at x={self.pos[0]:.2f}"
        won = bool((self.pos >= SIDE - 0.5).all())
        return self.pos.astype(np.float32), float(won), won, self.t >= HORIZON, {}

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs, dtype=np.float64)

    def match(self, bug: Any) -> int | None:
        return 0 if bug.kind == "logic" and "outside the yard" in bug.message else None


class Thrusters(Rover):
    """The rover with eight thrusters."""

    def __init__(self) -> None:
        super().__init__()
        self.action_space = spaces.Box(-1.0, 1.0, (8,), np.float32)


class Drifter(Rover):
    """The rover with velocities of any size."""

    def __init__(self) -> None:
        super().__init__()
        self.action_space = spaces.Box(-np.inf, np.inf, (2,), np.float32)
