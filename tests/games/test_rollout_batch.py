"""RolloutBatch: the columnar form of many rollouts, and the oracles' vectorized paths."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from evo.agents import UniformAgent
from evo.rollout import draw_episodes, play
from games.block_maze import BlockMazeVector
from objectives.coverage import Coverage, CoverageConfig, CoverageTracker
from objectives.winning import Winning, WinningConfig
from oracles import build_oracles
from oracles.component import Context

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
    from games.rollout import RolloutBatch

    again = RolloutBatch.concat([batch[:150], batch[150:]])
    for i in (0, 149, 150, 399):
        a, b = batch[i], again[i]
        np.testing.assert_array_equal(a.features, b.features)
        assert a.error == b.error and a.violations == b.violations


def test_pickles_small_and_whole(batch) -> None:
    again = pickle.loads(pickle.dumps(batch))
    np.testing.assert_array_equal(again.lengths, batch.lengths)
    assert again.errors == batch.errors


def test_oracles_find_the_same_bugs_on_a_batch_and_on_a_list(batch) -> None:
    spec = BlockMazeVector(1).game_spec
    on_batch = build_oracles(ALL, spec)
    on_list = build_oracles(ALL, spec)
    for oracle in (on_batch[-1], on_list[-1]):
        oracle.calibrate(batch)
    as_list = list(batch)
    for a, b in zip(on_batch, on_list):
        found_a, found_b = a.check(batch), b.check(as_list)
        assert [x.signature for x in found_a] == [x.signature for x in found_b]
        assert [x.actions for x in found_a] == [x.actions for x in found_b]
    kinds = {x.kind for o in build_oracles(ALL, spec) for x in o.check(batch)}
    assert {"crash", "logic"} <= kinds  # the batch really exercises the oracles


def test_objectives_and_coverage_agree_on_a_batch_and_a_list(batch) -> None:
    spec = BlockMazeVector(1).game_spec
    coverage = Coverage(spec, CoverageConfig(), Context())
    winning = Winning(spec, WinningConfig(), Context())
    assert coverage.score(batch[:4]) == coverage.score(list(batch[:4]))
    assert winning.score(batch[:4]) == pytest.approx(winning.score(list(batch[:4])))
    a, b = CoverageTracker(spec), CoverageTracker(spec)
    assert a.update(batch) == b.update(list(batch))
