"""Performance (RELINE): a point is slow when most of its visits rendered over threshold."""

from __future__ import annotations

import json

import numpy as np
import pytest

from games.core.component import Context
from games.core.base import GameSpec
from oracles.frame_threshold import slow_threshold
from oracles.performance import ALLOCATING_MB, PerformanceConfig, PerformanceOracle
from games.core.record import PEAK_GROWTH_KEY, RolloutBatch

SLOW_CELL = (5, 5)


def _path_through(cell_y: float, slow_ms: float | None, make_rollout, seed: int = 0):
    """East along row ``cell_y`` from x = 0.5 to 9.5; the step into x-cell 5 takes
    ``slow_ms`` (others 10 ms)."""
    path = [(0.5 + i, cell_y) for i in range(10)]
    ms = np.full(9, 10.0)
    if slow_ms is not None:
        ms[4] = slow_ms  # step 4 goes from x=4.5 to x=5.5: the frame rendered in cell 5
    return make_rollout(path, frame_ms=ms, seed=seed)


def _calibrated(spec: GameSpec, make_rollout, **kwargs) -> PerformanceOracle:
    rng = np.random.default_rng(1)
    path = [(0.5 + i % 10, 0.5) for i in range(201)]
    warm = [make_rollout(path, frame_ms=rng.normal(10.0, 0.5, 200)) for _ in range(5)]
    oracle = PerformanceOracle(spec, PerformanceConfig(**kwargs), Context())
    oracle.calibrate(RolloutBatch.from_rollouts(warm))
    return oracle


def test_threshold_ignores_a_few_slow_outliers():
    rng = np.random.default_rng(0)
    clean = rng.normal(10.0, 1.0, 2000)
    dirty = np.concatenate([clean, np.full(5, 100.0)])
    clean_t = clean.mean() + 5 * clean.std()
    naive_t = dirty.mean() + 5 * dirty.std()
    t = slow_threshold(dirty)
    assert abs(t - clean_t) < 0.5
    assert naive_t > clean_t + 10  # RELINE's rule without clipping: inflated by the bug
    assert slow_threshold(dirty, floor_ms=50.0) == 50.0


def test_calibrate_sets_threshold_near_clean_mean_plus_5_sd(spec, make_rollout):
    oracle = _calibrated(spec, make_rollout)
    assert oracle.threshold_ms == pytest.approx(10.0 + 5 * 0.5, abs=0.2)


def test_point_visited_three_times_all_slow_is_reported_once(spec, make_rollout):
    oracle = _calibrated(spec, make_rollout)
    batches = [[_path_through(5.5, 40.0 + k, make_rollout, seed=k)] for k in range(3)]
    found = [oracle.check(RolloutBatch.from_rollouts(b)) for b in batches]
    assert [len(f) for f in found] == [0, 1, 0]  # min_visits 2, then reported only once
    bug = found[1][0]
    assert bug.kind == "performance" and bug.signature == f"performance:{SLOW_CELL}"
    assert bug.step == 4 and bug.episode_seed == 1 and bug.next_state == (5.5, 5.5)
    assert bug.data["frame_ms"] == 41.0 and bug.data["visits"] == 2 and bug.data["slow"] == 2
    assert bug.data["max_ms"] == 41.0 and bug.data["median_ms"] == 40.5
    # The batch's line: the warm-up's, shifted by delta (this batch's quartiles are 10 ms).
    assert bug.data["threshold_ms"] == oracle.batch_threshold(np.array([10.0] * 8 + [41.0]))
    assert oracle.threshold_ms <= bug.data["threshold_ms"] < 13.0


def test_report_is_at_the_first_slow_step_of_the_batch(spec, make_rollout):
    """Not the slowest: which visit is slowest is up to the machine, and two runs of one
    seed must report the same replay handle."""
    oracle = _calibrated(spec, make_rollout)
    batch = [_path_through(5.5, ms, make_rollout, seed=k) for k, ms in enumerate([None, 90, 60])]
    (bug,) = oracle.check(RolloutBatch.from_rollouts(batch))
    assert bug.episode_seed == 1 and bug.data["frame_ms"] == 90.0 and bug.data["visits"] == 3


def test_one_slow_visit_of_four_is_not_reported(spec, make_rollout):
    oracle = _calibrated(spec, make_rollout)
    batch = [_path_through(5.5, ms, make_rollout) for ms in (50.0, None, None, None)]
    assert oracle.check(RolloutBatch.from_rollouts(batch)) == []


def test_single_slow_visit_is_not_reported(spec, make_rollout):
    oracle = _calibrated(spec, make_rollout)
    assert oracle.check(RolloutBatch.from_rollouts([_path_through(5.5, 80.0, make_rollout)])) == []


