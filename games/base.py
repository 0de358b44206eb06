"""Contracts between games and the engine.

A game is any ``gymnasium.Env``. What the engine needs beyond the Gymnasium API is small and
optional, and lives here:

- :class:`GameSpec`: the few facts the engine reads once (observation shape, number of
  actions, the state features and their bounds, the episode horizon).
- :class:`VectorGame`: a batch of N copies of a game stepped in one call. Games that can
  vectorize in numpy implement it directly; any other game is wrapped by
  ``games.gym_adapter.GymVectorGame``.
- :class:`Rollout`: the record of one episode, the only thing objectives and oracles see.

Games know nothing of evolution: nothing here imports from ``evo``, ``objectives`` or
``oracles``.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np
import pandas as pd

BUG_KINDS = ("crash", "stuck", "logic", "performance", "balance")


@dataclass(frozen=True)
class GameSpec:
    """What the engine reads about a game once, at build time.

    Attributes:
        obs_shape: Shape of one observation (float32).
        n_actions: Size of the discrete action space.
        feature_names: Names of the state features (``state_features`` of the game).
        feature_low: Lowest value of each state feature, used to cut features into buckets.
        feature_high: Highest value of each state feature.
        feature_bins: The game's natural resolution per feature: how many equal intervals
            tell two places apart (a grid game gives its width and height). Coverage and bug
            signatures bucket features with it unless configured otherwise.
        max_steps: Episode horizon; the game truncates at this many steps.
    """

    obs_shape: tuple[int, ...]
    n_actions: int
    feature_names: tuple[str, ...]
    feature_low: tuple[float, ...]
    feature_high: tuple[float, ...]
    feature_bins: tuple[int, ...]
    max_steps: int

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def buckets(self, features: np.ndarray, bins: Sequence[int] | None = None) -> np.ndarray:
        """Cut state features into equal intervals (Wuji's state abstraction).

        Args:
            features: ``[..., F]`` feature values.
            bins: intervals per feature; the game's ``feature_bins`` when omitted.

        Returns:
            ``[..., F]`` int64 bucket indices in ``[0, bins)``; values outside the bounds
            are clipped into the first or last bucket.
        """
        bins_arr = np.asarray(self.feature_bins if bins is None else bins, dtype=np.float64)
        low = np.asarray(self.feature_low, dtype=np.float64)
        high = np.asarray(self.feature_high, dtype=np.float64)
        width = np.where(high > low, high - low, 1.0)
        idx = np.floor((np.asarray(features, dtype=np.float64) - low) / width * bins_arr)
        return np.clip(idx, 0, bins_arr - 1).astype(np.int64)

    def key_space(self, bins: Sequence[int] | None = None) -> int | None:
        """How many bucket keys there can be when keys are dense (see :meth:`bucket_keys`);
        None when the bucket space is too large and keys are hashes."""
        n = math.prod(int(b) for b in (self.feature_bins if bins is None else bins))
        return n if n <= DENSE_KEYS else None

    def bucket_keys(self, features: np.ndarray, bins: Sequence[int] | None = None) -> np.ndarray:
        """One int64 key per state, identifying its bucket, for set operations.

        A bucket space of at most :data:`DENSE_KEYS` buckets (a grid game's cells) gets
        exact dense keys, the mixed-radix number of the bucket indices, counted in linear
        time; a larger one (28 features of 10 bins are 10^28 buckets, an image's cells far
        more) gets a 64-bit hash of them, so nothing overflows. Keys identify buckets and are
        not decoded: code that needs bucket indices takes them from the features with
        :meth:`buckets`.
        """
        b = self.buckets(features, bins)
        if self.key_space(bins) is None:
            return hash_rows(b)
        radix = np.asarray(self.feature_bins if bins is None else bins, dtype=np.int64)
        key = np.zeros(b.shape[:-1], dtype=np.int64)
        for j in range(b.shape[-1]):
            key = key * radix[j] + b[..., j]
        return key


DENSE_KEYS = 1 << 22
"""Bucket spaces up to this size get dense keys, counted with ``np.bincount``."""


def count_keys(keys: np.ndarray, key_space: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``keys`` (sorted) and how often each occurs, in linear time: ``np.bincount``
    over a dense key space (``key_space`` keys, :meth:`GameSpec.key_space`), a hash table
    (pandas) over hashed keys."""
    keys = np.asarray(keys, dtype=np.int64).reshape(-1)
    if key_space is not None:
        counts = np.bincount(keys, minlength=key_space)
        present = np.flatnonzero(counts)
        return present, counts[present]
    codes, uniques = pd.factorize(keys, sort=True)
    return np.asarray(uniques, dtype=np.int64), np.bincount(codes, minlength=len(uniques))


def tally(keys: np.ndarray, key_space: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``keys``, the index where each first occurs, and how often each occurs, in
    linear time (see :func:`count_keys`): sorted over a dense key space, in order of first
    appearance over hashed keys."""
    keys = np.asarray(keys, dtype=np.int64).reshape(-1)
    if key_space is not None:
        counts = np.bincount(keys, minlength=key_space)
        present = np.flatnonzero(counts)
        first = np.full(key_space, keys.size, dtype=np.int64)
        np.minimum.at(first, keys, np.arange(keys.size, dtype=np.int64))
        return present, first[present], counts[present]
    codes, uniques = pd.factorize(keys)
    # Codes number the keys in order of appearance: the running maximum steps up by one
    # exactly where a key appears for the first time.
    first = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)
    return np.asarray(uniques, dtype=np.int64), first, np.bincount(codes, minlength=len(uniques))


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place: a bijection of uint64 that spreads every input bit."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


def hash_rows(rows: np.ndarray) -> np.ndarray:
    """``[..., F]`` integers to ``[...]`` int64 hashes, column by column so memory stays ``[...]``.

    Each step mixes the running hash with the next column through splitmix64's finaliser, a
    bijection: two rows that first differ in column j differ after step j, and stay apart
    unless a 64-bit mix of them happens to cancel (about ``2**-64`` per pair: a run that
    visits a billion buckets expects no collision).
    """
    rows = np.asarray(rows)
    h = np.full(rows.shape[:-1], np.uint64(rows.shape[-1]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(rows.shape[-1]):
            h ^= rows[..., j].astype(np.uint64) + _GOLDEN * np.uint64(j + 1)
            _mix(h)
    return h.view(np.int64)


class GameSpecError(ValueError):
    """A game that contradicts itself (its ``game_spec`` against its spaces or its
    ``state_features``): found when the game is built, reported as one line at start, never
    as a crash per step."""


@dataclass(frozen=True)
class GameError:
    """An exception raised by a game's ``step``, kept as data so it can be saved and compared.

    ``AssertionError`` is a fatal logic error (a developer assertion); anything else, or the
    game process dying or hanging, is a crash.
    """

    type: str
    message: str
    where: str = ""

    @property
    def is_assertion(self) -> bool:
        return self.type == "AssertionError"

    @classmethod
    def from_exception(cls, exc: BaseException) -> "GameError":
        """Keep the exception's type, message and innermost frame (``file:function:line``)."""
        frames = traceback.extract_tb(exc.__traceback__)
        where = ""
        if frames:
            last = frames[-1]
            where = f"{last.filename.rsplit('/', 1)[-1]}:{last.name}:{last.lineno}"
        return cls(type=type(exc).__name__, message=str(exc), where=where)


@dataclass
class VecStep:
    """What one step of a :class:`VectorGame` returns, one row per copy of the game.

    Attributes:
        obs: ``[N, *obs_shape]`` float32 observations after the step.
        reward: ``[N]`` float64 rewards.
        terminated: ``[N]`` bool.
        truncated: ``[N]`` bool.
        features: ``[N, F]`` float64 state features after the step.
        frame_ms: ``[N]`` float64 frame time of each copy's step as the game measured it, or
            ``None`` when the game does not measure it (the engine then times the call).
        errors: copy index -> the exception its step raised. That copy is done from then on.
        violations: copy index -> broken invariants reported by this step (non-fatal).
    """

    obs: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    features: np.ndarray
    frame_ms: np.ndarray | None = None
    errors: dict[int, GameError] = field(default_factory=dict)
    violations: dict[int, list[str]] = field(default_factory=dict)


@runtime_checkable
class VectorGame(Protocol):
    """N copies of a game stepped together, with no auto-reset.

    Once a copy is terminated, truncated or has raised, later steps leave it unchanged and
    return reward 0 with its done flags still set, until the next ``reset``.
    """

    num_envs: int
    game_spec: GameSpec

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start a new episode in every copy, copy i seeded with ``seeds[i]``.

        Returns:
            ``(obs [N, *obs_shape] float32, features [N, F] float64)``.
        """
        ...

    def step(self, actions: np.ndarray) -> VecStep:
        """Apply ``actions`` (``[N]`` int64), one per copy."""
        ...

    def close(self) -> None:
        """Release processes or files the game holds."""
        ...


@dataclass(frozen=True)
class InjectedBug:
    """One bug seeded into a benchmark game: ground truth, read only to score a run.

    Attributes:
        id: Stable id within the game instance.
        kind: One of :data:`BUG_KINDS`.
        location: State features of the place where it fires (a grid cell, say).
        description: What it does, for reports.
    """

    id: int
    kind: str
    location: tuple[float, ...]
    description: str = ""


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

    @property
    def length(self) -> int:
        return int(self.actions.shape[0])

    @property
    def episode_return(self) -> float:
        return float(self.rewards.sum())


class Game(Protocol):
    """The optional additions a ``gymnasium.Env`` may make (all duck-typed).

    - ``game_spec``: a :class:`GameSpec` attribute; without it the engine derives one from
      the observation space (features = the flattened observation).
    - ``state_features(obs, info)``: below.
    - ``info["frame_ms"]`` and ``info["violations"]`` from ``step``.
    - ``injected_bugs`` (list of :class:`InjectedBug`) and ``match(bug) -> int | None`` for
      benchmark games with seeded bugs.
    - ``render_map() -> np.ndarray``: the level from above for the coverage maps of
      ``evo report`` and ``evo compare``, 2-D, 1 = wall, indexed by the buckets of the first
      two state features (at ``GameSpec.feature_bins``).
    """

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The few numbers that say where the game is (position, level, health...)."""
        ...


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

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    @classmethod
    def from_rollouts(cls, rollouts: Sequence[Rollout]) -> "RolloutBatch":
        """Pad a non-empty sequence of rollouts into one batch (states repeat at the end)."""
        if isinstance(rollouts, RolloutBatch):
            return rollouts
        if not len(rollouts):
            raise ValueError("from_rollouts needs at least one rollout")
        n, horizon = len(rollouts), max(r.length for r in rollouts)
        n_features = rollouts[0].features.shape[1]
        actions = np.zeros((n, horizon), dtype=np.int64)
        rewards = np.zeros((n, horizon))
        frame_ms = np.zeros((n, horizon))
        features = np.zeros((n, horizon + 1, n_features))
        for i, r in enumerate(rollouts):
            k = r.length
            actions[i, :k], rewards[i, :k], frame_ms[i, :k] = r.actions, r.rewards, r.frame_ms
            features[i, : k + 1] = r.features
            features[i, k + 1 :] = r.features[-1]
        return cls(
            policy=np.array([r.policy for r in rollouts], dtype=np.int64),
            episode_seed=np.array([r.episode_seed for r in rollouts], dtype=np.int64),
            actions=actions, rewards=rewards, features=features, frame_ms=frame_ms,
            lengths=np.array([r.length for r in rollouts], dtype=np.int64),
            terminated=np.array([r.terminated for r in rollouts]),
            truncated=np.array([r.truncated for r in rollouts]),
            errors={i: r.error for i, r in enumerate(rollouts) if r.error is not None},
            violations={i: r.violations for i, r in enumerate(rollouts) if r.violations},
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
                if missing:
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
        )


def with_events(
    rollouts: Sequence[Rollout],
) -> list[tuple[int, GameError | None, tuple[tuple[int, str], ...]]]:
    """``(index, error, violations)`` of the rollouts that raised or broke invariants, in order.

    For a :class:`RolloutBatch` this reads its two dicts instead of visiting every row; the
    caller takes ``rollouts[index]`` only for what it reports.
    """
    if isinstance(rollouts, RolloutBatch):
        rows = sorted(set(rollouts.errors) | set(rollouts.violations))
        return [(i, rollouts.errors.get(i), rollouts.violations.get(i, ())) for i in rows]
    return [(i, r.error, r.violations) for i, r in enumerate(rollouts) if r.error is not None or r.violations]
