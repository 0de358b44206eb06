"""The scalar form of every built-in game is the generic adapter over its vector form:
Gymnasium conformance, the same rollout in both forms for the same seed and actions (errors
included, raised again with the vector form's record), and what the adapter passes through."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from games import GameFactory
from games.core.base import GameError, GameSpec, VecStep
from games.core.scalar_env import GameCrash, VectorEnv, raise_again

# Every built-in game, with kwargs that keep an episode short.
BUILT_IN: dict[str, dict[str, Any]] = {
    "block_maze": {"heavy_ms": 0.0},
    "cartpole_perf": {"heavy_ms": 0.0, "max_steps": 60},
    "doom_park": {"max_steps": 15},
    "dungeon": {"max_steps": 60},
    "mspacman_perf": {"heavy_ms": 0.0, "max_steps": 40},
    "montezuma": {"max_steps": 40, "noop_max": 30},
    "vizdoom": {"max_steps": 15},
}


def factory(name: str) -> GameFactory:
    if name in ("mspacman_perf", "montezuma"):
        pytest.importorskip("ale_py")
    if name in ("vizdoom", "doom_park"):
        pytest.importorskip("vizdoom")
    return GameFactory(name=name, kwargs=tuple(sorted(BUILT_IN[name].items())))


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_the_scalar_form_passes_check_env(name: str) -> None:
    env = factory(name).make_env()
    try:
        assert isinstance(env, VectorEnv)
        check_env(env, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_same_seed_same_rollout_in_scalar_and_vector_form(name: str) -> None:
    """Copy i of the vector form and a scalar env reset with the same seed play the same
    episode step for step: observations, rewards, done flags, features, violations and
    errors (an error raised by the scalar form is the vector form's record of it)."""
    seeds = [0, 1, 2]
    n = len(seeds)
    vec = factory(name).make_vector(n)
    envs = [factory(name).make_env() for _ in seeds]
    rng = np.random.default_rng(1)
    try:
        obs, feats = vec.reset(seeds)
        for i, (env, seed) in enumerate(zip(envs, seeds)):
            o, info = env.reset(seed=seed)
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(feats[i], env.state_features(o, info))
        done = np.zeros(n, dtype=bool)
        for _ in range(vec.game_spec.max_steps + 1):
            actions = rng.integers(0, vec.game_spec.n_actions, n)
            out = vec.step(actions)
            for i, env in enumerate(envs):
                if done[i]:
                    continue
                try:
                    o, reward, terminated, truncated, info = env.step(int(actions[i]))
                except Exception as exc:  # noqa: BLE001 - compared with the vector form's record
                    assert out.errors[i] == GameError.from_exception(exc)
                    assert isinstance(exc, AssertionError) == out.errors[i].is_assertion
                    done[i] = True
                    continue
                assert i not in out.errors
                np.testing.assert_array_equal(out.obs[i], o)
                np.testing.assert_array_equal(out.features[i], env.state_features(o, info))
                assert (out.reward[i], out.terminated[i], out.truncated[i]) == (reward, terminated, truncated)
                assert info["violations"] == out.violations.get(i, [])
                done[i] = terminated or truncated
            if done.all():
                break
        assert done.all()
    finally:
        vec.close()
        for env in envs:
            env.close()


class _Counter:
    """A one-number vector game: the observation counts the copy's steps; copy 0's third step
    records ``error``."""

    def __init__(self, num_envs: int = 1, error: GameError | None = None) -> None:
        self.num_envs = num_envs
        self.error = error
        self.game_spec = GameSpec((1,), 2, ("t",), (0.0,), (10.0,), (10,), 10)
        self.t = np.zeros(num_envs)
        self.closed = False

    def reset(self, seeds):
        self.t[:] = seeds
        return self.t[:, None].astype(np.float32), self.t[:, None].copy()

    def step(self, actions):
        self.t += 1
        errors = {0: self.error} if self.error is not None and self.t[0] == 3 else {}
        return VecStep(self.t[:, None].astype(np.float32), np.ones(self.num_envs),
                       self.t >= 10, np.zeros(self.num_envs, bool), self.t[:, None].copy(),
                       frame_ms=np.full(self.num_envs, 1.5), errors=errors,
                       violations={0: ["odd"]} if self.t[0] % 2 else {})

    def close(self) -> None:
        self.closed = True


def test_the_adapter_reports_what_the_vector_game_does() -> None:
    game = _Counter()
    env = VectorEnv(game, low=0.0, high=10.0)
    assert env.observation_space.shape == (1,) and env.action_space.n == 2
    assert not hasattr(env, "match") and not hasattr(env, "injected_bugs")  # none to pass on
    obs, info = env.reset(seed=4)
    assert obs.tolist() == [4.0] and info == {}
    obs, reward, terminated, truncated, info = env.step(1)
    assert (obs.tolist(), reward, terminated, truncated) == ([5.0], 1.0, False, False)
    assert info == {"violations": ["odd"]} and "frame_ms" not in info
    assert env.last_frame_ms == 1.5
    assert env.state_features(obs, info).tolist() == [5.0]
    env.close()
    assert game.closed


def test_a_seedless_reset_draws_its_seed_from_the_env_generator() -> None:
    a, b = VectorEnv(_Counter()), VectorEnv(_Counter())
    a.reset(seed=9)
    b.reset(seed=9)
    assert a.reset()[0].tolist() == b.reset()[0].tolist()


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (GameError("AssertionError", "tile state inconsistent", "maze.py:check:12"), AssertionError),
        (GameError("RuntimeError", "tile handler failed", "maze.py:enter:40"), RuntimeError),
        (GameError("ZeroDivisionError", "division by zero", "physics.py:step:7"), ZeroDivisionError),
        (GameError("SegfaultInEngine", "engine died", "engine.py:tick:99"), GameCrash),
    ],
)
def test_errors_are_raised_again_with_their_type_and_place(error: GameError, raised: type) -> None:
    env = VectorEnv(_Counter(error=error))
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    with pytest.raises(raised) as info:
        env.step(0)
    again = GameError.from_exception(info.value)
    assert again.where == error.where
    if raised is GameCrash:
        assert again.type == "GameCrash" and info.value.error == error
    else:
        assert again == error


def test_an_error_without_a_place_is_raised_from_the_adapter() -> None:
    with pytest.raises(RuntimeError, match="lost"):
        raise_again(GameError("RuntimeError", "lost", ""))


def test_the_adapter_plays_one_copy() -> None:
    with pytest.raises(ValueError, match="plays one copy"):
        VectorEnv(_Counter(num_envs=2))
