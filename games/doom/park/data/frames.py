"""Labelled frames of generated parks: what the detector learns from and is scored on
(:class:`games.perception.training.data.LabelledFrames`).

Random actions from the player start see few objects of interest (OOIs): a park is large and
they stand along its pathways. So the frames are taken where a tester walks: at spots drawn
on the pathways and around the OOIs (a few hundred map units off, any bearing), the player
is teleported there (ZDoom's ``warp x y`` console command, allowed in single player) and
plays a short walk of the game's own actions: mostly turning in place one way (a full circle
takes 12 turns), with some steps, strafes and looks up or down mixed in, so frames also bob
and tilt as an agent's do. Every frame's boxes and types come from the labels buffer through
:attr:`games.doom.park.doom_park.DoomParkVector.visible` (types only, never the bugged class names).

Everything drawn comes from one generator seeded by the caller: same seeds, same frames.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from games.doom.park.doom_park import ACTIONS, DoomParkVector
from games.doom.park.layout import CELL, OOI_TYPES, ROCK
from games.perception.training.data import LabelledFrames

TYPES: tuple[str, ...] = tuple(t.name for t in OOI_TYPES)
"""The OOI types a detector finds, in the order of their indices."""
STEPS_PER_SPOT = 12
"""Frames per spot: one full circle of 30-degree turns when every step turns."""
_NEAR_OOI = 0.5
"""Share of spots drawn around an OOI (the rest on pathway cells)."""
_OOI_DISTANCE = (80.0, 640.0)
"""Map units from an OOI to a spot drawn around it: from close enough that it fills the frame
(a low-resolution sprite then shows its blocks) to far enough to see it small among others."""
_CLEARANCE = 40.0
"""A spot keeps this far from any OOI or tree (the player's radius is 16, a thing's ~20)."""
_MAX_PITCH_STEPS = 2
"""Looks up or down kept within 2 steps (16 degrees) of level."""
_TURN, _MOVE, _LOOK = 0.6, 0.3, 0.1
"""Chances of each kind of action in a walk."""
_A = {name: i for i, name in enumerate(ACTIONS)}


def _spots(game: DoomParkVector, rng: np.random.Generator, count: int) -> list[tuple[float, float]]:
    """``count`` places to stand: on the pathways, or around an OOI, off rocks and things."""
    layout = game.layout
    things = np.array([(o.x, o.y) for o in layout.oois] + [(x, y) for *_, x, y in layout.trees])
    path_cells = np.argwhere(layout.pathway)
    spots: list[tuple[float, float]] = []
    while len(spots) < count:
        if rng.random() < _NEAR_OOI:
            ooi = layout.oois[int(rng.integers(len(layout.oois)))]
            r, bearing = rng.uniform(*_OOI_DISTANCE), rng.uniform(0.0, 2 * math.pi)
            x, y = ooi.x + r * math.cos(bearing), ooi.y + r * math.sin(bearing)
        else:
            i, j = path_cells[int(rng.integers(len(path_cells)))]
            x, y = (i + rng.uniform(0.1, 0.9)) * CELL, (j + rng.uniform(0.1, 0.9)) * CELL
        inside = CELL <= x <= layout.size - CELL and CELL <= y <= layout.size - CELL
        if not inside or layout.terrain[int(x // CELL), int(y // CELL)] == ROCK:
            continue
        if np.hypot(things[:, 0] - x, things[:, 1] - y).min() < _CLEARANCE:
            continue
        spots.append((float(x), float(y)))
    return spots


def _walk(rng: np.random.Generator, pitch: int) -> tuple[list[int], int]:
    """The actions of one spot's walk and the view's pitch (in look steps) after it."""
    turn = _A["turn_left"] if rng.random() < 0.5 else _A["turn_right"]
    actions = []
    for _ in range(STEPS_PER_SPOT):
        u = rng.random()
        if u < _TURN:
            actions.append(turn)
        elif u < _TURN + _MOVE:
            actions.append(_A[("forward", "backward", "left", "right")[int(rng.integers(4))]])
        else:
            up = pitch < _MAX_PITCH_STEPS and (pitch <= -_MAX_PITCH_STEPS or rng.random() < 0.5)
            actions.append(_A["look_up"] if up else _A["look_down"])
            pitch += 1 if up else -1
    return actions, pitch


def park_frames(levels: Sequence[int], frames_per_level: int, seed: int,
                preset: str = "small") -> LabelledFrames:
    """``frames_per_level`` labelled 160x120 frames of each park in ``levels``.

    Args:
        levels: Level seeds of the parks (never the one a detector is scored on when
            training it).
        frames_per_level: Frames taken on each park (rounded up to whole walks of
            :data:`STEPS_PER_SPOT`).
        seed: Seeds the spots and walks.
        preset: The parks' preset.

    Raises:
        ValueError: no levels, or fewer than one frame per level.
    """
    if not levels:
        raise ValueError("park_frames needs at least one level seed")
    if int(frames_per_level) < 1:
        raise ValueError(f"frames per level must be at least 1, got {frames_per_level}")
    rng = np.random.default_rng([int(seed), 0x0D0D])
    frames, boxes, types, level_of = [], [], [], []
    index = {name: k for k, name in enumerate(TYPES)}
    for level in levels:
        game = DoomParkVector(1, level_seed=int(level), preset=preset, max_steps=10**9)
        try:
            game.reset([int(rng.integers(2**31))])
            engine = game.copies[0].game  # the running DoomGame: the console is its own
            spots = -(-int(frames_per_level) // STEPS_PER_SPOT)
            pitch, taken = 0, 0
            for x, y in _spots(game, rng, spots):
                engine.send_game_command(f"warp {x:.1f} {y:.1f}")
                actions, pitch = _walk(rng, pitch)
                for action in actions:
                    if taken == frames_per_level:
                        break
                    step = game.step(np.array([action]))
                    if step.errors:
                        raise RuntimeError(f"park {level} failed while taking frames: {step.errors[0]}")
                    seen = game.visible[0]
                    frames.append(step.obs[0])
                    boxes.append(np.array([v.box for v in seen], dtype=np.int32).reshape(-1, 4))
                    types.append(np.array([index[v.type] for v in seen], dtype=np.int64))
                    level_of.append(int(level))
                    taken += 1
        finally:
            game.close()
    return LabelledFrames(np.stack(frames), tuple(boxes), tuple(types),
                          np.array(level_of, dtype=np.int64), TYPES)
