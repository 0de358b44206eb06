"""The pictures of a replay video: the game's own frame or a drawing of its map, and the overlay.

A game that shows frames (:class:`games.core.base.ShowsFrames`) is scaled up by a whole factor so
that its pixels stay sharp. A game without frames gets its level from above (``render_map``,
kept in ``game.json``) cut into the buckets of its first two state features, the cells the
agent has been in so far shaded, its path drawn through them, the start and the agent's
cell marked, and, once the bug has shown, the bug's cell ringed in red. A game with neither
gets the same drawing on an empty grid. Under the picture a band holds the step and the
action that led to it, then the oracle's message from the bug's step on, wrapped to the
frame's width. The band is as tall as the longest text of the video needs (three rows at
least), so a narrow frame (MsPacman's 320 px) shows the whole message on more rows instead of
cutting it at the right edge.

Every frame of one video has the same size, a multiple of :data:`MACRO_BLOCK` pixels each
way (H.264 codes 16 x 16 blocks; imageio would otherwise resize the frames itself).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from evo.run.game_facts import GameFacts

PICTURE_PX = 480
"""About how many pixels the longer side of the picture gets."""
BAND_PX = 64
"""Least height of the overlay band under the picture: three rows of text."""
BAND_ROWS = 3
MACRO_BLOCK = 16
FONT_PX = 14
ROW_PX = FONT_PX + 5
MARGIN_PX = 6
"""Space left of and right of the text, and above its first row."""
SEPARATOR = " · "

FLOOR = (244, 241, 234)
WALL = (59, 59, 59)
VISITED = (169, 200, 232)
PATH = (74, 144, 200)
AGENT = (31, 95, 168)
START = (60, 160, 80)
BUG = (214, 39, 40)
BAND = (24, 24, 24)
TEXT = (240, 240, 240)


@functools.cache
def _font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """The overlay's font, loaded once (a video measures thousands of rows with it)."""
    try:
        return ImageFont.load_default(size=FONT_PX)
    except TypeError:  # Pillow older than 10.1: the bitmap font, one size
        return ImageFont.load_default()


