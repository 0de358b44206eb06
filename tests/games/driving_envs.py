"""A driving game of the shape a user would bring, with slow stretches of road: for the tests
of the slow-frame line on a game nobody tuned it for.

:class:`SlowStretches` is a plain ``gymnasium.Env``: a car drives a 50-unit track, one unit a
step, and steers between five lanes towards a racing line that curves; it declares
``state_features`` (its position on the track and its lane) but no ``game_spec``. Three
stretches of the track render 6 ms slower, really (``time.sleep`` in ``step``, no
``info["frame_ms"]``: the engine times ``step`` itself). The first one is three units after
the start, so the first generation drives through it: its slow frames are 18% of the
frames the warm-up calibrates on, far from rare.

Ground truth (``injected_bugs``, ``match``) lets a run count the stretches it found.

Each stretch is 3 of the 5 units of a tenth of the track. A game without a spec gets its
features cut where random play went (:mod:`games.adapter.spec`: the probe's range and as much
again on each side, in 30 buckets, so 10 buckets over the track): the step into each of the
3 slow units is a slow visit, 60% of the visits to its bucket, over RELINE's "more than 50%".

Use from a YAML as ``game: {entry_point: "tests.games.driving_envs:SlowStretches"}``.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import InjectedBug

TRACK = 50
"""Units of track; the car covers one per step, so an episode is 50 steps."""
LANES = 2
"""Lanes run from -LANES to LANES."""
STRETCHES = ((6, 9), (26, 29), (41, 44))
"""``[start, end)`` of each slow stretch: a step that ends at a position in it is slow."""
SLOW_MS = 6.0
"""How much longer a frame in a stretch takes to draw (slept in ``step``)."""


def stretch_of(position: float) -> int | None:
    """Index of the stretch a position on the track lies in; None outside them all."""
    for i, (start, end) in enumerate(STRETCHES):
        if start <= position < end:
            return i
    return None


def racing_line(position: np.ndarray | float) -> np.ndarray:
    """The lane the road curves towards at a position: two and a half bends a lap."""
    return np.rint(LANES * np.sin(2 * np.pi * np.asarray(position, dtype=np.float64) / 20.0))


class SlowStretches(gym.Env[np.ndarray, int]):
    """Drive the track: 0 steers left, 1 keeps the lane, 2 steers right; reward 1 a step in
    the racing line, less the further off it; the start lane is seeded."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self) -> None:
        self.action_space = spaces.Discrete(3)
        self.observation_space = spaces.Box(-1.0, 1.0, (3,), np.float32)
        self.position = 0
        self.lane = 0
        self.injected_bugs = [
            InjectedBug(
                id=i, kind="performance", location=((start + end - 1) / 2, 0.0),
                description=f"every frame drawn at track position {start} to {end - 1} takes "
                            f"{SLOW_MS:g} ms more",
            )
            for i, (start, end) in enumerate(STRETCHES)
        ]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.position = 0
        self.lane = int(self.np_random.integers(-LANES, LANES + 1))
        return self._obs(), {}

    def step(self, action: int):
        self.position += 1
        self.lane = int(np.clip(self.lane + int(action) - 1, -LANES, LANES))
        if stretch_of(self.position) is not None:
            time.sleep(SLOW_MS / 1000.0)  # the stretch's real cost: the engine times step
        off = abs(self.lane - float(racing_line(self.position)))
        reward = 1.0 - 0.5 * off
        return self._obs(), reward, self.position >= TRACK, False, {}

    def _obs(self) -> np.ndarray:
        ahead = float(racing_line(self.position + 1))
        return np.array([self.position / TRACK, self.lane / LANES, (ahead - self.lane) / (2 * LANES)],
                        dtype=np.float32)

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """Where the car is: position on the track, lane (whole numbers, read back exactly
        from the float32 observation)."""
        return np.rint(np.array([obs[0] * TRACK, obs[1] * LANES], dtype=np.float64))

    def match(self, bug: Any) -> int | None:
        """The stretch a performance report's frame was drawn in (its ``next_state``, the
        state the slow step arrived in); None for any other report."""
        if bug.kind != "performance":
            return None
        return stretch_of(round(float(np.asarray(bug.next_state, dtype=np.float64).ravel()[0])))
