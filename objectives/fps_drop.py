"""FPS drop: RELINE's load-testing objective, distinct places where frames render slowly.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games"):
a frame is slow when it took longer than ``t = mean + 5 sd`` of the frame times of a
baseline, shifted by ``delta = max(Q1_train - Q1_base, Q3_train - Q3_base)`` for the extra
load of training; the agent earns +10 per slow step and, at the end of the episode, a bonus
of 10 times the sum of those rewards.

In this engine:

- **Baseline** (``update``): the frame times of the first ``warmup_rollouts`` rollouts given
  to :meth:`FpsDrop.update` (by default every rollout of its first call, i.e. the first
  generation's evaluation). ``t_base = max(floor_ms, mean + sd_factor * sd)`` of the
  baseline's normal frames (those under the line, so that slow frames, rare or not, do not
  lift it over themselves) and ``Q1_base``, ``Q3_base`` the 25th and 75th percentiles of the
  whole baseline: :class:`oracles.frame_threshold.FrameThreshold`, the performance oracle's line.
- **Shift** (``delta: true``): every later ``update(all_rollouts)`` (one per generation, the
  generation's evaluation batch of the whole population) recomputes ``Q1_train`` and
  ``Q3_train`` from that batch's frame times and sets
  ``delta = max(Q1_train - Q1_base, Q3_train - Q3_base)``. The threshold is
  ``t = t_base + max(0, delta)``: a lighter load than the baseline's never lowers ``t`` below
  the five-sigma line, where noise would count as slow frames. Scores of generation g use the
  delta of generation g - 1's batch. Quartiles over the whole population's frames stay put
  unless more than a quarter of all frames are slow.
- **Before calibration** (the first generation is scored before the first ``update``):
  :meth:`FpsDrop.score` and :meth:`FpsDrop.step_rewards` judge the rollouts they are given
  against a provisional threshold computed from those same rollouts (same rule, not kept),
  so first-generation scores are meaningful; a policy's own slow frames do not hide
  themselves unless they are over a quarter of its frames.
- **Point**: the bucket (at ``bins``, default the game's ``feature_bins``) of the state after
  the step, as the performance oracle's. ``region`` limits everything to steps whose state
  after the step lies in a box (RELINE rewards only slow frames near the track).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from games.core.component import Context
from games.core.base import GameSpec
from games.core.buckets import count_keys
from games.core.record import Rollout, RolloutBatch
from objectives.base import Objective, ObjectiveConfig, register
from oracles.frame_threshold import FrameThreshold, finite

BONUS_FACTOR = 10.0
"""RELINE: end-of-episode bonus = 10 x the sum of the episode's step rewards."""


class Region(BaseModel):
    """A box in state-feature space, bounds included."""

    model_config = ConfigDict(extra="forbid")

    low: list[float] = Field(description="Lowest value of each state feature.")
    high: list[float] = Field(description="Highest value of each state feature.")


class FpsDropConfig(ObjectiveConfig):
    """Options of the fps_drop objective."""

    sd_factor: float = Field(
        default=5.0, gt=0.0,
        description="Standard deviations above the baseline mean a frame must take to be slow "
        "(RELINE: 5).",
    )
    warmup_rollouts: int | None = Field(
        default=None, ge=1,
        description="How many of the first rollouts given to update() make the baseline; "
        "null: all rollouts of the first update() call.",
    )
    delta: bool = Field(
        default=True,
        description="Shift the threshold by RELINE's delta = max(Q1_train - Q1_base, "
        "Q3_train - Q3_base), recomputed from each later update() batch (never below 0).",
    )
    floor_ms: float = Field(
        default=0.0, ge=0.0,
        description="Frames faster than this are never slow (keeps scheduler jitter out).",
    )
    step_reward: float = Field(
        default=10.0, description="Dense reward per slow step (RELINE: +10)."
    )
    episode_bonus: bool = Field(
        default=True,
        description="Add 10 x the episode's summed step rewards at its last step (RELINE).",
    )
    region: Region | None = Field(
        default=None,
        description="Only steps whose state after the step lies in this box count; null: all.",
    )
    bins: list[int] | None = Field(
        default=None,
        description="Intervals per state feature that make a point; null: the game's "
        "feature_bins.",
    )
    once_per_point: bool = Field(
        default=False,
        description="Reward a slow step only the first time its point is slow in the episode "
        "(RELINE's injected-bug reward: +50 the first time each bug shows in an episode); "
        "false: every slow step (RELINE's load-testing reward).",
    )
    score: Literal["distinct", "per_episode"] = Field(
        default="distinct",
        description="distinct: points with a slow frame across all the policy's episodes; "
        "per_episode: the mean over its episodes of the points where more than half of the "
        "episode's visits were slow (rewards finding several in one episode, as RELINE's "
        "Table 1 counts them; the majority keeps single delayed frames out).",
    )


