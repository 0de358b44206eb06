"""A game whose actions are vectors is played through a grid of them; one without a grid is
refused in one line."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from games import GameFactory
from games.adapter.action_grid import MAX_ACTIONS, discrete_actions
from games.core.base import GameSpecError


class Sink(gym.Env[np.ndarray, Any]):
    """Remembers the last action it was sent."""

    observation_space = spaces.Box(0.0, 1.0, (1,), np.float32)

    def __init__(self, action_space: gym.Space[Any]) -> None:
        self.action_space = action_space
        self.sent: Any = None
        self.closed = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        return np.zeros(1, np.float32), {}

    def step(self, action: Any):
        self.sent = action
        return np.zeros(1, np.float32), 0.0, False, False, {}

    def close(self) -> None:
        self.closed = True


def _sent(space: gym.Space[Any], levels: int = 3) -> list[Any]:
    """What the game is sent for each of the grid's actions, in index order."""
    env = discrete_actions(Sink(space), levels)
    out = []
    for i in range(env.action_space.n):
        env.step(i)
        out.append(env.unwrapped.sent)
    return out


def test_a_box_is_played_at_its_ends_and_middle_every_combination():
    sent = _sent(spaces.Box(np.array([-1, 0], np.float32), np.array([1, 1], np.float32)))
    assert [tuple(float(v) for v in a) for a in sent] == [
        (-1, 0), (-1, 0.5), (-1, 1), (0, 0), (0, 0.5), (0, 1), (1, 0), (1, 0.5), (1, 1),
    ]
    assert all(a.dtype == np.float32 and a.shape == (2,) for a in sent)


def test_more_levels_and_an_integer_box():
    assert [float(a[0]) for a in _sent(spaces.Box(-2.0, 2.0, (1,), np.float32), levels=5)] == [-2, -1, 0, 1, 2]
    assert [int(a[0]) for a in _sent(spaces.Box(0, 4, (1,), np.int64), levels=3)] == [0, 2, 4]


def test_buttons_are_every_combination_of_their_values():
    sent = _sent(spaces.MultiDiscrete([2, 3], start=[0, -1]))
    assert [tuple(int(v) for v in a) for a in sent] == [(0, -1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1)]
    assert len(_sent(spaces.MultiBinary(4))) == 16


def test_a_discrete_game_is_not_wrapped():
    sink = Sink(spaces.Discrete(4))
    assert discrete_actions(sink) is sink


@pytest.mark.parametrize(("space", "words"), [
    (spaces.Box(-np.inf, np.inf, (2,), np.float32), "without finite low and high"),
    (spaces.Box(-1.0, 1.0, (8,), np.float32), f"would hold 6,561 (8 dimensions), more than {MAX_ACTIONS}"),
    (spaces.Tuple((spaces.Discrete(2), spaces.Discrete(3))), "plays Discrete actions"),
])
def test_actions_without_a_grid_are_one_line_that_says_why(space, words):
    sink = Sink(space)
    with pytest.raises(GameSpecError, match=re.escape(words)) as caught:
        discrete_actions(sink, label="my_game")
    assert str(caught.value).startswith("game my_game has action space") and "\n" not in str(caught.value)
    assert sink.closed  # nothing of the game is left running


def test_a_factory_plays_a_continuous_gymnasium_game_and_its_replays_press_the_same_actions():
    factory = GameFactory(gym_id="Pendulum-v1", action_levels=3)
    finals = []
    for _ in range(2):
        env = factory.make_env()
        assert env.action_space == spaces.Discrete(3)
        env.reset(seed=7)
        for action in [0, 2, 2, 1, 0, 2]:
            obs, *_ = env.step(action)
        finals.append(obs)
        env.close()
    np.testing.assert_array_equal(finals[0], finals[1])
