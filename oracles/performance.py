"""Performance oracle: places where most frames render slower than a calibrated threshold.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games"): a
step is a low-FPS point when rendering took longer than ``t = mean + 5 sd`` of the frame
times of a baseline agent, and a point is reported "when more than 50% of its visits were
over t" (ANCHORS.md), so that one hiccup of the machine is not a bug.

Here the baseline is the warm-up rollouts (the first generation's); a point is the bucket of
the state the frame was rendered in: the state a step arrived in, which a report names
beside the one it left (``next_state`` and ``state`` of the bug). RELINE's shift for the load of training is applied per
batch (``delta``): ``t = t_base + max(0, max(Q1_batch - Q1_base, Q3_batch - Q3_base))``, so
that a machine that got busier since the warm-up (another run, more game copies sharing the
caches) does not turn every ordinary frame into a slow one. The quartiles of a batch only
move when more than a quarter of its frames are slower, which the bugs of a batch are not.
The line itself is :class:`oracles.frame_threshold.FrameThreshold`, shared with ``fps_drop``
and ``evo evaluate``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from pydantic import Field

from games.core.component import Context, Replay
from games.core.base import GameSpec
from games.core.buckets import tally
from games.core.record import PEAK_GROWTH_KEY, RolloutBatch
from oracles.base import Bug, Oracle, OracleConfig, register
from oracles.describe import describe_point, describe_state

ALLOCATING_MB = 16.0
"""A step that raised its game process's peak memory this much is not counted as a frame: a
leak's steps are slow because they allocate, and the leak is one report (a crash bug with its
growth a step) rather than a slow place wherever it allocated."""
from oracles.frame_threshold import FrameThreshold

if TYPE_CHECKING:
    import pandas as pd

RECENT_FRAMES = 64
"""Frame times kept per point for its median: the latest ones, a bounded sample so that
memory does not grow with the number of visits."""

class PerformanceConfig(OracleConfig):
    """Settings of the performance oracle."""

    sd_factor: float = Field(default=5.0, gt=0.0)
    """How many standard deviations above the mean a frame must take to be slow.
    RELINE: the five-sigma rule, t = mean + 5 sd of baseline frame times."""

    floor_ms: float = Field(default=0.0, ge=0.0)
    """Frames faster than this are never slow, whatever the baseline: a game whose frames
    all take exactly 1 ms would otherwise call a 1.01 ms frame slow."""

    min_visits: int = Field(default=2, ge=1)
    """A point needs this many visits before it can be reported: one slow frame in one
    visit says nothing about the place."""

    slow_share: float = Field(default=0.5, ge=0.0, lt=1.0)
    """A point is slow when more than this share of its visits were slow.
    RELINE: "more than 50% of times they have been covered"."""

    bins: list[int] | None = None
    """Intervals per state feature that make a point; ``None`` uses the game's
    ``feature_bins``, its position's alone where it names one (``GameSpec.position``: one
    report per slow place, not one per way the camera looked there)."""

    delta: bool = True
    """Shift the threshold of each batch by RELINE's
    ``max(Q1_batch - Q1_base, Q3_batch - Q3_base)`` (never below 0)."""

    confirm_replays: int = Field(default=5, ge=0)
    """A point the rule above flags is played again this many times (its report's actions from
    its seed, in as many copies at once) and reported only where more than ``slow_share`` of
    those replays are slow at the same step again, by the line shifted for the replays' own
    frames; the report says how many. A machine's hiccups (a collection, another process) do
    not come back at the same step, a slow place does: on a busy machine, frames of an
    ordinary place seen twice were both over the line. 0: report on the rule alone (RELINE's)."""


def is_low_fps(visits: int, slow: int, min_visits: int = 2, slow_share: float = 0.5) -> bool:
    """RELINE's rule: a point is low-FPS once it has ``min_visits`` visits and more than
    ``slow_share`` of them were slow."""
    return visits >= min_visits and slow > slow_share * visits


def point_bounds(spec: GameSpec, bins: Sequence[int], point: Sequence[int]) -> dict[str, float]:
    """The box of state-feature values a point (a tuple of bucket indices) stands for:
    ``{<feature>_low, <feature>_high}`` per feature, for tables a person reads."""
    out: dict[str, float] = {}
    for name, low, high, n, b in zip(spec.feature_names, spec.feature_low, spec.feature_high, bins, point):
        width = (high - low) / n
        out[f"{name}_low"] = round(low + b * width, 6)
        out[f"{name}_high"] = round(low + (b + 1) * width, 6)
    return out


@dataclass
class PointStats:
    """What the oracle remembers about one point across calls."""

    visits: int = 0
    slow: int = 0
    max_ms: float = float("-inf")
    recent: list[float] = field(default_factory=list)
    reported: bool = False
    drawn_at: tuple[float, ...] | None = None
    """The state its first slow frame was drawn in (the step's arrival): a place inside the
    point that a person can go to."""
    recheck_at: int = 0
    """Visits it needs before it is flagged again: twice its visits when its replays last
    refuted it, so that a point is replayed a logarithmic number of times at most."""

    def add(self, frame_ms: np.ndarray, slow: int) -> None:
        """Count the visits of one batch (their frame times, oldest first)."""
        self.visits += int(frame_ms.size)
        self.slow += int(slow)
        self.max_ms = max(self.max_ms, float(frame_ms.max()))
        self.remember(frame_ms)

    def remember(self, frame_ms: np.ndarray) -> None:
        """Keep the latest frame times (for the median of a reported point)."""
        self.recent = (self.recent + [float(v) for v in frame_ms[-RECENT_FRAMES:]])[
            -RECENT_FRAMES:]

    @property
    def median_ms(self) -> float:
        return float(np.median(self.recent))

    def to_dict(self, point: tuple[int, ...]) -> dict[str, Any]:
        return {"point": list(point), "visits": self.visits, "slow": self.slow,
                "max_ms": self.max_ms, "recent": list(self.recent),
                "reported": self.reported, "recheck_at": self.recheck_at,
                "drawn_at": None if self.drawn_at is None else list(self.drawn_at)}


@register("performance", PerformanceConfig)
class PerformanceOracle(Oracle):
    """Reports each point once when most of its visits so far rendered slowly."""

    name = "performance"
    requires = frozenset({f"info.{PEAK_GROWTH_KEY}"})
    statistical = True
    """A point is reported when most of its visits were slow: its replay needs many copies."""

    def __init__(self, spec: GameSpec, config: PerformanceConfig, context: Context) -> None:
        self.bins = spec.resolve_bins(config.bins, "performance.bins")
        if spec.position and config.bins is None:  # a slow place is a place, whichever way one looks
            self.bins = tuple(b if name in spec.position else 1 for name, b in zip(spec.feature_names, self.bins))
        self.spec = spec
        self.config = config
        self.line = FrameThreshold(config.sd_factor, config.floor_ms, config.delta)
        self.points: dict[tuple[int, ...], PointStats] = {}

    def calibrate(self, rollouts: RolloutBatch) -> None:
        """Set the slow-frame threshold from the frame times of the warm-up rollouts.

        Rollouts without a single finite frame time leave the oracle uncalibrated; the next
        :meth:`check` then calibrates on its own batch.
        """
        frames = [np.asarray(r.frame_ms, dtype=np.float64) for r in rollouts]
        frames = [f for f in frames if f.size]
        if not frames:
            return
        self.line.calibrate(np.concatenate(frames))

    @property
    def threshold_ms(self) -> float | None:
        """The calibrated (unshifted) slow-frame line; None before calibration."""
        return self.line.base_ms

    def batch_threshold(self, frame_ms: np.ndarray) -> float:
        """The threshold for a batch of frame times: the calibrated one, shifted by RELINE's
        delta when the batch's quartiles are above the warm-up's."""
        return self.line.for_batch(frame_ms)

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """Count this batch's visits per point; report the points that just became slow.

        A point is reported once, when it has at least ``min_visits`` visits and more than
        ``slow_share`` of them were slow, at the first of its slow steps in this batch (so
        the report has a replay handle that shows the slowness). A point that qualifies in a
        batch without a slow step there waits for the next batch that has one.
        """
        if self.threshold_ms is None:
            self.calibrate(rollouts)
            if self.threshold_ms is None:
                return []
        cfg = self.config

        batch = rollouts
        if not len(batch) or batch.actions.shape[1] == 0:
            return []
        # One row per step taken: which rollout and step, the point after it, its frame time.
        # np.nonzero walks row-major, so rows come in batch order and, within a rollout, in
        # step order: "the first slow visit" below is well defined.
        taken = batch.valid & np.isfinite(batch.frame_ms)
        grew = batch.info.get(PEAK_GROWTH_KEY)
        if grew is not None and grew.shape == taken.shape:  # a leak's steps are the leak's report
            taken &= ~(np.asarray(grew, dtype=np.float64) >= ALLOCATING_MB)
        rows, cols = np.nonzero(taken)
        keys = batch.state_keys(self.spec, self.bins)[:, 1:][rows, cols]
        ms_a = batch.frame_ms[rows, cols]
        t_ms = self.batch_threshold(ms_a)
        slow_a = ms_a > t_ms
        space = self.spec.key_space(self.bins)
        present, first, visits = tally(keys, space)
        slow_present, _, slow_counts = tally(keys[slow_a], space)
        slow_of = dict(zip(slow_present.tolist(), slow_counts.tolist()))
        # Keys are hashes: a point's bucket indices come from the state of its first visit.
        points = self.spec.buckets(batch.features[rows[first], cols[first] + 1], self.bins)

        found: list[tuple[int, int, Bug]] = []
        for key, n_visits, point_arr in zip(present.tolist(), visits.tolist(), points):
            point = tuple(int(v) for v in point_arr)
            stats = self.points.get(point)
            if stats is None:
                stats = self.points[point] = PointStats()
            stats.visits += n_visits
            stats.slow += slow_of.get(key, 0)
            if stats.slow == 0:
                continue  # never slow: counts are all it needs (frame times kept once slow)
            mine = np.flatnonzero(keys == key)  # batch order within the point
            stats.remember(ms_a[mine])
            stats.max_ms = max(stats.max_ms, float(ms_a[mine].max()))
            slow_rows = mine[slow_a[mine]]
            if stats.drawn_at is None and slow_rows.size:
                k = slow_rows[0]
                stats.drawn_at = tuple(float(v) for v in batch.features[rows[k], cols[k] + 1])
            if stats.reported or slow_rows.size == 0 or stats.visits < stats.recheck_at:
                continue
            if not is_low_fps(stats.visits, stats.slow, cfg.min_visits, cfg.slow_share):
                continue
            stats.reported = True
            # The first slow visit, not the slowest: which one is slowest is up to the
            # machine, and the report must not change between two runs of one seed.
            k = slow_rows[0]
            r_idx, s_idx, frame = int(rows[k]), int(cols[k]), float(ms_a[k])
            # The frame is drawn in the state the step arrived in (the point's), not the one
            # it left: the report names both, the arrival first.
            arrived = batch.features[r_idx, s_idx + 1]
            left = batch.features[r_idx, s_idx]
            found.append((r_idx, s_idx, Bug.at_step(
                batch[r_idx], s_idx,
                kind="performance",
                oracle=self.name,
                signature=f"performance:{point}",
                message=(
                    f"slow frame drawn at {describe_state(self.spec, arrived)} (the step from "
                    f"{describe_state(self.spec, left)}), point "
                    f"{describe_point(self.spec, point)}: {stats.slow} of "
                    f"{stats.visits} visits over {t_ms:.3g} ms (this one {frame:.3g} ms)"
                ),
                data={"frame_ms": frame, "threshold_ms": t_ms, "visits": stats.visits,
                      "slow": stats.slow, "median_ms": stats.median_ms,
                      "max_ms": stats.max_ms, "point": list(point),
                      "drawn_at": [float(v) for v in arrived]},
            )))
        found.sort(key=lambda x: (x[0], x[1]))
        return [bug for _, _, bug in found]

    def confirm(self, bugs: list[Bug], replay: Replay) -> list[Bug]:
        """Each flagged point's report played again (:attr:`PerformanceConfig.confirm_replays`
        copies); kept, with how many replays were slow, where more than ``slow_share`` of those
        that reached the point were. A refuted point is flagged again only once its visits have
        doubled. In a game that does not replay (sticky inputs) a replay may end its step
        elsewhere, and says nothing of the point; where none reached it, the point's visits
        are all the evidence there is, and the report is kept saying so."""
        n = self.config.confirm_replays
        if not n:
            return bugs
        kept = []
        for bug in bugs:
            point = tuple(int(v) for v in bug.data["point"])
            stats = self.points[point]
            slow, reached = self._slow_again(replay(bug.episode_seed, bug.actions, n), bug.step, point)
            if not reached:
                kept.append(replace(bug, message=f"{bug.message}; no replay of {n} reached it (the game does not replay)",
                                    data={**bug.data, "replays": n, "replays_slow": 0, "replays_reached": 0}))
            elif slow > self.config.slow_share * reached:
                within = "" if reached == n else f" (of {n}, {reached} reached it)"
                kept.append(replace(bug, message=f"{bug.message}; slow again in {slow} of {reached} replays{within}",
                                    data={**bug.data, "replays": n, "replays_slow": slow, "replays_reached": reached}))
            else:
                stats.reported, stats.recheck_at = False, 2 * stats.visits
        return kept

    def _slow_again(self, replays: RolloutBatch, step: int, point: tuple[int, ...]) -> tuple[int, int]:
        """How many ``replays`` drew frame ``step`` over the line shifted for their frames (a
        replay that ended before it, or timed it as nothing, is not slow), and how many drew it
        in ``point``."""
        frames = replays.frame_ms
        timed = replays.valid & np.isfinite(frames)
        if step >= frames.shape[1] or not timed.any():
            return 0, len(replays)
        there = (self.spec.buckets(replays.features[:, step + 1], self.bins) == np.asarray(point)).all(axis=-1)
        line = self.batch_threshold(frames[timed])
        return int(((frames[:, step] > line) & timed[:, step] & there).sum()), int((there & timed[:, step]).sum())

    def tables(self) -> dict[str, "pd.DataFrame"]:
        """``low_fps_points``: :meth:`low_fps_points` as a table, for the run directory."""
        import pandas as pd

        rows = self.low_fps_points()
        columns = None if rows else ["point", "drawn_at", "visits", "slow", "confidence", "median_ms",
                                     "max_ms", "threshold_ms", "reported"]
        return {"low_fps_points": pd.DataFrame(rows, columns=columns)}

    def low_fps_points(self) -> list[dict[str, Any]]:
        """Every point that had a slow frame, slowest share first: what ``low_fps_points.csv``
        holds. ``confidence`` is the share of the point's visits that were slow; ``reported``
        says whether it passed the rule (and is in ``bugs.jsonl``). Median and max are over
        the frames kept since the point's first slow one (the latest :data:`RECENT_FRAMES`
        for the median); ``drawn_at`` is the state that first slow frame was drawn in."""
        rows = []
        for point, stats in self.points.items():
            if stats.slow == 0:
                continue
            rows.append({
                "point": " ".join(str(v) for v in point),
                **point_bounds(self.spec, self.bins, point),
                "drawn_at": "" if stats.drawn_at is None else " ".join(f"{v:.6g}" for v in stats.drawn_at),
                "visits": stats.visits,
                "slow": stats.slow,
                "confidence": stats.slow / stats.visits,
                "median_ms": stats.median_ms,
                "max_ms": stats.max_ms,
                "threshold_ms": self.threshold_ms,
                "reported": stats.reported,
            })
        rows.sort(key=lambda r: (-r["confidence"], -r["median_ms"], r["point"]))
        return rows

    def forget_visits(self) -> None:
        """Keep the threshold, drop the per-point counts: a replay is judged on its own visits."""
        self.points = {}

    def state_dict(self) -> dict[str, Any]:
        """Threshold and per-point counts, as plain JSON types."""
        q = (self.line.q1_ms, self.line.q3_ms)
        return {
            "threshold_ms": self.line.base_ms,
            "quartiles": None if q[0] is None else list(q),
            "points": [s.to_dict(p) for p, s in sorted(self.points.items())],
        }

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (replaces the current state)."""
        q = d.get("quartiles") or (None, None)
        self.line.load_state_dict({"base_ms": d.get("threshold_ms"), "q1_ms": q[0], "q3_ms": q[1]})
        self.points = {
            tuple(int(v) for v in p["point"]): PointStats(
                visits=int(p["visits"]), slow=int(p["slow"]), max_ms=float(p["max_ms"]),
                recent=[float(v) for v in p["recent"]], reported=bool(p["reported"]),
                recheck_at=int(p.get("recheck_at", 0)),
                drawn_at=None if p.get("drawn_at") is None else tuple(float(v) for v in p["drawn_at"]),
            )
            for p in d.get("points", [])
        }
