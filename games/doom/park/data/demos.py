"""Demonstrations played on the park by its navigator: PPGTA's two sets, made by a command.

    evo demos make --out demos/park --levels 1-4 --path 8 --object 8 --steps 300 --seed 0

- **Path following in a region** (``set: path``): the player is put on a pathway cell of
  the region (ZDoom's ``warp``, as :mod:`games.doom.park.data.frames` does) and walks from
  pathway cell to pathway cell of the region, each leg an A* path over walkable pathway
  cells only (:func:`games.doom.park.navigation.find_path`), steered by bearing as the plan
  agent steers (:func:`games.doom.park.navigation.steer`). The region is a rectangle of the
  park given in shares of its side; PPGTA keeps the demonstrated region out of the evaluation.
- **Object tests** (``set: object``): the player is put a few cells from an object of
  interest and circles it while looking at it (PPGTA's 360-degree object test,
  :func:`games.doom.park.navigation.circle_step`).

Both steer by the state features and the park's layout, ground truth a test driver may read
(like a plan agent's ``navigate``); what is written is what the player saw and pressed. The
first frame is taken one step after the warp (the engine shows the new place on the next
tic); that step's action is not part of the demonstration. Level seed 0 is the evaluation
level and is refused. What is written is a demonstration as :mod:`games.perception.demos`
describes; where a demonstrated object stands is :func:`object_place`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from games.doom.park.doom_park import ACTIONS, HELD, TURN_PER_TIC, DoomParkVector
from games.doom.park.layout import CELL, park_layout
from games.doom.park.navigation import TURN_LEFT, cell_of, circle_step, find_path, ooi_names, steer, walkable
from games.perception.base import Detector, od_mask
from games.perception.demos import Demo, make_demo
from games.perception.encoder import downscale
from games.perception.imitation import Playing, load_policy
from games.perception.training.data import EVAL_LEVEL

MIN_LEG = 6
"""Cells between a path leg's start and its goal at least (a leg shorter walks in place)."""
OBJECT_DISTANCE = (3, 6)
"""Cells from an object at which an object test starts (it walks in to the circle)."""
OBJECT_RADIUS = 160.0
"""Map units at which an object test circles (PPGTA's test keeps the object large in view)."""


def region_cells(game: DoomParkVector, region: Sequence[float]) -> np.ndarray:
    """``[cells_x, cells_y]`` bool: walkable pathway cells inside ``region``."""
    pathway = game.pathway & walkable(game.layout)
    n = pathway.shape[0]
    inside = np.zeros_like(pathway)
    inside[int(region[0] * n): int(math.ceil(region[2] * n)), int(region[1] * n): int(math.ceil(region[3] * n))] = True
    return pathway & inside


def _warp(game: DoomParkVector, x: float, y: float) -> None:
    game.copies[0].game.send_game_command(f"warp {x:.1f} {y:.1f}")


class Corrector:
    """DAgger's collection (Ross et al., 2011): a learned policy plays, the navigator labels.

    Behaviour cloning learns the demonstrator's actions on the demonstrator's states only; once
    the student strays, it meets states no demonstration shows and strays further. Episodes
    played with a corrector go where the student (an imitation policy's weights) takes them,
    each step's action being the student's sample, or with probability ``beta`` the
    navigator's; what is written is the navigator's action for every frame seen, the label
    the next student learns from.
    """

    def __init__(self, weights: str, beta: float, rng: np.random.Generator) -> None:
        if not 0.0 <= beta <= 1.0:
            raise ValueError(f"--beta must be in [0, 1], got {beta}")
        self.weights, self.beta, self.rng = str(weights), float(beta), rng
        self.playing = Playing(load_policy(weights)[0], 1)

    def reset(self) -> None:
        self.playing.reset()

    def choose(self, label: int, frame: np.ndarray, boxes: np.ndarray) -> int:
        """The action played on ``frame`` (full-resolution RGB, its objects' ``boxes``)."""
        probs = self.playing.step(downscale(od_mask(frame[None], [boxes])))[0]  # always, to keep its memory
        if self.rng.random() < self.beta:
            return int(label)
        return int(np.argmax(np.log(np.maximum(probs, 1e-30)) + self.rng.gumbel(size=probs.shape)))


