"""A grid of terrain codes as a UDMF map (the ``TEXTMAP`` lump, ZDoom namespace).

UDMF is the text map format of ZDoom-based engines: vertices, linedefs, sidedefs, sectors and
things as ``block { key = value; }``. The engine builds the BSP nodes of a UDMF map itself
when the WAD has none, so a map written at run time loads as it is.

:func:`grid_textmap` makes one sector per terrain code (a Doom sector may be many disjoint
areas) and a linedef wherever two neighbouring cells differ, collinear runs merged; cells on
the grid's edge get one-sided walls. Runs split wherever the cells on either side change, so
no line ends in the middle of another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OUTSIDE = -1
"""The code of what lies beyond the grid's edge: the void behind a one-sided wall."""


@dataclass(frozen=True)
class SectorStyle:
    """Heights, flats and light of a terrain code's sector, and the texture of its sides.

    Attributes:
        floor: Floor height.
        ceiling: Ceiling height.
        floor_flat: Floor flat.
        ceiling_flat: Ceiling flat (``F_SKY1`` is the sky).
        light: Light level 0..255.
        side: Texture of the step up to this sector from a lower neighbour (``-`` for none).
    """

    floor: int
    ceiling: int
    floor_flat: str
    ceiling_flat: str
    light: int
    side: str = "-"


@dataclass(frozen=True)
class Thing:
    """A thing on the map: its editor number, place and facing (degrees, 0 = east)."""

    ednum: int
    x: float
    y: float
    angle: int = 0


def _runs(codes: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """Edges between neighbouring columns of ``codes [n + 2, m]`` (the outer rows are the
    grid's surroundings): ``(i, j0, j1, left, right)`` for each run of ``j`` where column
    ``i - 1`` holds ``left`` and column ``i`` holds ``right``, the two differing."""
    out = []
    for i in range(1, codes.shape[0]):
        left, right = codes[i - 1], codes[i]
        j = 0
        while j < codes.shape[1]:
            if left[j] == right[j]:
                j += 1
                continue
            j0 = j
            while j < codes.shape[1] and left[j] == left[j0] and right[j] == right[j0]:
                j += 1
            out.append((i - 1, j0, j, int(left[j0]), int(right[j0])))
    return out


def _fmt(value: float) -> str:
    return f"{float(value):.1f}"


def grid_textmap(
    terrain: np.ndarray, cell: int, styles: dict[int, SectorStyle], wall: str,
    things: list[Thing],
) -> str:
    """The TEXTMAP of a map whose cell ``(i, j)`` spans ``[i * cell, (i + 1) * cell)`` in x
    and ``[j * cell, (j + 1) * cell)`` in y.

    Args:
        terrain: ``[n, m]`` terrain codes, every one a key of ``styles``.
        cell: Map units per cell.
        styles: The sector of each code.
        wall: Texture of the one-sided walls around the grid.
        things: Things to place; each spawns in every skill and in single player (a UDMF
            thing without ``skill1``..``skill5`` and ``single`` does not spawn at all).

    Raises:
        ValueError: a terrain code has no style.
    """
    codes = sorted(int(c) for c in np.unique(terrain))
    missing = [c for c in codes if c not in styles]
    if missing:
        raise ValueError(f"terrain codes {missing} have no sector style")
    sector_of = {c: k for k, c in enumerate(codes)}
    padded = np.pad(terrain.astype(np.int64), 1, constant_values=OUTSIDE)
    vertices: dict[tuple[int, int], int] = {}
    lines: list[tuple[int, int, int, int]] = []  # v1, v2, front code, back code

    def vertex(x: int, y: int) -> int:
        return vertices.setdefault((x, y), len(vertices))

    # Vertical lines at x = i * cell; Doom's front side is on the right of v1 -> v2.
    for i, j0, j1, west, east in _runs(padded[:, 1:-1]):
        a, b = vertex(i * cell, j0 * cell), vertex(i * cell, j1 * cell)
        lines.append((a, b, east, west) if east != OUTSIDE else (b, a, west, east))
    # Horizontal lines at y = j * cell (the transposed grid: "west" is south).
    for j, i0, i1, south, north in _runs(padded[1:-1, :].T):
        a, b = vertex(i0 * cell, j * cell), vertex(i1 * cell, j * cell)
        lines.append((a, b, south, north) if south != OUTSIDE else (b, a, north, south))

    out = ['namespace = "zdoom";', ""]
    for (x, y), _ in sorted(vertices.items(), key=lambda kv: kv[1]):
        out.append(f"vertex {{ x = {_fmt(x)}; y = {_fmt(y)}; }}")
    sides: list[str] = []
    for v1, v2, front, back in lines:
        if back == OUTSIDE:
            out.append(f"linedef {{ v1 = {v1}; v2 = {v2}; sidefront = {len(sides)}; "
                       "blocking = true; }")
            sides.append(f'sidedef {{ sector = {sector_of[front]}; texturemiddle = "{wall}"; }}')
            continue
        step = styles[front] if styles[front].floor > styles[back].floor else styles[back]
        out.append(f"linedef {{ v1 = {v1}; v2 = {v2}; sidefront = {len(sides)}; "
                   f"sideback = {len(sides) + 1}; twosided = true; }}")
        for code in (front, back):
            sides.append(f'sidedef {{ sector = {sector_of[code]}; texturebottom = "{step.side}"; }}')
    out += sides
    for code in codes:
        s = styles[code]
        out.append(
            f"sector {{ heightfloor = {s.floor}; heightceiling = {s.ceiling}; "
            f'texturefloor = "{s.floor_flat}"; textureceiling = "{s.ceiling_flat}"; '
            f"lightlevel = {s.light}; }}"
        )
    for t in things:
        out.append(
            f"thing {{ x = {_fmt(t.x)}; y = {_fmt(t.y)}; angle = {int(t.angle)}; type = {t.ednum}; "
            "skill1 = true; skill2 = true; skill3 = true; skill4 = true; skill5 = true; "
            "single = true; coop = true; dm = true; }"
        )
    return "\n".join(out) + "\n"
