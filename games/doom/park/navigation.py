"""Finding the way in the generated park: what a plan agent navigates by (A* on the cells).

The park is played in ViZDoom, where the player slides with momentum and turns 30 degrees a
step, so a route is not a fixed list of moves to replay: the navigator searches the grid of
64-unit cells (:data:`games.doom.park.layout.CELL`) from the cell the player stands in, and the
move it answers steers along that path from the live state features ``(x, y, angle)``. The
plan agent asks again every step, so a slide or a bump is corrected on the next one.

What the search knows is what a person walking the park sees: where rocks, trees and the
objects of interest (OOIs) stand. An OOI is named by its type and number in id order
(``barrel_1``, ``lamp_3``), never by whether its texture is bugged: a plan's author must not
learn the ground truth it is meant to test.

Units: a place is the first two state features, ``(x, y)`` in map units (what the plan
contract and recorded plans use); it is reached in the cell it lies in. A tolerance is in
moves, one move being one cell step in any of the 8 directions, so ``tolerance: 1`` ends
next to the cell (any of its 8 neighbours). By default 1 for an OOI (it is solid: stand next
to it) and 0 for a place (stand in its cell).
"""

from __future__ import annotations

import heapq
import math
from typing import Sequence

import numpy as np

from games.core.navigation import Route, Target, actor_type
from games.doom.park.layout import CELL, OOI_TYPES, ParkLayout

Cell = tuple[int, int]

FORWARD, BACKWARD, LEFT, RIGHT, TURN_LEFT, TURN_RIGHT, LOOK_UP = 0, 1, 2, 3, 4, 5, 6
"""The park's action indices (:data:`games.doom.park.doom_park.ACTIONS`) that steering, circling
and idling play."""
FACING_TOLERANCE = 20.0
"""Degrees off an object at which circling turns back to it (a turn is 30 degrees a step at
the default frame skip, so the object stays within 15-20 degrees of the view's centre)."""
RADIUS_TOLERANCE = 48.0
"""Map units circling lets its distance to the object drift from the radius before stepping
in or out (a running step covers about 30-35 units, and the player keeps momentum)."""
CIRCLE_RADIUS = 160.0
"""Map units at which a plan's node circles an object (as PPGTA's object tests do)."""
CIRCLE_STEPS = 150
"""Steps a circle may take before it is given up (one takes about 60: walking in included)."""
STALLED_STEPS = 10
"""Sidesteps that, together, carry the player less than :data:`STALLED_DEGREES` round: something
stands on the circle (a wall, another object), and circling goes on closer in (a free sidestep
at the radius goes about 10 degrees round)."""
STALLED_DEGREES = 10.0
CLOSER = 40.0
"""Map units the circle's radius shrinks by each time it is stalled, down to :data:`MIN_RADIUS`."""
MIN_RADIUS = 64.0
HEADING_SLACK = 20.0
"""Degrees off the waypoint's bearing that still walk forward: a turn is 30 degrees a
step, so any bearing ends within 15 degrees of one the player can face."""
LOOKAHEAD = 4
"""Path cells ahead that steering may aim at directly when nothing stands in between (a
straighter walk than from cell centre to cell centre)."""
_STEPS = tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0))


def ooi_names(layout: ParkLayout) -> tuple[str, ...]:
    """The OOIs' names by id: type and number among its type (``barrel_1``, ``barrel_2``...)."""
    seen: dict[str, int] = {}
    names = []
    for ooi in layout.oois:
        seen[ooi.type] = seen.get(ooi.type, 0) + 1
        names.append(f"{ooi.type}_{seen[ooi.type]}")
    return tuple(names)


