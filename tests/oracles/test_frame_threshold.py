"""The slow-frame line (oracles/frame_threshold.py) on frames RELINE did not assume: slow
frames that are not rare, jitter with no slow frame at all, a timer that reads whole ms."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from objectives.fps_drop import FpsDrop, FpsDropConfig
from oracles.frame_threshold import FrameThreshold, slow_threshold
from oracles.performance import PerformanceConfig, PerformanceOracle


def _normal_frames(rng: np.random.Generator, n: int) -> np.ndarray:
    """A step of a light game on a busy machine: 0.02 ms and an exponential tail."""
    return 0.02 + rng.exponential(0.005, n)


def _with_slow_share(share: float, n: int = 20_000, slow_ms: float = 6.0) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.where(rng.random(n) < share, slow_ms + rng.exponential(0.05, n), _normal_frames(rng, n))


@pytest.mark.parametrize("share", [0.15, 0.24])
def test_slow_frames_that_are_not_rare_stay_over_the_line(share: float) -> None:
    """15% of the warm-up's frames 6 ms slower (a stretch every policy drives): RELINE's
    mean + 5 sd of all frames is over every one of them; the line is under them all, where
    mean + 5 sd of the normal frames puts it."""
    frames = _with_slow_share(share)
    slow = frames > 3.0
    assert frames.mean() + 5 * frames.std() > frames[slow].max()  # what RELINE's rule gives
    t = slow_threshold(frames)
    normal = frames[~slow]
    assert t == pytest.approx(normal.mean() + 5 * normal.std(), rel=0.05)
    assert (frames[slow] > t).all()


def test_a_floor_still_holds_under_slow_frames() -> None:
    assert slow_threshold(_with_slow_share(0.15), floor_ms=1.0) == 1.0


def test_frames_all_taking_the_same_time_call_none_slow() -> None:
    assert slow_threshold(np.full(100, 0.5)) == 0.5
    assert not (np.full(100, 0.5) > slow_threshold(np.full(100, 0.5))).any()


def test_pure_jitter_gives_relines_line_and_no_report() -> None:
    """No slow frame at all, only the scheduler: 1% of steps delayed 0.05 to 3 ms. The line
    is RELINE's mean + 5 sd with those outliers clipped (as before: they are rare), and with
    the shipped experiments' floor (1 ms) no point is reported, however often it is visited."""
    rng = np.random.default_rng(1)
    n = 20_000
    frames = np.where(rng.random(n) < 0.01, rng.uniform(0.05, 3.0, n), _normal_frames(rng, n))
    t = slow_threshold(frames)
    calm = frames[frames <= t]
    assert t == pytest.approx(calm.mean() + 5 * calm.std())
    assert (frames > t).mean() < 0.02  # the delayed steps and the tail's far end, nothing more

    spec = GameSpec(obs_shape=(1,), n_actions=2, feature_names=("x",), feature_low=(0.0,),
                    feature_high=(10.0,), feature_bins=(10,), max_steps=200)
    rollouts = []
    for k in range(50):
        ms = np.where(rng.random(200) < 0.01, rng.uniform(0.05, 3.0, 200), _normal_frames(rng, 200))
        x = np.arange(201, dtype=np.float64) % 10 + 0.5
        rollouts.append(Rollout(policy=0, episode_seed=k, actions=np.zeros(200, np.int64), rewards=np.zeros(200),
                                features=x[:, None], frame_ms=ms, terminated=False, truncated=True))
    batch = RolloutBatch.from_rollouts(rollouts)
    oracle = PerformanceOracle(spec, PerformanceConfig(floor_ms=1.0), Context())
    oracle.calibrate(batch[:10])
    assert oracle.check(batch[10:]) == []


def test_relines_rare_slow_frames_give_relines_line() -> None:
    """RELINE's own case: a normal baseline with a handful of slow frames. The line is
    mean + 5 sd of the baseline without them, and with no slow frame at all exactly
    RELINE's mean + 5 sd."""
    rng = np.random.default_rng(0)
    clean = rng.normal(10.0, 1.0, 5000)
    assert slow_threshold(clean) == pytest.approx(clean.mean() + 5 * clean.std())
    assert slow_threshold(np.concatenate([clean, np.full(5, 100.0)])) == pytest.approx(
        clean.mean() + 5 * clean.std())


def test_a_timer_in_whole_milliseconds_is_not_slow_at_its_upper_tick() -> None:
    """A game that reports 16 or 17 ms (a 60 Hz frame rounded): a third of the frames on the
    upper tick are normal play, not slow frames."""
    frames = np.where(np.random.default_rng(2).random(3000) < 0.33, 17.0, 16.0)
    assert slow_threshold(frames) > 17.0


def test_performance_oracle_reports_a_stretch_its_warm_up_drove_through(spec, make_rollout) -> None:
    """The warm-up itself drives through the slow stretch (x-cells 2 to 3 of a 10-cell row,
    20% of its frames 6 ms): those cells are reported, no other."""
    path = [(0.5 + i, 0.5) for i in range(10)]
    ms = np.where(np.isin(np.arange(9), [1, 2]), 6.0, 0.02)  # the steps into cells 2 and 3
    warm = RolloutBatch.from_rollouts([make_rollout(path, frame_ms=ms + 0.001 * k, seed=k) for k in range(8)])
    oracle = PerformanceOracle(spec, PerformanceConfig(floor_ms=1.0), Context())
    oracle.calibrate(warm)
    assert oracle.threshold_ms == 1.0
    bugs = oracle.check(warm)
    assert sorted(b.signature for b in bugs) == ["performance:(2, 0)", "performance:(3, 0)"]


def test_fps_drop_rewards_a_stretch_its_warm_up_drove_through(spec, make_rollout) -> None:
    path = [(0.5 + i, 0.5) for i in range(10)]
    ms = np.where(np.isin(np.arange(9), [1, 2]), 6.0, 0.02)
    warm = RolloutBatch.from_rollouts([make_rollout(path, frame_ms=ms, seed=k) for k in range(8)])
    obj = FpsDrop(spec, FpsDropConfig(floor_ms=1.5, episode_bonus=False), Context())
    assert obj.score(warm) == 2  # before calibration: the provisional line from these frames
    obj.update(warm)
    assert obj.threshold_ms == 1.5
    assert obj.step_rewards(warm[0]).tolist() == [0, 10, 10, 0, 0, 0, 0, 0, 0]


def test_the_load_shift_still_moves_the_line() -> None:
    """RELINE's delta: a batch whose every frame is 1 ms slower than the warm-up's moves the
    line up by 1 ms; the slow frames of the warm-up do not move its quartiles."""
    line = FrameThreshold()
    warm = _with_slow_share(0.15)
    line.calibrate(warm)
    assert line.base_ms < 1.0
    assert line.for_batch(warm + 1.0) == pytest.approx(line.base_ms + 1.0)