def test_fast_rollouts_report_nothing(spec, make_rollout):
    oracle = _calibrated(spec, make_rollout)
    assert oracle.check(RolloutBatch.from_rollouts([_path_through(y + 0.5, None, make_rollout) for y in range(10)])) == []


def test_floor_keeps_fast_frames_from_being_slow(spec, make_rollout):
    oracle = _calibrated(spec, make_rollout, floor_ms=100.0)
    batch = [_path_through(5.5, 60.0, make_rollout) for _ in range(3)]
    assert oracle.check(RolloutBatch.from_rollouts(batch)) == []


def test_check_before_calibrate_calibrates_on_the_batch(spec, make_rollout):
    oracle = PerformanceOracle(spec, PerformanceConfig(), Context())
    batch = [_path_through(5.5, 500.0, make_rollout, seed=k) for k in range(3)]
    batch += [_path_through(y + 0.5, None, make_rollout) for y in range(10)]
    bugs = oracle.check(RolloutBatch.from_rollouts(batch))
    assert oracle.threshold_ms == pytest.approx(10.0)
    assert [b.signature for b in bugs] == [f"performance:{SLOW_CELL}"]


def test_bins_override_the_game_resolution(spec, make_rollout):
    # delta off: five of this batch's nine frames are slow, which would lift its quartiles.
    oracle = _calibrated(spec, make_rollout, bins=[2, 2], delta=False)
    # Steps 4..8 land in x >= 5, the east half: bucket (1, 1) of a 2 x 2 cut.
    path = [(0.5 + i, 5.5) for i in range(10)]
    ms = np.array([10.0] * 4 + [60.0] * 5)
    batch = [make_rollout(path, frame_ms=ms)]
    assert [b.signature for b in oracle.check(RolloutBatch.from_rollouts(batch))] == ["performance:(1, 1)"]
    with pytest.raises(ValueError, match="bins"):
        PerformanceOracle(spec, PerformanceConfig(bins=[2]), Context())


def test_state_dict_round_trip_gives_identical_decisions(spec, make_rollout):
    a = _calibrated(spec, make_rollout)
    first = [_path_through(5.5, 60.0, make_rollout), _path_through(2.5, 60.0, make_rollout)]
    first += [_path_through(7.5, None, make_rollout)]
    assert a.check(RolloutBatch.from_rollouts(first)) == []
    b = PerformanceOracle(spec, PerformanceConfig(), Context())
    b.load_state_dict(json.loads(json.dumps(a.state_dict())))
    assert b.state_dict() == a.state_dict()

    second = [_path_through(5.5, 70.0, make_rollout, seed=9), _path_through(7.5, 70.0,
              make_rollout, seed=9), _path_through(2.5, None, make_rollout, seed=9)]
    bugs_a, bugs_b = a.check(RolloutBatch.from_rollouts(second)), b.check(RolloutBatch.from_rollouts(second))
    assert bugs_a == bugs_b
    assert [x.data for x in bugs_a] == [x.data for x in bugs_b]
    # (5,5): 2 of 2 slow -> reported; (7,5): 1 of 2 and (2,5): 1 of 2 -> not more than half.
    assert [x.signature for x in bugs_a] == ["performance:(5, 5)"]
    assert b.state_dict() == a.state_dict()


def test_low_fps_points_give_confidence_and_frame_times(spec, make_rollout):
    """low_fps_points.csv's rows: the slow point with its share of slow visits, median and
    max frame time and the box it covers; a point slow once in four visits is listed but
    not reported; points never slow are not listed."""
    oracle = _calibrated(spec, make_rollout)
    for k, ms in enumerate([40.0, 50.0, 60.0]):
        oracle.check(RolloutBatch.from_rollouts([_path_through(5.5, ms, make_rollout, seed=k)]))
    for k, ms in enumerate([45.0, None, None, None]):
        oracle.check(RolloutBatch.from_rollouts([_path_through(7.5, ms, make_rollout, seed=10 + k)]))
    rows = {r["point"]: r for r in oracle.low_fps_points()}
    assert set(rows) == {"5 5", "5 7"}
    hot, once = rows["5 5"], rows["5 7"]
    assert (hot["visits"], hot["slow"], hot["confidence"], hot["reported"]) == (3, 3, 1.0, True)
    assert hot["median_ms"] == 50.0 and hot["max_ms"] == 60.0
    assert (hot["x_low"], hot["x_high"], hot["y_low"], hot["y_high"]) == (5.0, 6.0, 5.0, 6.0)
    assert (once["visits"], once["slow"], once["confidence"], once["reported"]) == (4, 1, 0.25, False)
    assert list(rows) == ["5 5", "5 7"]  # most confident first