class _Episode:
    """Frames, boxes, actions and features of copy 0 as it is played; the boxes the labels
    buffer's (every OOI in view, exactly) or, with a ``detector``, what it finds."""

    def __init__(self, game: DoomParkVector, corrector: Corrector | None = None,
                 detector: Detector | None = None) -> None:
        self.game, self.corrector, self.detector = game, corrector, detector
        if corrector is not None:
            corrector.reset()
        step = game.step(np.array([TURN_LEFT]))  # shows the warped place; not demonstrated
        self._check(step)
        self.frames, self.features, self.actions = [step.obs[0]], [step.features[0]], []
        self.boxes = [self._boxes(step.obs[0])]

    def _boxes(self, frame: np.ndarray) -> np.ndarray:
        if self.detector is not None:
            return self.detector.detect(frame[None])[0].boxes.astype(np.int64)
        return np.array([v.box for v in self.game.visible[0]], dtype=np.int64).reshape(-1, 4)

    @staticmethod
    def _check(step) -> None:  # noqa: ANN001 - a VecStep
        if step.errors:
            raise RuntimeError(f"the park failed while demonstrating: {step.errors[0]}")

    def play(self, action: int) -> np.ndarray:
        """Write ``action`` as this frame's; play it, or the corrector's choice."""
        played = action if self.corrector is None else self.corrector.choose(action, self.frames[-1], self.boxes[-1])
        step = self.game.step(np.array([int(played)]))
        self._check(step)
        self.actions.append(int(action))
        self.frames.append(step.obs[0])
        self.features.append(step.features[0])
        self.boxes.append(self._boxes(step.obs[0]))
        return step.features[0]

    def demo(self, **meta: object) -> Demo:
        if self.corrector is not None:
            meta = {**meta, "played_by": Path(self.corrector.weights).name, "beta": self.corrector.beta}
        if self.detector is not None:
            meta = {**meta, "masks": "detector"}
        frames = np.stack(self.frames)
        return make_demo(frames, od_mask(frames, self.boxes), self.actions, np.stack(self.features), **meta)


def path_demo(game: DoomParkVector, cells: np.ndarray, steps: int, rng: np.random.Generator,
              anywhere: bool = False, corrector: Corrector | None = None, detector: Detector | None = None) -> Demo:
    """One path-following episode of ``steps`` actions on the pathway ``cells`` (copy 0).

    With ``anywhere`` the player starts on any walkable cell of the park, as an evaluation
    episode does (PPGTA's uniformly random starts), and first walks the shortest way onto the
    nearest pathway cell of ``cells``: how a tester gets back to the path before following it.
    """
    starts = np.argwhere(cells)
    if starts.size == 0:
        raise ValueError("the region has no walkable pathway cell; choose a larger --region")
    ground = walkable(game.layout)
    pool = np.argwhere(ground) if anywhere else starts
    i, j = pool[rng.integers(len(pool))]
    game.reset([int(rng.integers(2**31))])
    _warp(game, (i + 0.5) * CELL, (j + 0.5) * CELL)
    episode = _Episode(game, corrector, detector)
    features = episode.features[0]
    path: list[tuple[int, int]] | None = None
    free = cells
    while len(episode.actions) < steps:
        here = cell_of(float(features[0]), float(features[1]), cells.shape)
        if path is None or here == path[-1] or here not in path:
            if cells[here]:
                free, path = cells, _leg(cells, here, starts, rng)
            else:  # off the pathway: the shortest way back onto it, over any walkable cell
                free, path = ground, find_path(ground | cells, here, {(int(a), int(b)): None for a, b in starts})
        if path is None or len(path) < 2:  # no way found: turn and look again
            action = TURN_LEFT
        else:
            path = path[path.index(here):]
            action = steer(features, path, free) if len(path) > 1 else TURN_LEFT
        features = episode.play(action)
    return episode.demo(source="plan:path", set="path", level_seed=int(game.layout.seed),
                        preset=game.layout.preset, start="anywhere" if anywhere else "pathway")


def _leg(free: np.ndarray, here: tuple[int, int], cells: np.ndarray, rng: np.random.Generator,
         tries: int = 8) -> list[tuple[int, int]] | None:
    """A path from ``here`` to a random pathway cell at least :data:`MIN_LEG` cells away."""
    far = cells[np.abs(cells - np.array(here)).max(axis=1) >= MIN_LEG]
    pool = far if len(far) else cells
    for _ in range(tries):
        goal = tuple(int(v) for v in pool[rng.integers(len(pool))])
        path = find_path(free, here, {goal: None})
        if path is not None:
            return path
    return None


def turn_left_by(game: DoomParkVector, copy: int, degrees: float) -> None:
    """Turn ``copy`` of ``game`` left by ``degrees`` (in whole tics of the park's turn) between
    its steps, without a step of its own: a start's facing, not a demonstrated action."""
    held = list(HELD[TURN_LEFT])
    for _ in range(int(round((degrees % 360.0) / TURN_PER_TIC))):
        game.copies[copy].game.make_action(held, 1)


