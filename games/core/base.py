"""Contracts between games and the engine.

A game is any ``gymnasium.Env``. What the engine needs beyond the Gymnasium API is small and
optional, and lives here:

- :class:`GameSpec`: the few facts the engine reads once (observation shape, number of
  actions, the state features and their bounds, the episode horizon).
- :class:`VectorGame`: a batch of N copies of a game stepped in one call. Games that can
  vectorize in numpy implement it directly; any other game is wrapped by
  ``games.adapter.vector_game.GymVectorGame``.
- the record of play (:class:`games.core.record.Rollout`, :class:`games.core.record.RolloutBatch`) lives
  in :mod:`games.core.record`; bucket keys in :mod:`games.core.buckets`.

Games know nothing of evolution: nothing here imports ``evo``, ``objectives`` or ``oracles``.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from games.core.buckets import DENSE_KEYS, hash_rows

BUG_KINDS = ("crash", "stuck", "logic", "performance", "balance", "visual")
OBS_DTYPES = ("float32", "uint8")
"""The dtypes a vector game's observations may have (:attr:`GameSpec.obs_dtype`)."""


@dataclass(frozen=True)
class GameSpec:
    """What the engine reads about a game once, at build time.

    Attributes:
        obs_shape: Shape of one observation.
        n_actions: Size of the discrete action space.
        feature_names: Names of the state features (``state_features`` of the game).
        feature_low: Lowest value of each state feature, used to cut features into buckets.
        feature_high: Highest value of each state feature.
        feature_bins: The game's natural resolution per feature: how many equal intervals
            tell two places apart (a grid game gives its width and height). Coverage and bug
            signatures bucket features with it unless configured otherwise.
        max_steps: Episode horizon; the game truncates at this many steps.
        obs_dtype: The dtype of the observations the vector game returns: ``"float32"``, or
            ``"uint8"`` for frames, which stay uint8 in the record (a quarter of the memory);
            agents are handed them as float32 of the same values either way.
        obs_encoder: Set where the observations are the features a frozen frame encoder
            made of the game's frames (the ``encode`` wrapper): that encoder's fingerprint
            (:func:`games.perception.encoder.fingerprint`), so a component built on the same
            encoder reads them instead of encoding the frames again; empty otherwise.
        feature_open: Per feature, True where the game declared no bounds for it: its cells
            are ``(feature_high - feature_low) / feature_bins`` wide and go on past both
            ends, so that a place the first episodes never reached is still a cell of its own
            (never clipped into an edge bucket). Keys of a spec with an open feature are
            hashed. Empty: every feature is bounded. An open feature whose ``feature_high``
            equals its ``feature_low`` has no cell size yet (:attr:`cells_known`).
        coarse_features: True where the features are a coarse summary of the observation
            (:mod:`games.adapter.spec`'s cells of a frame): the stuck oracle also compares
            the frames' digests (:data:`games.core.record.OBS_DIGEST_KEY`).
        position: Names of the features that say where the player is (an Unreal camera's
            location). The stuck oracle then compares those alone (a player who can still
            turn the camera but can no longer move is stuck), and the performance oracle's
            points are those alone (one report per slow place, whichever way the camera
            looked). Empty: every feature is the state.
    """

    obs_shape: tuple[int, ...]
    n_actions: int
    feature_names: tuple[str, ...]
    feature_low: tuple[float, ...]
    feature_high: tuple[float, ...]
    feature_bins: tuple[int, ...]
    max_steps: int
    obs_dtype: str = "float32"
    obs_encoder: str = ""
    feature_open: tuple[bool, ...] = ()
    coarse_features: bool = False
    position: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = [p for p in self.position if p not in self.feature_names]
        if unknown:
            raise GameSpecError(f"game_spec.position names {', '.join(map(repr, unknown))}, not state features; "
                                f"the features are {', '.join(self.feature_names)}")
        if self.obs_dtype not in OBS_DTYPES:
            raise GameSpecError(f"game_spec.obs_dtype is {self.obs_dtype!r}; expected one of {', '.join(OBS_DTYPES)}")
        if self.feature_open and len(self.feature_open) != len(self.feature_names):
            raise GameSpecError(
                f"game_spec.feature_open has {len(self.feature_open)} entries for "
                f"{len(self.feature_names)} features"
            )

    @property
    def cells_known(self) -> bool:
        """Every open feature has a cell size (see ``feature_open``); a spec without one
        cannot bucket states yet: its cells are learned from the run's first episodes."""
        return all(h > lo for o, lo, h in zip(self.feature_open, self.feature_low, self.feature_high) if o)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def resolve_bins(self, value: Sequence[int] | int | None, key: str = "bins") -> tuple[int, ...]:
        """Intervals per state feature from a component's option ``key`` (coverage's
        ``intervals``, the performance oracle's ``bins``...): the game's ``feature_bins`` for
        None, one number for every feature, or one number per feature.

        Raises:
            ValueError: one line naming ``key``: a list of the wrong length, or a count below 1.
        """
        if value is None:
            return tuple(int(b) for b in self.feature_bins)
        bins = (int(value),) * self.n_features if isinstance(value, int) else tuple(int(b) for b in value)
        if len(bins) != self.n_features:
            raise ValueError(f"{key} has {len(bins)} values but the game has {self.n_features} state features "
                             f"({', '.join(self.feature_names)})")
        if min(bins, default=1) < 1:
            raise ValueError(f"{key} must be at least 1 interval per feature, got {list(bins)}")
        return bins

    def buckets(self, features: np.ndarray, bins: Sequence[int] | None = None) -> np.ndarray:
        """Cut state features into equal intervals (Wuji's state abstraction).

        Args:
            features: ``[..., F]`` feature values.
            bins: intervals per feature; the game's ``feature_bins`` when omitted.

        Returns:
            ``[..., F]`` int64 bucket indices in ``[0, bins)``; values of a bounded feature
            outside its bounds are clipped into the first or last bucket, those of an open
            feature (``feature_open``) get the cells beyond, numbered on (-1, bins, ...).
        """
        bins_arr = np.asarray(self.feature_bins if bins is None else bins, dtype=np.float64)
        low = np.asarray(self.feature_low, dtype=np.float64)
        high = np.asarray(self.feature_high, dtype=np.float64)
        width = np.where(high > low, high - low, 1.0)
        idx = np.floor((np.asarray(features, dtype=np.float64) - low) / width * bins_arr)
        if not any(self.feature_open):
            return np.clip(idx, 0, bins_arr - 1).astype(np.int64)
        # An open feature's cells go on without end; int64 holds any cell a float reaches
        # within 2**62 cell widths of the origin (a NaN or inf feature is the game's error).
        top = np.where(np.asarray(self.feature_open), 2.0**62, bins_arr - 1)
        bottom = np.where(np.asarray(self.feature_open), -(2.0**62), 0)
        return np.clip(np.nan_to_num(idx), bottom, top).astype(np.int64)

    def key_space(self, bins: Sequence[int] | None = None) -> int | None:
        """How many bucket keys there can be when keys are dense (see :meth:`bucket_keys`);
        None when the bucket space is too large and keys are hashes."""
        if any(self.feature_open):
            return None  # cells without end: only a hash names them all
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
    detail: str = ""
    """What varies between two reports of one fault (a leak's pace): shown, never compared
    by the oracles' signatures."""

    @property
    def is_assertion(self) -> bool:
        return self.type == "AssertionError"

    @classmethod
    def from_exception(cls, exc: BaseException) -> "GameError":
        """Keep the exception's type, message and innermost frame (``file:function:line``)."""
        frames = traceback.extract_tb(exc.__traceback__)
        last = frames[-1] if frames else None
        where = "" if last is None else f"{last.filename.rsplit('/', 1)[-1]}:{last.name}:{last.lineno}"
        return cls(type=type(exc).__name__, message=str(exc), where=where)


