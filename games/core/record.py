"""The record of play: what objectives and oracles see, and all that a replay needs.

:class:`Rollout` is one episode; :class:`RolloutBatch` is many, as padded columns, and is
what play hands to objectives and oracles. Nothing here knows evolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from games.core.base import GameError, GameSpec

OPTIONAL_COLUMNS = ("obs", "probs", "info.<name>")
"""Columns a batch holds only when an objective or oracle ``requires`` them (play records
nothing else, so an unused column costs nothing): ``obs``, what the agent observed (flat,
``[N, T + 1, obs_dim]`` in the game's ``obs_dtype``, so frames stay uint8: after reset, then
after each step); ``probs``, the acting distribution each action was drawn from
(``[N, T, n_actions]`` float32); ``info.<name>``, the game's named info value ``<name>`` after
each step (``[N, T]``, numbers or objects such as event tuples; :attr:`RolloutBatch.info`)."""

INFO_PREFIX = "info."

OBS_DIGEST_KEY = "obs_digest"
"""The info key a Gymnasium game's copy fills, when asked, with the CRC-32 of the flat
observation after each step: what tells a step that changed the frame from one that did not
where the state features are too coarse to say (:attr:`games.core.base.GameSpec.coarse_features`)."""

PEAK_GROWTH_KEY = "peak_grew_mb"
"""The info key a Gymnasium game's copy fills, when asked, with how far the step raised its
process's peak resident memory (MiB): a leak raises it every step, a level loaded again
reuses what the first load freed. The performance oracle leaves such steps to the leak's
report (:data:`oracles.performance.ALLOCATING_MB`)."""

CLOCK_KEY = "step_clock"
"""The info column play fills, when asked, with the wall clock (``time.time()``) at the end of
each step: when each step happened, so that a bug is dated when it happened, not when its
generation ended, in whichever process or machine played it."""


def unknown_columns(columns: Iterable[str]) -> list[str]:
    """The names in ``columns`` that are no record column (sorted; empty when all are)."""
    return sorted(
        c for c in columns
        if c not in ("obs", "probs") and not (c.startswith(INFO_PREFIX) and len(c) > len(INFO_PREFIX))
    )


def blank(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An info column's padding: zeros, or None for objects (``np.zeros`` would put 0)."""
    if np.dtype(dtype) == object:
        return np.full(shape, None, dtype=object)
    return np.zeros(shape, dtype=dtype)


def info_keys(columns: Iterable[str]) -> tuple[str, ...]:
    """The game info keys that ``columns`` ask for (``info.events`` -> ``events``), sorted."""
    return tuple(sorted(c[len(INFO_PREFIX):] for c in columns if c.startswith(INFO_PREFIX)))


@dataclass(frozen=True, eq=False)
class Rollout:
    """Everything that happened in one episode of one policy.

    The episode's seed and actions are enough to replay it. Arrays, not lists of objects.

    Attributes:
        policy: Id of the policy that played (unique within a run).
        episode_seed: Seed passed to ``reset``.
        actions: ``[T]`` int64 actions taken.
        rewards: ``[T]`` float64 game rewards.
        features: ``[T + 1, F]`` float64 state features: after reset, then after each step.
            A step that raised leaves the features unchanged.
        frame_ms: ``[T]`` float64 frame time of each step.
        terminated: The game ended the episode (goal, death, error).
        truncated: The episode hit the horizon.
        error: The exception raised by the last step, if any.
        violations: ``(step index, message)`` for every broken invariant the game reported.
    """

    policy: int
    episode_seed: int
    actions: np.ndarray
    rewards: np.ndarray
    features: np.ndarray
    frame_ms: np.ndarray
    terminated: bool
    truncated: bool
    error: GameError | None = None
    violations: tuple[tuple[int, str], ...] = ()
    obs: np.ndarray | None = None
    """``[T + 1, obs_dim]`` observations, when recorded (:data:`OPTIONAL_COLUMNS`)."""
    probs: np.ndarray | None = None
    """``[T, n_actions]`` acting distributions, when recorded."""
    info: dict[str, np.ndarray] = field(default_factory=dict)
    """Named info values after each step, ``[T]`` each, when recorded."""
    head: np.ndarray | None = None
    """The actions from the reset to the record's first state, where the episode began from a
    snapshot of the game (a return, :mod:`evo.search.explore`): its replay from the reset is
    ``head`` then ``actions``. None: the record begins at the reset."""

    @property
    def length(self) -> int:
        return int(self.actions.shape[0])

    @property
    def start(self) -> int:
        """Steps from the reset to the record's first state (0 unless it began from a snapshot)."""
        return 0 if self.head is None else int(self.head.shape[0])

    def replay_actions(self, stop: int) -> tuple[int, ...]:
        """The actions from the reset through the record's step ``stop - 1``: what replays it."""
        head = () if self.head is None else tuple(int(a) for a in self.head)
        return head + tuple(int(a) for a in self.actions[:stop])

    @property
    def episode_return(self) -> float:
        return float(self.rewards.sum())


