"""Scripted walks that circle the park's objects of interest: what the texture judge is trained
on and what the visual oracle's benchmark plays.

PPGTA's "360-degree test" of an object is an agent that walks around it while looking at it.
:func:`circle_step` (:mod:`games.doom.park.navigation`, where the park's plan agent circles
too) is that agent as a controller over the park's 9 actions: it turns to face
the object, walks in to a chosen radius and strafes around it, turning back whenever the object
drifts off the centre of the view. It steers by the state features ``(x, y, angle)`` and the
object's place, which is ground truth: a walk is a test driver (like a plan agent's
``navigate``), never a policy whose frames are scored blind.

:func:`circle_walk` plays one episode that circles several objects in turn and returns what
each step showed: the frames, the features, the actions, and the labels buffer's boxes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from games.doom.park.doom_park import ACTIONS, DoomParkVector, VisibleObject
from games.doom.park.navigation import FACING_TOLERANCE, RADIUS_TOLERANCE, circle_step

__all__ = ["FACING_TOLERANCE", "RADIUS_TOLERANCE", "Walk", "circle_step", "circle_walk"]

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
