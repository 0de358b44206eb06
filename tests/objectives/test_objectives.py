"""Winning and coverage on hand-made rollouts; the run-wide coverage tracker; the registry."""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np
import pydantic
import pytest

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout
from objectives import OBJECTIVES, Objective, build_objectives, step_rewards
from objectives.coverage import Coverage, CoverageConfig, CoverageTracker
from objectives.winning import Winning, WinningConfig
from games.core.record import RolloutBatch

# A 4 x 4 grid over [0, 4) x [0, 4): one bucket per unit cell.
SPEC = GameSpec(
    obs_shape=(2,), n_actions=4, feature_names=("x", "y"), feature_low=(0.0, 0.0),
    feature_high=(4.0, 4.0), feature_bins=(4, 4), max_steps=50,
)


def rollout(positions: Sequence[Sequence[float]], rewards: Sequence[float] | None = None) -> Rollout:
    """An episode through ``positions`` (reset state first, then one per step)."""
    feats = np.asarray(positions, dtype=np.float64)
    t = feats.shape[0] - 1
    return Rollout(
        policy=0, episode_seed=0, actions=np.zeros(t, dtype=np.int64),
        rewards=np.zeros(t) if rewards is None else np.asarray(rewards, dtype=np.float64),
        features=feats, frame_ms=np.ones(t), terminated=False, truncated=True,
    )


def coverage(intervals: list[int] | int | None = None) -> Coverage:
    return Coverage(SPEC, CoverageConfig(intervals=intervals), Context())


# Cells (0,0) (1,0) (1,1) (0,0): three distinct cells; points inside a cell share it.
WALK = rollout([[0.2, 0.2], [1.5, 0.1], [1.9, 1.9], [0.7, 0.9]])
# Cells (0,0) (3,3) (3,2): (0,0) is shared with WALK, the other two are new.
OTHER = rollout([[0.5, 0.5], [3.5, 3.5], [3.2, 2.8]])


def test_winning_is_the_mean_episode_return() -> None:
    win = Winning(SPEC, WinningConfig(), Context())
    episodes = [
        rollout([[0, 0]] * 3, rewards=[1.0, 2.0]),
        rollout([[0, 0]] * 2, rewards=[-0.5]),
        rollout([[0, 0]] * 4, rewards=[0.0, 0.0, 0.5]),
    ]
    assert win.sense == "max"
    assert win.score(RolloutBatch.from_rollouts(episodes)) == pytest.approx(1.0)  # returns 3, -0.5, 0.5
    assert win.score(RolloutBatch.from_rollouts([])) == 0.0


def test_winning_step_rewards_are_the_game_rewards() -> None:
    ep = rollout([[0, 0]] * 4, rewards=[0.0, 1.5, -1.0])
    dense = step_rewards(Winning(SPEC, WinningConfig(), Context()), ep)
    np.testing.assert_array_equal(dense, [0.0, 1.5, -1.0])
    dense[:] = 9.0
    np.testing.assert_array_equal(ep.rewards, [0.0, 1.5, -1.0])  # the rollout is not aliased


def test_coverage_counts_distinct_buckets_across_episodes() -> None:
    cov = coverage()
    assert cov.sense == "max"
    assert cov.score(RolloutBatch.from_rollouts([WALK])) == 3.0
    assert cov.score(RolloutBatch.from_rollouts([OTHER])) == 3.0
    assert cov.score(RolloutBatch.from_rollouts([WALK, OTHER])) == 5.0  # (0,0) is shared
    assert cov.score(RolloutBatch.from_rollouts([WALK, WALK])) == 3.0
    assert cov.score(RolloutBatch.from_rollouts([])) == 0.0


@pytest.mark.parametrize(
    ("intervals", "bins", "walk_and_other"),
    [
        (None, (4, 4), 5.0),  # the game's own resolution
        (2, (2, 2), 2.0),  # 2 x 2 quadrants: WALK stays in (0,0), OTHER adds (1,1)
        ([4, 1], (4, 1), 3.0),  # only x counts: columns 0, 1, 3
        ([1, 1], (1, 1), 1.0),  # everything in one bucket
    ],
)
def test_coverage_intervals_resolve_as_documented(
    intervals: list[int] | int | None, bins: tuple[int, ...], walk_and_other: float
) -> None:
    assert SPEC.resolve_bins(intervals) == bins
    cov = coverage(intervals)
    assert cov.bins == bins
    assert cov.score(RolloutBatch.from_rollouts([WALK, OTHER])) == walk_and_other


