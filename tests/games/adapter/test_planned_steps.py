"""Steps sent ahead to isolated copies (``GymVectorGame.plan``): an agent that chose its actions
in advance plays the same episodes as one step at a time, and a fault in a planned step is
reported at that step, on its copy, as ever."""

from __future__ import annotations

import functools
import time

import numpy as np
import pytest

from evo.search.agents.returning import ReturningAgent
from evo.search.agents.script import ScriptAgent
from evo.search.agents.uniform import UniformAgent
from evo.search.play import play
from games.adapter.vector_game import GymVectorGame
from tests.games.faulty_envs import LineWalk

LEFT, STAY, RIGHT = 0, 1, 2


def _game(n: int, slip: float = 0.3, **kwargs) -> GymVectorGame:
    make_env = functools.partial(LineWalk, length=12, max_steps=80, slip=slip, **kwargs)
    return GymVectorGame(make_env, n, step_timeout_s=3.0)


class Unplanned:
    """The same agent, without its plan: one step at a time."""

    def __init__(self, agent) -> None:
        self.agent = agent

    def reset(self, seeds):
        self.agent.reset(seeds)

    def act(self, *args):
        return self.agent.act(*args)


def _agents(n: int, horizon: int):
    gumbel = np.random.default_rng(4).gumbel(size=(n, horizon, 3)).astype(np.float32)
    prefixes = np.array([[RIGHT] * 5, [LEFT] * 5, [STAY] * 5, [RIGHT] * 5])[:n]
    yield "uniform", lambda: UniformAgent(gumbel)
    yield "returning", lambda: ReturningAgent(UniformAgent(gumbel), prefixes, np.array([5, 0, 3, 1])[:n], 3)
    yield "script", lambda: ScriptAgent([[RIGHT, STAY] * 30, [LEFT, RIGHT, RIGHT] * 10, [RIGHT], []][:n], 3)


@pytest.mark.parametrize("name", ["uniform", "returning", "script"])
def test_planned_play_is_the_play_of_one_step_at_a_time(name: str) -> None:
    make = dict(_agents(4, 80))[name]
    assert make().planned(0, 32).shape == (32, 4)
    with _game(4) as game:
        seeds, limits = [3, 4, 5, 6], [80, 45, 7, 80]
        planned = play(game, seeds, [0] * 4, make(), limits=limits).rollouts
        stepped = play(game, seeds, [0] * 4, Unplanned(make()), limits=limits).rollouts
    np.testing.assert_array_equal(planned.lengths, stepped.lengths)
    np.testing.assert_array_equal(planned.actions, stepped.actions)
    np.testing.assert_array_equal(planned.features, stepped.features)
    np.testing.assert_array_equal(planned.terminated, stepped.terminated)
    assert planned.lengths[2] == 7 and (planned.lengths > 32).any()  # segments, and more than one plan


@pytest.mark.parametrize("fault", ["raise", "hang", "die"])
def test_a_fault_in_a_planned_step_is_its_copys_at_that_step(fault: str) -> None:
    """Copy 1 walks right into the fault on its third step; copy 0 stays. The fault ends copy
    1's episode there, with the error the step-by-step path gives; copy 0 plays its whole
    plan, and both play again after the next reset."""
    scripts = [[STAY] * 40, [RIGHT] * 40]
    with _game(2, slip=0.0, fault=fault, at_position=3) as game:
        rollouts = play(game, [0, 1], [0, 0], ScriptAgent(scripts, 3), max_steps=40).rollouts
        again = play(game, [0, 1], [0, 0], ScriptAgent([[STAY] * 4, [STAY] * 4], 3), max_steps=4).rollouts
    kind = {"raise": "RuntimeError", "hang": "GameHang", "die": "GameProcessDied"}[fault]
    assert list(rollouts.errors) == [1] and rollouts.errors[1].type == kind
    assert rollouts.lengths.tolist() == [40, 3]
    assert not again.errors and again.lengths.tolist() == [4, 4]


def test_a_batch_cut_by_its_deadline_leaves_the_next_one_whole() -> None:
    """Steps planned past the deadline are played and dropped; the next batch's reset reads
    past them, and its episodes are what a fresh game plays."""
    scripts = [[RIGHT, STAY, LEFT] * 20] * 2
    with _game(2, step_delay_s=0.02) as game:
        cut = play(game, [0, 1], [0, 0], ScriptAgent(scripts, 3), max_steps=60, deadline=time.time() + 0.15)
        after = play(game, [7, 8], [0, 0], ScriptAgent(scripts, 3), max_steps=60).rollouts
    with _game(2) as fresh:
        expected = play(fresh, [7, 8], [0, 0], ScriptAgent(scripts, 3), max_steps=60).rollouts
    assert cut.cut and cut.rollouts.lengths.max() < 32
    np.testing.assert_array_equal(after.features, expected.features)


def test_asking_for_another_action_than_the_planned_one_is_an_engine_error() -> None:
    with _game(1) as game:
        game.reset([0])
        game.plan(np.array([[RIGHT], [RIGHT]]), np.array([2]))
        game.step(np.array([RIGHT]))
        with pytest.raises(RuntimeError, match="was sent action 2 ahead, then asked for 0"):
            game.step(np.array([LEFT]))
