"""Where a park episode starts: the map's player start, or a walkable cell drawn from the
episode's seed (PPGTA evaluates its agents from uniformly random starts, Section VI-A).

A random start is drawn uniformly among the cells the player can stand in (no rock, tree or
object of interest: :func:`games.doom.park.navigation.walkable`), from a generator seeded by the
episode's seed alone, so an episode replays from its seed as any other; the player is put at
the cell's centre by ZDoom's ``warp`` console command, facing as the map's start does.
"""

from __future__ import annotations

import numpy as np

from games.doom.park.layout import CELL, ParkLayout
from games.doom.park.navigation import walkable

STARTS = ("fixed", "random")
"""``fixed``: the map's player start, on a pathway (the default); ``random``: see the module."""


def start_cells(layout: ParkLayout) -> np.ndarray:
    """``[M, 2]`` the cells a random start is drawn from."""
    return np.argwhere(walkable(layout))


def random_place(cells: np.ndarray, seed: int) -> tuple[float, float]:
    """The map place of the start of the episode seeded with ``seed``: the centre of a cell of
    ``cells`` drawn uniformly."""
    i, j = cells[np.random.default_rng([int(seed), 0x57A27]).integers(len(cells))]
    return (float(i) + 0.5) * CELL, (float(j) + 0.5) * CELL
