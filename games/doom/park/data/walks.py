"""Scripted walks that circle the park's objects of interest: what the texture judge is trained
on (:func:`level_crops`) and what the visual oracle's benchmark plays.

PPGTA's "360-degree test" of an object is an agent that walks around it while looking at it.
:func:`circle_step` (:mod:`games.doom.park.navigation`, where the park's plan agent circles
too) is that agent as a controller over the park's 9 actions: it turns to face
the object, walks in to a chosen radius and strafes around it, turning back whenever the object
drifts off the centre of the view. It steers by the state features ``(x, y, angle)`` and the
object's place, which is ground truth: a walk is a test driver (like a plan agent's
``navigate``), never a policy whose frames are scored blind.

:func:`circle_walk` plays one episode that circles several objects in turn and returns what
each step showed: the frames, the features, the actions, and the labels buffer's boxes.
:func:`level_crops` circles every OOI of a level at radii drawn between :data:`RADII` (near
and far views, from all sides) and cuts the texture judge's crops from the labels buffer's
boxes, each labelled by its OOI's bug in the layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from games.doom.park.doom_park import ACTIONS, DoomParkVector, VisibleObject
from games.doom.park.data.frames import TYPES
from games.doom.park.layout import BUG_KINDS
from games.doom.park.navigation import FACING_TOLERANCE, RADIUS_TOLERANCE, circle_step
from games.perception.texture import MIN_HEIGHT, NORMAL, crop, judgeable
from games.perception.training.data import CropSet

__all__ = ["CLASSES", "FACING_TOLERANCE", "RADIUS_TOLERANCE", "RADII", "TYPES", "Walk", "circle_step",
           "circle_walk", "level_crops"]

RADII = (96.0, 448.0)
"""Map units: the circles' radii are drawn from this range (a box 40 to 8 pixels tall at
160x120 for most types)."""
CLASSES: tuple[str, ...] = (NORMAL, *BUG_KINDS)
"""What the park's texture judge answers: normal, low-resolution or stretched."""


@dataclass(frozen=True)
class Walk:
    """One episode of a circling walk.

    Attributes:
        frames: ``[T + 1, 3, H, W]`` uint8 RGB: after reset, then after each step.
        features: ``[T + 1, 3]`` ``(x, y, angle)``.
        actions: ``[T]`` int64.
        visible: ``T + 1`` tuples of the OOIs each frame shows (the labels buffer's boxes).
    """

    frames: np.ndarray
    features: np.ndarray
    actions: np.ndarray
    visible: tuple[tuple[VisibleObject, ...], ...]


def circle_walk(game: DoomParkVector, targets: Sequence[tuple[float, float]],
                radii: Sequence[float], steps_per_target: int, episode_seed: int,
                rng: np.random.Generator, explore: float = 0.1) -> Walk:
    """Play one episode on copy 0 of ``game``: circle each target in turn for
    ``steps_per_target`` steps (or until the game's horizon).

    Args:
        game: The park (one copy is played; its ``max_steps`` bounds the episode).
        targets: Map places to circle, in order.
        radii: The radius to circle each target at.
        steps_per_target: Steps spent on each target, the walk to it included.
        episode_seed: The episode's seed.
        rng: Draws the random steps and the sense of each circle.
        explore: Share of steps replaced by a random action (varied views: looking up or
            down, jumps, a step off the circle).
    """
    obs, features = game.reset([episode_seed] + [0] * (game.num_envs - 1))
    frames, feats, actions = [obs[0]], [features[0]], []
    visible = [game.visible[0]]
    for target, radius in zip(targets, radii):
        clockwise = bool(rng.integers(2))
        for _ in range(steps_per_target):
            action = circle_step(feats[-1], target, radius, clockwise)
            if rng.random() < explore:
                action = int(rng.integers(len(ACTIONS)))
            step = game.step(np.full(game.num_envs, action))
            frames.append(step.obs[0])
            feats.append(step.features[0])
            actions.append(action)
            visible.append(game.visible[0])
            if step.truncated[0] or step.terminated[0]:
                break
        if len(actions) >= game.game_spec.max_steps:
            break
    return Walk(np.stack(frames), np.stack(feats), np.asarray(actions, dtype=np.int64),
                tuple(visible))


def level_crops(level_seed: int, steps: int, rng: np.random.Generator, *, preset: str = "small",
                jitter: float = 0.0, min_height: int = MIN_HEIGHT) -> CropSet:
    """Circle every OOI of one level and cut a crop for every judgeable box it shows, labelled
    by its OOI's bug (ground truth); each box's edges moved by up to ``jitter`` of its size."""
    game = DoomParkVector(1, level_seed=level_seed, preset=preset, max_steps=steps)
    try:
        oois = game.oois
        order = rng.permutation(len(oois))
        walk = circle_walk(game, [(oois[k].x, oois[k].y) for k in order],
                           rng.uniform(*RADII, size=len(oois)), max(steps // len(oois), 1),
                           int(rng.integers(2**31)), rng)
    finally:
        game.close()
    shape = walk.frames.shape[2:]
    crops, types, labels = [], [], []
    for frame, visible in zip(walk.frames, walk.visible):
        for v in visible:
            if v.ooi < 0 or not judgeable(v.box, shape, min_height):
                continue
            x, y, w, h = v.box
            if jitter:
                dx0, dy0, dx1, dy1 = rng.uniform(-jitter, jitter, 4)
                x, y = round(x + dx0 * w), round(y + dy0 * h)
                w, h = max(round(w * (1 + dx1 - dx0)), 2), max(round(h * (1 + dy1 - dy0)), 2)
            crops.append(crop(frame, (x, y, w, h)))
            types.append(TYPES.index(v.type))
            labels.append(CLASSES.index(oois[v.ooi].bug or NORMAL))
    return CropSet(tuple(crops), np.asarray(types, dtype=np.int64),
                   np.asarray(labels, dtype=np.int64), int(shape[0]), TYPES, CLASSES)
