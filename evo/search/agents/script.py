"""A fixed action script per copy: what a replay plays to reproduce a reported bug.

The episode's seed and its actions are enough to replay it (the rollout batch's contract):
the script agent plays the actions back, one list per copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from evo.search.agents.base import check_copies


class ScriptAgent:
    """Plays ``scripts[i]`` in copy i, then action 0 once a script runs out.

    Args:
        scripts: One action sequence per copy.
        n_actions: The game's actions (the width of ``probs``).
    """

    def __init__(self, scripts: Sequence[Sequence[int]], n_actions: int) -> None:
        width = max((len(s) for s in scripts), default=0)
        self.table = np.zeros((len(scripts), max(width, 1)), dtype=np.int64)
        for i, acts in enumerate(scripts):
            self.table[i, : len(acts)] = acts
        self.eye = np.eye(n_actions, dtype=np.float32)

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.table.shape[0], "script agent")

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        """The scripts' actions at step ``t``; ``probs`` one-hot on them (nothing is sampled)."""
        actions = self.table[:, min(t, self.table.shape[1] - 1)]
        return actions, self.eye[actions]

    def planned(self, t: int, k: int) -> np.ndarray:
        """``[k, N]``: what :meth:`act` plays at steps ``t`` to ``t + k - 1``."""
        return self.table[:, np.minimum(np.arange(t, t + k), self.table.shape[1] - 1)].T


@dataclass(frozen=True)
class ScriptSpec:
    """One action script per policy of a task, each played in all of that policy's episodes."""

    scripts: tuple[tuple[int, ...], ...]

    def build(self, episodes: int, gumbel: np.ndarray) -> ScriptAgent:
        copies = [s for s in self.scripts for _ in range(episodes)]  # policy-major
        return ScriptAgent(copies, gumbel.shape[2])
