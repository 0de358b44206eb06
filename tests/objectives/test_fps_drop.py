"""fps_drop (RELINE's load-testing objective) on hand-made rollouts: calibration, delta,
distinct slow points, dense rewards, region, checkpoints, lists and batches alike."""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np
import pydantic
import pytest

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from objectives import build_objectives
from objectives.fps_drop import FpsDrop, FpsDropConfig

# A 4 x 4 grid over [0, 4) x [0, 4): one bucket per unit cell.
SPEC = GameSpec(
    obs_shape=(2,), n_actions=2, feature_names=("x", "y"), feature_low=(0.0, 0.0),
    feature_high=(4.0, 4.0), feature_bins=(4, 4), max_steps=50,
)


def rollout(positions: Sequence[Sequence[float]], frame_ms: Sequence[float]) -> Rollout:
    """An episode through ``positions`` (reset state first, then one per step)."""
    feats = np.asarray(positions, dtype=np.float64)
    t = feats.shape[0] - 1
    assert len(frame_ms) == t
    return Rollout(
        policy=0, episode_seed=0, actions=np.zeros(t, dtype=np.int64), rewards=np.ones(t),
        features=feats, frame_ms=np.asarray(frame_ms, dtype=np.float64), terminated=False,
        truncated=True,
    )


def baseline(n: int = 200, outliers: Sequence[float] = ()) -> list[Rollout]:
    """Warm-up episodes: frames alternate 1.0 and 1.2 ms (mean 1.1, sd 0.1), plus outliers."""
    frames = [1.0 + 0.2 * (i % 2) for i in range(n)] + list(outliers)
    return [rollout([[0.5, 0.5]] * (len(frames) + 1), frames)]


def fps(**kwargs) -> FpsDrop:
    return FpsDrop(SPEC, FpsDropConfig(**kwargs), Context())


# Steps into cells (1,0) slow, (1,0) slow again, (2,2) fast, (3,3) slow.
WALK = rollout([[0.5, 0.5], [1.5, 0.5], [1.7, 0.2], [2.5, 2.5], [3.5, 3.5]], [9.0, 8.0, 1.1, 7.0])
# Steps into (1,0) slow (shared with WALK), (0,3) slow.
OTHER = rollout([[0.5, 0.5], [1.2, 0.9], [0.1, 3.9]], [9.0, 9.0])


def test_registered_and_configured_by_name() -> None:
    (obj,) = build_objectives([("fps_drop", {"sd_factor": 3.0, "floor_ms": 1.0})], SPEC)
    assert isinstance(obj, FpsDrop) and obj.sense == "max"
    with pytest.raises(pydantic.ValidationError):
        build_objectives([("fps_drop", {"sd_facter": 3.0})], SPEC)
    with pytest.raises(ValueError, match="region"):
        fps(region={"low": [0.0], "high": [1.0]})


def test_calibration_is_mean_plus_five_sd_and_ignores_a_few_outliers() -> None:
    obj = fps()
    obj.update(RolloutBatch.from_rollouts(baseline(outliers=[50.0, 80.0, 65.0])))
    # Sigma clipping drops the three outliers: t = 1.1 + 5 * 0.1.
    assert obj.threshold_ms == pytest.approx(1.6)
    floor = fps(floor_ms=3.0)
    floor.update(RolloutBatch.from_rollouts(baseline()))
    assert floor.threshold_ms == pytest.approx(3.0)


def test_delta_shifts_the_threshold_by_the_quartiles_of_later_batches() -> None:
    obj = fps()
    base = [1.0, 2.0, 3.0, 4.0, 5.0]  # Q1 2.0, Q3 4.0 (linear interpolation)
    obj.update(RolloutBatch.from_rollouts([rollout([[0, 0]] * 6, base)]))
    t_base = obj.threshold_ms
    assert (obj.q1_base, obj.q3_base) == (2.0, 4.0)
    # Training frames 2..6 ms shifted: Q1 3.0 (+1.0), Q3 5.5 (+1.5) -> delta 1.5.
    obj.update(RolloutBatch.from_rollouts([rollout([[0, 0]] * 6, [2.0, 3.0, 4.5, 5.5, 6.0])]))
    assert obj.delta_ms == pytest.approx(1.5)
    assert obj.threshold_ms == pytest.approx(t_base + 1.5)
    # A lighter load never lowers the threshold below the baseline's.
    obj.update(RolloutBatch.from_rollouts([rollout([[0, 0]] * 6, [0.1, 0.2, 0.3, 0.4, 0.5])]))
    assert obj.delta_ms < 0 and obj.threshold_ms == pytest.approx(t_base)
    off = fps(delta=False)
    off.update(RolloutBatch.from_rollouts([rollout([[0, 0]] * 6, base)]))
    off.update(RolloutBatch.from_rollouts([rollout([[0, 0]] * 6, [2.0, 3.0, 4.5, 5.5, 6.0])]))
    assert off.threshold_ms == pytest.approx(t_base)


def test_warmup_rollouts_spans_calls_and_the_rest_feeds_delta() -> None:
    obj = fps(warmup_rollouts=3)
    first = [rollout([[0, 0]] * 3, [1.0, 1.2]) for _ in range(2)]
    obj.update(RolloutBatch.from_rollouts(first))
    assert obj.threshold_ms is None
    obj.update(RolloutBatch.from_rollouts([rollout([[0, 0]] * 3, [1.0, 1.2]), rollout([[0, 0]] * 3, [2.0, 2.2])]))
    assert obj.q1_base == pytest.approx(1.0) and obj.q3_base == pytest.approx(1.2)
    # From the fourth rollout only: Q1 2.05 (+1.05), Q3 2.15 (+0.95).
    assert obj.delta_ms == pytest.approx(1.05)