def test_coverage_rejects_a_list_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match="intervals has 3 values but the game has 2"):
        coverage([4, 4, 4])
    with pytest.raises(ValueError, match="intervals has 1 values"):
        CoverageTracker(SPEC, [4])
    with pytest.raises(ValueError, match=r"intervals must be at least 1 interval per feature, got \[0, 4\]"):
        coverage([0, 4])


def test_coverage_step_reward_is_one_on_entering_a_new_bucket() -> None:
    # Cells: (0,0) reset, (1,0) new, (1,0) again, (0,0) the reset cell, (2,0) new, (1,0) again.
    ep = rollout([[0.5, 0.5], [1.5, 0.5], [1.2, 0.8], [0.1, 0.1], [2.5, 0.5], [1.5, 0.5]])
    dense = step_rewards(coverage(), ep)
    assert dense.shape == (ep.length,)
    np.testing.assert_array_equal(dense, [1.0, 0.0, 0.0, 1.0, 0.0])
    # The reset cell is already seen, so no step earns it: the sum is coverage minus one.
    assert dense.sum() == coverage().score(RolloutBatch.from_rollouts([ep])) - 1


def test_coverage_step_rewards_follow_the_configured_intervals() -> None:
    ep = rollout([[0.5, 0.5], [1.5, 0.5], [2.5, 0.5], [3.5, 0.5]])
    np.testing.assert_array_equal(step_rewards(coverage(), ep), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(step_rewards(coverage(2), ep), [0.0, 1.0, 0.0])


class Terse(Objective):
    """An objective that declares only what it must: its hooks keep their defaults."""

    name = "terse"
    sense = "min"

    def score(self, rollouts: Sequence[Rollout]) -> float:
        return 0.0


def test_step_rewards_of_an_objective_without_dense_reward_are_zeros() -> None:
    assert isinstance(Terse(), Objective)
    np.testing.assert_array_equal(step_rewards(Terse(), WALK), np.zeros(WALK.length))


def test_an_objective_that_declares_no_hooks_gets_the_contracts_defaults() -> None:
    terse = Terse()
    assert terse.rescores_parents is False and terse.ranks_players is False
    assert [o.name for o in build_objectives([("novelty", {}), ("fps_drop", {})], SPEC)
            if o.rescores_parents or o.ranks_players] == ["novelty", "fps_drop"]


def test_coverage_tracker_accumulates_across_generations() -> None:
    tracker = CoverageTracker(SPEC)
    assert tracker.update(RolloutBatch.from_rollouts([])) == 0
    assert tracker.update(RolloutBatch.from_rollouts([WALK])) == 3
    assert tracker.update(RolloutBatch.from_rollouts([WALK])) == 3
    assert tracker.update(RolloutBatch.from_rollouts([OTHER])) == 5
    assert tracker.update(RolloutBatch.from_rollouts([])) == 5
    assert CoverageTracker(SPEC, 2).update(RolloutBatch.from_rollouts([WALK, OTHER])) == coverage(2).score(RolloutBatch.from_rollouts([WALK, OTHER])) == 2


def test_coverage_tracker_state_dict_round_trips_through_json() -> None:
    tracker = CoverageTracker(SPEC)
    tracker.update(RolloutBatch.from_rollouts([WALK]))
    state = json.loads(json.dumps(tracker.state_dict()))

    restored = CoverageTracker(SPEC)
    restored.load_state_dict(state)
    assert restored.visited == tracker.visited
    assert restored.update(RolloutBatch.from_rollouts([OTHER])) == tracker.update(RolloutBatch.from_rollouts([OTHER])) == 5


def test_build_objectives_keeps_yaml_order_and_options() -> None:
    built = build_objectives([("coverage", {"intervals": 2}), ("winning", {})], SPEC)
    assert [o.name for o in built] == ["coverage", "winning"]
    assert isinstance(built[0], Coverage) and built[0].bins == (2, 2)
    assert all(isinstance(o, Objective) for o in built)


def test_build_objectives_rejects_an_unknown_name_listing_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown objective 'speed'") as info:
        build_objectives([("winning", {}), ("speed", {})], SPEC)
    for name in OBJECTIVES:
        assert name in str(info.value)
    assert {"coverage", "winning"} <= set(OBJECTIVES)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("winning", {"gamma": 0.9}), ("coverage", {"interval": 4}), ("coverage", {"intervals": "many"})],
)
def test_build_objectives_rejects_bad_options(name: str, kwargs: dict) -> None:
    with pytest.raises(pydantic.ValidationError):
        build_objectives([(name, kwargs)], SPEC)


def test_build_objectives_rejects_intervals_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match="state features"):
        build_objectives([("coverage", {"intervals": [2, 2, 2]})], SPEC)