def _frames(batch: RolloutBatch) -> np.ndarray:
    """Every finite frame time of the batch's steps, in order."""
    return finite(batch.frame_ms[batch.valid])


@register("fps_drop", FpsDropConfig)
class FpsDrop(Objective):
    """Distinct points where a frame rendered slower than the calibrated threshold.

    ``score`` (larger is better) counts the points (buckets of the state after a step) with
    at least one slow frame across the policy's episodes: RELINE's fitness, distinct low-FPS
    points found. ``step_rewards`` is RELINE's dense reward.
    """

    name = "fps_drop"
    sense: Literal["max", "min"] = "max"
    ranks_players = True
    """RELINE evaluates the agent trained to find slow frames: a study of trained players
    ranks a run's final policies by this objective unless told another."""

    def __init__(self, spec: GameSpec, config: FpsDropConfig, context: Context) -> None:
        n = spec.n_features
        self.bins = spec.resolve_bins(config.bins, "fps_drop.bins")
        if config.region is not None and not (len(config.region.low) == len(config.region.high) == n):
            raise ValueError(
                f"fps_drop.region needs {n} values in low and in high (one per state feature: "
                f"{', '.join(spec.feature_names)})"
            )
        self.spec = spec
        self.config = config
        self.line = FrameThreshold(config.sd_factor, config.floor_ms, config.delta)
        self.delta_ms = 0.0
        self._warmup_frames: list[float] = []
        self._warmup_seen = 0

    # ------------------------------------------------------------------ threshold
    @property
    def calibrated(self) -> bool:
        return self.line.calibrated

    @property
    def base_ms(self) -> float | None:
        """The calibrated five-sigma line before the shift; None before calibration."""
        return self.line.base_ms

    @property
    def q1_base(self) -> float | None:
        return self.line.q1_ms

    @property
    def q3_base(self) -> float | None:
        return self.line.q3_ms

    @property
    def threshold_ms(self) -> float | None:
        """``t = t_base + max(0, delta)``; None before calibration."""
        return self.line.at(self.delta_ms) if self.calibrated else None

    def _threshold_for(self, frame_ms: np.ndarray) -> float:
        """The calibrated threshold, or before calibration a provisional one from the frame
        times at hand."""
        t = self.threshold_ms
        return self.line.provisional(finite(np.asarray(frame_ms, dtype=np.float64))) if t is None else t

    def _set_baseline(self, frame_ms: np.ndarray) -> None:
        """Set the baseline (threshold and quartiles) from warm-up frame times."""
        if self.line.calibrate(frame_ms):
            self.delta_ms = 0.0
            self._warmup_frames = []

    def update(self, rollouts: RolloutBatch) -> None:
        """Calibrate on the warm-up rollouts, then refresh delta from each later batch."""
        rest = rollouts
        if not self.calibrated:
            want = self.config.warmup_rollouts
            take = len(rollouts) if want is None else min(len(rollouts), want - self._warmup_seen)
            self._warmup_frames.extend(_frames(rollouts[:take]).tolist())
            self._warmup_seen += take
            if want is None or self._warmup_seen >= want:
                self._set_baseline(np.asarray(self._warmup_frames))
            rest = rollouts[take:]
        if self.calibrated and self.config.delta and len(rest):
            shift = self.line.delta(_frames(rest))
            self.delta_ms = self.delta_ms if shift is None else shift

    # ------------------------------------------------------------------ slow steps
    def _in_region(self, features: np.ndarray) -> np.ndarray:
        region = self.config.region
        if region is None:
            return np.ones(features.shape[:-1], dtype=bool)
        low, high = np.asarray(region.low), np.asarray(region.high)
        return ((features >= low) & (features <= high)).all(axis=-1)

    def slow_steps(self, rollout: Rollout, t_ms: float | None = None) -> np.ndarray:
        """``[T]`` bool: the steps whose frame was over ``t`` (default: the current one)
        and whose state after the step lies in the region."""
        t = self._threshold_for(rollout.frame_ms) if t_ms is None else t_ms
        frames = np.asarray(rollout.frame_ms, dtype=np.float64)
        return (frames > t) & self._in_region(np.asarray(rollout.features)[1:])

    def score(self, rollouts: RolloutBatch) -> float:
        if not len(rollouts):
            return 0.0
        t = self._threshold_for(_frames(rollouts))
        if self.config.score == "per_episode":
            return float(np.mean([self._episode_points(r, t) for r in rollouts]))
        slow = rollouts.valid & (rollouts.frame_ms > t) & self._in_region(rollouts.features[:, 1:])
        keys = rollouts.state_keys(self.spec, self.bins)[:, 1:][slow]
        return float(count_keys(keys, self.spec.key_space(self.bins))[0].size)

    def _episode_points(self, rollout: Rollout, t_ms: float) -> int:
        """Points of one episode where more than half of its visits there were slow:
        RELINE's majority rule within the episode, so that one frame delayed by the machine
        at a point visited several times does not count."""
        slow = self.slow_steps(rollout, t_ms)
        if not slow.any():
            return 0
        keys = self.spec.bucket_keys(np.asarray(rollout.features)[1:], self.bins)
        _, inverse = np.unique(keys, return_inverse=True)
        visits = np.bincount(inverse)
        slow_visits = np.bincount(inverse, weights=slow.astype(np.float64), minlength=visits.size)
        return int(np.sum(slow_visits > 0.5 * visits))

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        """+``step_reward`` per slow step (with ``once_per_point``, per point first slow in
        the episode); with ``episode_bonus``, 10 x their sum added at the last step (RELINE)."""
        slow = self.slow_steps(rollout)
        if self.config.once_per_point and slow.any():
            keys = self.spec.bucket_keys(np.asarray(rollout.features)[1:], self.bins)
            steps = np.flatnonzero(slow)
            _, first = np.unique(keys[steps], return_index=True)
            slow = np.zeros_like(slow)
            slow[steps[first]] = True
        rewards = self.config.step_reward * slow.astype(np.float64)
        if self.config.episode_bonus and rewards.size:
            rewards[-1] += BONUS_FACTOR * rewards.sum()
        return rewards

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Baseline, quartiles, delta and any unfinished warm-up, as plain JSON types."""
        return {
            "base_ms": self.line.base_ms,
            "q1_base": self.line.q1_ms,
            "q3_base": self.line.q3_ms,
            "delta_ms": self.delta_ms,
            "warmup_seen": self._warmup_seen,
            "warmup_frames": list(self._warmup_frames),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.line.load_state_dict({"base_ms": state.get("base_ms"), "q1_ms": state.get("q1_base"),
                                   "q3_ms": state.get("q3_base")})
        self.delta_ms = float(state.get("delta_ms", 0.0))
        self._warmup_seen = int(state.get("warmup_seen", 0))
        self._warmup_frames = [float(v) for v in state.get("warmup_frames", [])]
