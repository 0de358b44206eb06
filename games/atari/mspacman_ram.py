"""What MsPacman's RAM says: where Pac-Man is, the tunnel mouths, the RAM observations.

Where Pac-Man is, and the mouths. RAM byte 10 is Pac-Man's x and byte 16 his y. Matched
against his sprite (colour (210, 164, 74)) on ``getScreenRGB()`` over 6,000 frames, the
sprite covers screen columns ``ram_x - 12 .. ram_x - 5`` and rows ``ram_y + 1 .. ram_y + 10``
(slopes 1.00; the median residual 0, within a pixel or two while he turns). The state
features are the sprite's centre in native screen pixels (160 x 210):
``x = (ram_x - 8.5) mod 160`` (the tunnels wrap: ram_x runs 12..171 and 169..171 show at the
left edge), ``y = ram_y + 5.5``.

The first maze, where every episode starts, has two tunnel rows, found by exploring every
position Pac-Man can reach (breadth first over ALE snapshots, 1,489 positions): ram_y 50
and 98, the only rows where ram_x leaves 18..158 (12..26 on the left, 150..171 on the right).
On screen they are the corridors of rows 50-61 and 98-109. The four mouths are the boxes of
RELINE's columns x 0-7 and 152-159 on those rows (x in [0, 8) or [152, 160), y in [50, 62) or
[98, 110) for the sprite's centre): ram_x 12..16 or 169..171 on the left, 161..168 on the
right. RELINE gives the rows as y 21-36 and 45-60; this ROM's tunnel rows are 50-61 and
98-109 on the native screen. Halved, they are 25-30 and 49-54, inside RELINE's ranges, so the
paper's y was probably measured on a frame of half the height (105 rows); the rows used here
are the ones this ROM shows. The boxes stay where they are should an agent clear the maze.

The features are bucketed 8 px wide in x (20 buckets over [0, 160)) and 12 px high in y (14
buckets over [2, 170), the maze's 12-px corridor bands), so each mouth is exactly one bucket,
and nothing else lies in it: outside the tunnel rows Pac-Man's centre never leaves
x 9.5..149.5. Whether a step is slow is decided on the same position the features show.
"""

from __future__ import annotations

import numpy as np

RAM_X, RAM_Y = 10, 16
# Sprite centre = RAM position + offset (fitted on getScreenRGB, see the module docstring).
X_OFFSET, Y_OFFSET = -8.5, 5.5
SCREEN_WIDTH = 160

# RELINE: mouths at screen x 0-7 and 152-159; rows: this ROM's tunnel corridors (see above).
TUNNEL_ROWS: tuple[tuple[float, float], ...] = ((50.0, 62.0), (98.0, 110.0))
MOUTH_COLUMNS: tuple[tuple[float, float], ...] = ((0.0, 8.0), (152.0, 160.0))
# (x_low, x_high, y_low, y_high), half-open; id = 2 * row + side.
MOUTHS: tuple[tuple[float, float, float, float], ...] = tuple(
    (x0, x1, y0, y1) for (y0, y1) in TUNNEL_ROWS for (x0, x1) in MOUTH_COLUMNS
)
MOUTH_NAMES: tuple[str, ...] = ("upper left", "upper right", "lower left", "lower right")

# 8 x 12 px cells: the mouth columns and tunnel rows are whole buckets (0 and 19 of x, 4 and
# 8 of y).
X_BINS = 20
Y_LOW, Y_HIGH, Y_BINS = 2.0, 170.0, 14

_INV_255 = np.float32(1.0 / 255.0)

# RAM bytes of the other actors (AtariARI's annotations, Anand et al. 2019, checked here by
# playing): the four ghosts' x and y, in the coordinates of Pac-Man's bytes 10 and 16, and
# Pac-Man's direction (0 up, 1 right, 2 down, 3 left).
GHOSTS_X, GHOSTS_Y = (6, 7, 8, 9), (12, 13, 14, 15)
RAM_DIRECTION, RAM_LIVES = 56, 123
# The maze's dots: bytes 60-101, one bit a dot, cleared when it is eaten (found by playing:
# over 3 random games these are the bytes whose bits only ever clear, and they clear on the
# steps that score a dot); each byte holds the dots of one stretch of corridor, about 3 bytes
# to a maze row. What is eaten is the game's memory of the episode.
DOTS = slice(60, 102)
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.float32)
# ``obs_type="features"``: [x, y] raw / 255 (what ``state_features`` decodes), direction
# one-hot [4], each ghost's (dx, dy) from Pac-Man [8], lives left / 3 [1], the one-hot of
# Pac-Man's 8 x 12 px cell (the feature buckets) [X_BINS * Y_BINS], the share of dots left in
# each byte of the dots [42] (a compact map of where Pac-Man has eaten).
_CELLS_AT = 15
_DOTS_AT = _CELLS_AT + X_BINS * Y_BINS
OBS_DIMS: dict[str, int] = {"ram": 128, "features": _DOTS_AT + (DOTS.stop - DOTS.start)}


