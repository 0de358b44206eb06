"""Playing batches: rollout records, replays, and games that fail as a whole."""

from __future__ import annotations

import numpy as np
import pytest

from evo.search.policy import PolicySpec
from evo.search.agents import PopulationAgent, ScriptAgent, UniformAgent
from evo.search.play import draw_episodes, play


def noise(n: int, horizon: int = 40, n_actions: int = 4, seed: int = 0) -> np.ndarray:
    return draw_episodes([seed], n, horizon, n_actions).gumbel
from games.core.base import GameSpec, VecStep
from games.maze.block_maze import BlockMazeVector


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


# ------------------------------------------------------------------ optional record columns
def _watching_objective(requires: frozenset[str]):
    from objectives.base import Objective, ObjectiveConfig

    class Watching(Objective):
        name, sense = "watching", "max"

        def __init__(self, spec, config, context) -> None:
            self.requires = requires
            self.batches: list = []

        def score(self, rollouts) -> float:
            self.batches.append(rollouts)
            return 0.0

    return Watching, ObjectiveConfig


@pytest.mark.parametrize("requires", [frozenset(), frozenset({"probs"}), frozenset({"obs", "probs"})])
def test_play_keeps_only_the_columns_objectives_require(requires, tiny_config, tmp_path) -> None:
    import objectives.base as objectives_base
    from games.core.component import ComponentEntry
    from evo.run.config import parse_experiment
    from evo.run.kinds.evolve import Evolve

    Watching, Config = _watching_objective(requires)
    objectives_base.OBJECTIVES["watching"] = ComponentEntry(Config, Watching)
    try:
        tiny_config["objectives"].append({"name": "watching"})
        tiny_config["budget"] = {"generations": 2}
        search = Evolve(parse_experiment(tiny_config), tmp_path / "run")
        watcher = search.built.objectives[-1]
        # and when each step ended, to date bugs; and the performance oracle's peak memory rise
        assert search.built.columns == requires | {"info.step_clock", "info.peak_grew_mb"}
        search.run()
    finally:
        del objectives_base.OBJECTIVES["watching"]
    batch = watcher.batches[-1]
    spec = search.built.spec
    if "probs" in requires:
        assert batch.probs.shape == (len(batch), batch.actions.shape[1], spec.n_actions)
        valid = batch.valid
        np.testing.assert_allclose(batch.probs[valid].sum(axis=-1), 1.0, rtol=1e-5)
        # The action taken was one the distribution allowed.
        taken = np.take_along_axis(batch.probs, batch.actions[..., None], axis=-1)[..., 0]
        assert (taken[valid] > 0).all()
    else:
        assert batch.probs is None
    if "obs" in requires:
        assert batch.obs.shape == (len(batch), batch.actions.shape[1] + 1, int(np.prod(spec.obs_shape)))
        assert batch.obs.dtype == np.float32
        # A row view carries its own episode's columns.
        row = batch[0]
        assert row.obs.shape[0] == row.length + 1 and row.probs.shape[0] == row.length
    else:
        assert batch.obs is None


def test_a_component_requiring_an_unknown_column_is_refused() -> None:
    from games.core.component import Component, check_component

    class Wants(Component):
        requires = frozenset({"pixels"})

    with pytest.raises(TypeError, match=r"requires record columns \['pixels'\]; the record has obs, probs"):
        check_component(Wants(), "objectives", "wants")


def test_columns_survive_slicing_concat_and_packing() -> None:
    from games.core.record import RolloutBatch

    rng = np.random.default_rng(0)

    def batch(n, t):
        return RolloutBatch(
            policy=np.arange(n), episode_seed=np.arange(n), actions=np.zeros((n, t), dtype=np.int64),
            rewards=np.zeros((n, t)), features=np.zeros((n, t + 1, 2)), frame_ms=np.zeros((n, t)),
            lengths=np.full(n, t), terminated=np.ones(n, bool), truncated=np.zeros(n, bool),
            obs=rng.random((n, t + 1, 3), dtype=np.float32), probs=rng.random((n, t, 4), dtype=np.float32),
        )

    a, b = batch(2, 5), batch(3, 7)
    both = RolloutBatch.concat([a, b])
    assert both.obs.shape == (5, 8, 3) and both.probs.shape == (5, 7, 4)
    np.testing.assert_array_equal(both[1:2].obs[0, :6], a.obs[1])
    np.testing.assert_array_equal(both.obs[0, 6:], np.repeat(a.obs[0, -1:], 2, axis=0))  # states repeat
    repacked = RolloutBatch.from_rollouts(list(both))
    np.testing.assert_array_equal(repacked.probs[2:], b.probs)
    assert RolloutBatch.concat([a, RolloutBatch.from_rollouts(list(a))]).obs is not None