def test_delta_follows_a_busier_machine_and_keeps_real_slow_points(spec, make_rollout):
    """RELINE's delta: when every frame of a batch got 5 ms slower than at warm-up (a busier
    machine), ordinary frames are not slow; a point far above the shifted line still is."""
    oracle = _calibrated(spec, make_rollout)  # warm-up frames ~10 ms
    busier = [make_rollout([(0.5 + i, 2.5) for i in range(10)], frame_ms=15.0, seed=k) for k in range(3)]
    assert oracle.check(RolloutBatch.from_rollouts(busier)) == []
    plain = _calibrated(spec, make_rollout, delta=False)
    assert len(plain.check(RolloutBatch.from_rollouts(busier))) == 9  # without delta every cell of the row is "slow"
    slow = [_path_through(5.5, 90.0, make_rollout, seed=k) for k in range(3)]
    slow = [make_rollout(r.features, frame_ms=np.where(r.frame_ms > 50, 90.0, 15.0), seed=k)
            for k, r in enumerate(slow)]
    assert [b.signature for b in oracle.check(RolloutBatch.from_rollouts(slow))] == ["performance:(5, 5)"]


def test_a_report_says_where_its_slow_frame_was_drawn(spec, make_rollout, tmp_path):
    """The frame of the step from x=4.5 to x=5.5 was drawn at x=5.5, in point (5, 5): the
    message names that state first and the one the step left beside it; bugs.jsonl and the
    points table carry it."""
    from oracles.archive import BugArchive, append_jsonl

    oracle = _calibrated(spec, make_rollout)
    for k in range(2):
        bugs = oracle.check(RolloutBatch.from_rollouts([_path_through(5.5, 40.0, make_rollout, seed=k)]))
    (bug,) = bugs
    assert "drawn at x=5.5 y=5.5 (the step from x=4.5 y=5.5), point (5, 5)" in bug.message
    assert bug.data["drawn_at"] == [5.5, 5.5] and bug.data["point"] == [5, 5]
    archive = BugArchive()
    archive.add([bug], generation=0, env_steps=0, wall_s=0.0)
    append_jsonl(tmp_path / "bugs.jsonl", archive)
    (line,) = [json.loads(x) for x in (tmp_path / "bugs.jsonl").read_text().splitlines()]
    assert (line["next_state"], line["state"]) == ([5.5, 5.5], [4.5, 5.5])
    assert line["data"]["drawn_at"] == [5.5, 5.5] and "drawn at x=5.5 y=5.5" in line["message"]
    (row,) = oracle.low_fps_points()
    assert row["point"] == "5 5" and row["drawn_at"] == "5.5 5.5"


def _replays(make_rollout, slow_ms: list[float | None]):
    """A stand-in for the run's replays (``replay(seed, actions, copies)``): copy i draws the
    step into the slow cell in ``slow_ms[i]`` (None: an ordinary 10 ms frame); the calls
    are kept."""
    calls = []

    def replay(seed, actions, copies):
        calls.append((seed, tuple(actions), copies))
        return RolloutBatch.from_rollouts([_path_through(5.5, ms, make_rollout, seed=seed) for ms in slow_ms[:copies]])
    return replay, calls


def _flagged(spec, make_rollout, **kwargs):
    oracle = _calibrated(spec, make_rollout, **kwargs)
    for k in range(2):
        bugs = oracle.check(RolloutBatch.from_rollouts([_path_through(5.5, 40.0 + k, make_rollout, seed=k)]))
    assert len(bugs) == 1
    return oracle, bugs


def test_a_place_slow_again_in_its_replays_is_kept_with_how_often(spec, make_rollout):
    oracle, bugs = _flagged(spec, make_rollout)
    replay, calls = _replays(make_rollout, [45.0, 44.0, None, 46.0, 43.0])
    kept = oracle.confirm(bugs, replay)
    assert calls == [(1, bugs[0].actions, 5)]  # its seed and actions, five copies at once
    assert len(kept) == 1 and kept[0].signature == bugs[0].signature
    assert kept[0].message.endswith("; slow again in 4 of 5 replays")
    assert kept[0].data["replays"] == 5 and kept[0].data["replays_slow"] == 4


def test_a_hiccup_that_does_not_come_back_is_dropped_until_its_visits_double(spec, make_rollout):
    oracle, bugs = _flagged(spec, make_rollout)
    replay, _ = _replays(make_rollout, [None, None, 45.0, None, None])
    assert oracle.confirm(bugs, replay) == []
    assert not oracle.low_fps_points()[0]["reported"]
    # 2 of 2 visits slow, refuted: flagged again only at 4 visits, and then replayed again.
    third = oracle.check(RolloutBatch.from_rollouts([_path_through(5.5, 50.0, make_rollout, seed=2)]))
    assert third == []
    fourth = oracle.check(RolloutBatch.from_rollouts([_path_through(5.5, 50.0, make_rollout, seed=3)]))
    assert [b.data["visits"] for b in fourth] == [4]


