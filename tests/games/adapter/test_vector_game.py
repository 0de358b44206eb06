"""GymVectorGame: any gymnasium game as a VectorGame, every game fault isolated to its copy."""

from __future__ import annotations

import functools
import multiprocessing as mp
import os

import gymnasium as gym
import numpy as np
import pytest

from games.core.base import GameError, VecStep, VectorGame
from games.adapter.vector_game import GymVectorGame
from tests.games.faulty_envs import LineWalk

HANG_TIMEOUT_S = 0.5
LEFT, STAY, RIGHT = 0, 1, 2
# Copy 1 walks right into the fault at cell 3 on its third step; copy 0 stays put and copy 2
# paces between cells 0 and 1, so neither ever reaches it.
FAULT_AT = 3


def _actions(t: int) -> np.ndarray:
    return np.array([STAY, RIGHT, RIGHT if t % 2 == 0 else LEFT])


def _cartpole() -> gym.Env:
    return gym.make("CartPole-v1")


def _make_game(fault: str, isolated: bool) -> GymVectorGame:
    make_env = functools.partial(LineWalk, fault=fault, at_position=FAULT_AT)
    return GymVectorGame(make_env, 3, step_timeout_s=HANG_TIMEOUT_S if isolated else None)


def _walk_into_fault(game: GymVectorGame) -> list[VecStep]:
    game.reset([0, 1, 2])
    return [game.step(_actions(t)) for t in range(FAULT_AT + 1)]


def _gone(pid: int) -> bool:
    """True when no process (not even a zombie waiting to be reaped) has this pid."""
    return not os.path.exists(f"/proc/{pid}")


def test_cartpole_spec_is_derived_from_its_spaces() -> None:
    with GymVectorGame(_cartpole, 2) as game:
        spec = game.game_spec
    space = gym.make("CartPole-v1").observation_space
    assert isinstance(game, VectorGame)
    assert spec.obs_shape == (4,) and spec.n_actions == 2 and spec.max_steps == 500
    assert spec.feature_names == ("obs0", "obs1", "obs2", "obs3")
    assert spec.feature_bins == (10, 10, 10, 10)
    # Cart position and pole angle keep their bounds; the velocities are bounded only by
    # float32's max, which would put every state in the middle bucket: they are open, their
    # cells learned from the run's first episodes.
    assert spec.feature_open == (False, True, False, True)
    assert spec.feature_high == pytest.approx((space.high[0], 0.0, space.high[2], 0.0))
    assert spec.feature_low == pytest.approx((space.low[0], 0.0, space.low[2], 0.0))


@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_cartpole_plays_like_plain_gym_with_the_same_seeds(isolated: bool) -> None:
    seeds = [11, 12, 13]
    rng = np.random.default_rng(0)
    plain = [gym.make("CartPole-v1") for _ in seeds]
    expected_obs = np.stack([env.reset(seed=s)[0] for env, s in zip(plain, seeds)])
    game = GymVectorGame(_cartpole, 3, step_timeout_s=1.0 if isolated else None)
    try:
        obs, features = game.reset(seeds)
        assert obs.dtype == np.float32 and features.dtype == np.float64
        np.testing.assert_array_equal(obs, expected_obs)
        done = np.zeros(3, dtype=bool)
        for _ in range(60):
            actions = rng.integers(0, 2, size=3)
            step = game.step(actions)
            for i, env in enumerate(plain):
                if done[i]:  # finished copies stay as they were, reward 0, flags kept
                    np.testing.assert_array_equal(step.obs[i], expected_obs[i])
                    assert step.reward[i] == 0.0 and step.terminated[i]
                    continue
                o, r, term, trunc, _ = env.step(int(actions[i]))
                expected_obs[i] = o
                np.testing.assert_array_equal(step.obs[i], o)
                np.testing.assert_array_equal(step.features[i], o.astype(np.float64))
                assert (step.reward[i], step.terminated[i], step.truncated[i]) == (r, term, trunc)
                done[i] = term or trunc
            assert not step.errors and not step.violations
        assert done.any(), "60 random CartPole steps should end at least one episode"
    finally:
        game.close()


