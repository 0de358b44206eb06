"""State coverage: how much of the game a policy visits (Wuji's exploration goal).

Wuji cuts each state feature into m equal intervals; a state's bucket is the tuple of its
intervals, and coverage is the number of distinct buckets visited across the policy's
episodes.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np
from pydantic import Field

from games.base import GameSpec, Rollout
from objectives.base import ObjectiveConfig, register


class CoverageConfig(ObjectiveConfig):
    """Options of the coverage objective."""

    intervals: list[int] | int | None = Field(
        default=None,
        description="Equal intervals per state feature (Wuji's m): one number for all "
        "features, one per feature, or null for the game's natural resolution.",
    )


def resolve_bins(spec: GameSpec, intervals: list[int] | int | None) -> tuple[int, ...]:
    """Intervals per feature from a config value (see :class:`CoverageConfig`)."""
    if intervals is None:
        return tuple(spec.feature_bins)
    if isinstance(intervals, int):
        return (intervals,) * spec.n_features
    if len(intervals) != spec.n_features:
        raise ValueError(
            f"intervals has {len(intervals)} values but the game has {spec.n_features} state features"
        )
    return tuple(intervals)


@register("coverage", CoverageConfig)
class Coverage:
    """Distinct state buckets visited across a policy's episodes (larger is better).

    Dense reward for RL: +1 on each step that enters a bucket not yet seen in the episode,
    a count-based exploration bonus whose sum over an episode is the episode's coverage minus
    one (the reset state's bucket is given, not earned).
    """

    name = "coverage"
    sense: Literal["max", "min"] = "max"

    def __init__(self, spec: GameSpec, config: CoverageConfig) -> None:
        self.spec = spec
        self.bins = resolve_bins(spec, config.intervals)

    def keys(self, rollout: Rollout) -> np.ndarray:
        """Bucket key of every state of the rollout (reset state included)."""
        return self.spec.bucket_keys(rollout.features, self.bins)

    def score(self, rollouts: Sequence[Rollout]) -> float:
        if not rollouts:
            return 0.0
        return float(np.unique(np.concatenate([self.keys(r) for r in rollouts])).size)

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
        self.bins = resolve_bins(spec, intervals)
        self.visited: set[int] = set()

    def update(self, rollouts: Sequence[Rollout]) -> int:
        """Add the rollouts' buckets; return the run's coverage."""
        if rollouts:
            keys = np.unique(
                np.concatenate([self.spec.bucket_keys(r.features, self.bins) for r in rollouts])
            )
            self.visited.update(int(k) for k in keys)
        return len(self.visited)

    def state_dict(self) -> dict[str, Any]:
        return {"visited": sorted(self.visited)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.visited = set(int(k) for k in state["visited"])