def object_demo(game: DoomParkVector, target: int, steps: int, rng: np.random.Generator,
                corrector: Corrector | None = None, detector: Detector | None = None) -> Demo:
    """One object test of ``steps`` actions around OOI ``target`` (its id; copy 0), clockwise:
    one direction, as a test procedure states it (with both, the demonstrated action mix is
    half left and half right strafing, and every single test, going one way, is far from it
    by PPGTA's Jensen-Shannon measure).

    The player starts facing anywhere, so about half the episodes begin by turning towards an
    object out of view. Starting every test facing its object (give or take 30 degrees, as the
    benchmark starts them) was tried: in the PPGTA study such a policy tested 31 objects of
    level 101 in 18 episodes against the shipped policy's 54 (docs/measured.md#ppgtas-evaluation).
    """
    ooi = game.oois[target]
    free = walkable(game.layout)
    ci, cj = cell_of(ooi.x, ooi.y, free.shape)
    near = [(i, j) for i in range(ci - OBJECT_DISTANCE[1], ci + OBJECT_DISTANCE[1] + 1)
            for j in range(cj - OBJECT_DISTANCE[1], cj + OBJECT_DISTANCE[1] + 1)
            if 0 <= i < free.shape[0] and 0 <= j < free.shape[1] and free[i, j]
            and max(abs(i - ci), abs(j - cj)) >= OBJECT_DISTANCE[0]]
    if not near:
        raise ValueError(f"no walkable cell {OBJECT_DISTANCE} cells from object {target}")
    i, j = near[rng.integers(len(near))]
    game.reset([int(rng.integers(2**31))])
    _warp(game, (i + 0.5) * CELL, (j + 0.5) * CELL)
    episode = _Episode(game, corrector, detector)
    features = episode.features[0]
    while len(episode.actions) < steps:
        features = episode.play(circle_step(features, (ooi.x, ooi.y), OBJECT_RADIUS, clockwise=True))
    names = game.actor_names
    return episode.demo(source="plan:object", set="object", level_seed=int(game.layout.seed),
                        preset=game.layout.preset, target=names[target])


def park_demos(levels: Sequence[int], paths: int, objects: int, steps: int, seed: int,
               region: Sequence[float] = (0.0, 0.0, 0.5, 0.5), preset: str = "small",
               anywhere: bool = False, corrector: Corrector | None = None,
               detector: Detector | None = None) -> Iterator[Demo]:
    """``paths`` path-following and ``objects`` object-test episodes on each level, in order.

    Object tests circle the level's objects in an order drawn from ``seed``, each once
    before any twice. ``anywhere``: path-following episodes start on any walkable cell
    (:func:`path_demo`). With a ``corrector`` the episodes are played by its policy and
    labelled by the navigator (:class:`Corrector`). With a ``detector`` the frames are
    OD-masked with its boxes, as the ``detect`` wrapper masks what a policy plays on, rather
    than with the labels buffer's exact boxes of every object in view.

    Raises:
        ValueError: level 0 among ``levels``; counts below 0 or fewer than 1 step.
    """
    if EVAL_LEVEL in levels:
        raise ValueError(f"--levels must not include {EVAL_LEVEL}, the evaluation level")
    if paths < 0 or objects < 0 or steps < 1:
        raise ValueError(f"--path and --object must be at least 0 and --steps at least 1, got {paths}, {objects}, {steps}")
    rng = np.random.default_rng([int(seed), 0xDE30])
    for level in levels:
        game = DoomParkVector(1, level_seed=int(level), preset=preset, max_steps=steps + 1)
        try:
            mask = region_cells(game, region)
            for _ in range(paths):
                yield path_demo(game, mask, steps, rng, anywhere, corrector, detector)
            order = rng.permutation(len(game.oois))
            for k in range(objects):
                yield object_demo(game, int(order[k % len(order)]), steps, rng, corrector, detector)
        finally:
            game.close()


def object_place(meta: Mapping[str, Any]) -> tuple[float, float] | None:
    """Where the object a demonstration's test circles stands (map units): its ``target`` on
    its level; None for a path demonstration, or a name the level has no object of."""
    target, level = meta.get("target"), meta.get("level_seed")
    if not target or level is None:
        return None
    layout = park_layout(str(meta.get("preset", "small")), int(level))
    names = ooi_names(layout)
    if target not in names:
        return None
    ooi = layout.oois[names.index(target)]
    return ooi.x, ooi.y


__all__ = ["ACTIONS", "EVAL_LEVEL", "Corrector", "object_demo", "object_place", "park_demos", "path_demo",
           "turn_left_by"]
