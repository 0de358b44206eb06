"""Per-episode scores: the cases that lexicase selection compares policies on.

A policy's objective value averages (or pools) its episodes; a case is one objective's score
on one single episode, so a policy that found something on one episode only stands out.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.core.record import RolloutBatch


def episode_cases(objectives: Sequence[Any], rollouts: RolloutBatch, episodes: int) -> np.ndarray:
    """``[P, M, E]``: objective ``m``'s score on episode ``e`` alone of policy ``p``.

    Args:
        objectives: The experiment's objectives (``score(rollouts) -> float`` each).
        rollouts: ``P * episodes`` rollouts, each policy's episodes in a row.
        episodes: Episodes per policy.
    """
    n = len(rollouts) // episodes
    cases = np.zeros((n, len(objectives), episodes))
    for p in range(n):
        for e in range(episodes):
            one = rollouts[p * episodes + e : p * episodes + e + 1]
            for m, objective in enumerate(objectives):
                cases[p, m, e] = objective.score(one)
    return cases