@pytest.mark.parametrize("fault", ["raise", "assert"])
@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_exception_is_reported_on_its_copy_only(fault: str, isolated: bool) -> None:
    expected_type = {"raise": "RuntimeError", "assert": "AssertionError"}[fault]
    game = _make_game(fault, isolated)
    try:
        steps = _walk_into_fault(game)
        before, hit, after = steps[FAULT_AT - 2], steps[FAULT_AT - 1], steps[FAULT_AT]
        assert not before.errors
        assert list(hit.errors) == [1]
        error = hit.errors[1]
        assert error.type == expected_type and error.is_assertion == (fault == "assert")
        assert "faulty_envs.py:_fire:" in error.where
        assert hit.terminated.tolist() == [False, True, False]
        assert hit.features[1, 0] == FAULT_AT - 1  # a step that raised changes nothing
        assert hit.reward[1] == 0.0
        # The next step leaves the broken copy alone and plays the others.
        assert not after.errors and after.terminated[1] and after.reward[1] == 0.0
        np.testing.assert_array_equal(after.features[:, 0], [0.0, FAULT_AT - 1, 0.0])
        # After reset the broken copy has a fresh game that plays normally.
        obs, _ = game.reset([0, 1, 2])
        np.testing.assert_array_equal(obs[:, 0], [0.0, 0.0, 0.0])
        step = game.step(_actions(0))
        assert not step.errors and not step.terminated.any()
        np.testing.assert_array_equal(step.features[:, 0], [0.0, 1.0, 1.0])
    finally:
        game.close()


@pytest.mark.parametrize(
    ("fault", "expected_type", "expected_message"),
    [
        ("hang", "GameHang", "step did not return within the step timeout"),
        ("die", "GameProcessDied", "game process exited with code 3"),
    ],
)
def test_hang_or_death_is_reported_on_its_copy_and_the_worker_restarts(
    fault: str, expected_type: str, expected_message: str
) -> None:
    before = {p.pid for p in mp.active_children()}
    game = _make_game(fault, isolated=True)
    try:
        workers = {p.pid for p in mp.active_children()} - before
        steps = _walk_into_fault(game)
        hit, after = steps[FAULT_AT - 1], steps[FAULT_AT]
        assert hit.errors == {1: GameError(type=expected_type, message=expected_message, where="")}
        assert hit.terminated.tolist() == [False, True, False]
        np.testing.assert_array_equal(hit.features[:, 0], [0.0, FAULT_AT - 1, 1.0])
        assert not after.errors and after.features[2, 0] == 0.0
        # Exactly one worker was killed or has died, and it was reaped (no zombie).
        assert len([pid for pid in workers if _gone(pid)]) == 1
        obs, _ = game.reset([0, 1, 2])
        np.testing.assert_array_equal(obs[:, 0], [0.0, 0.0, 0.0])
        step = game.step(_actions(0))
        assert not step.errors
        np.testing.assert_array_equal(step.features[:, 0], [0.0, 1.0, 1.0])
    finally:
        game.close()


@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_violations_are_reported_and_the_episode_goes_on(isolated: bool) -> None:
    game = _make_game("violation", isolated)
    try:
        steps = _walk_into_fault(game)
        hit, after = steps[FAULT_AT - 1], steps[FAULT_AT]
        assert not any(s.errors for s in steps)
        assert hit.violations == {1: [f"position {FAULT_AT} is out of the map"]}
        assert not hit.terminated.any()
        assert not after.violations and after.features[1, 0] == FAULT_AT + 1
    finally:
        game.close()


