"""A game whose engine is a process of its own, started the way packaged games start theirs.

:class:`LaunchedEngine` is a walk on a line whose "engine" is started by ``reset`` through a
launch script: the script backgrounds a helper (as launch scripts start a crash reporter or a
log pump) and then ``exec``s the engine, so the game's ``Popen`` holds the engine while the
helper is an orphan the game never knew of. Like many games it starts a new engine for each
episode (a level load) and stops the old one as it stops the last: ``kill`` and ``wait`` on
the process it started, which leaves the helper running. Every episode thus leaves one
process, every copy closed leaves one more, and a copy whose worker is killed leaves two.

The engine and helper are ``sleep`` processes named by :data:`ENGINE` and :data:`HELPER`
(their argument), so a test can tell them from anything else on the machine.

Use from a YAML as ``game: {entry_point: "tests.games.launcher_envs:LaunchedEngine"}``.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

ENGINE = "4242"
"""The engine's ``sleep`` argument (seconds): long enough to outlive any test."""
HELPER = "4343"
"""The helper's ``sleep`` argument."""
LAUNCH_SCRIPT = f"sleep {HELPER} >/dev/null & echo ready; exec sleep {ENGINE}"
"""The launch script, run by ``sh -c`` as a packaged game's ``run.sh`` is; the engine says
``ready`` on its output once it is up (here: once the helper is started)."""
LENGTH = 8


class LaunchedEngine(gym.Env[np.ndarray, int]):
    """Walk from 0 to :data:`LENGTH` on a line; 2 moves (left, right); reward 1 at the end,
    -0.01 a step; 40-step horizon. ``reset`` (re)starts the engine process."""

    metadata: dict[str, Any] = {"render_modes": []}
    max_steps = 40

    def __init__(self) -> None:
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(0.0, float(LENGTH), shape=(1,), dtype=np.float32)
        self.engine: subprocess.Popen[bytes] | None = None
        self.pos = 0
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._stop_engine()
        self.engine = subprocess.Popen(["sh", "-c", LAUNCH_SCRIPT], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.engine.stdout is not None
        if self.engine.stdout.readline() != b"ready\n":  # wait until the engine is up
            raise RuntimeError("the engine did not start")
        self.pos = 0
        self.t = 0
        return self._obs(), {}

    def step(self, action: int):
        if self.engine is None or self.engine.poll() is not None:
            raise RuntimeError("the engine is not running")
        self.pos = int(np.clip(self.pos + (1 if int(action) == 1 else -1), 0, LENGTH))
        self.t += 1
        done = self.pos == LENGTH
        return self._obs(), 1.0 if done else -0.01, done, self.t >= self.max_steps, {}

    def close(self) -> None:
        self._stop_engine()

    def _stop_engine(self) -> None:
        """What a game's own shutdown usually does: end the process it started, no more."""
        if self.engine is not None:
            self.engine.kill()
            self.engine.wait()
            if self.engine.stdout is not None:
                self.engine.stdout.close()
            self.engine = None

    def _obs(self) -> np.ndarray:
        return np.array([self.pos], dtype=np.float32)


class CrashingLauncher(LaunchedEngine):
    """:class:`LaunchedEngine` whose step raises once the walk reaches 4: the copy is broken,
    and the engine makes a fresh game at the next reset."""

    def step(self, action: int):
        out = super().step(action)
        if self.pos >= 4:
            raise RuntimeError("engine crashed")
        return out


class DyingLauncher(LaunchedEngine):
    """:class:`LaunchedEngine` whose process exits at once when the walk reaches 4 (a game
    that aborts): played isolated, its worker dies with the engine and helpers still running."""

    def step(self, action: int):
        out = super().step(action)
        if self.pos >= 4:
            os._exit(3)
        return out


class EngineWhenMade(LaunchedEngine):
    """:class:`LaunchedEngine` that starts its engine as soon as it is made, as many packaged
    games do in their constructor, and again at every reset."""

    def __init__(self) -> None:
        super().__init__()
        self.reset(seed=0)
