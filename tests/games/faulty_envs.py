"""Tiny gymnasium games with a fault on demand, for tests and end-to-end CLI tests.

:class:`LineWalk` is a walk along a line of cells that misbehaves in one chosen way when the
agent reaches one chosen cell: it raises, fails an assertion, hangs, kills its own process
(an exit, or a C-level segfault), leaks memory from then on, returns a malformed observation
or reward, or reports a broken invariant; or its ``close`` hangs. Each fault is the smallest game that exercises one path of the
engine's fault isolation (``games.adapter.vector_game``), so a test can say exactly which copy should
report what.

Use it from a YAML as ``entry_point: "tests.games.faulty_envs:LineWalk"`` with
``kwargs: {fault: hang, at_position: 3}``.
"""

from __future__ import annotations

import os
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import GameSpec

FAULTS = ("none", "raise", "assert", "hang", "die", "segfault", "leak", "nan_obs", "wrong_shape_obs",
          "huge_reward", "nan_reward", "violation", "slow", "hiccup")
SLOW_MS = 50.0
"""The frame a ``slow`` place (or a ``hiccup``) reports in ``info["frame_ms"]``."""
HICCUPS = 40
_hiccups = {"left": HICCUPS}
"""Arrivals at the fault's cell still to hiccup in this process (``fault="hiccup"``)."""


