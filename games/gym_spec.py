"""The spec and state features of a Gymnasium game that has no vector form of its own.

Any ``gymnasium.Env`` with a ``Discrete`` action space is a game, whatever it observes and
whatever it declares. What the engine reads is decided here, in this order:

1. The game declares a ``game_spec``: it is used as it is, checked against the action space
   here and against ``state_features`` when a copy is built (:mod:`games.gym_copy`).
2. The game has ``state_features`` but no spec: the features are its own. Their count comes
   from the first call and their bounds from a short probe of random play, seeded so that
   every copy learns the same, then frozen so that coverage stays comparable for the run.
3. Neither: the features come from the observation. A small flat observation is its own
   features (bounds from the space, :data:`DEFAULT_BOUND` where it gives none); an image
   gets Go-Explore's cells (:class:`games.cells.ImageCells`); any other observation longer
   than :data:`MAX_FLAT_FEATURES` is averaged down to that many numbers.

Observations are always handed to agents flattened; ``obs_shape`` is the game's own when it
declares one of ``flatdim`` values (an image ``(channels, height, width)`` stays one, for a
policy with conv layers), else ``(flatdim,)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.base import GameSpec, GameSpecError
from games.cells import CELL_LEVELS, ImageCells, PooledVector

DEFAULT_BOUND = 10.0
"""Feature bound used where the observation space gives none (infinite or huge)."""
HUGE_BOUND = 1e6
"""Observation-space bounds larger than this in size are treated as no bound."""
DEFAULT_BINS = 10
"""Buckets per derived feature."""
DEFAULT_MAX_STEPS = 1000
"""Horizon of a game that declares none (no ``game_spec``, no ``max_episode_steps``)."""
MAX_FLAT_FEATURES = 128
"""Observations with more values than this get derived features (cells, or averages)."""
PROBE_EPISODES, PROBE_STEPS = 8, 2000
"""Random play that learns the bounds of a game's own ``state_features``: this many
episodes (seeds 0, 1, ...), at most this many steps in all."""
PROBE_BINS = 3 * DEFAULT_BINS
"""Buckets of a learned feature: the probe's range gets :data:`DEFAULT_BINS` and as much
room again on each side, since agents that learn go further than random play."""

FeatureFn = Callable[[np.ndarray], np.ndarray]
"""A flat observation to its state features."""


@dataclass(frozen=True)
class EnvFacts:
    """What a spec is derived from, as plain data, so that derivation is a pure function."""

    label: str
    game_spec: Any
    observation_space: spaces.Space
    action_space: spaces.Space
    max_episode_steps: int | None
    has_state_features: bool

    @classmethod
    def of(cls, env: gym.Env) -> "EnvFacts":
        spec = getattr(env, "spec", None)
        label = spec.id if spec is not None else type(env.unwrapped).__name__
        return cls(
            label=label,
            game_spec=getattr(env.unwrapped, "game_spec", None),
            observation_space=env.observation_space,
            action_space=env.action_space,
            max_episode_steps=getattr(spec, "max_episode_steps", None),
            has_state_features=callable(getattr(env.unwrapped, "state_features", None)),
        )


@dataclass(frozen=True)
class Derived:
    """A game's spec and how its copies compute state features.

    Attributes:
        spec: The spec; for case 2 (see the module) its feature bounds are placeholders
            until :func:`with_learned_bounds` replaces them.
        features: Flat observation to features, for games without ``state_features``.
        learn_bounds: The spec's feature bounds still have to be learned (case 2).
    """

    spec: GameSpec
    features: FeatureFn | None
    learn_bounds: bool = False


def _bounds(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite feature bounds: unbounded or huge sides become ``-+DEFAULT_BOUND``."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    bad_low = ~np.isfinite(low) | (np.abs(low) > HUGE_BOUND)
    bad_high = ~np.isfinite(high) | (np.abs(high) > HUGE_BOUND)
    low = np.where(bad_low, -DEFAULT_BOUND, low)
    high = np.where(bad_high, DEFAULT_BOUND, high)
    # A one-sided bound can land on the wrong side of the default (Box(-inf, -50)).
    flipped = high <= low
    low = np.where(flipped & bad_low, high - 2 * DEFAULT_BOUND, low)
    high = np.where(flipped & bad_high, low + 2 * DEFAULT_BOUND, high)
    return low, high


def _spec(facts: EnvFacts, obs_dim: int, names: list[str], low: np.ndarray, high: np.ndarray,
          bins: int) -> GameSpec:
    try:
        flat_dtype = spaces.flatten_space(facts.observation_space).dtype
    except (NotImplementedError, ValueError, TypeError):
        flat_dtype = None
    return GameSpec(
        obs_shape=(obs_dim,),
        n_actions=int(facts.action_space.n),  # type: ignore[attr-defined]
        feature_names=tuple(names),
        feature_low=tuple(float(x) for x in low),
        feature_high=tuple(float(x) for x in high),
        feature_bins=(bins,) * len(names),
        max_steps=int(facts.max_episode_steps or DEFAULT_MAX_STEPS),
        # Frames stay bytes in the record; any other dtype is handed on as float32.
        obs_dtype="uint8" if flat_dtype == np.uint8 else "float32",
    )


def derive(facts: EnvFacts, n_own_features: int | None = None) -> Derived:
    """The game's spec and feature function (see the module for the three cases).

    Args:
        facts: The game's spaces and declarations.
        n_own_features: How many values the game's ``state_features`` returned on its first
            call (case 2); ignored when the game declares a spec or has no such method.

    Raises:
        GameSpecError: The action space is not ``Discrete``, the observation space cannot
            be flattened, or the game's own spec disagrees with its action space.
    """
    if not isinstance(facts.action_space, spaces.Discrete):
        raise GameSpecError(
            f"game {facts.label} has action space {facts.action_space}; "
            "the engine plays only Discrete action spaces"
        )
    try:
        obs_dim = int(spaces.flatdim(facts.observation_space))
        flat_space = spaces.flatten_space(facts.observation_space)
    except (NotImplementedError, ValueError, TypeError) as exc:
        raise GameSpecError(
            f"game {facts.label} has observation space {facts.observation_space}, "
            f"which cannot be flattened ({exc})"
        ) from exc
    own = facts.game_spec
    if isinstance(own, GameSpec):
        if own.n_actions != int(facts.action_space.n):
            raise GameSpecError(
                f"game {facts.label}: game_spec.n_actions={own.n_actions} but the action "
                f"space is {facts.action_space}"
            )
        spec = own if int(np.prod(own.obs_shape)) == obs_dim else replace(own, obs_shape=(obs_dim,))
        return Derived(spec, None)
    if facts.has_state_features and n_own_features is not None:
        names = [f"feature{j}" for j in range(n_own_features)]
        zeros = np.zeros(n_own_features)
        return Derived(_spec(facts, obs_dim, names, zeros, zeros + 1.0, PROBE_BINS), None, True)
    if not isinstance(flat_space, spaces.Box):
        raise GameSpecError(f"game {facts.label}: flattened observation space is not a Box")
    space = facts.observation_space
    if obs_dim <= MAX_FLAT_FEATURES:
        low, high = _bounds(flat_space.low.reshape(-1), flat_space.high.reshape(-1))
        names = [f"obs{j}" for j in range(obs_dim)]
        return Derived(_spec(facts, obs_dim, names, low, high, DEFAULT_BINS), lambda flat: flat)
    if isinstance(space, spaces.Box) and len(space.shape) in (2, 3):
        cells = ImageCells.for_space(space.shape, space.low, space.high)
        names = [f"cell{r}_{c}" for r in range(cells.rows) for c in range(cells.cols)]
        n = cells.n_features
        return Derived(_spec(facts, obs_dim, names, np.zeros(n), np.full(n, float(CELL_LEVELS)),
                             CELL_LEVELS), cells)
    pooled = PooledVector(obs_dim, MAX_FLAT_FEATURES)
    low, high = pooled.bounds(*_bounds(flat_space.low.reshape(-1), flat_space.high.reshape(-1)))
    names = [f"mean{j}" for j in range(MAX_FLAT_FEATURES)]
    return Derived(_spec(facts, obs_dim, names, low, high, DEFAULT_BINS), pooled)


def with_learned_bounds(spec: GameSpec, seen: np.ndarray) -> GameSpec:
    """``spec`` with feature bounds learned from the states a probe saw (``[S, F]``).

    The probe's range keeps :data:`DEFAULT_BINS` buckets and gets as much room again on
    each side (:data:`PROBE_BINS` in all); values beyond still fall into the end buckets.
    """
    seen = np.asarray(seen, dtype=np.float64)
    finite = np.where(np.isfinite(seen), seen, np.nan)
    with np.errstate(all="ignore"):
        lo = np.nan_to_num(np.nanmin(finite, axis=0), nan=0.0) if len(seen) else np.zeros(spec.n_features)
        hi = np.nan_to_num(np.nanmax(finite, axis=0), nan=0.0) if len(seen) else np.zeros(spec.n_features)
    span = hi - lo
    pad = np.where(span > 0, span, np.maximum(np.abs(lo), 1.0))
    return replace(spec, feature_low=tuple(float(x) for x in lo - pad),
                   feature_high=tuple(float(x) for x in hi + pad))