@dataclass
class VecStep:
    """What one step of a :class:`VectorGame` returns, one row per copy of the game.

    Attributes:
        obs: ``[N, *obs_shape]`` observations after the step, in ``game_spec.obs_dtype``.
        reward: ``[N]`` float64 rewards.
        terminated: ``[N]`` bool.
        truncated: ``[N]`` bool.
        features: ``[N, F]`` float64 state features after the step.
        frame_ms: ``[N]`` float64 frame time of each copy's step as the game measured it, or
            ``None`` when the game does not measure it (the engine then times the call).
        errors: copy index -> the exception its step raised. That copy is done from then on.
        violations: copy index -> broken invariants reported by this step (non-fatal).
        info: Named values of this step, ``[N]`` arrays (numbers, or objects such as a tuple
            of event names): what a game reports beyond the above, for the objectives,
            oracles and agents that ask for it (record columns ``info.<name>``). A copy that
            did not step holds the dtype's zero (``None`` for objects).
    """

    obs: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    features: np.ndarray
    frame_ms: np.ndarray | None = None
    errors: dict[int, GameError] = field(default_factory=dict)
    violations: dict[int, list[str]] = field(default_factory=dict)
    info: dict[str, np.ndarray] = field(default_factory=dict)
    snapshots: dict[int, bytes] = field(default_factory=dict)
    """copy index -> the game's state after this step, from a game asked for them
    (``reset_from(..., every=k)``, :mod:`games.core.snapshots`); ``b""``: it cannot be pickled."""