def walkable(layout: ParkLayout) -> np.ndarray:
    """``[cells_x, cells_y]`` bool: cells the player can walk through (no rock, tree or OOI)."""
    free = layout.blocked == 0
    for _, _, x, y in layout.trees:
        free[int(x // CELL), int(y // CELL)] = False
    for ooi in layout.oois:
        free[int(ooi.x // CELL), int(ooi.y // CELL)] = False
    return free


def cell_of(x: float, y: float, shape: tuple[int, ...]) -> Cell:
    """The cell a map position lies in (clipped to the park)."""
    return (min(max(int(x // CELL), 0), shape[0] - 1), min(max(int(y // CELL), 0), shape[1] - 1))


def find_path(free: np.ndarray, start: Cell, goals: dict[Cell, str | None]) -> list[Cell] | None:
    """A shortest path of cells from ``start`` to any goal cell, ``start`` first; None when
    no goal can be reached.

    A* in 8 directions, a diagonal step costing the square root of 2 (the shortest walk in
    map units: among paths of as many moves, a zigzag would make the player turn for
    nothing), never cutting a corner past an obstacle. ``start`` is searched from even when it is not
    walkable (a player pressed against a tree stands partly in its cell).
    """
    if start in goals:
        return [start]
    targets = np.array(list(goals), dtype=np.float64)

    def h(c: Cell) -> float:  # octile distance to the nearest goal: admissible
        d = np.abs(targets - np.array(c, dtype=np.float64))
        return float((d.max(axis=1) + (math.sqrt(2.0) - 1.0) * d.min(axis=1)).min())

    came: dict[Cell, Cell | None] = {start: None}
    cost = {start: 0.0}
    frontier = [(h(start), 0.0, start)]
    rows, cols = free.shape
    while frontier:
        _, g, cell = heapq.heappop(frontier)
        if cell in goals:
            path: list[Cell] = []
            cur: Cell | None = cell
            while cur is not None:
                path.append(cur)
                cur = came[cur]
            return path[::-1]
        if g > cost[cell]:
            continue
        for di, dj in _STEPS:
            nxt = (cell[0] + di, cell[1] + dj)
            if not (0 <= nxt[0] < rows and 0 <= nxt[1] < cols) or not free[nxt]:
                continue
            if di and dj and not (free[cell[0] + di, cell[1]] and free[cell[0], cell[1] + dj]):
                continue
            step = g + (math.sqrt(2.0) if di and dj else 1.0)
            if step < cost.get(nxt, math.inf):
                cost[nxt], came[nxt] = step, cell
                heapq.heappush(frontier, (step + h(nxt), step, nxt))
    return None


def _clear(free: np.ndarray, x: float, y: float, cell: Cell) -> bool:
    """Whether the straight line from ``(x, y)`` to ``cell``'s centre crosses walkable cells
    only (sampled every eighth of a cell)."""
    tx, ty = (cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL
    n = max(int(math.hypot(tx - x, ty - y) / (CELL / 8)), 1)
    here = cell_of(x, y, free.shape)
    for k in range(1, n + 1):
        c = cell_of(x + (tx - x) * k / n, y + (ty - y) * k / n, free.shape)
        if c != here and not free[c]:
            return False
    return True


def steer(features: np.ndarray, path: Sequence[Cell], free: np.ndarray) -> int:
    """The move that follows ``path`` from the state ``(x, y, angle)``: turn towards the
    farthest of the next :data:`LOOKAHEAD` cells in plain view when its bearing is more than
    :data:`HEADING_SLACK` degrees off, else forward."""
    x, y, angle = (float(v) for v in features[:3])
    aim = path[1]
    for cell in path[2: LOOKAHEAD + 1]:
        if not _clear(free, x, y, cell):
            break
        aim = cell
    return head_for(x, y, angle, (aim[0] + 0.5) * CELL, (aim[1] + 0.5) * CELL)


def head_for(x: float, y: float, angle: float, tx: float, ty: float) -> int:
    """Turn towards ``(tx, ty)`` when its bearing is more than :data:`HEADING_SLACK` degrees
    off ``angle``, else walk forward (ViZDoom's angle: 0 east, turning left raises it)."""
    off = (math.degrees(math.atan2(ty - y, tx - x)) - angle + 180.0) % 360.0 - 180.0
    if off > HEADING_SLACK:
        return TURN_LEFT
    if off < -HEADING_SLACK:
        return TURN_RIGHT
    return FORWARD


def _wrap(degrees: float) -> float:
    """An angle difference in (-180, 180]."""
    return (degrees + 180.0) % 360.0 - 180.0


def circle_step(features: np.ndarray, target: tuple[float, float], radius: float,
                clockwise: bool = True) -> int:
    """The action that keeps an agent at ``features`` circling ``target`` at ``radius``.

    Face the target first; then step in or out when the distance is off by more than
    :data:`RADIUS_TOLERANCE`; else strafe (right to go clockwise around it).
    """
    x, y, angle = (float(v) for v in features[:3])
    dx, dy = target[0] - x, target[1] - y
    error = _wrap(math.degrees(math.atan2(dy, dx)) - angle)
    if abs(error) > FACING_TOLERANCE:
        return TURN_LEFT if error > 0 else TURN_RIGHT
    distance = math.hypot(dx, dy)
    if distance > radius + RADIUS_TOLERANCE:
        return FORWARD
    if distance < radius - RADIUS_TOLERANCE:
        return BACKWARD
    return RIGHT if clockwise else LEFT


class Circle:
    """A plan node's ``circle``: once round an object, looking at it (PPGTA's 360-degree test),
    a :class:`games.core.navigation.Manoeuvre`. Done when the bearing from the object to the player
    has turned a full circle; given up after :data:`CIRCLE_STEPS` steps."""

    def __init__(self, place: tuple[float, float], radius: float = CIRCLE_RADIUS) -> None:
        self.place, self.radius = place, radius
        self.swept, self.steps, self.stalled, self.mark = 0.0, 0, 0, 0.0
        self.bearing: float | None = None
        self.failure: str | None = None
        self.action: int | None = None

    def step(self, features: np.ndarray) -> int | None:
        """The action to play now; None once round (or given up: :attr:`failure` says so)."""
        x, y = float(features[0]), float(features[1])
        bearing = math.degrees(math.atan2(y - self.place[1], x - self.place[0]))
        if self.bearing is not None and math.hypot(x - self.place[0], y - self.place[1]) \
                <= self.radius + RADIUS_TOLERANCE:  # only the way round at the circle counts
            self.swept += _wrap(bearing - self.bearing)
        self.stalled += self.action in (LEFT, RIGHT)
        if self.stalled >= STALLED_STEPS:  # blocked on the circle: go round closer in
            if abs(self.swept) - self.mark < STALLED_DEGREES:
                self.radius = max(MIN_RADIUS, self.radius - CLOSER)
            self.stalled, self.mark = 0, abs(self.swept)
        self.bearing = bearing
        if abs(self.swept) >= 360.0:
            return None
        if self.steps >= CIRCLE_STEPS:
            self.failure = f"went {abs(self.swept):.0f} of 360 degrees round in {CIRCLE_STEPS} steps"
            return None
        self.steps += 1
        self.action = circle_step(features, self.place, self.radius)
        return self.action


class ParkNavigator:
    """The park's :class:`games.core.navigation.Navigator`: OOIs by name and type, places in map
    units, A* over the walkable cells, steering by bearing (see the module).

    Attributes:
        action_names: PPGTA's 9 actions (:data:`games.doom.park.doom_park.ACTIONS`).
        actor_names: The OOIs by type and number, in id order.
        actor_types: The 4 OOI types.
        categories: ``object``: any OOI.
        removal_events: None: nothing in the park goes away.
        manoeuvres: ``circle``: a node may circle its object (:class:`Circle`).
        synonyms: Words a tester writes for the park's names that WordNet does not give.
        idle_action: ``look_up``, what a plan plays while it waits or is done: the park has no
            action that does nothing, and tilting the view moves no one (it stops at the top).
        free: ``[cells_x, cells_y]`` bool, the walkable cells (:func:`walkable`).
    """

    removal_events: tuple[str, ...] = ()
    manoeuvres: tuple[str, ...] = ("circle",)
    synonyms = {"walk around": "circle", "go around": "circle", "circle around": "circle", "orbit": "circle"}

    def __init__(self, layout: ParkLayout, action_names: Sequence[str]) -> None:
        self.action_names = tuple(action_names)
        self.idle_action = LOOK_UP
        steering = {FORWARD: "forward", TURN_LEFT: "turn_left", TURN_RIGHT: "turn_right", LOOK_UP: "look_up"}
        if any(k >= len(self.action_names) or self.action_names[k] != name for k, name in steering.items()):
            raise ValueError(f"action_names must have {steering} at those indices, got {self.action_names}")
        self.actor_names = ooi_names(layout)
        self.actor_types = tuple(t.name for t in OOI_TYPES)
        self.categories = {"object": self.actor_types}
        self.free = walkable(layout)
        self._cells = {name: cell_of(o.x, o.y, self.free.shape)
                       for name, o in zip(self.actor_names, layout.oois)}
        self._places = {name: (float(o.x), float(o.y)) for name, o in zip(self.actor_names, layout.oois)}

    def manoeuvre(self, name: str, actor: str) -> Circle:
        """A new ``circle`` of the OOI ``actor`` (a :class:`games.core.navigation.Manoeuvre`)."""
        if name not in self.manoeuvres or actor not in self._places:
            raise ValueError(f"the park's manoeuvres are {self.manoeuvres} of an OOI, got {name!r} of {actor!r}")
        return Circle(self._places[actor])

    def goals(self, target: Target, tolerance: int | None, gone: frozenset[str] = frozenset(),
              ) -> dict[Cell, str | None]:
        """The cells that count as arrived at ``target``, each with the OOI it is next to."""
        shape = self.free.shape
        if isinstance(target, str):
            types = self.categories.get(target, (target,))
            named = [(n, c) for n, c in self._cells.items()
                     if (n == target or actor_type(n) in types) and n not in gone]
            tol = 1 if tolerance is None else tolerance
        else:
            named = [(None, cell_of(float(target[0]), float(target[1]), shape))]
            tol = 0 if tolerance is None else tolerance
        found: dict[Cell, str | None] = {}
        for name, (ci, cj) in named:
            for i in range(max(ci - tol, 0), min(ci + tol + 1, shape[0])):
                for j in range(max(cj - tol, 0), min(cj + tol + 1, shape[1])):
                    found.setdefault((i, j), name)
        return found

    def route(self, features: np.ndarray, target: Target, *, action: str | None = None,
              tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> Route | None:
        """The way from the state ``(x, y, angle)`` to ``target``, one action per cell move
        (the first: what to play now; the rest forward), and the OOI it leads to; empty when
        the player's cell is within ``tolerance`` moves; None when no way leads there.
        ``action`` (what is done on arrival) does not change where arriving is."""
        goals = self.goals(target, tolerance, gone)
        free = self.free
        start = cell_of(float(features[0]), float(features[1]), free.shape)
        reachable = {c: a for c, a in goals.items() if free[c] or c == start}
        if not reachable:
            return None
        path = find_path(free, start, reachable)
        if path is None:
            return None
        if len(path) == 1:
            return Route((), reachable[start])
        first = steer(np.asarray(features), path, free)
        return Route((first,) + (FORWARD,) * (len(path) - 2), reachable[path[-1]])

    def nearest(self, features: np.ndarray, targets: Sequence[Target], within: int,
                gone: frozenset[str] = frozenset()) -> Route | None:
        """The shortest way to any of ``targets`` within ``within`` cell moves, or None."""
        found = [r for r in (self.route(features, t, gone=gone) for t in targets)
                 if r is not None and len(r.actions) <= within]
        return min(found, key=lambda r: len(r.actions), default=None)

    def straight(self, features: np.ndarray, location: tuple[int, int]) -> int:
        """Turn towards ``location`` (map units) or walk forward, no path finding."""
        f = np.asarray(features, dtype=np.float64)
        return head_for(float(f[0]), float(f[1]), float(f[2]), float(location[0]), float(location[1]))