@dataclass(eq=False)
class RolloutBatch(Sequence[Rollout]):
    """Many episodes as padded arrays: a sequence of :class:`Rollout` that is also columnar.

    Indexing gives :class:`Rollout` views (no copy), slicing gives a smaller batch, so code
    written against ``Sequence[Rollout]`` works unchanged; oracles and objectives that look
    at the arrays vectorize over the whole batch at once. Workers send batches, not lists of
    rollouts: a few large arrays pickle far faster than thousands of small ones.

    Row ``i`` is valid for ``lengths[i]`` steps (``features``: ``lengths[i] + 1`` states);
    what lies beyond is padding and means nothing.

    Attributes:
        policy: ``[N]`` policy ids.
        episode_seed: ``[N]`` episode seeds.
        actions: ``[N, T]`` int64.
        rewards: ``[N, T]`` float64.
        features: ``[N, T + 1, F]`` float64.
        frame_ms: ``[N, T]`` float64.
        lengths: ``[N]`` steps taken.
        terminated: ``[N]`` bool.
        truncated: ``[N]`` bool.
        errors: row -> the error that ended it.
        violations: row -> ``(step, message)`` pairs.
        obs: ``[N, T + 1, obs_dim]`` float32 observations, or None when nobody asked
            (:data:`OPTIONAL_COLUMNS`).
        probs: ``[N, T, n_actions]`` float32 acting distributions, or None.
        info: name -> ``[N, T]`` the game's info value after each step (padding: the dtype's
            zero, None for objects), for the ``info.<name>`` columns asked for.
        head: Per row, the actions from the reset to its first state (:attr:`Rollout.head`),
            or None when every row begins at the reset.
        snapshots: Per row, the game's state as bytes after some of its steps (state index ->
            snapshot, :mod:`games.core.snapshots`), or None when none was taken.
    """

    policy: np.ndarray
    episode_seed: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    features: np.ndarray
    frame_ms: np.ndarray
    lengths: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    errors: dict[int, GameError] = field(default_factory=dict)
    violations: dict[int, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    obs: np.ndarray | None = None
    probs: np.ndarray | None = None
    info: dict[str, np.ndarray] = field(default_factory=dict)
    head: tuple[np.ndarray, ...] | None = None
    snapshots: tuple[dict[int, bytes], ...] | None = None

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def starts(self) -> np.ndarray:
        """``[N]`` steps from the reset to each row's first state (0 where it began there)."""
        if self.head is None:
            return np.zeros(len(self), dtype=np.int64)
        return np.array([h.shape[0] for h in self.head], dtype=np.int64)

    @classmethod
    def from_rollouts(cls, rollouts: Sequence[Rollout]) -> "RolloutBatch":
        """Pad a sequence of rollouts into one batch (states repeat at the end); none gives
        an empty batch."""
        n = len(rollouts)
        horizon = max((r.length for r in rollouts), default=0)
        n_features = rollouts[0].features.shape[1] if n else 0
        actions = np.zeros((n, horizon), dtype=np.int64)
        rewards = np.zeros((n, horizon))
        frame_ms = np.zeros((n, horizon))
        features = np.zeros((n, horizon + 1, n_features))
        for i, r in enumerate(rollouts):
            k = r.length
            actions[i, :k], rewards[i, :k], frame_ms[i, :k] = r.actions, r.rewards, r.frame_ms
            features[i, : k + 1] = r.features
            features[i, k + 1 :] = r.features[-1]
        obs = probs = None
        if n and all(r.obs is not None for r in rollouts):
            obs = np.zeros((n, horizon + 1, rollouts[0].obs.shape[1]), dtype=rollouts[0].obs.dtype)  # type: ignore[union-attr]
            for i, r in enumerate(rollouts):
                obs[i, : r.length + 1], obs[i, r.length + 1 :] = r.obs, r.obs[-1]  # type: ignore[index]
        if n and all(r.probs is not None for r in rollouts):
            probs = np.zeros((n, horizon, rollouts[0].probs.shape[1]), dtype=np.float32)  # type: ignore[union-attr]
            for i, r in enumerate(rollouts):
                probs[i, : r.length] = r.probs
        info: dict[str, np.ndarray] = {}
        for name in set.intersection(*(set(r.info) for r in rollouts)) if n else ():
            info[name] = blank((n, horizon), rollouts[0].info[name].dtype)
            for i, r in enumerate(rollouts):
                info[name][i, : r.length] = r.info[name]
        return cls(
            policy=np.array([r.policy for r in rollouts], dtype=np.int64),
            episode_seed=np.array([r.episode_seed for r in rollouts], dtype=np.int64),
            actions=actions, rewards=rewards, features=features, frame_ms=frame_ms,
            lengths=np.array([r.length for r in rollouts], dtype=np.int64),
            terminated=np.array([r.terminated for r in rollouts]),
            truncated=np.array([r.truncated for r in rollouts]),
            errors={i: r.error for i, r in enumerate(rollouts) if r.error is not None},
            violations={i: r.violations for i, r in enumerate(rollouts) if r.violations},
            obs=obs, probs=probs, info=info,
            head=(tuple(_no_head if r.head is None else r.head for r in rollouts)
                  if any(r.head is not None for r in rollouts) else None),
        )

    def state_keys(self, spec: GameSpec, bins: Sequence[int] | None = None) -> np.ndarray:
        """``[N, T + 1]`` bucket key of every state (padding included), computed once.

        Coverage, the performance oracle and the coverage objective all bucket the same
        states; the batch keeps the answer.
        """
        cache: dict[tuple[int, ...], np.ndarray] = self.__dict__.setdefault("_keys", {})
        key = tuple(spec.feature_bins if bins is None else bins)
        if key not in cache:
            cache[key] = spec.bucket_keys(self.features, key)
        return cache[key]

    def state_mask(self) -> np.ndarray:
        """``[N, T + 1]`` bool: True for the states each episode really visited."""
        return np.arange(self.features.shape[1])[None, :] <= self.lengths[:, None]

    @property
    def env_steps(self) -> int:
        return int(self.lengths.sum())

    @property
    def valid(self) -> np.ndarray:
        """``[N, T]`` bool: True where a step was taken."""
        return np.arange(self.actions.shape[1])[None, :] < self.lengths[:, None]

    def rollout(self, i: int) -> Rollout:
        n = int(self.lengths[i])
        return Rollout(
            policy=int(self.policy[i]),
            episode_seed=int(self.episode_seed[i]),
            actions=self.actions[i, :n],
            rewards=self.rewards[i, :n],
            features=self.features[i, : n + 1],
            frame_ms=self.frame_ms[i, :n],
            terminated=bool(self.terminated[i]),
            truncated=bool(self.truncated[i]),
            error=self.errors.get(i),
            violations=self.violations.get(i, ()),
            obs=None if self.obs is None else self.obs[i, : n + 1],
            probs=None if self.probs is None else self.probs[i, :n],
            info={name: column[i, :n] for name, column in self.info.items()},
            head=None if self.head is None or not self.head[i].shape[0] else self.head[i],
        )

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            rows = range(len(self))[index]
            if rows.step != 1:
                raise ValueError("RolloutBatch slices must be contiguous")
            a, b = rows.start, rows.stop
            return RolloutBatch(
                self.policy[a:b], self.episode_seed[a:b], self.actions[a:b], self.rewards[a:b],
                self.features[a:b], self.frame_ms[a:b], self.lengths[a:b], self.terminated[a:b],
                self.truncated[a:b],
                {i - a: e for i, e in self.errors.items() if a <= i < b},
                {i - a: v for i, v in self.violations.items() if a <= i < b},
                obs=None if self.obs is None else self.obs[a:b],
                probs=None if self.probs is None else self.probs[a:b],
                info={name: column[a:b] for name, column in self.info.items()},
                head=None if self.head is None else self.head[a:b],
                snapshots=None if self.snapshots is None else self.snapshots[a:b],
            )
        i = int(index)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(index)
        return self.rollout(i)

    @classmethod
    def concat(cls, batches: Sequence["RolloutBatch"]) -> "RolloutBatch":
        """One batch of all rows, in order, padded to the longest horizon."""
        batches = [b for b in batches if len(b)]
        if len(batches) == 1:
            return batches[0]
        if not batches:
            raise ValueError("concat needs at least one non-empty batch")
        horizon = max(b.actions.shape[1] for b in batches)

        def pad(arrays: list[np.ndarray], extra: int = 0) -> np.ndarray:
            out = []
            for x in arrays:
                missing = horizon + extra - x.shape[1]
                if missing and x.dtype == object:
                    x = np.concatenate([x, blank((x.shape[0], missing), x.dtype)], axis=1)
                elif missing:
                    widths = [(0, 0), (0, missing)] + [(0, 0)] * (x.ndim - 2)
                    x = np.pad(x, widths, mode="edge" if extra else "constant")
                out.append(x)
            return np.concatenate(out)

        errors: dict[int, GameError] = {}
        violations: dict[int, tuple[tuple[int, str], ...]] = {}
        offset = 0
        for b in batches:
            errors.update({i + offset: e for i, e in b.errors.items()})
            violations.update({i + offset: v for i, v in b.violations.items()})
            offset += len(b)
        return cls(
            np.concatenate([b.policy for b in batches]),
            np.concatenate([b.episode_seed for b in batches]),
            pad([b.actions for b in batches]),
            pad([b.rewards for b in batches]),
            pad([b.features for b in batches], extra=1),
            pad([b.frame_ms for b in batches]),
            np.concatenate([b.lengths for b in batches]),
            np.concatenate([b.terminated for b in batches]),
            np.concatenate([b.truncated for b in batches]),
            errors,
            violations,
            obs=pad([b.obs for b in batches], extra=1) if all(b.obs is not None for b in batches) else None,
            probs=pad([b.probs for b in batches]) if all(b.probs is not None for b in batches) else None,
            info={name: pad([b.info[name] for b in batches])
                  for name in set.intersection(*(set(b.info) for b in batches))},
            head=(tuple(h for b in batches for h in (b.head or (_no_head,) * len(b)))
                  if any(b.head is not None for b in batches) else None),
            snapshots=(tuple(d for b in batches for d in (b.snapshots or ({},) * len(b)))
                       if any(b.snapshots is not None for b in batches) else None),
        )


_no_head = np.zeros(0, dtype=np.int64)
"""The head of a row that begins at the reset, where other rows of its batch do not."""


def with_events(
    batch: RolloutBatch,
) -> list[tuple[int, GameError | None, tuple[tuple[int, str], ...]]]:
    """``(index, error, violations)`` of the episodes that raised or broke invariants, in order.

    It reads the batch's two dicts instead of visiting every row; the caller takes
    ``batch[index]`` only for what it reports.
    """
    rows = sorted(set(batch.errors) | set(batch.violations))
    return [(i, batch.errors.get(i), batch.violations.get(i, ())) for i in rows]


def plain_info(info: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The values of ``keys`` in a step's ``info`` that a record column can hold: numbers and
    strings as they are, a sequence of strings (events) as a tuple; anything else is the
    game's mistake, raised as a ValueError naming the key (a bug of this copy)."""
    out: dict[str, Any] = {}
    for key in keys:
        if key not in info:
            continue
        value = info[key]
        if isinstance(value, (bool, int, float, str, np.number, np.bool_)):
            out[key] = value.item() if isinstance(value, (np.number, np.bool_)) else value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            out[key] = tuple(value)
        else:
            raise ValueError(
                f"info[{key!r}] is a {type(value).__name__}; a recorded info value must be a "
                "number, a string or a sequence of strings"
            )
    return out
