"""Memory of isolated copies bounded for the whole run (``games.adapter.memory_watch``): a copy
that grows while the machine runs short is killed, one that does not grow is left alone, a
leak's report says how fast it grew, and a copy still allocating when its wait runs out is
slow, not hung.

Before, each copy was bounded alone (2 GiB by default): a leak in every copy of the default
experiment took a 24 GiB machine to its end, the kernel's OOM killer SIGKILLed copies
("killed by SIGKILL", by what it did not say), leak steps slowed to 3.6 s read as hangs, and
the run reported a crash, a death, a hang and three slow places for one leak."""

from __future__ import annotations

import functools
import re
import time
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import games.adapter.memory_watch as memory_watch
from games.adapter.memory_watch import OUT_OF_MEMORY
from games.adapter.vector_game import GymVectorGame
from tests.games.faulty_envs import LineWalk

STAY, RIGHT = 1, 2


@pytest.mark.skipif(not memory_watch.machine_mb(), reason="reads memory from /proc")
def test_a_copy_that_grows_while_the_machine_is_short_is_killed_and_one_that_does_not_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    total = memory_watch.machine_mb()[0]
    monkeypatch.setattr(memory_watch, "machine_mb", lambda: (total, 100.0))  # the machine is short
    make_env = functools.partial(LineWalk, fault="leak", leak_mb=64, at_position=2, n_actions=3,
                                 step_delay_s=0.05, max_steps=40)
    with GymVectorGame(make_env, 2, step_timeout_s=5.0, max_rss_mb=None) as game:
        game.reset([0, 1])
        errors: dict[int, Any] = {}
        for t in range(30):  # 1.8 GiB of leak if nothing stopped it
            step = game.step(np.array([STAY, RIGHT if t < 2 else STAY]))
            errors.update(step.errors)
            if errors:
                break
    assert list(errors) == [1]  # copy 0 never grew: left alone, however short the machine
    assert errors[1].type == "GameOutOfMemory" and errors[1].message == OUT_OF_MEMORY
    assert re.search(r"MiB a step over \d+ steps; the machine had 100 MiB available, under its reserve",
                     errors[1].detail)
    assert t < 15  # killed once it had grown 256 MiB: about 4 leaking steps


class SlowAllocation(gym.Env):
    """Each step allocates 40 MiB every 0.1 s for a second, then frees it: slow because it
    works, as a leaking game's steps are once the machine is short of memory."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self) -> None:
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(0.0, 1.0, (1,), np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        return np.zeros(1, np.float32), {}

    def step(self, action: int):
        held = []
        for _ in range(10):
            held.append(np.ones(40 * 2**20, dtype=np.uint8))
            time.sleep(0.1)
        return np.zeros(1, np.float32), 0.0, False, False, {}


def test_a_copy_still_allocating_when_its_wait_runs_out_is_slow_not_hung() -> None:
    with GymVectorGame(SlowAllocation, 1, step_timeout_s=0.4, max_rss_mb=None) as game:
        game.reset([0])
        step = game.step(np.array([0]))
    assert not step.errors