def test_score_counts_distinct_slow_points_across_episodes() -> None:
    obj = fps()
    obj.update(RolloutBatch.from_rollouts(baseline()))
    assert obj.score(RolloutBatch.from_rollouts([WALK])) == 2.0  # (1,0) twice, (3,3); (2,2) was fast
    assert obj.score(RolloutBatch.from_rollouts([OTHER])) == 2.0
    assert obj.score(RolloutBatch.from_rollouts([WALK, OTHER])) == 3.0  # (1,0) shared
    assert obj.score(RolloutBatch.from_rollouts([])) == 0.0


def test_step_rewards_are_ten_per_slow_step_plus_the_end_bonus() -> None:
    obj = fps()
    obj.update(RolloutBatch.from_rollouts(baseline()))
    # Three slow steps: 10 each, and 10 x 30 added at the last step.
    np.testing.assert_allclose(obj.step_rewards(WALK), [10.0, 10.0, 0.0, 10.0 + 300.0])
    plain = fps(episode_bonus=False, step_reward=1.0)
    plain.update(RolloutBatch.from_rollouts(baseline()))
    np.testing.assert_allclose(plain.step_rewards(WALK), [1.0, 1.0, 0.0, 1.0])
    calm = rollout([[0, 0]] * 3, [1.0, 1.1])
    np.testing.assert_allclose(obj.step_rewards(calm), [0.0, 0.0])


def test_region_counts_only_steps_inside_the_box() -> None:
    obj = fps(region={"low": [1.0, 0.0], "high": [4.0, 1.0]})  # the cells of row y = 0, x >= 1
    obj.update(RolloutBatch.from_rollouts(baseline()))
    assert obj.score(RolloutBatch.from_rollouts([WALK, OTHER])) == 1.0  # only (1,0)
    np.testing.assert_allclose(obj.step_rewards(WALK), [10.0, 10.0, 0.0, 0.0 + 200.0])


def test_bins_of_the_wrong_length_are_one_line_naming_the_option() -> None:
    assert fps(bins=[2, 1]).bins == (2, 1) and fps().bins == SPEC.feature_bins
    with pytest.raises(ValueError, match=r"^fps_drop.bins has 1 values but the game has 2 state features \(x, y\)$"):
        fps(bins=[2])


def test_uncalibrated_scores_use_a_provisional_threshold_from_the_rollouts_given() -> None:
    obj = fps()
    calm = baseline()[0]
    frames = np.concatenate([calm.frame_ms, [9.0]])
    feats = np.concatenate([calm.features, [[3.5, 3.5]]])
    ep = rollout(feats, frames)
    assert obj.score(RolloutBatch.from_rollouts([ep])) == 1.0
    assert obj.step_rewards(ep)[-1] == pytest.approx(10.0 + 100.0)
    assert obj.threshold_ms is None  # nothing kept


def test_state_dict_round_trips_through_json() -> None:
    obj = fps(warmup_rollouts=5)
    obj.update(RolloutBatch.from_rollouts(baseline() * 2))  # warm-up half done
    restored = fps(warmup_rollouts=5)
    restored.load_state_dict(json.loads(json.dumps(obj.state_dict())))
    assert restored.state_dict() == obj.state_dict()
    for o in (obj, restored):
        o.update(RolloutBatch.from_rollouts(baseline() * 4))  # warm-up done, one rollout left for delta
    assert restored.state_dict() == obj.state_dict()
    assert restored.threshold_ms == obj.threshold_ms is not None
    assert restored.score(RolloutBatch.from_rollouts([WALK, OTHER])) == obj.score(RolloutBatch.from_rollouts([WALK, OTHER])) == 3.0


def test_once_per_point_rewards_a_point_the_first_time_it_is_slow_in_the_episode() -> None:
    obj = fps(once_per_point=True, step_reward=50.0, episode_bonus=False)
    obj.update(RolloutBatch.from_rollouts(baseline()))
    # WALK is slow twice in (1,0) and once in (3,3): two rewards, at steps 0 and 3.
    np.testing.assert_allclose(obj.step_rewards(WALK), [50.0, 0.0, 0.0, 50.0])


def test_per_episode_score_is_the_mean_of_slow_points_within_each_episode() -> None:
    obj = fps(score="per_episode")
    obj.update(RolloutBatch.from_rollouts(baseline()))
    # WALK: (1,0) and (3,3); OTHER: (1,0) and (0,3). Distinct across both would be 3.
    assert obj.score(RolloutBatch.from_rollouts([WALK, OTHER])) == 2.0
    # One delayed frame of three visits to (1,0) is not a slow point of the episode.
    loop = rollout([[0.5, 0.5], [1.5, 0.5], [1.6, 0.5], [1.7, 0.5]], [9.0, 1.1, 1.0])
    assert obj.score(RolloutBatch.from_rollouts([loop])) == 0.0
    distinct = fps()
    distinct.update(RolloutBatch.from_rollouts(baseline()))
    assert distinct.score(RolloutBatch.from_rollouts([WALK, OTHER])) == 3.0
