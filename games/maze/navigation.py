"""Finding the way in a block maze: what a plan agent navigates by (BFS on the grid).

The search knows the blocks and nothing else: where bugs sit is ground truth, and a
navigator that steered around them would hide what a plan is meant to show. A place is
``(row, col)``, the order of the maze's state features.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from games.core.navigation import Route
from games.maze.layout import MOVES


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