def features_of(ram_x: np.ndarray | int, ram_y: np.ndarray | int) -> np.ndarray:
    """Pac-Man's sprite centre on the native screen, ``[..., 2]`` float64 ``(x, y)``."""
    x = np.mod(np.asarray(ram_x, dtype=np.float64) + X_OFFSET, SCREEN_WIDTH)
    y = np.asarray(ram_y, dtype=np.float64) + Y_OFFSET
    return np.stack([x, y], axis=-1)


def mouth_of(x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
    """Id of the mouth box each screen position lies in, -1 for none."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = np.full(np.broadcast(x, y).shape, -1, dtype=np.int64)
    for i, (x0, x1, y0, y1) in enumerate(MOUTHS):
        out[(x >= x0) & (x < x1) & (y >= y0) & (y < y1)] = i
    return out


# mouth_of for every (ram_x, ram_y): one gather per step, the same answer as the features.
_RAM_GRID = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
MOUTH_TABLE = mouth_of(*np.moveaxis(features_of(*_RAM_GRID), -1, 0)).astype(np.int8)
del _RAM_GRID

# Cells ([x bucket, y bucket]) Pac-Man's centre never enters in the first maze: every position
# reachable from the start (breadth-first search over ALE snapshots) marked the others free.
# One string per x bucket (left to right), one character per y bucket (top to bottom),
# "." = reachable; 158 of the 280 cells.
FREE_CELLS: tuple[str, ...] = (
    "####.###.#####", "...#.###.#....", ".#.........##.", ".#.###.###.##.", ".....#.#......",
    "##.#.#.#.####.", "...#.#.#....#.", ".#.......##.#.", ".#.#.###......", ".#.#.###.#.##.",
    ".#.#.###.#.##.", ".#.#.###......", ".#.......##.#.", "...#.#.#....#.", "##.#.#.#.####.",
    ".....#.#......", ".#.###.###.##.", ".#.........##.", "...#.###.#....", "####.###.#####",
)


def observe(ram: np.ndarray, obs_type: str) -> np.ndarray:
    """The observation of ``ram [N, 128]`` uint8: ``[N, OBS_DIMS[obs_type]]`` float32.

    ``"ram"`` is the bytes scaled to [0, 1]. ``"features"`` is what the RAM says about the
    actors and the maze (see :data:`OBS_DIMS`): a policy that reads Pac-Man's cell from a
    one-hot can hold one direction per cell, which is a route through the maze (a direction
    held at a wall is kept until the next opening, so a cell needs one action, not a turn
    timed to the pixel); from the raw bytes it would first have to learn where each cell
    is. The dots left tell it where it has been this episode, after a lost life too, which
    its position alone cannot (the same cell calls for another way once a tunnel is done).
    """
    if obs_type == "ram":
        return np.multiply(ram, _INV_255, dtype=np.float32)
    n = ram.shape[0]
    out = np.zeros((n, OBS_DIMS[obs_type]), dtype=np.float32)
    px = ram[:, RAM_X].astype(np.float32)
    py = ram[:, RAM_Y].astype(np.float32)
    out[:, 0] = px * _INV_255
    out[:, 1] = py * _INV_255
    rows = np.arange(n)
    out[rows, 2 + (ram[:, RAM_DIRECTION] & 3)] = 1.0
    out[:, 6:14:2] = np.clip((ram[:, GHOSTS_X].astype(np.float32) - px[:, None]) / SCREEN_WIDTH, -1.0, 1.0)
    out[:, 7:14:2] = np.clip((ram[:, GHOSTS_Y].astype(np.float32) - py[:, None]) / Y_HIGH, -1.0, 1.0)
    out[:, 14] = np.minimum(ram[:, RAM_LIVES], 3) / 3.0
    feats = features_of(ram[:, RAM_X], ram[:, RAM_Y])
    cx = np.clip((feats[:, 0] / (SCREEN_WIDTH / X_BINS)).astype(np.int64), 0, X_BINS - 1)
    cy = np.clip(((feats[:, 1] - Y_LOW) / ((Y_HIGH - Y_LOW) / Y_BINS)).astype(np.int64), 0, Y_BINS - 1)
    out[rows, _CELLS_AT + cx * Y_BINS + cy] = 1.0
    out[:, _DOTS_AT:] = _POPCOUNT[ram[:, DOTS]] / 8.0
    return out



def render_map() -> np.ndarray:
    """The first maze from above for plots: ``[x bucket, y bucket]`` uint8, 1 = a cell
    Pac-Man's centre never enters, 0 = a cell he can reach (first two features' buckets)."""
    grid = np.ones((X_BINS, Y_BINS), dtype=np.uint8)
    for row, line in enumerate(FREE_CELLS):
        for col, ch in enumerate(line):
            if ch == ".":
                grid[row, col] = 0
    return grid

