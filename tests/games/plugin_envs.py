"""Gymnasium games written as a new user would write them, for the "any game plugs in" tests.

None of them declares more than the Gymnasium API asks for, except where a test says so:
each is a walk on a 12 x 12 plane towards a goal corner, observed in a different way.

- :class:`OwnFeatures`: observes 5 numbers and defines ``state_features`` (2 numbers, the
  position) but no ``game_spec``.
- :class:`WideObservation`: observes 28 floats (the position among 26 noisy sensor values),
  nothing else.
- :class:`PixelWalk`: observes 84 x 84 x 3 uint8 frames of the plane, nothing else.
- :class:`PixelTrap`: the same, with a cell whose floor gives way (the step raises).
- :class:`ContradictorySpec`: declares a ``game_spec`` naming 5 features while its
  ``state_features`` returns 2 (a mistake in a game's own spec).
- :class:`NeedsEngine`: cannot start: its constructor finds no engine to launch.
- :class:`FrameAndPosition`: observes a ``Dict``: a 32 x 32 x 3 frame and the position.

Use from a YAML as ``game: {entry_point: "tests.games.plugin_envs:PixelWalk"}``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import GameSpec

SIZE = 12
MOVES = np.array([[0, 1], [0, -1], [1, 0], [-1, 0]])


class _Walk(gym.Env[np.ndarray, int]):
    """A walk from (0, 0) to (SIZE - 1, SIZE - 1); 4 moves; reward 1 at the goal, -0.01 a
    step; a move is lost with probability 0.1 (seeded), so seeds differ; 60-step horizon."""

    metadata: dict[str, Any] = {"render_modes": []}
    max_steps = 60

    def __init__(self) -> None:
        self.action_space = spaces.Discrete(4)
        self.pos = np.zeros(2, dtype=np.int64)
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.pos[:] = 0
        self.t = 0
        return self._obs(), {}

    def step(self, action: int):
        if self.np_random.random() >= 0.1:
            self.pos = np.clip(self.pos + MOVES[int(action)], 0, SIZE - 1)
        self.t += 1
        goal = bool((self.pos == SIZE - 1).all())
        return self._obs(), 1.0 if goal else -0.01, goal, self.t >= self.max_steps, {}

    def _obs(self) -> np.ndarray:
        raise NotImplementedError


class OwnFeatures(_Walk):
    """5 numbers observed (position, distance to the goal, time); 2 state features."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Box(-np.inf, np.inf, (5,), np.float32)

    def _obs(self) -> np.ndarray:
        x, y = self.pos
        return np.array([x, y, SIZE - 1 - x, SIZE - 1 - y, self.t], dtype=np.float32)

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs[:2], dtype=np.float64)


class WideObservation(_Walk):
    """28 floats: the position scaled to [0, 1], then 26 sensors of seeded noise."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Box(0.0, 1.0, (28,), np.float32)

    def _obs(self) -> np.ndarray:
        noise = self.np_random.random(26, dtype=np.float32)
        return np.concatenate([self.pos / (SIZE - 1), noise]).astype(np.float32)


class PixelWalk(_Walk):
    """84 x 84 x 3 frames: a grey plane, the goal in green, the walker a white 7 x 7 square."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Box(0, 255, (84, 84, 3), np.uint8)

    def _obs(self) -> np.ndarray:
        frame = np.full((84, 84, 3), 60, dtype=np.uint8)
        frame[77:, 77:] = (0, 200, 0)
        r, c = self.pos * 7
        frame[r : r + 7, c : c + 7] = (255, 255, 255)
        return frame


class PixelTrap(PixelWalk):
    """:class:`PixelWalk` whose cell :data:`TRAP` raises: a crash bug seen only in pixels."""

    def step(self, action: int):
        out = super().step(action)
        if tuple(self.pos.tolist()) == TRAP:
            raise RuntimeError("fell through the floor")
        return out


TRAP = (2, 1)
"""The cell of :class:`PixelTrap` whose floor gives way: 3 moves from the start."""


class ContradictorySpec(OwnFeatures):
    """Declares 5 features in its spec; its state_features returns 2."""

    game_spec = GameSpec(
        obs_shape=(5,), n_actions=4, feature_names=("x", "y", "dx", "dy", "t"),
        feature_low=(0.0,) * 5, feature_high=(12.0,) * 5, feature_bins=(12,) * 5, max_steps=60,
    )


