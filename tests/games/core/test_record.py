"""RolloutBatch: the columnar form of many rollouts, and the oracles' vectorized paths."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from evo.search.agents import UniformAgent
from evo.search.play import draw_episodes, play
from games.core.component import Context
from games.maze.block_maze import BlockMazeVector
from games.core.record import RolloutBatch
from objectives.coverage import Coverage, CoverageConfig
from objectives.winning import Winning, WinningConfig
from oracles import build_oracles

ALL = [("crash", {}), ("stuck", {"window": 4}), ("logic", {}), ("performance", {"floor_ms": 1.0})]


@pytest.fixture(scope="module")
def batch():
    """Random walkers in the bugged maze: crashes, violations, stuck and slow cells."""
    game = BlockMazeVector(400, heavy_ms=2.0)
    draws = draw_episodes(list(range(100)), 4, 40, 4)
    return play(game, draws.seeds, np.repeat(np.arange(100), 4), UniformAgent(draws.gumbel)).rollouts


def test_rows_are_rollouts(batch) -> None:
    assert len(batch) == 400 and batch.env_steps == sum(r.length for r in batch)
    r = batch[7]
    assert r.features.shape == (r.length + 1, 2) and r.policy == 1
    tail = batch[396:]
    assert len(tail) == 4 and tail[0].episode_seed == batch[396].episode_seed
    assert [e for e in tail.errors] == [i - 396 for i in batch.errors if i >= 396]


def test_concat_of_slices_is_the_batch(batch) -> None:
    from games.core.record import RolloutBatch

    again = RolloutBatch.concat([batch[:150], batch[150:]])
    for i in (0, 149, 150, 399):
        a, b = batch[i], again[i]
        np.testing.assert_array_equal(a.features, b.features)
        assert a.error == b.error and a.violations == b.violations


def test_pickles_small_and_whole(batch) -> None:
    again = pickle.loads(pickle.dumps(batch))
    np.testing.assert_array_equal(again.lengths, batch.lengths)
    assert again.errors == batch.errors


def test_the_oracles_find_bugs_in_a_batch_played_on_block_maze(batch) -> None:
    spec = BlockMazeVector(1).game_spec
    oracles = build_oracles(ALL, spec)
    oracles[-1].calibrate(batch)
    kinds = {x.kind for o in oracles for x in o.check(batch)}
    assert {"crash", "logic"} <= kinds  # the batch really exercises the oracles


def test_a_batch_packed_from_its_own_rows_scores_the_same(batch) -> None:
    """Tests and users build batches from episodes with from_rollouts: it loses nothing."""
    spec = BlockMazeVector(1).game_spec
    coverage = Coverage(spec, CoverageConfig(), Context())
    winning = Winning(spec, WinningConfig(), Context())
    repacked = RolloutBatch.from_rollouts(list(batch))
    assert coverage.score(batch[:4]) == coverage.score(repacked[:4])
    assert winning.score(batch[:4]) == pytest.approx(winning.score(repacked[:4]))
    assert repacked.errors == batch.errors and repacked.violations == batch.violations
    assert len(RolloutBatch.from_rollouts([])) == 0 and winning.score(RolloutBatch.from_rollouts([])) == 0.0
