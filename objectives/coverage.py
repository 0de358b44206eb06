"""State coverage: how much of the game a policy visits (Wuji's exploration goal).

Wuji cuts each state feature into m equal intervals; a state's bucket is the tuple of its
intervals, and coverage is the number of distinct buckets visited across the policy's
episodes.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np
from pydantic import Field

from games.core.component import Context
from games.core.base import GameSpec
from games.core.buckets import count_keys, tally
from games.core.record import Rollout, RolloutBatch
from objectives.base import Objective, ObjectiveConfig, register


class CoverageConfig(ObjectiveConfig):
    """Options of the coverage objective."""

    intervals: list[int] | int | None = Field(
        default=None,
        description="Equal intervals per state feature (Wuji's m): one number for all "
        "features, one per feature, or null for the game's natural resolution.",
    )


def visited_keys(spec: GameSpec, bins: Sequence[int], batch: RolloutBatch) -> np.ndarray:
    """Sorted distinct bucket keys of every state the batch's episodes visited."""
    keys = batch.state_keys(spec, bins)[batch.state_mask()]
    return count_keys(keys, spec.key_space(bins))[0]


@register("coverage", CoverageConfig)
class Coverage(Objective):
    """Distinct state buckets visited across a policy's episodes (larger is better).

    Dense reward for RL: +1 on each step that enters a bucket not yet seen in the episode,
    a count-based exploration bonus whose sum over an episode is the episode's coverage minus
    one (the reset state's bucket is given, not earned).
    """

    name = "coverage"
    sense: Literal["max", "min"] = "max"

    def __init__(self, spec: GameSpec, config: CoverageConfig, context: Context) -> None:
        self.spec = spec
        self.bins = spec.resolve_bins(config.intervals, "intervals")

    def keys(self, rollout: Rollout) -> np.ndarray:
        """Bucket key of every state of the rollout (reset state included)."""
        return self.spec.bucket_keys(rollout.features, self.bins)

    def score(self, rollouts: RolloutBatch) -> float:
        if not len(rollouts):
            return 0.0
        return float(visited_keys(self.spec, self.bins, rollouts).size)

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        keys = self.keys(rollout)
        _, first = np.unique(keys, return_index=True)
        new = np.zeros(keys.shape[0], dtype=np.float64)
        new[first] = 1.0
        return new[1:]  # the reset state is not reached by any step


class CoverageTracker:
    """Buckets visited by the whole run so far: the coverage column of ``generations.csv``.

    Kept apart from the objective so that runs which do not optimise coverage still report
    it, measured the same way.
    """

    def __init__(self, spec: GameSpec, intervals: list[int] | int | None = None) -> None:
        self.spec = spec
        self.bins = spec.resolve_bins(intervals, "intervals")
        self.visited: set[int] = set()
        self.cells: set[tuple[int, ...]] = set()
        """Map cells visited: the buckets of the first two state features at the game's
        ``feature_bins`` (keys are hashes, so the coverage maps read these instead)."""

    def update(self, batch: RolloutBatch) -> int:
        """Add the batch's buckets; return the run's coverage."""
        if not len(batch):
            return len(self.visited)
        mask = batch.state_mask()
        keys, first, _ = tally(batch.state_keys(self.spec, self.bins)[mask], self.spec.key_space(self.bins))
        new = np.fromiter((k not in self.visited for k in keys.tolist()), dtype=bool, count=keys.size)
        if new.any():
            self.visited.update(keys[new].tolist())
            states = batch.features[mask][first[new]]
            cells = self.spec.buckets(states)[:, :2]
            self.cells.update(tuple(int(v) for v in c) for c in cells)
        return len(self.visited)

    def state_dict(self) -> dict[str, Any]:
        return {"visited": sorted(self.visited), "cells": sorted(list(c) for c in self.cells)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.visited = set(int(k) for k in state["visited"])
        self.cells = set(tuple(int(v) for v in c) for c in state.get("cells", []))
