"""What a game lends the training of the perception models, and the shape of it.

The models learn from one game's frames, but their training code knows no game: the game
plays its levels and hands over labelled frames, play transitions and labelled crops in the
shapes below, and says where the object of an object-test demonstration stands. A game that
lends them names a :class:`GameData` in its registry entry (``perception_data``, the park's in
:mod:`games.doom.park.data.source`); the ``evo vision``, ``evo demos`` and ``evo record``
commands take it from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

import numpy as np

if TYPE_CHECKING:
    from games.perception.demos import Demo

EVAL_LEVEL = 0
"""The level every perception model is scored on: never trained on, never demonstrated."""

ObjectPlace = Callable[[Mapping[str, Any]], "tuple[float, float] | None"]
"""A demonstration's meta -> where the object its test circles stands (map units), or None
for a path demonstration or an object the level does not have."""


@dataclass(frozen=True, eq=False)
class LabelledFrames:
    """Frames and the objects boxed in them (what the detector learns from and is scored on).

    Attributes:
        frames: ``[N, 3, H, W]`` uint8 RGB.
        boxes: Per frame ``[K, 4]`` int32 ``(x, y, width, height)``.
        types: Per frame ``[K]`` int64 indices into ``type_names``.
        levels: ``[N]`` the level seed each frame was taken on.
        type_names: The object types, in the order of their indices.
    """

    frames: np.ndarray
    boxes: tuple[np.ndarray, ...]
    types: tuple[np.ndarray, ...]
    levels: np.ndarray
    type_names: tuple[str, ...]

    def __len__(self) -> int:
        return int(self.frames.shape[0])


@dataclass(frozen=True)
class Transitions:
    """Adjacent frame pairs and the actions between them (what the encoder learns from).

    Attributes:
        frames: ``[F, 3, 64, 64]`` uint8 frames as the game showed them (downscaled).
        masked: ``[F, 3, 64, 64]`` the same frames, OD-masked at full resolution first.
        before: ``[M]`` index of each transition's first frame.
        after: ``[M]`` index of its second frame.
        actions: ``[M]`` int64 the action played between them.
        level: ``[M]`` the level it was played on.
    """

    frames: np.ndarray
    masked: np.ndarray
    before: np.ndarray
    after: np.ndarray
    actions: np.ndarray
    level: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.shape[0])


@dataclass(frozen=True)
class CropSet:
    """Crops of objects with their labels (what the texture judge learns from).

    Attributes:
        crops: ``[3, h, w]`` uint8 crops.
        types: ``[N]`` index into ``type_names``.
        labels: ``[N]`` index into ``classes``.
        frame_height: Height of the frames they were cut from.
        type_names: The object types, in the order of their indices.
        classes: The texture classes, ``normal`` first, then the game's bug kinds.
    """

    crops: tuple[np.ndarray, ...]
    types: np.ndarray
    labels: np.ndarray
    frame_height: int
    type_names: tuple[str, ...]
    classes: tuple[str, ...]


@dataclass(frozen=True)
class GameData:
    """What a game lends the perception commands.

    Attributes:
        actions: The game's action names (demonstrations index them).
        presets: Its level sizes.
        frames: ``frames(levels, frames_per_level, seed, preset="small")`` ->
            :class:`LabelledFrames`.
        transitions: ``transitions(levels, steps, copies, seed, preset="small")`` ->
            :class:`Transitions` of random play.
        crops: ``crops(level_seed, steps, rng, *, preset="small", jitter=0.0)`` ->
            :class:`CropSet`, labelled by each object's true bug.
        object_place: Where a demonstrated object test's object stands (:data:`ObjectPlace`).
        demos: ``demos(levels, paths, objects, steps, seed, region, preset, anywhere,
            corrector, detector)`` -> demonstrations played by the game's navigator.
        corrector: ``corrector(weights, beta, rng)``: a policy that plays while the navigator
            labels (DAgger), for :attr:`demos`.
        spectator: ``spectator(level_seed, preset)``: the game in a window a person plays.
        record: ``record(source, steps, **meta)`` -> the person's play as a demonstration.
    """

    actions: tuple[str, ...]
    presets: tuple[str, ...]
    frames: Callable[..., LabelledFrames]
    transitions: Callable[..., Transitions]
    crops: Callable[..., CropSet]
    object_place: ObjectPlace
    demos: Callable[..., Iterator["Demo"]]
    corrector: Callable[..., Any]
    spectator: Callable[..., Any]
    record: Callable[..., "Demo"]
