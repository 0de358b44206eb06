"""Finding the way in a block maze: what a plan agent navigates by (BFS on the grid).

The search knows the blocks and nothing else: where bugs sit is ground truth, and a
navigator that steered around them would hide what a plan is meant to show. A place is
``(row, col)``, the order of the maze's state features.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Sequence

import numpy as np

from games.core.navigation import Route, straight_move
from games.maze.layout import MOVES, MazeLayout


def route(blocks: np.ndarray, start: tuple[int, int], target: tuple[int, int],
          tolerance: int = 0) -> Route | None:
    """A shortest way over free cells from ``start`` to within ``tolerance`` moves
    (Manhattan) of ``target``; None when there is none.

    Args:
        blocks: ``[rows, cols]`` True for a block (the border wall included).
        start: ``(row, col)`` of the robot.
        target: ``(row, col)`` of the place.
        tolerance: Arrival radius.
    """
    def arrived(cell: tuple[int, int]) -> bool:
        return abs(cell[0] - target[0]) + abs(cell[1] - target[1]) <= tolerance

    if arrived(start):
        return Route((), None)
    rows, cols = blocks.shape
    first: dict[tuple[int, int], tuple[tuple[int, int] | None, int]] = {start: (None, -1)}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for a, (dr, dc) in enumerate(MOVES):
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt in first or not (0 <= nxt[0] < rows and 0 <= nxt[1] < cols) or blocks[nxt]:
                continue
            first[nxt] = (cell, a)
            if arrived(nxt):
                actions: list[int] = []
                cur: tuple[int, int] | None = nxt
                while cur is not None and first[cur][0] is not None:
                    prev, act = first[cur]
                    actions.append(act)
                    cur = prev
                return Route(tuple(reversed(actions)), None)
            queue.append(nxt)
    return None


class MazeNavigation:
    """What a plan agent navigates a block maze by (:class:`games.core.navigation.Navigator`):
    places only, no actors. Mixed into a game that has a ``layout``."""

    layout: MazeLayout
    actor_names: tuple[str, ...] = ()
    actor_types: tuple[str, ...] = ()
    removal_events: tuple[str, ...] = ()

    @property
    def categories(self) -> dict[str, tuple[str, ...]]:
        """Words naming several actor types: none (the maze has no actors)."""
        return {}

    def route(self, features: np.ndarray, target: Any, *, action: str | None = None,
              tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> Route | None:
        """A shortest way (BFS over the blocks, blind to bugs) from a feature row ``(row,
        col)`` to a place ``(row, col)``; None for an actor name (the maze has none) or a
        place walled off."""
        if isinstance(target, str):
            return None
        here = (int(round(features[0])), int(round(features[1])))
        return route(self.layout.blocks, here, (int(target[0]), int(target[1])), tolerance or 0)

    def nearest(self, features: np.ndarray, targets: Sequence[Any], within: int,
                gone: frozenset[str] = frozenset()) -> Route | None:
        """The shortest route to any of the places ``targets`` within ``within`` moves."""
        found = [r for r in (self.route(features, t) for t in targets) if r is not None and len(r.actions) <= within]
        return min(found, key=lambda r: len(r.actions), default=None)

    def navigate(self, features: np.ndarray, target: Any) -> int | None:
        """The next move towards a place by BFS; None when there or unreachable."""
        found = self.route(features, target)
        return found.actions[0] if found is not None and found.actions else None

    def straight(self, features: np.ndarray, location: tuple[int, int]) -> int:
        """A move along the longer axis towards ``location`` (row, col), no path finding."""
        return straight_move(location[1] - features[1], location[0] - features[0])