def padded(n: int) -> int:
    """``n`` rounded up to a whole number of macro blocks."""
    return -(-n // MACRO_BLOCK) * MACRO_BLOCK


def band_px(rows: int) -> int:
    """Height of a band holding ``rows`` rows of text (:data:`BAND_PX` at least)."""
    return max(BAND_PX, MARGIN_PX + rows * ROW_PX)


def frame_size(picture_hw: tuple[int, int], rows: int = BAND_ROWS) -> tuple[int, int]:
    """``(height, width)`` of a video frame around a picture of ``picture_hw`` pixels with a
    band of ``rows`` rows of text under it."""
    h, w = picture_hw
    return padded(h + band_px(rows)), padded(w)


def band_rows(width: int, lines: Sequence[str]) -> int:
    """Rows the paragraphs ``lines`` take in the band of a frame ``width`` pixels wide."""
    draw = _measure()
    font = _font()
    return sum(len(_wrap(draw, text, font, width - 2 * MARGIN_PX)) for text in lines)


@functools.cache
def _measure() -> ImageDraw.ImageDraw:
    """A drawing context that only measures text."""
    return ImageDraw.Draw(Image.new("RGB", (1, 1)))


def scale_of(shape_hw: tuple[int, int]) -> int:
    """The whole factor a game frame of ``shape_hw`` pixels is scaled up by."""
    return max(1, round(PICTURE_PX / max(shape_hw)))


def upscale(frame: np.ndarray, scale: int) -> np.ndarray:
    """A ``[H, W, 3]`` frame with each pixel made a ``scale`` x ``scale`` block."""
    return np.repeat(np.repeat(frame, scale, axis=0), scale, axis=1)


@dataclass(frozen=True)
class MapDrawing:
    """Draws a grid game's level with the agent's trace; one per video.

    Args:
        facts: The run's game facts: the spec (buckets) and the map (walls), if any.
    """

    facts: GameFacts
    reach: tuple[tuple[int, int], ...] = ()
    """Cells the map must show beyond the game's first ``feature_bins`` (an open feature's,
    such as where the bug showed); the agent's trace is drawn clamped into the frame."""

    @property
    def _frame(self) -> tuple[tuple[int, int], tuple[int, int]]:
        return self.facts.map_frame(np.asarray(self.reach, dtype=np.int64).reshape(-1, 2))

    @property
    def grid_shape(self) -> tuple[int, int]:
        return self._frame[1]

    @property
    def cell_px(self) -> int:
        return max(4, PICTURE_PX // max(self.grid_shape))

    @property
    def picture_hw(self) -> tuple[int, int]:
        rows, cols = self.grid_shape
        return rows * self.cell_px, cols * self.cell_px

    def cells(self, features: np.ndarray) -> list[tuple[int, int]]:
        """(row, column) in the frame of each state in ``features`` ``[T, F]``."""
        (row0, col0), (rows, cols) = self._frame
        cells = self.facts.map_cells(np.asarray(features, dtype=np.float64)).reshape(-1, 2)
        rows_at = np.clip(cells[:, 0] - row0, 0, rows - 1)
        cols_at = np.clip(cells[:, 1] - col0, 0, cols - 1)
        return [(int(r), int(c)) for r, c in zip(rows_at, cols_at)]

    def draw(self, trace: Sequence[tuple[int, int]], bug_cell: tuple[int, int] | None) -> np.ndarray:
        """The level with the cells of ``trace`` (oldest first, the agent at its end).

        Args:
            trace: Cells the agent was in, from the start to now.
            bug_cell: Where the bug showed, ringed in red; None before it did.

        Returns:
            ``[H, W, 3]`` uint8, :attr:`picture_hw`.
        """
        px = self.cell_px
        walls = self.facts.walls
        grid = np.zeros(self.grid_shape, dtype=bool)
        if walls is not None and walls.shape == grid.shape:
            grid = walls > 0
        colours = np.where(grid[..., None], np.array(WALL, np.uint8), np.array(FLOOR, np.uint8))
        for r, c in set(trace):
            if not grid[r, c]:
                colours[r, c] = VISITED
        image = Image.fromarray(upscale(colours.astype(np.uint8), px))
        draw = ImageDraw.Draw(image)
        centre = [(c * px + px / 2, r * px + px / 2) for r, c in trace]
        if len(centre) > 1:
            draw.line(centre, fill=PATH, width=max(1, px // 6))
        if trace:
            self._disc(draw, trace[0], START, 0.22)
            self._disc(draw, trace[-1], AGENT, 0.36)
        if bug_cell is not None:
            r, c = bug_cell
            draw.ellipse([c * px + 1, r * px + 1, (c + 1) * px - 2, (r + 1) * px - 2],
                         outline=BUG, width=max(2, px // 8))
        return np.asarray(image)

    def _disc(self, draw: ImageDraw.ImageDraw, cell: tuple[int, int], colour: tuple, radius: float) -> None:
        px = self.cell_px
        x, y = cell[1] * px + px / 2, cell[0] * px + px / 2
        draw.ellipse([x - radius * px, y - radius * px, x + radius * px, y + radius * px], fill=colour)


def with_overlay(picture: np.ndarray, size_hw: tuple[int, int], lines: Sequence[tuple[str, tuple]]) -> np.ndarray:
    """``picture`` on a frame of ``size_hw`` with the text band under it.

    Args:
        picture: ``[h, w, 3]`` uint8, at most the frame's size less the band.
        size_hw: The video's frame size (:func:`frame_size`, with the :func:`band_rows` the
            video's longest text needs).
        lines: ``(text, colour)`` paragraphs, wrapped to the frame's width, at the
            ``" · "`` between a paragraph's parts where they fit on a row and else at words;
            what does not fit in the rows under the picture is cut with an ellipsis.

    Returns:
        ``[H, W, 3]`` uint8.
    """
    h, w = size_hw
    frame = Image.new("RGB", (w, h), BAND)
    frame.paste(Image.fromarray(np.ascontiguousarray(picture)), (0, 0))
    draw = ImageDraw.Draw(frame)
    font = _font()
    width = w - 2 * MARGIN_PX
    rows = [(row, colour) for text, colour in lines for row in _wrap(draw, text, font, width)]
    top = picture.shape[0] + MARGIN_PX // 2
    fit = max(1, (h - top) // ROW_PX)
    if len(rows) > fit:
        rows = rows[:fit]
        rows[-1] = (_cut(draw, rows[-1][0] + " …", font, width), rows[-1][1])
    for i, (text, colour) in enumerate(rows):
        draw.text((MARGIN_PX, top + i * ROW_PX), text, fill=colour, font=font)
    return np.asarray(frame)


def _cut(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> str:
    """``text`` shortened with an ellipsis until it fits ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> list[str]:
    """``text`` broken into rows of at most ``width`` pixels: its ``" · "`` parts kept whole
    on a row where they fit, a part wider than a row broken at spaces (a word wider than a
    row is cut)."""
    rows: list[str] = []
    for part in text.split(SEPARATOR):
        joined = f"{rows[-1]}{SEPARATOR}{part}" if rows else part
        if rows and draw.textlength(joined, font=font) <= width:
            rows[-1] = joined
            continue
        fresh = True  # a part that does not fit after the last one starts a row
        for word in part.split():
            joined = f"{rows[-1]} {word}" if rows and not fresh else word
            if rows and not fresh and draw.textlength(joined, font=font) <= width:
                rows[-1] = joined
            else:
                rows.append(_cut(draw, word, font, width))
            fresh = False
    return rows or [""]
