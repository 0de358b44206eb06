"""What :func:`evo.search.play.play` writes as the copies play: preallocated time-major rows,
one per step, and each episode's end, cut into a :class:`RolloutBatch` once all are over.

Whole columns are written every step, done copies included: a done copy's values are frozen
by the game and cut off at its length, and masked writes cost more.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from games.core.base import GameError, GameSpec
from games.core.record import CLOCK_KEY, RolloutBatch, blank, info_keys


class PlayRecord:
    """The record of one call of ``play``: ``n`` copies for at most ``horizon`` steps.

    Args:
        spec: The game's spec (features, actions).
        columns: The optional record columns to keep.
        obs: ``[n, obs_dim]`` the first observations; ``features``: ``[n, F]`` the first features.
        snapshot_every: Whether snapshots are kept (0: none).
    """

    def __init__(self, spec: GameSpec, horizon: int, columns: frozenset[str], obs: np.ndarray, features: np.ndarray,
                 snapshot_every: int) -> None:
        n = len(obs)
        self.n, self.snapshot_every = n, snapshot_every
        self.actions = np.zeros((horizon, n), dtype=np.int64)
        self.rewards = np.zeros((horizon, n), dtype=np.float64)
        self.frame_ms = np.zeros((horizon, n), dtype=np.float64)
        self.features = np.zeros((horizon + 1, n, spec.n_features), dtype=np.float64)
        self.features[0] = features
        # Observations batch-major: frames are large rows, each copy's a contiguous write, and a
        # time-major record's transposed copy at the end cost a tenth of a park step.
        self.obs = np.zeros((n, horizon + 1, obs.shape[1]), dtype=obs.dtype) if "obs" in columns else None
        if self.obs is not None:
            self.obs[:, 0] = obs
        self.probs = np.zeros((horizon, n, spec.n_actions), dtype=np.float32) if "probs" in columns else None
        self.info_keys = info_keys(columns)
        self.info: dict[str, np.ndarray] = {}  # allocated at a key's first value, in its dtype
        self.clock = blank((horizon, n), np.dtype(np.float64)) if CLOCK_KEY in self.info_keys else None
        if self.clock is not None:
            self.info[CLOCK_KEY] = self.clock
        self.lengths = np.zeros(n, dtype=np.int64)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.done = np.zeros(n, dtype=bool)
        self.errors: dict[int, GameError] = {}
        self.violations: list[list[tuple[int, str]]] = [[] for _ in range(n)]
        self.snapshots: list[dict[int, bytes]] = [{} for _ in range(n)]

    def keep_starts(self, starts: Sequence[bytes | None]) -> None:
        """The snapshots each copy started from, as its step 0's."""
        for i, start in enumerate(starts):
            if start is not None:
                self.snapshots[i][0] = start

    def act(self, t: int, actions: np.ndarray, probs: np.ndarray) -> None:
        """The actions chosen for step ``t`` (and their probabilities, where kept)."""
        self.actions[t] = actions
        if self.probs is not None:
            self.probs[t] = probs

    def broke(self, t: int, alive: np.ndarray, exc: Exception) -> None:
        """The game failed as a whole at step ``t``: every running copy crashed there."""
        err = GameError.from_exception(exc)
        for i in np.flatnonzero(alive):
            self.errors[int(i)] = err
        self.lengths[alive] = t + 1
        self.features[t + 1] = self.features[t]
        self.terminated[alive] = True

    def step(self, t: int, step: Any, obs: np.ndarray, elapsed_ms: float, alive: np.ndarray) -> None:
        """What step ``t`` gave (a :class:`games.core.base.VecStep`, its observations as rows),
        ``elapsed_ms`` the wall time of the game's call."""
        infos = step.info
        if self.clock is not None:
            self.clock[t] = time.time()
        for name in self.info_keys:
            if name in infos and name != CLOCK_KEY:
                if name not in self.info:
                    self.info[name] = blank(self.actions.shape, np.asarray(infos[name]).dtype)
                self.info[name][t] = infos[name]
        self.rewards[t] = step.reward
        self.frame_ms[t] = elapsed_ms / max(int(alive.sum()), 1) if step.frame_ms is None else step.frame_ms
        self.features[t + 1] = step.features
        if self.obs is not None:
            self.obs[:, t + 1] = obs

    def end(self, t: int, step: Any, met: dict[int, GameError], alive: np.ndarray, limit: np.ndarray | None) -> bool:
        """Which episodes step ``t`` ended (``met``: the errors it gave running copies; ``limit``:
        each copy's last step); whether all are over."""
        ended = np.asarray(step.terminated, dtype=bool)
        if met:
            ended = ended.copy()
            self.errors.update(met)
            ended[list(met)] = True
        for i, msgs in step.violations.items():
            if alive[i]:
                self.violations[i].extend((t, m) for m in msgs)
        for i, snapshot in step.snapshots.items():
            if alive[i]:
                self.snapshots[i][t + 1] = snapshot
        self.lengths[alive] = t + 1
        self.terminated |= alive & ended
        self.truncated |= alive & np.asarray(step.truncated, dtype=bool) & ~self.terminated
        if limit is not None:  # the copy's segment is over
            self.truncated |= alive & (t + 1 >= limit) & ~self.terminated
        self.done = self.terminated | self.truncated
        return bool(self.done.all())

    def batch(self, policy_ids: Sequence[int], seeds: Sequence[int], heads: Sequence[np.ndarray] | None) -> RolloutBatch:
        """The episodes as played, cut at the longest (``heads``: the prefixes of copies that
        started from snapshots, None: all from the reset)."""
        n = self.n
        self.truncated |= ~(self.terminated | self.truncated)  # ran out of horizon without the game saying so
        used = int(self.lengths.max()) if n else 0  # steps beyond every episode's end are dropped
        return RolloutBatch(
            policy=np.asarray(policy_ids, dtype=np.int64),
            episode_seed=np.asarray(seeds, dtype=np.int64),
            actions=self.actions[:used].T,
            rewards=self.rewards[:used].T,
            features=self.features[: used + 1].transpose(1, 0, 2),
            frame_ms=self.frame_ms[:used].T,
            lengths=self.lengths,
            terminated=self.terminated,
            truncated=self.truncated,
            errors=self.errors,
            violations={i: tuple(v) for i, v in enumerate(self.violations) if v},
            obs=self.obs[:, : used + 1] if self.obs is not None else None,
            probs=self.probs[:used].transpose(1, 0, 2).copy() if self.probs is not None else None,
            info={name: (self.info[name][:used].T.copy() if name in self.info else np.zeros((n, used)))
                  for name in self.info_keys},
            head=tuple(np.asarray(h, dtype=np.int64) for h in heads) if heads is not None else None,
            snapshots=tuple(self.snapshots) if self.snapshot_every else None,
        )
