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



def _copies_that_cannot_start_in_the_processes(n: int):
    """The maze in this process; in a rendering process, copies that miss their start deadline
    (what an isolated copy's runner raises)."""
    import multiprocessing as mp

    from games.core.start_error import GameStartError

    if mp.parent_process() is not None:
        raise GameStartError(f"game copy 1 of {n} did not start within game.start_timeout_s = 1 s", 1)
    return MAZE.make_vector(n)


def test_copies_that_cannot_start_in_a_rendering_process_are_the_one_line_error() -> None:
    """As without the processes: the run's command line says it in one line (exit 2), where a
    RuntimeError wrapping it ended ``evo run`` in a traceback."""
    from games.core.start_error import GameStartError

    with pytest.raises(GameStartError, match=r"^game: the game could not be started \(game copy 1 of 2 did not"):
        RenderProcesses(_copies_that_cannot_start_in_the_processes, 4, 2)


def test_a_workers_error_that_ray_wrapped_is_said_as_the_worker_said_it() -> None:
    """Ray raises a class that is both its ``RayTaskError`` and the worker's error, whose text
    is the worker's traceback; ``evo`` prints the worker's own one line."""
    ray_exceptions = pytest.importorskip("ray.exceptions")
    from evo.cli.main import worker_cause
    from games.core.start_error import GameStartError

    cause = GameStartError("game copy 3 of 16 did not start within game.start_timeout_s = 1 s", 3, "Slow")
    wrapped = ray_exceptions.RayTaskError("run_play", "Traceback (most recent call last):\n  ...", cause)
    raised = wrapped.as_instanceof_cause()
    assert isinstance(raised, GameStartError) and "\n" in str(raised)
    assert str(worker_cause(raised)) == "game: Slow could not be started (game copy 3 of 16 did not start " \
        "within game.start_timeout_s = 1 s)"
    assert worker_cause(cause) is cause
