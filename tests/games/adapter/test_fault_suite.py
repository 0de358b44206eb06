"""The fault suite beyond raise, hang and exit (tests/games/test_gym_adapter.py has those): a
segfault, a leak, malformed observations and rewards, a reset that fails, a close that hangs.
Each is an error on its own copy, the other copies play on, and the broken copy plays again
after the next reset."""

from __future__ import annotations

import functools
import multiprocessing as mp
import os
import re
import threading
from pathlib import Path

import numpy as np
import pytest

from games.adapter.vector_game import GymVectorGame
from games.adapter.game_copy import CLOSE_TIMEOUT_S
from games.common.process_memory import rss_mb
from tests.games.faulty_envs import LineWalk

STAY, RIGHT = 1, 2
FAULT_AT = 2
TIMEOUT_S = 5.0
# Copy 1 walks into the fault on its second step; copy 0 stays at the start.
WALK = np.array([STAY, RIGHT])
HANG_GUARD_S = 30 * CLOSE_TIMEOUT_S


def _game(fault: str, isolated: bool, **kwargs) -> GymVectorGame:
    make_env = functools.partial(LineWalk, fault=fault, at_position=FAULT_AT, max_steps=1000, **kwargs)
    return GymVectorGame(make_env, 2, step_timeout_s=TIMEOUT_S if isolated else None)


def _plays_again(game: GymVectorGame) -> None:
    obs, _ = game.reset([0, 1])
    np.testing.assert_array_equal(obs[:, 0], [0.0, 0.0])
    step = game.step(np.array([RIGHT, RIGHT]))
    assert not step.errors and step.features[:, 0].tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("nan_obs", "observation holds nan at flat index 0"),
        ("wrong_shape_obs", "observation flattens to 2 values, the game's spec says 1"),
        ("huge_reward", "reward 1e+308 is not a finite number"),
        ("nan_reward", "reward nan is not a finite number"),
    ],
)
@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_a_malformed_observation_or_reward_is_an_error_of_its_copy(fault: str, message: str, isolated: bool) -> None:
    game = _game(fault, isolated)
    try:
        game.reset([0, 1])
        first = game.step(WALK)
        hit = game.step(WALK)
        assert not first.errors
        assert list(hit.errors) == [1] and hit.errors[1].type == "ValueError"
        assert message in hit.errors[1].message
        assert hit.terminated.tolist() == [False, True]
        assert np.isfinite(hit.obs).all() and np.isfinite(hit.reward).all()  # nothing of it reaches the engine
        _plays_again(game)
    finally:
        game.close()


def test_a_segfault_is_the_death_of_its_copy_by_sigsegv() -> None:
    game = _game("segfault", isolated=True)
    try:
        game.reset([0, 1])
        game.step(WALK)
        hit = game.step(WALK)
        assert list(hit.errors) == [1]
        assert (hit.errors[1].type, hit.errors[1].message) == ("GameProcessDied", "game process was killed by SIGSEGV")
        _plays_again(game)
    finally:
        game.close()


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads memory from /proc")
def test_a_leaking_copy_is_killed_over_max_rss_mb_and_the_others_play_on() -> None:
    # The bound: what a fresh copy holds, plus 150 MiB. The leak keeps 40 MiB more every step
    # (slowed to 20 ms a step so that the 0.1 s memory polls see it), without end.
    probe = GymVectorGame(functools.partial(LineWalk), 1, step_timeout_s=TIMEOUT_S)
    try:
        base = max(rss_mb(w.process.pid) or 0.0 for w in probe._runner.workers)  # type: ignore[union-attr]
    finally:
        probe.close()
    limit = base + 150
    make_env = functools.partial(LineWalk, fault="leak", at_position=FAULT_AT, max_steps=1000, leak_mb=40,
                                 step_delay_s=0.02)
    before = {p.pid for p in mp.active_children()}
    game = GymVectorGame(make_env, 2, step_timeout_s=TIMEOUT_S, max_rss_mb=limit)
    try:
        workers = {p.pid for p in mp.active_children()} - before
        game.reset([0, 1])
        errors = {}
        for t in range(40):  # 1.6 GB of leak if nothing stopped it
            step = game.step(np.array([STAY, RIGHT if t < FAULT_AT else STAY]))
            errors.update(step.errors)
            if errors:
                break
        assert list(errors) == [1]
        assert errors[1].type == "GameOutOfMemory"
        assert errors[1].message == "game process kept growing past its memory bound"
        assert re.search(rf"MiB a step over \d+ steps; game.max_rss_mb = {limit:g} MiB$", errors[1].detail)
        assert t < 20  # killed near the bound: about 4 leaking steps, not 200
        assert len([pid for pid in workers if not os.path.exists(f"/proc/{pid}")]) == 1
        assert not step.terminated[0]  # copy 0 plays on
        _plays_again(game)
    finally:
        game.close()


@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_a_reset_that_fails_is_an_error_of_its_copy(isolated: bool) -> None:
    game = _game("none", isolated, reset_fails_every=2)
    try:
        game.reset([3, 4])  # seed 4 fails to load
        step = game.step(WALK)
        assert list(step.errors) == [1] and step.errors[1].type == "RuntimeError"
        assert step.errors[1].message == "the level failed to load"
        assert step.terminated.tolist() == [False, True]
        game.reset([3, 5])
        step = game.step(WALK)
        assert not step.errors and step.features[:, 0].tolist() == [0.0, 1.0]
    finally:
        game.close()


@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_a_game_whose_close_hangs_does_not_hang_the_engine(isolated: bool) -> None:
    game = _game("none", isolated, close_hangs=True)
    game.reset([0, 1])
    game.step(WALK)
    closing = threading.Thread(target=game.close, daemon=True)
    closing.start()
    # Each copy's close is waited for a grace time, then left behind; without that this
    # join would give up with close still hanging (HANG_GUARD_S is far above the grace).
    closing.join(HANG_GUARD_S)
    assert not closing.is_alive(), "close hung"
    if isolated:  # the workers were killed, not left playing
        assert not [p for p in mp.active_children() if p.name.startswith("game-copy")]


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads memory from /proc")
def test_a_bound_below_what_a_fresh_copy_holds_is_one_line_at_start() -> None:
    from games.core.base import GameSpecError

    with pytest.raises(GameSpecError, match=r"^game.max_rss_mb: game process kept growing past its memory bound as "
                                            r"soon as it started \(held \d+ MiB, 0 more than at its start; "
                                            r"game.max_rss_mb = 1 MiB\); raise the bound$"):
        GymVectorGame(LineWalk, 2, step_timeout_s=TIMEOUT_S, max_rss_mb=1)
    assert not [p for p in mp.active_children() if p.name.startswith("game-copy")]
