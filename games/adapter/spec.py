"""The spec and state features of a Gymnasium game that has no vector form of its own.

Any ``gymnasium.Env`` with a ``Discrete`` action space is a game, whatever it observes and
whatever it declares. What the engine reads is decided here, in this order:

1. The game declares a ``game_spec``: it is used as it is, checked against the action space
   here and against ``state_features`` when a copy is built (:mod:`games.adapter.game_copy`).
2. The game has ``state_features`` but no spec: the features are its own. Their count comes
   from the first reset; they declare no bounds, so they are open (``GameSpec.feature_open``):
   their cell size is learned from the run's first episodes (:func:`with_learned_cells`) and
   their cells go on past whatever those episodes reached.
3. Neither: the features come from the observation. A small flat observation is its own
   features (bounded where the space bounds them, open where it does not); an image gets
   Go-Explore's cells (:class:`games.adapter.derived_features.ImageCells`); any other observation longer than
   :data:`MAX_FLAT_FEATURES` is averaged down to that many numbers; a long ``Dict`` or
   ``Tuple`` observation gets each part's features side by side
   (:mod:`games.adapter.observation_parts`).

Observations are always handed to agents flattened; ``obs_shape`` is the game's own when it
declares one of ``flatdim`` values (an image ``(channels, height, width)`` stays one, for a
policy with conv layers), else ``(flatdim,)``. A game without a spec that observes frames (a
uint8 ``Box`` image, Gymnasium's ``(height, width, channels)`` with 1 or 3 channels,
``(channels, height, width)``, or a grey ``(height, width)``) is handed on as
``(channels, height, width)`` frames, transposed where its channels come last
(:func:`frame_layout`): what the frame wrappers (``detect``, ``encode``, ``resize``,
``grayscale``, ``frame_stack``), conv policies and RND on frames read. Its state features (the
frame's cells) come from the frame as the game gave it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.adapter.derived_features import CELL_LEVELS
from games.core.base import GameSpec, GameSpecError
from games.adapter.wrapper_attrs import game_attr
from games.adapter.observation_parts import (DEFAULT_BINS, HUGE_BOUND, MAX_FLAT_FEATURES, PartFeatures, leaf,
                                             numeric_parts, parts)

__all__ = ["DEFAULT_BINS", "DEFAULT_MAX_STEPS", "HUGE_BOUND", "MAX_FLAT_FEATURES", "Derived", "EnvFacts",
           "derive", "frame_layout", "learns_cells", "with_learned_cells"]

DEFAULT_MAX_STEPS = 1000
"""Horizon of a game that declares none (no ``game_spec``, no ``max_episode_steps``)."""

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
            game_spec=game_attr(env, "game_spec"),
            observation_space=numeric_parts(env.observation_space, f"game {label}").space,
            action_space=env.action_space,
            max_episode_steps=getattr(spec, "max_episode_steps", None),
            has_state_features=callable(game_attr(env, "state_features")),
        )


@dataclass(frozen=True)
class Derived:
    """A game's spec and how its copies compute state features.

    Attributes:
        spec: The spec; its open features have no cell size until :func:`with_learned_cells`.
        features: Flat observation to features, for games without ``state_features``.
        channels_last: The game's frames come ``(height, width, channels)``: its copies hand
            them on transposed to the spec's ``(channels, height, width)``.
    """

    spec: GameSpec
    features: FeatureFn | None
    channels_last: bool = False


def frame_layout(space: spaces.Space) -> tuple[tuple[int, int, int], bool] | None:
    """``((channels, height, width), channels_last)`` of an observation space of frames: a uint8
    ``Box`` of shape ``(H, W, C)`` or ``(C, H, W)`` with C of 1 or 3, or ``(H, W)``; None for
    anything else. Where both readings fit (a 3 x W x 3 image), channels last wins, as
    Gymnasium's images come."""
    if not isinstance(space, spaces.Box) or space.dtype != np.uint8:
        return None
    shape = tuple(int(v) for v in space.shape)
    if len(shape) == 2 and min(shape) > 1:
        return (1, *shape), False
    if len(shape) != 3 or min(shape) < 1:
        return None
    if shape[2] in (1, 3):
        return (shape[2], shape[0], shape[1]), True
    if shape[0] in (1, 3):
        return shape, False  # type: ignore[return-value]
    return None


