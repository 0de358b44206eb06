"""Return, then explore: each copy first replays an archived cell's action prefix, then the
inner agent plays on (Go-Explore; Ecoffet et al., Nature 2021).

The wrapper changes nothing in :func:`evo.search.play.play`: copy i plays ``prefixes[i]`` for
``t < len(prefixes[i])`` and the inner agent's actions after. Started from the cell's
episode seed, the record then holds prefix and exploration together from the reset, so a
bug found after a return replays like any other, and the replayed steps count as env steps.
A copy with an empty prefix starts from the reset as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from evo.search.agents.base import Agent, AgentSpec


class ReturningAgent:
    """Plays each copy's prefix, then ``inner``.

    Args:
        inner: The agent that explores once a copy's prefix is played.
        table: ``[N, L]`` int64 prefix actions, padded.
        lengths: ``[N]`` prefix length of each copy (0: no return).
        n_actions: The game's actions (the width of ``probs``).
    """

    def __init__(self, inner: Agent, table: np.ndarray, lengths: np.ndarray, n_actions: int) -> None:
        self.inner = inner
        self.table = table
        self.lengths = lengths
        self.eye = np.eye(n_actions, dtype=np.float32)

    def reset(self, seeds: Sequence[int]) -> None:
        if len(seeds) != self.lengths.shape[0]:
            raise ValueError(f"returning agent: {len(seeds)} episode seeds for {self.lengths.shape[0]} copies")
        self.inner.reset(seeds)

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        """The prefix action (``probs`` one-hot: nothing was sampled) where ``t`` is still in
        a copy's prefix, the inner agent's elsewhere."""
        actions, probs = self.inner.act(obs, features, infos, t)
        returning = t < self.lengths
        if not returning.any():
            return actions, probs
        actions, probs = actions.copy(), probs.copy()
        actions[returning] = self.table[returning, t]
        probs[returning] = self.eye[actions[returning]]
        return actions, probs

    def planned(self, t: int, k: int) -> np.ndarray | None:
        """``[k', N]``: the prefixes' actions, else the inner agent's plan, at steps ``t`` on;
        None where the inner agent has no plan (it looks at what it sees)."""
        inner = getattr(self.inner, "planned", None)
        block = None if inner is None else inner(t, k)
        if block is None:
            return None
        steps = np.arange(t, t + block.shape[0])
        prefix = self.table[:, np.minimum(steps, self.table.shape[1] - 1)].T
        return np.where(steps[:, None] < self.lengths[None, :], prefix, block)


@dataclass(frozen=True, eq=False)
class ReturningSpec:
    """What a task carries: the inner agent's spec and one prefix per copy of the task.

    Attributes:
        inner: The exploring agent's spec.
        table: ``[N, L]`` int64 padded prefixes, one row per copy (policy-major).
        lengths: ``[N]`` int64 prefix lengths.
    """

    inner: AgentSpec
    table: np.ndarray
    lengths: np.ndarray

    @classmethod
    def of(cls, inner: AgentSpec, prefixes: Sequence[np.ndarray]) -> "ReturningSpec":
        """The spec from one prefix per copy (empty: that copy starts from the reset)."""
        lengths = np.array([len(p) for p in prefixes], dtype=np.int64)
        table = np.zeros((len(prefixes), max(int(lengths.max(initial=0)), 1)), dtype=np.int64)
        for i, p in enumerate(prefixes):
            table[i, : len(p)] = p
        return cls(inner, table, lengths)

    def build(self, episodes: int, gumbel: np.ndarray) -> ReturningAgent:
        if gumbel.shape[0] != self.lengths.shape[0]:
            raise ValueError(f"returning agent: {self.lengths.shape[0]} prefixes for {gumbel.shape[0]} copies")
        return ReturningAgent(self.inner.build(episodes, gumbel), self.table, self.lengths, gumbel.shape[2])