class LineWalk(gym.Env[np.ndarray, int]):
    """Walk right along ``length`` cells from cell 0 to the goal at ``length - 1``.

    Actions: with ``n_actions=2``, 0 = left, 1 = right; with ``n_actions=3``, 0 = left,
    1 = stay, 2 = right. Reaching the goal ends the episode with reward 1; every other step
    costs 0.01. The observation is the position as a 1-element float32 vector.

    Args:
        fault: What happens when the agent steps onto ``at_position``: ``"none"``;
            ``"raise"`` (RuntimeError, a crash); ``"assert"`` (AssertionError, a logic
            error); ``"hang"`` (sleeps forever); ``"die"`` (``os._exit(3)``, the process
            dies); ``"segfault"`` (reads address 0 through ctypes: SIGSEGV, as a game
            engine's C code crashes); ``"leak"`` (from then on every step keeps ``leak_mb``
            more MiB, written so that they are resident, and never frees them, across
            resets too: a leak without bound); ``"nan_obs"`` (the observation is NaN);
            ``"wrong_shape_obs"`` (the observation has two values instead of one);
            ``"huge_reward"`` (the reward is 1e308); ``"nan_reward"`` (the reward is NaN);
            ``"violation"`` (``info["violations"]`` names a broken invariant, the episode
            goes on); ``"slow"`` (with ``frame_ms`` set, every arrival reports a frame of
            :data:`SLOW_MS`: a slow place); ``"hiccup"`` (the same for the first
            :data:`HICCUPS` arrivals in this process, of any copy, and never again: a
            machine's hiccup, nothing of the place).
        at_position: The cell that triggers the fault.
        length: Number of cells.
        n_actions: 2 or 3 (see above).
        max_steps: Episode horizon; the game truncates there.
        slip: Probability that a move does nothing, drawn from the seeded ``np_random``, so
            that different seeds give different episodes.
        unseeded_slip: The same, drawn from a generator no seed reaches (as physics on
            threads): the same seed and actions do not replay.
        frame_ms: When set, reported as ``info["frame_ms"]`` (a game that times its own
            frames); otherwise the engine measures the step.
        step_delay_s: Sleep this long in every step (a slow frame).
        reset_fault_seed: When set, ``reset(seed=reset_fault_seed)`` fires the fault too
            (a game that breaks while loading a level).
        reset_fails_every: When set, ``reset`` raises RuntimeError for every seed divisible
            by it (a level that fails to load for some seeds, in a run whose seeds are drawn).
        leak_mb: MiB kept per step by ``fault="leak"``.
        close_hangs: ``close`` sleeps forever (a game that cannot shut down).
        die_once_marker: When set, the first ``reset`` that finds no file at this path
            creates it and kills the process hosting the game (``os._exit(1)``), as the
            kernel's OOM killer would; every later reset, in any process, plays on. Tests
            point a parallel run at it to check that a worker dying mid-evaluation is
            retried and the run goes on.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        fault: str = "none",
        at_position: int = 3,
        length: int = 8,
        n_actions: int = 3,
        max_steps: int = 50,
        slip: float = 0.0,
        unseeded_slip: float = 0.0,
        frame_ms: float | None = None,
        step_delay_s: float = 0.0,
        reset_fault_seed: int | None = None,
        reset_fails_every: int | None = None,
        die_once_marker: str | None = None,
        leak_mb: int = 32,
        close_hangs: bool = False,
    ) -> None:
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {', '.join(FAULTS)}, got {fault!r}")
        if n_actions not in (2, 3):
            raise ValueError(f"n_actions must be 2 or 3, got {n_actions}")
        if length < 2:
            raise ValueError(f"length must be at least 2, got {length}")
        self.fault = fault
        self.at_position = int(at_position)
        self.length = int(length)
        self.max_steps = int(max_steps)
        self.slip = float(slip)
        self.unseeded_slip = float(unseeded_slip)
        self._unseeded = np.random.default_rng()
        self.frame_ms = frame_ms
        self.step_delay_s = float(step_delay_s)
        self.reset_fault_seed = reset_fault_seed
        self.reset_fails_every = reset_fails_every
        self.die_once_marker = die_once_marker
        self.leak_mb = int(leak_mb)
        self.close_hangs = bool(close_hangs)
        self._leaked: list[np.ndarray] = []
        self._leaking = False
        self._malformed: str | None = None
        self.action_space = spaces.Discrete(n_actions)
        self.observation_space = spaces.Box(0.0, float(length - 1), shape=(1,), dtype=np.float32)
        self.game_spec = GameSpec(
            obs_shape=(1,),
            n_actions=n_actions,
            feature_names=("position",),
            feature_low=(0.0,),
            feature_high=(float(length - 1),),
            feature_bins=(length,),
            max_steps=self.max_steps,
        )
        self.position = 0
        self.steps = 0

    def _obs(self) -> np.ndarray:
        return np.array([self.position], dtype=np.float32)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if self.die_once_marker is not None:
            _die_once(self.die_once_marker)
        self.position = 0
        self.steps = 0
        info: dict[str, Any] = {}
        if seed is not None and seed == self.reset_fault_seed:
            self._fire(info)
        if seed is not None and self.reset_fails_every and seed % self.reset_fails_every == 0:
            raise RuntimeError("the level failed to load")
        return self._obs(), info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.step_delay_s > 0:
            time.sleep(self.step_delay_s)
        move = (-1, 1)[int(action)] if self.action_space.n == 2 else int(action) - 1
        if (self.slip > 0 and self.np_random.random() < self.slip) or (
                self.unseeded_slip > 0 and self._unseeded.random() < self.unseeded_slip):
            move = 0
        self.position = min(max(self.position + move, 0), self.length - 1)
        self.steps += 1
        info: dict[str, Any] = {}
        self._malformed = None
        if self.position == self.at_position:
            self._fire(info)
        if self._leaking:
            self._leaked.append(np.ones(self.leak_mb * 2**20, dtype=np.uint8))  # written: resident
        if self.frame_ms is not None:
            info["frame_ms"] = float(self.frame_ms)
            if self.position == self.at_position and self.fault in ("slow", "hiccup"):
                if self.fault == "slow" or _hiccups["left"] > 0:
                    info["frame_ms"] = SLOW_MS
                _hiccups["left"] -= self.fault == "hiccup"
        terminated = self.position == self.length - 1
        truncated = not terminated and self.steps >= self.max_steps
        reward = 1.0 if terminated else -0.01
        obs = self._obs()
        if self._malformed == "nan_obs":
            obs = np.array([np.nan], dtype=np.float32)
        elif self._malformed == "wrong_shape_obs":
            obs = np.zeros(2, dtype=np.float32)
        elif self._malformed == "huge_reward":
            reward = 1e308
        elif self._malformed == "nan_reward":
            reward = float("nan")
        return obs, reward, terminated, truncated, info

    def _fire(self, info: dict[str, Any]) -> None:
        if self.fault == "raise":
            raise RuntimeError(f"walked into a wall at {self.position}")
        if self.fault == "assert":
            assert self.position != self.at_position, f"position {self.position} is forbidden"
        if self.fault == "hang":
            while True:
                time.sleep(0.05)
        if self.fault == "die":
            os._exit(3)
        if self.fault == "segfault":
            import ctypes

            ctypes.string_at(0)  # SIGSEGV: no Python exception, the process is gone
        if self.fault == "leak":
            self._leaking = True
        if self.fault in ("nan_obs", "wrong_shape_obs", "huge_reward", "nan_reward"):
            self._malformed = self.fault
        if self.fault == "violation":
            info["violations"] = [f"position {self.position} is out of the map"]

    def close(self) -> None:
        while self.close_hangs:
            time.sleep(0.05)

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The agent's cell: the one number that says where the game is."""
        return np.array([float(self.position)])


def _die_once(marker: str) -> None:
    """Kill this process unless ``marker`` exists; only the one process that creates it dies."""
    if os.path.exists(marker):
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # atomic: one winner
    except FileExistsError:
        return
    os.close(fd)
    os._exit(1)