def test_without_replays_the_rule_alone_reports(spec, make_rollout):
    oracle, bugs = _flagged(spec, make_rollout, confirm_replays=0)
    replay, calls = _replays(make_rollout, [None] * 5)
    assert oracle.confirm(bugs, replay) == bugs and calls == []


def test_a_step_that_raised_its_peak_memory_is_a_leaks_not_a_slow_place(spec, make_rollout):
    """Three visits of cell 5, each slow: a slow place. The same three, each step into the cell
    raising the game process's peak memory by 200 MiB (a leak allocating): nothing, the leak
    is its own report (a crash bug with its growth a step)."""
    def visits(peak_mb: float) -> list[RolloutBatch]:
        batches = []
        for k in range(3):
            batch = RolloutBatch.from_rollouts([_path_through(5.5, 40.0 + k, make_rollout, seed=k)])
            grew = np.zeros(batch.actions.shape)
            grew[0, 4] = peak_mb
            batch.info[PEAK_GROWTH_KEY] = grew
            batches.append(batch)
        return batches

    plain, leaking = _calibrated(spec, make_rollout), _calibrated(spec, make_rollout)
    assert sum(len(plain.check(b)) for b in visits(ALLOCATING_MB / 2)) == 1
    assert sum(len(leaking.check(b)) for b in visits(200.0)) == 0


def test_a_slow_place_is_one_point_whichever_way_the_camera_looked(spec, make_rollout):
    """Where the game names its position, the camera's yaw does not split a place: three slow
    visits looking three ways are one point, reported once."""
    from dataclasses import replace

    looking = replace(spec, feature_names=("x", "y", "yaw"), feature_low=(0.0, 0.0, 0.0),
                      feature_high=(10.0, 10.0, 360.0), feature_bins=(10, 10, 4), position=("x", "y"))
    oracle = PerformanceOracle(looking, PerformanceConfig(), Context())
    rng = np.random.default_rng(1)
    warm = [make_rollout([(0.5 + i % 10, 0.5, 0.0) for i in range(201)], frame_ms=rng.normal(10.0, 0.5, 200))]
    oracle.calibrate(RolloutBatch.from_rollouts(warm))
    found = []
    for k, yaw in enumerate((10.0, 100.0, 190.0)):
        path = [(0.5 + i, 5.5, yaw) for i in range(10)]
        ms = np.full(9, 10.0)
        ms[4] = 40.0 + k
        found += oracle.check(RolloutBatch.from_rollouts([make_rollout(path, frame_ms=ms, seed=k)]))
    assert len(found) == 1 and found[0].signature == "performance:(5, 5, 0)"


def _elsewhere(make_rollout, slow_ms: float | None, seed: int):
    """A replay whose moves went another way (sticky inputs): row 2.5, not the place's."""
    return _path_through(2.5, slow_ms, make_rollout, seed=seed)


def test_replays_that_end_their_step_elsewhere_say_nothing_of_the_place(spec, make_rollout):
    """In a game that does not replay, a replay's step may be drawn in another place: only
    those that reached the place judge it."""
    oracle, bugs = _flagged(spec, make_rollout)
    batch = [_path_through(5.5, 45.0, make_rollout, seed=1), _elsewhere(make_rollout, 45.0, 1),
             _path_through(5.5, 44.0, make_rollout, seed=1), _elsewhere(make_rollout, None, 1),
             _elsewhere(make_rollout, 46.0, 1)]
    kept = oracle.confirm(bugs, lambda seed, actions, copies: RolloutBatch.from_rollouts(batch[:copies]))
    assert [b.message.split("; ")[-1] for b in kept] == ["slow again in 2 of 2 replays (of 5, 2 reached it)"]
    assert (kept[0].data["replays_slow"], kept[0].data["replays_reached"]) == (2, 2)


def test_a_place_no_replay_reached_is_kept_on_its_visits_saying_so(spec, make_rollout):
    oracle, bugs = _flagged(spec, make_rollout)
    batch = RolloutBatch.from_rollouts([_elsewhere(make_rollout, 45.0, k) for k in range(5)])
    kept = oracle.confirm(bugs, lambda seed, actions, copies: batch)
    assert [b.message.split("; ")[-1] for b in kept] == ["no replay of 5 reached it (the game does not replay)"]
