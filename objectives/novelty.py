"""Novelty against the run's history: how rarely the whole run has visited where a policy went.

Coverage counts the buckets a policy visits, whoever visited them before; nothing in it pulls
the population towards the part of the game nobody has reached. Count-based novelty does
(Strehl & Littman 2008; Bellemare et al. 2016; the 1/sqrt(N) bonus): a bucket the run has
visited N times is worth ``1 / sqrt(N + 1)``, so a bucket nobody reached is worth 1 and the
spawn point, visited in every episode, next to nothing. The counts are the run's evaluation
visits so far, the objective's learned state (``update``, checkpointed), so a resumed run
scores as the uninterrupted one would. The RND novelty of pixel games sits beside it under
its own name.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import torch
from pydantic import Field, field_validator

from games.core.component import Context
from games.core.base import GameSpec
from games.core.buckets import count_keys
from games.core.record import Rollout, RolloutBatch
from objectives.base import Objective, ObjectiveConfig, register


class NoveltyConfig(ObjectiveConfig):
    """Options of the novelty objective."""

    intervals: list[int] | int | None = Field(
        default=None,
        description="Equal intervals per state feature that make a bucket: one number for all "
        "features, one per feature, or null for the game's natural resolution.",
    )
    aggregate: Literal["sum", "mean"] = Field(
        "sum", description="Over the distinct buckets a policy visited, of 1/sqrt(N + 1): sum "
        "(reaching many rare buckets) or mean (only how rare they are).",
    )

    @field_validator("intervals")
    @classmethod
    def _positive(cls, intervals: list[int] | int | None) -> list[int] | int | None:
        values = [intervals] if isinstance(intervals, int) else intervals or []
        if any(v < 1 for v in values):
            raise ValueError(f"intervals must be at least 1, got {intervals}")
        return intervals


@register("novelty", NoveltyConfig)
class Novelty(Objective):
    """Count-based novelty of the buckets a policy visited (larger is better).

    Dense reward for RL: on each step that enters a bucket for the first time in the
    episode, ``1 / sqrt(N + 1)`` of that bucket, so a revisited bucket pays less every
    generation; the rewards of an episode sum to its novelty score (``aggregate: sum``)
    minus the reset state's.
    """

    name = "novelty"
    sense: Literal["max", "min"] = "max"
    rescores_parents = True
    """Its scores fall as the run's counts grow, so a survivor scored when its buckets were
    new would outrank every child scored later against larger counts: the loop scores the
    parents again with the children, against the same counts."""

    def __init__(self, spec: GameSpec, config: NoveltyConfig, context: Context) -> None:
        self.spec = spec
        self.bins = spec.resolve_bins(config.intervals, "intervals")
        self.aggregate = config.aggregate
        self.keys = np.zeros(0, dtype=np.int64)
        """Sorted bucket keys the run visited."""
        self.counts = np.zeros(0, dtype=np.int64)
        """Visits of each, every state of every evaluation episode counted."""

    def bonus(self, keys: np.ndarray) -> np.ndarray:
        """``1 / sqrt(N + 1)`` of each key, N the run's visits so far."""
        keys = np.asarray(keys, dtype=np.int64)
        at = np.searchsorted(self.keys, keys)
        hit = at < self.keys.size
        hit[hit] = self.keys[at[hit]] == keys[hit]
        n = np.zeros(keys.shape, dtype=np.float64)
        n[hit] = self.counts[at[hit]]
        return 1.0 / np.sqrt(n + 1.0)

    def score(self, rollouts: RolloutBatch) -> float:
        if not len(rollouts):
            return 0.0
        visited = rollouts.state_keys(self.spec, self.bins)[rollouts.state_mask()]
        bonus = self.bonus(count_keys(visited, self.spec.key_space(self.bins))[0])
        return float(bonus.sum() if self.aggregate == "sum" else bonus.mean())

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        keys = self.spec.bucket_keys(rollout.features, self.bins)
        _, first = np.unique(keys, return_index=True)
        reward = np.zeros(keys.shape[0], dtype=np.float64)
        reward[first] = self.bonus(keys[first])
        return reward[1:]  # the reset state is not reached by any step

    def update(self, rollouts: RolloutBatch) -> None:
        """Count every state the generation's evaluation episodes visited."""
        if not len(rollouts):
            return
        keys, counts = count_keys(rollouts.state_keys(self.spec, self.bins)[rollouts.state_mask()],
                                  self.spec.key_space(self.bins))
        merged, codes = np.unique(np.concatenate([self.keys, keys]), return_inverse=True)
        total = np.zeros(merged.size, dtype=np.int64)
        np.add.at(total, codes, np.concatenate([self.counts, counts]))
        self.keys, self.counts = merged, total

    def state_dict(self) -> dict[str, Any]:
        return {"keys": torch.from_numpy(self.keys.copy()), "counts": torch.from_numpy(self.counts.copy())}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.keys = np.asarray(state["keys"], dtype=np.int64).copy()
        self.counts = np.asarray(state["counts"], dtype=np.int64).copy()
