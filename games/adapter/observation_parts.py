"""State features derived from an observation, part by part (a ``Dict`` or ``Tuple`` space).

A leaf of the observation space is one part: a short one (at most :data:`MAX_FLAT_FEATURES`
values) is its own features, an image gets Go-Explore's cells
(:class:`games.adapter.derived_features.ImageCells`), any other long one is averaged down
(:class:`games.adapter.derived_features.PooledVector`). A game that observes
``{"image": frame, "pos": (x, y)}`` so keeps its two numbers as features beside the frame's
cells; averaged down whole, they were drowned in the frame's pixels. Features come in the order
``gymnasium.spaces.flatten`` lays the parts out. :mod:`games.adapter.spec` decides when.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from gymnasium import spaces

from games.adapter.derived_features import CELL_LEVELS, ImageCells, PooledVector
from games.core.base import GameSpecError

MAX_FLAT_FEATURES = 128
"""A part with more values than this gets derived features (cells, or averages)."""
DEFAULT_BINS = 10
"""Buckets per feature of a short or averaged part."""
HUGE_BOUND = 1e6
"""Bounds larger than this in size are treated as no bound."""


def bounds(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Declared bounds and which features have none: ``(low, high, open)``, where an
    unbounded or huge side (beyond :data:`HUGE_BOUND`) makes a feature open, its bounds 0
    until its cells are learned."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    bad_low = ~np.isfinite(low) | (np.abs(low) > HUGE_BOUND)
    bad_high = ~np.isfinite(high) | (np.abs(high) > HUGE_BOUND)
    open_ = bad_low | bad_high | ~(high > low)
    return np.where(open_, 0.0, low), np.where(open_, 0.0, high), open_


@dataclass(frozen=True)
class Part:
    """One leaf of the observation: its values ``flat[start:stop]`` and their features.

    Attributes:
        names, low, high, bins, open_: The features' names, bounds, buckets and openness.
        features: The part's flat values to its features.
        coarse: The features summarize the values (cells, averages) rather than being them.
    """

    start: int
    stop: int
    names: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    bins: np.ndarray
    open_: np.ndarray
    features: Callable[[np.ndarray], np.ndarray]
    coarse: bool


def _identity(flat: np.ndarray) -> np.ndarray:
    return flat


def leaf(space: spaces.Space, name: str = "", start: int = 0) -> Part:
    """``space`` as one part at ``flat[start:]``; feature names start with ``name`` (the part's
    key in its observation; none for a whole observation: ``obs0``, ``cell0_0``, ``mean0``)."""
    size = int(spaces.flatdim(space))
    flat = spaces.flatten_space(space)
    dot = f"{name}." if name else ""
    if isinstance(space, spaces.Box) and len(space.shape) in (2, 3) and size > MAX_FLAT_FEATURES:
        cells = ImageCells.for_space(space.shape, space.low, space.high)
        n = cells.n_features
        names = tuple(f"{dot}cell{r}_{c}" for r in range(cells.rows) for c in range(cells.cols))
        # Go-Explore's levels over the declared range, until the probe sees the frame use less
        # than one of them (games.adapter.spec.with_learned_cells).
        return Part(start, start + size, names, np.full(n, cells.low), np.full(n, cells.high),
                    np.full(n, CELL_LEVELS), np.zeros(n, dtype=bool), cells, True)
    low, high, open_ = bounds(flat.low.reshape(-1), flat.high.reshape(-1))
    if size <= MAX_FLAT_FEATURES:
        names = tuple(f"obs{j}" for j in range(size)) if not name else (
            (name,) if size == 1 else tuple(f"{name}{j}" for j in range(size)))
        return Part(start, start + size, names, low, high, np.full(size, DEFAULT_BINS), open_, _identity, False)
    pooled = PooledVector(size, MAX_FLAT_FEATURES)
    open_ = pooled(open_.astype(np.float64)) > 0  # a mean of anything unbounded is open
    low, high = pooled.bounds(low, high)
    names = tuple(f"{dot}mean{j}" for j in range(MAX_FLAT_FEATURES))
    return Part(start, start + size, names, np.where(open_, 0.0, low), np.where(open_, 0.0, high),
                np.full(MAX_FLAT_FEATURES, DEFAULT_BINS), open_, pooled, True)


def parts(space: spaces.Space, name: str = "", start: int = 0) -> list[Part]:
    """The leaves of ``space`` in flattening order, each with its features."""
    if isinstance(space, spaces.Dict):
        children = [(f"{name}.{key}" if name else str(key), sub) for key, sub in space.spaces.items()]
    elif isinstance(space, spaces.Tuple):
        children = [(f"{name}.{i}" if name else str(i), sub) for i, sub in enumerate(space.spaces)]
    else:
        return [leaf(space, name, start)]
    out: list[Part] = []
    for child, sub in children:
        out += parts(sub, child, start)
        start += int(spaces.flatdim(sub))
    return out


@dataclass(frozen=True)
class PartFeatures:
    """A flat observation to the concatenated features of its parts."""

    parts: tuple[Part, ...]

    def __call__(self, flat: np.ndarray) -> np.ndarray:
        return np.concatenate([p.features(flat[p.start : p.stop]) for p in self.parts])



Pick = Callable[[object], object]
"""An observation to its numeric parts."""


def _whole(obs: object) -> object:
    return obs


@dataclass(frozen=True)
class NumericParts:
    """An observation space without its text parts, and how to cut an observation to it.

    A game may observe words beside numbers (MiniGrid's ``mission``: "use the key to open the
    door"). Text has no fixed number of values, so it can be neither a feature nor an input
    of a policy; such parts are kept out of both, and the run says so once at its start.
    Every other part is played as :func:`gymnasium.spaces.flatten` lays it out.

    Attributes:
        space: The observation space without its text parts.
        dropped: The names of the text parts left out (``mission``, ``0.text``).
        pick: An observation to its kept parts.
    """

    space: spaces.Space
    dropped: tuple[str, ...] = ()
    pick: Pick = _whole

    def __call__(self, obs: object) -> object:
        """``obs`` without its text parts (the same object when there are none)."""
        return self.pick(obs)


@dataclass(frozen=True)
class _PickParts:
    """A ``Dict`` (``as_dict``) or ``Tuple`` observation to its kept parts, each picked on."""

    picks: tuple[tuple[object, Pick], ...]
    as_dict: bool

    def __call__(self, obs: object) -> object:
        kept = [(key, pick(obs[key])) for key, pick in self.picks]  # type: ignore[index]
        return dict(kept) if self.as_dict else tuple(v for _, v in kept)


def numeric_parts(space: spaces.Space, label: str = "game") -> NumericParts:
    """The numeric parts of ``space`` (see :class:`NumericParts`).

    Raises:
        GameSpecError: A part that is neither text nor numbers of a fixed size (a ``Sequence``, a
            ``Graph``), named with what to do; or an observation that is text alone.
    """
    kept, dropped, pick = _numeric(space, "", label)
    if kept is None:
        raise GameSpecError(f"{label} observes text only ({space}); the engine plays numbers: give it "
                         "an observation of numbers (a gymnasium.ObservationWrapper)")
    return NumericParts(kept, tuple(dropped), pick)


def _is_text(space: spaces.Space) -> bool:
    if isinstance(space, spaces.Text):
        return True
    try:  # a package's own text space (MiniGrid's MissionSpace) samples strings
        return isinstance(space.sample(), str)
    except Exception:  # noqa: BLE001 - a space that cannot sample is not text
        return False


def _numeric(space: spaces.Space, name: str, label: str) -> tuple[spaces.Space | None, list[str], Pick]:
    if isinstance(space, (spaces.Dict, spaces.Tuple)):
        items = list(space.spaces.items()) if isinstance(space, spaces.Dict) else list(enumerate(space.spaces))
        kept: list[tuple[object, spaces.Space, Pick]] = []
        dropped: list[str] = []
        for key, sub in items:
            part, lost, pick = _numeric(sub, f"{name}.{key}" if name else str(key), label)
            dropped += lost
            if part is not None:
                kept.append((key, part, pick))
        if not kept:
            return None, dropped, _whole
        if not dropped:
            return space, [], _whole
        picks = tuple((k, pick) for k, _, pick in kept)
        if isinstance(space, spaces.Dict):
            return spaces.Dict({k: sub for k, sub, _ in kept}), dropped, _PickParts(picks, True)
        return spaces.Tuple(tuple(sub for _, sub, _ in kept)), dropped, _PickParts(picks, False)
    if _is_text(space):
        return None, [name or "observation"], _whole
    try:
        spaces.flatdim(space)
    except (NotImplementedError, ValueError, TypeError) as exc:
        where = f"observation part {name!r}" if name else "observation"
        raise GameSpecError(
            f"{label}: {where} is {space}, which has no fixed number of values to play "
            f"({exc or 'no flat form'}); leave it out with a gymnasium.ObservationWrapper "
            "(gymnasium.wrappers.FilterObservation for a part of a Dict)"
        ) from None
    return space, [], _whole
