"""A Doom level's geometry, read once: its bounds in cells and where a player can stand.

The engine reports a level's sectors (their linedefs and heights) only with sector info on,
which cannot be switched off once it runs; :func:`level_geometry` reads them with an engine
of its own, so that no timed frame pays for them, and caches the answer per level.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from games.doom.engine import DoomSettings, new_engine

CELL = 64.0
"""Map units per bucket of x and y: a Doom grid block, about two player widths. At the
default frame skip the player runs about 60 units a step, so a step moves about a cell."""
MARGIN = 16.0
"""Map units added around the level's linedefs before rounding the bounds out to whole
cells (the player's radius)."""
MIN_HEADROOM = 56.0
"""Doom's player height: a sector lower than this cannot be stood in (for ``render_map``)."""


@dataclass(frozen=True, eq=False)
class LevelGeometry:
    """What the game needs to know about a level once: its bounds and where one can stand.

    Attributes:
        low: (x, y) of the lowest corner, rounded out to whole cells.
        high: (x, y) of the highest corner.
        bins: Cells along x and y.
        walls: ``[bins_x, bins_y]`` uint8, 1 where a cell's centre lies in no sector the
            player fits in.
    """

    low: tuple[float, float]
    high: tuple[float, float]
    bins: tuple[int, int]
    walls: np.ndarray


def _inside(px: np.ndarray, py: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Even-odd test of points against a sector's linedefs ``[L, 4]`` (x1, y1, x2, y2)."""
    x1, y1, x2, y2 = (lines[:, k][None, :] for k in range(4))
    px, py = px[:, None], py[:, None]
    crosses = (y1 > py) != (y2 > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = (x2 - x1) * (py - y1) / (y2 - y1) + x1
    return ((crosses & (px < at)).sum(axis=1) % 2) == 1


def level_geometry(settings: DoomSettings) -> LevelGeometry:
    """The geometry of the level ``settings`` play, read once per process."""
    return _level_geometry(settings.wad_path, settings.is_iwad, settings.doom_map)


@lru_cache(maxsize=8)
def _level_geometry(wad_path: str, is_iwad: bool, doom_map: str) -> LevelGeometry:
    """Read the level's sectors with an engine of its own, so that no timed frame pays for
    them (sector info cannot be switched off once an engine runs)."""
    probe = DoomSettings(wad_path, is_iwad, doom_map, resolution="160X120", frame_skip=1,
                         max_steps=1, monsters=False, clock="wall")
    game = new_engine(probe, sectors=True)
    try:
        game.new_episode()
        sectors = [
            (np.array([[ln.x1, ln.y1, ln.x2, ln.y2] for ln in s.lines], dtype=np.float64),
             float(s.ceiling_height - s.floor_height))
            for s in game.get_state().sectors if len(s.lines)
        ]
    finally:
        game.close()
    points = np.concatenate([lines for lines, _ in sectors]).reshape(-1, 2)
    low = np.floor((points.min(axis=0) - MARGIN) / CELL) * CELL
    high = np.ceil((points.max(axis=0) + MARGIN) / CELL) * CELL
    bins = np.round((high - low) / CELL).astype(int)
    cx = low[0] + (np.arange(bins[0]) + 0.5) * CELL
    cy = low[1] + (np.arange(bins[1]) + 0.5) * CELL
    gx, gy = (g.ravel() for g in np.meshgrid(cx, cy, indexing="ij"))
    floor = np.zeros(gx.shape, dtype=bool)
    for lines, headroom in sectors:
        if headroom >= MIN_HEADROOM:
            floor |= _inside(gx, gy, lines)
    walls = (~floor).reshape(int(bins[0]), int(bins[1])).astype(np.uint8)
    return LevelGeometry((float(low[0]), float(low[1])), (float(high[0]), float(high[1])),
                         (int(bins[0]), int(bins[1])), walls)