def _spec(facts: EnvFacts, obs_dim: int, names: list[str], low: np.ndarray, high: np.ndarray,
          bins: int | np.ndarray, open_: np.ndarray | None = None, coarse: bool = False) -> GameSpec:
    try:
        flat_dtype = spaces.flatten_space(facts.observation_space).dtype
    except (NotImplementedError, ValueError, TypeError):
        flat_dtype = None
    frames = frame_layout(facts.observation_space)
    return GameSpec(
        obs_shape=(obs_dim,) if frames is None else frames[0],
        n_actions=int(facts.action_space.n),  # type: ignore[attr-defined]
        feature_names=tuple(names),
        feature_low=tuple(float(x) for x in low),
        feature_high=tuple(float(x) for x in high),
        feature_bins=tuple(int(b) for b in np.broadcast_to(bins, (len(names),))),
        max_steps=int(facts.max_episode_steps or DEFAULT_MAX_STEPS),
        # Frames stay bytes in the record; any other dtype is handed on as float32.
        obs_dtype="uint8" if flat_dtype == np.uint8 else "float32",
        feature_open=() if open_ is None or not open_.any() else tuple(bool(o) for o in open_),
        coarse_features=coarse,
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
            "the engine plays Discrete actions (a game's factory gives others a grid)"
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
        return Derived(_spec(facts, obs_dim, names, zeros, zeros, DEFAULT_BINS, zeros == 0), None,
                       _channels_last(facts.observation_space))
    if not isinstance(flat_space, spaces.Box):
        raise GameSpecError(f"game {facts.label}: flattened observation space is not a Box")
    # Short: the observation is its own features, whatever its parts. Long: part by part (a
    # Box is one part: cells for an image, averages for anything else).
    leaves = [leaf(flat_space)] if obs_dim <= MAX_FLAT_FEATURES else parts(facts.observation_space)
    open_ = np.concatenate([p.open_ for p in leaves])
    spec = _spec(facts, obs_dim, [n for p in leaves for n in p.names], np.concatenate([p.low for p in leaves]),
                 np.concatenate([p.high for p in leaves]), np.concatenate([p.bins for p in leaves]),
                 open_ if open_.any() else None, coarse=any(p.coarse for p in leaves))
    return Derived(spec, leaves[0].features if len(leaves) == 1 else PartFeatures(tuple(leaves)),
                   _channels_last(facts.observation_space))


def _channels_last(space: spaces.Space) -> bool:
    frames = frame_layout(space)
    return frames is not None and frames[1]


def learns_cells(spec: GameSpec) -> bool:
    """Whether the probe's first episodes set some of ``spec``'s cells: open features without
    a cell size, or the cells of a frame, whose levels may not be those of its declared range
    (:func:`with_learned_cells`)."""
    return not spec.cells_known or bool(_frame_groups(spec, list(range(spec.n_features))))


def with_learned_cells(spec: GameSpec, seen: np.ndarray) -> GameSpec:
    """``spec`` with a cell size for each open feature that has none, from the states the
    run's first episodes reached (``[S, F]``), and the levels of a frame's cells where those
    episodes saw the frame use less than one of the declared ones.

    A cell is a tenth (:data:`DEFAULT_BINS`) of the range those episodes covered, and never
    narrower than the smallest step between two values they took: a grid coordinate gets one
    cell per column however few columns were reached. Cell edges lie half a step before the
    first value reached, so that no value of a grid falls on an edge (where rounding would
    decide its cell). Beyond the range, the cells go on at the same size (``feature_open``);
    nothing is clipped into an edge cell.

    A frame's cells keep Go-Explore's levels over the range the game declares, unless every
    value seen fell in one of them: a game that declares 0 to 255 and draws codes (MiniGrid's
    view of object, colour and state numbers, 0 to 10) was one cell in every frame. Its cells
    then get levels over the range seen, one size for the whole frame: a level per value where
    they took at most :data:`FRAME_CODES` values (codes), else :data:`CELL_LEVELS` levels.
    """
    seen = np.asarray(seen, dtype=np.float64).reshape(-1, spec.n_features)
    low, high, bins = list(spec.feature_low), list(spec.feature_high), list(spec.feature_bins)
    for group in _frame_groups(spec, list(range(spec.n_features))):
        levels = _frame_levels(seen[:, group], low[group[0]], high[group[0]], bins[group[0]])
        if levels is not None:
            for j in group:
                low[j], high[j], bins[j] = levels
    unknown = [j for j, is_open in enumerate(spec.feature_open) if is_open and not high[j] > low[j]]
    for j in unknown:
        origin, width = _cell_size(seen[:, j], DEFAULT_BINS)
        low[j], high[j] = origin, origin + width * bins[j]
    return replace(spec, feature_low=tuple(low), feature_high=tuple(high), feature_bins=tuple(bins))


_FRAME_CELL = re.compile(r"^(.*)cell\d+_\d+$")

FRAME_CODES = 32
"""A frame whose cells took at most this many distinct values is a picture of codes (a grid
of object numbers), not of grey levels: each value is a level of its own."""

MAX_FRAME_LEVELS = 64
"""Most levels a frame's cells get from the values seen (codes beyond share the last)."""


def _frame_groups(spec: GameSpec, features: list[int]) -> list[list[int]]:
    """Of ``features``, those that are the cells of one frame (``image.cell3_4``: the names
    :func:`games.adapter.observation_parts.leaf` gives a game without a spec), grouped by
    frame; none for a game whose features are not a frame's cells."""
    if not spec.coarse_features:
        return []
    groups: dict[str, list[int]] = {}
    for j in features:
        match = _FRAME_CELL.match(spec.feature_names[j])
        if match and not (spec.feature_open and spec.feature_open[j]):
            groups.setdefault(match.group(1), []).append(j)
    return list(groups.values())


def _frame_levels(values: np.ndarray, low: float, high: float, bins: int) -> tuple[float, float, int] | None:
    """``(low, high, levels)`` of a frame's cells from the values seen in them, or None where
    they used more than one of the declared levels (Go-Explore's cells stand)."""
    values = np.unique(values[np.isfinite(values)])
    if values.size < 2:
        return None
    declared = np.clip(np.floor((values - low) / (high - low) * bins), 0, bins - 1)
    if np.unique(declared).size > 1:
        return None
    origin, width = _cell_size(values, CELL_LEVELS, per_value=FRAME_CODES)
    levels = int(min(MAX_FRAME_LEVELS, max(CELL_LEVELS, np.ceil((values[-1] - origin) / width) + 1)))
    return origin, origin + width * levels, levels


def _cell_size(values: np.ndarray, bins: int, per_value: int = 0) -> tuple[float, float]:
    """``(origin, width)`` of the cells of values the first episodes took: ``bins`` cells over
    their range, never narrower than the smallest step between two of them (a cell per value
    where they took at most ``per_value`` values); edges half a step before the first value
    (see :func:`with_learned_cells`)."""
    values = np.unique(values[np.isfinite(values)])
    if not values.size:
        return -0.5, 1.0
    first, span = float(values[0]), float(values[-1] - values[0])
    steps = np.diff(values)
    steps = steps[steps > 1e-9 * max(1.0, abs(first), abs(float(values[-1])))]
    step = float(steps.min()) if steps.size else 0.0
    width = max(span / bins, step) if span > 0 else max(abs(first) / bins, 1.0)
    if steps.size and values.size <= per_value:
        width = step
    return first - (step if steps.size else width) / 2, width