class FrameAndPosition(_Walk):
    """``{"frame": 32 x 32 x 3 uint8, "pos": the position over 11}``, as many modern games
    observe: pixels beside a few numbers."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Dict({
            "frame": spaces.Box(0, 255, (32, 32, 3), np.uint8),
            "pos": spaces.Box(0.0, 1.0, (2,), np.float32),
        })

    def _obs(self) -> dict[str, np.ndarray]:
        frame = np.full((32, 32, 3), 30, dtype=np.uint8)
        r, c = self.pos * 32 // SIZE
        frame[r : r + 2, c : c + 2] = 255
        return {"frame": frame, "pos": (self.pos / (SIZE - 1)).astype(np.float32)}


class NeedsEngine(OwnFeatures):
    """A game whose engine is not where it looks for it: its constructor raises."""

    def __init__(self) -> None:
        raise RuntimeError("engine binary ./build/walk.x86_64 not found\nsee the game's README")


class CoinWalk(OwnFeatures):
    """The walk with a coin on every cell of the diagonal: ``info`` counts the coins picked
    up (``coins``) and names what happened this step (``events``: ``("coin",)`` or ``()``),
    as a game with events for validation would."""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.taken: set[tuple[int, int]] = set()
        obs, info = super().reset(seed=seed, options=options)
        return obs, {"coins": 0, "events": []}

    def step(self, action: int):
        obs, reward, terminated, truncated, _ = super().step(action)
        cell = (int(self.pos[0]), int(self.pos[1]))
        picked = cell[0] == cell[1] and cell not in self.taken
        if picked:
            self.taken.add(cell)
        return obs, reward, terminated, truncated, {"coins": len(self.taken), "events": ["coin"] if picked else []}


class Briefed(_Walk):
    """``{"mission": text, "pos": the position over 11, "seen": Tuple(a Discrete, text)}``:
    words beside numbers, as MiniGrid observes its mission."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Dict({
            "mission": spaces.Text(40),
            "pos": spaces.Box(0.0, 1.0, (2,), np.float32),
            "seen": spaces.Tuple((spaces.Discrete(3), spaces.Text(20))),
        })

    def _obs(self) -> dict[str, Any]:
        return {"mission": "reach the far corner", "pos": (self.pos / (SIZE - 1)).astype(np.float32),
                "seen": (int(self.pos.sum()) % 3, "floor")}


class Sequenced(_Walk):
    """Observes a ``Dict`` whose ``trail`` is a ``Sequence``: no fixed number of values."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_space = spaces.Dict({
            "pos": spaces.Box(0.0, 1.0, (2,), np.float32),
            "trail": spaces.Sequence(spaces.Discrete(4)),
        })

    def _obs(self) -> dict[str, Any]:
        return {"pos": (self.pos / (SIZE - 1)).astype(np.float32), "trail": (0, 1)}


class PixelWalkWithPosition(gym.Wrapper):
    """:class:`PixelWalk` as a user plugs in a game they did not write: a wrapper adds the
    position as ``state_features``, a ``game_spec`` naming it, and ground truth (one
    injected crash at :data:`TRAP`, with ``match``); the game itself has none of them."""

    game_spec = GameSpec(
        obs_shape=(84 * 84 * 3,), n_actions=4, feature_names=("row", "col"), feature_low=(0.0, 0.0),
        feature_high=(float(SIZE), float(SIZE)), feature_bins=(SIZE, SIZE), max_steps=60, obs_dtype="uint8",
    )

    def __init__(self) -> None:
        super().__init__(PixelTrap())
        from games.core.base import InjectedBug

        self.injected_bugs = (InjectedBug(0, "crash", (float(TRAP[0]), float(TRAP[1])), "the floor gives way"),)

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return self.env.unwrapped.pos.astype(np.float64)

    def match(self, bug: Any) -> int | None:
        return 0 if bug.kind == "crash" and "fell through the floor" in bug.message else None


class Blind(OwnFeatures):
    """Its ``state_features`` never change: the engine can tell none of its places apart."""

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.zeros(2)
