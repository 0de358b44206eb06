"""Finding the way in a dungeon level: what a plan agent navigates by (BFS on the grid).

The search runs over (cell, facing) states, as the game does: a move into a wall or a
solid actor turns the player in place, a move into lava is never taken, and a jump goes
the way the player faces. A target is an actor's name (``switch_1``), an actor type
(``goblin``: the nearest one still there), a category (``enemy``, ``collectable``) or a
location ``(x, y)``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, Sequence

from games.core.navigation import Route, Target
from games.dungeon.layout import (
    ATTACK, CATEGORIES, DOOR, FLOOR, JUMP, LAVA, MOVES, Actor, DungeonLayout,
)


@dataclass(frozen=True)
class Situation:
    """What navigation needs of a game state: where the player is, which way it faces,
    whether the door is open, and which actors are gone (killed, collected)."""

    row: int
    col: int
    facing: int
    door_open: bool
    gone: frozenset[str] = frozenset()


def resolve(layout: DungeonLayout, target: str, gone: Iterable[str] = ()) -> list[Actor]:
    """The actors a target word names that are still there, or [] for an unknown word."""
    actors = layout.actors
    gone = set(gone)
    if target in actors:
        return [] if target in gone else [actors[target]]
    types = CATEGORIES.get(target, (target,))
    return [a for a in actors.values() if a.type in types and a.name not in gone]


def _goal_test(layout: DungeonLayout, target: Target, action: int | None, tolerance: int | None,
               gone: frozenset[str], passable) -> tuple[dict[tuple[tuple[int, int], int], str | None], bool]:
    """The goal states as ``{(cell, facing): actor}``, and whether facing matters."""
    goals: dict[tuple[tuple[int, int], int], str | None] = {}
    if not isinstance(target, str):
        x, y = target
        tol = 0 if tolerance is None else tolerance
        for r in range(layout.tiles.shape[0]):
            for c in range(layout.tiles.shape[1]):
                if abs(r - y) + abs(c - x) <= tol:
                    goals.update({((r, c), f): None for f in range(4)})
        return goals, False
    for actor in resolve(layout, target, gone):
        if action in (JUMP, ATTACK):  # stand next to it facing it (and, to jump, with somewhere to land)
            for r, c in actor.cells:
                for f, (dr, dc) in enumerate(MOVES):
                    edge, land = (r - dr, c - dc), (r + dr, c + dc)
                    if passable(edge) and (action == ATTACK or passable(land)):
                        goals[(edge, f)] = actor.name
            continue
        shut = actor.type == "door" and not passable(actor.cells[0])  # "walk to the door": up to it while it is locked
        tol = tolerance if tolerance is not None else (1 if actor.solid or actor.type == "lava" or shut else 0)
        for r0, c0 in actor.cells:
            for r in range(r0 - tol, r0 + tol + 1):
                for c in range(c0 - tol, c0 + tol + 1):
                    if abs(r - r0) + abs(c - c0) <= tol and passable((r, c)):
                        goals.update({((r, c), f): actor.name for f in range(4)})
    return goals, action in (JUMP, ATTACK)


def route(layout: DungeonLayout, state: Situation, target: Target, *, action: int | None = None,
          tolerance: int | None = None, jumps: bool = False) -> Route | None:
    """A shortest route from ``state`` to ``target``, or None when there is none.

    Args:
        layout: The level.
        state: Where the player is and what has changed.
        target: Actor name, type, category or ``(x, y)``.
        action: What will be done on arrival; an attack needs the player next to the
            target and facing it (so the blow lands on it), a jump also a free cell beyond.
        tolerance: Arrival radius in moves (Manhattan); by default 1 for solid actors, the
            lava and a locked door (next to them), 0 for coins, locations and an open door (on them).
        jumps: Where no walk gets there, a way with jumps over the lava (a nav mesh's jump
            links): what a plan's own step may take ("use the shrine" past the pit, the jump
            left out), never a standing order, which would leap after what it sees.
    """
    tiles = layout.tiles
    solid = {cell for a in layout.actors.values() if a.solid and a.name not in state.gone for cell in a.cells}

    def passable(cell: tuple[int, int]) -> bool:
        r, c = cell
        if not (0 <= r < tiles.shape[0] and 0 <= c < tiles.shape[1]) or cell in solid:
            return False
        return tiles[cell] == FLOOR or (tiles[cell] == DOOR and state.door_open)

    goals, facing_matters = _goal_test(layout, target, action, tolerance, state.gone, passable)
    if not goals:
        return None
    start = ((state.row, state.col), state.facing)
    if start in goals:
        return Route((), goals[start])
    walk = _search(tiles, start, goals, facing_matters, passable, jumps=False)
    return walk if walk is not None or not jumps else _search(tiles, start, goals, True, passable, jumps=True)


State = tuple[tuple[int, int], int]


def _search(tiles, start: State, goals: dict[State, str | None], facing_matters: bool, passable,
            jumps: bool) -> Route | None:
    """Breadth-first over (cell, facing): moves (a blocked one turns in place), never into
    lava, and with ``jumps`` a jump the way the player faces over a lava cell onto floor."""
    shape = tiles.shape

    def key(s: State) -> State:
        return s if facing_matters else (s[0], 0)

    def lava(cell: tuple[int, int]) -> bool:
        return 0 <= cell[0] < shape[0] and 0 <= cell[1] < shape[1] and tiles[cell] == LAVA

    first: dict[State, tuple[State | None, int]] = {key(start): (None, -1)}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        (r, c), facing = s
        steps: list[tuple[int, State]] = []
        for a, (dr, dc) in enumerate(MOVES):
            nxt = (r + dr, c + dc)
            if passable(nxt):
                steps.append((a, (nxt, a)))
            elif not lava(nxt):
                steps.append((a, ((r, c), a)))  # a blocked move turns the player in place
        if jumps:
            dr, dc = MOVES[facing]
            mid, land = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if lava(mid) and passable(land) and not lava(land):
                steps.append((JUMP, (land, facing)))
        for a, n in steps:
            if key(n) in first:
                continue
            first[key(n)] = (s, a)
            if n in goals:
                actions = []
                cur: State | None = n
                while cur is not None and first[key(cur)][0] is not None:
                    prev, act = first[key(cur)]
                    actions.append(act)
                    cur = prev
                return Route(tuple(reversed(actions)), goals[n])
            queue.append(n)
    return None


def nearest(layout: DungeonLayout, state: Situation, targets: Sequence[Target], within: int,
            ) -> Route | None:
    """The shortest route to any of ``targets`` no longer than ``within`` moves, or None."""
    best: Route | None = None
    for target in targets:
        found = route(layout, state, target)
        if found is not None and len(found.actions) <= within:
            if best is None or len(found.actions) < len(best.actions):
                best = found
    return best
