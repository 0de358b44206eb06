"""Playing batches: rollout records, replays, and games that fail as a whole."""

from __future__ import annotations

import numpy as np

from evo.policy import PolicySpec
from evo.agents import PopulationAgent, ScriptAgent, UniformAgent
from evo.rollout import draw_episodes, play


def noise(n: int, horizon: int = 40, n_actions: int = 4, seed: int = 0) -> np.ndarray:
    return draw_episodes([seed], n, horizon, n_actions).gumbel
from games.base import GameSpec, VecStep
from games.block_maze import BlockMazeVector


def test_rollouts_record_each_copy_and_count_steps() -> None:
    game = BlockMazeVector(6, inject_bugs=False)
    spec = PolicySpec(29, 4, (8,))
    genomes = spec.init_genomes(3, np.random.default_rng(0))
    result = play(game, list(range(6)), [10, 10, 11, 11, 12, 12], PopulationAgent(genomes, spec, 2, noise(6)))
    assert [r.policy for r in result.rollouts] == [10, 10, 11, 11, 12, 12]
    assert result.env_steps == sum(r.length for r in result.rollouts)
    for r in result.rollouts:
        assert r.features.shape == (r.length + 1, 2)
        assert r.frame_ms.shape == r.rewards.shape == r.actions.shape == (r.length,)
        assert r.terminated != r.truncated  # goal or horizon, never both or neither
        if r.truncated:
            assert r.length == 40


def test_scripted_replay_repeats_an_episode() -> None:
    game = BlockMazeVector(4)
    first = play(game, [5] * 4, [0] * 4, UniformAgent(noise(4, seed=3)))
    actions = [list(r.actions) for r in first.rollouts]
    again = play(game, [5] * 4, [0] * 4, ScriptAgent(actions, 4))
    for a, b in zip(first.rollouts, again.rollouts):
        np.testing.assert_array_equal(a.features, b.features)
        assert a.error == b.error


def test_max_steps_stops_a_replay_at_the_bug_step() -> None:
    game = BlockMazeVector(2, inject_bugs=False)
    result = play(game, [0, 0], [0, 0], UniformAgent(noise(2)), max_steps=5)
    assert [r.length for r in result.rollouts] == [5, 5]


class ExplodingGame:
    """A vector game whose step fails as a whole on its third call."""

    num_envs = 3
    game_spec = GameSpec((1,), 2, ("x",), (0.0,), (10.0,), (10,), 10)

    def __init__(self) -> None:
        self.calls = 0

    def reset(self, seeds):
        return np.zeros((3, 1), np.float32), np.zeros((3, 1))

    def step(self, actions) -> VecStep:
        self.calls += 1
        if self.calls == 3:
            raise MemoryError("renderer ran out of memory")
        x = np.full((3, 1), float(self.calls))
        done = np.zeros(3, bool)
        return VecStep(x.astype(np.float32), np.zeros(3), done, done, x)

    def close(self) -> None:
        pass


def test_a_game_failing_as_a_whole_is_a_crash_of_every_running_copy() -> None:
    result = play(ExplodingGame(), [0, 1, 2], [0, 1, 2], UniformAgent(noise(3, 10, 2)))
    assert result.game_broken
    for r in result.rollouts:
        assert r.length == 3 and r.terminated
        assert r.error is not None and r.error.type == "MemoryError"
        np.testing.assert_array_equal(r.features[-1], r.features[-2])  # a failed step moves nothing