def test_a_reset_that_raises_is_reported_by_the_first_step_of_its_copy() -> None:
    make_env = functools.partial(LineWalk, fault="raise", at_position=99, reset_fault_seed=7)
    with GymVectorGame(make_env, 2) as game:
        obs, features = game.reset([1, 7])
        assert obs[1].tolist() == [0.0] and features[1].tolist() == [0.0]
        step = game.step(np.array([RIGHT, RIGHT]))
        assert list(step.errors) == [1] and step.errors[1].type == "RuntimeError"
        assert step.terminated.tolist() == [False, True]
        game.reset([1, 2])  # a fresh game for copy 1, which now plays
        step = game.step(np.array([RIGHT, RIGHT]))
        assert not step.errors and step.features[:, 0].tolist() == [1.0, 1.0]


def test_frame_time_is_measured_when_the_game_does_not_report_it() -> None:
    make_env = functools.partial(LineWalk, step_delay_s=0.02, length=3)
    with GymVectorGame(make_env, 2) as game:
        game.reset([0, 1])
        first = game.step(np.array([RIGHT, STAY]))
        second = game.step(np.array([RIGHT, STAY]))  # copy 0 reaches the goal here
        third = game.step(np.array([RIGHT, STAY]))
    assert first.frame_ms is not None and third.frame_ms is not None
    assert (first.frame_ms >= 20.0).all() and (second.frame_ms >= 20.0).all()
    assert third.frame_ms[0] == 0.0 and third.frame_ms[1] >= 20.0  # a done copy does not step


@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_frame_time_reported_by_the_game_is_used(isolated: bool) -> None:
    make_env = functools.partial(LineWalk, frame_ms=7.5)
    game = GymVectorGame(make_env, 2, step_timeout_s=HANG_TIMEOUT_S if isolated else None)
    try:
        game.reset([0, 1])
        step = game.step(np.array([RIGHT, LEFT]))
        assert step.frame_ms is not None
        np.testing.assert_array_equal(step.frame_ms, [7.5, 7.5])
    finally:
        game.close()


@pytest.mark.parametrize("isolated", [False, True], ids=["in_process", "isolated"])
def test_non_discrete_action_space_is_refused_in_one_line(isolated: bool) -> None:
    make_env = functools.partial(gym.make, "Pendulum-v1")
    with pytest.raises(ValueError) as excinfo:
        GymVectorGame(make_env, 1, step_timeout_s=HANG_TIMEOUT_S if isolated else None)
    message = str(excinfo.value)
    assert "\n" not in message
    assert "Pendulum-v1" in message and "Box" in message and "Discrete" in message


def test_isolated_mode_needs_a_picklable_make_env() -> None:
    with pytest.raises(ValueError, match="picklable"):
        GymVectorGame(lambda: LineWalk(), 2, step_timeout_s=HANG_TIMEOUT_S)


def test_misuse_by_the_engine_raises() -> None:
    with GymVectorGame(LineWalk, 2) as game:
        with pytest.raises(RuntimeError, match="before reset"):
            game.step(np.array([0, 0]))
        game.reset([0, 1])
        with pytest.raises(ValueError, match="2 actions"):
            game.step(np.array([0]))
        with pytest.raises(ValueError, match=r"\[0, 3\)"):
            game.step(np.array([0, 3]))


def test_no_worker_process_remains_after_close() -> None:
    before = {p.pid for p in mp.active_children()}
    game = _make_game("die", isolated=True)
    _walk_into_fault(game)  # one worker dies on the way (the hang test checks a kill)
    game.reset([0, 1, 2])  # and is restarted
    workers = {p.pid for p in mp.active_children()} - before
    assert len(workers) == 3
    game.close()
    game.close()  # idempotent
    assert all(_gone(pid) for pid in workers)
    assert {p.pid for p in mp.active_children()} <= before
    with pytest.raises(RuntimeError, match="closed"):
        game.reset([0, 1, 2])


def test_workers_are_stopped_when_the_game_is_dropped_without_close() -> None:
    before = {p.pid for p in mp.active_children()}
    game = _make_game("none", isolated=True)
    workers = {p.pid for p in mp.active_children()} - before
    assert len(workers) == 3
    del game  # the safety net: a finalizer, also run at interpreter exit
    assert all(_gone(pid) for pid in workers)
