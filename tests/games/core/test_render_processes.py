"""Copies rendered in several processes play the same episodes as in one: same observations,
features, rewards and info; a dead process is an error of the step; nothing outlives close.
(A whole run rendered in processes: tests/evo/run/test_parallel.py.)"""

from __future__ import annotations

import dataclasses
import os
import signal
import time

import numpy as np
import pytest

from games import GameFactory
from games.core.render_processes import RenderProcesses

MAZE = GameFactory(name="block_maze", kwargs=(("maze_seed", 0), ("preset", "small")))


def test_copies_in_three_processes_play_as_in_one() -> None:
    alone, shared = MAZE.make_vector(7), dataclasses.replace(MAZE, render_processes=3).make_vector(7)
    try:
        assert isinstance(shared, RenderProcesses) and shared.slices == [(0, 2), (2, 5), (5, 7)]
        assert shared.game_spec == alone.game_spec
        a, b = alone.reset(list(range(7))), shared.reset(list(range(7)))
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        rng = np.random.default_rng(0)
        for _ in range(60):
            actions = rng.integers(0, alone.game_spec.n_actions, 7)
            x, y = alone.step(actions), shared.step(actions)
            for field in ("obs", "reward", "terminated", "truncated", "features"):
                assert np.array_equal(getattr(x, field), getattr(y, field)), field
            assert y.frame_ms is not None and y.frame_ms.shape == (7,)  # measured: a clock, not equal
            assert x.errors.keys() == y.errors.keys() and x.violations == y.violations
            assert {k: [repr(v) for v in c] for k, c in x.info.items()} == \
                {k: [repr(v) for v in c] for k, c in y.info.items()}
    finally:
        alone.close()
        shared.close()


def test_a_process_that_dies_fails_the_step_and_close_ends_the_others() -> None:
    game = RenderProcesses(MAZE.make_vector, 4, 2)
    pids = [p.pid for p in game._procs]
    game.reset([0, 1, 2, 3])
    os.kill(pids[1], signal.SIGKILL)
    game._procs[1].join(5)  # gone before the step: sending to it fails, not only waiting for it
    with pytest.raises(RuntimeError, match="the process rendering copies 2-3 died"):
        game.step(np.zeros(4, dtype=np.int64))
    game.close()
    time.sleep(0.2)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