@runtime_checkable
class VectorGame(Protocol):
    """N copies of a game stepped together, with no auto-reset.

    Once a copy is terminated, truncated or has raised, later steps leave it unchanged and
    return reward 0 with its done flags still set, until the next ``reset``.

    Optional, duck-typed: ``render_frames()`` and ``action_names`` (:class:`ShowsFrames`),
    what a replay video shows; ``reset_from(seeds, starts, offsets, every)``, episodes that go
    on from snapshots of the game and take them
    (:meth:`games.adapter.vector_game.GymVectorGame.reset_from`), what makes Go-Explore's
    returns cost nothing.
    """

    num_envs: int
    game_spec: GameSpec

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start a new episode in every copy, copy i seeded with ``seeds[i]``.

        Returns:
            ``(obs [N, *obs_shape] in game_spec.obs_dtype, features [N, F] float64)``.
        """
        ...

    def step(self, actions: np.ndarray) -> VecStep:
        """Apply ``actions`` (``[N]`` int64), one per copy."""
        ...

    def close(self) -> None:
        """Release processes or files the game holds."""
        ...


@runtime_checkable
class ShowsFrames(Protocol):
    """What a vector game may add so that a replay shows what a player would have seen.

    Optional and duck-typed: a game without it gets a drawing of its map (``render_map``)
    with the agent's trace instead.

    Attributes:
        action_names: Optional too (read with ``getattr``): one short name per action, for
            the video's overlay; the action's index is shown without it.
    """

    def render_frames(self) -> np.ndarray | None:
        """What each copy shows now: ``[N, H, W, 3]`` uint8 RGB, or None when this instance
        draws nothing (a Gymnasium env made without ``render_mode="rgb_array"``)."""
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


class Game(Protocol):
    """The optional additions a ``gymnasium.Env`` may make (all duck-typed).

    - ``game_spec``: a :class:`GameSpec` attribute; else derived (:mod:`games.adapter.spec`).
    - ``state_features(obs, info)``: below.
    - ``info["frame_ms"]`` and ``info["violations"]`` from ``step``; any other info key
      whose value is a number, a string or a sequence of strings can be recorded by name
      (column ``info.<key>``, :data:`games.core.record.OPTIONAL_COLUMNS`).
    - ``injected_bugs`` (list of :class:`InjectedBug`) and ``match(bug) -> int | None`` for
      benchmark games with seeded bugs.
    - ``render_map() -> np.ndarray``: the level from above for the coverage maps of
      ``evo report`` and ``evo compare``, 2-D, 1 = wall, indexed by the buckets of the first
      two state features (at ``GameSpec.feature_bins``).
    - ``scene``: a :class:`games.core.scene.Scene`, what the game's frames show: its objects of
      interest (id, type, place), their types (name, height, width, in a detector's order),
      its camera (field of view, pixel aspect, frame size, how actions tilt the view) and the
      tester's preferred area (2-D bool indexed like ``render_map``). Kept in ``game.json`` and handed to the
      components that read it (the visual and objects oracles, the scene map of ``evo
      report``). No ground truth: an injected bug is on the object it is located at.
    """

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The few numbers that say where the game is (position, level, health...)."""
        ...
