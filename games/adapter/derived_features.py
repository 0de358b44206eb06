"""State features a game can afford when it gives none of its own: Go-Explore's cells.

A game that observes an image would otherwise have one state feature per pixel: coverage,
stuck detection and bug signatures would then treat every frame as a new place. Go-Explore
(Ecoffet et al., arXiv 1901.10995) showed what works instead without domain knowledge: a
frame downscaled to 11 x 8 grey cells with 8 intensity levels, so that nearby frames share a
cell and a new room is a new one. The same idea, averaging, keeps a long flat observation to
a few numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELL_COLUMNS, CELL_ROWS, CELL_LEVELS = 11, 8, 8
"""Go-Explore's cell: 11 wide, 8 tall, 8 intensity levels (first paper's Montezuma setup)."""


def _block_means(image: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """``[H, W]`` to ``[rows, cols]`` means of near-equal blocks (area downscaling)."""
    h, w = image.shape
    r_edges = np.linspace(0, h, rows + 1).astype(np.int64)[:-1]
    c_edges = np.linspace(0, w, cols + 1).astype(np.int64)[:-1]
    sums = np.add.reduceat(np.add.reduceat(image, r_edges, axis=0), c_edges, axis=1)
    counts = np.outer(np.diff(np.append(r_edges, h)), np.diff(np.append(c_edges, w)))
    return sums / counts


@dataclass(frozen=True)
class ImageCells:
    """A frame's Go-Explore cell: the mean of each of ``rows * cols`` blocks, which the spec
    cuts into :data:`CELL_LEVELS` levels over the observation space's range.

    The levels are the spec's, not cut here: a game may declare 0 to 255 and draw codes
    (MiniGrid's grid of object, colour and state numbers, 0 to 10), which Go-Explore's levels
    of 32 grey values see as one cell in every frame; the probe then gives the frame levels
    over the values it saw (:func:`games.adapter.spec.with_learned_cells`).

    Attributes:
        shape: The observation's shape: ``(H, W)``, ``(H, W, C)`` or ``(C, H, W)``.
        channels_last: Where the channels are, for rank-3 shapes.
        low: The smallest value a pixel takes (the observation space's bound).
        high: The largest.
    """

    shape: tuple[int, ...]
    channels_last: bool
    low: float
    high: float

    @classmethod
    def for_space(cls, shape: tuple[int, ...], low: np.ndarray, high: np.ndarray) -> "ImageCells":
        """Cells of a ``Box`` observation of rank 2 or 3; channels are last unless only the
        first axis is small enough to hold them (``(C, H, W)`` stacks)."""
        channels_last = len(shape) == 2 or shape[-1] <= 4 or shape[0] > 4
        lo = float(np.min(low)) if np.all(np.isfinite(low)) else 0.0
        hi = float(np.max(high)) if np.all(np.isfinite(high)) else 255.0
        return cls(tuple(int(s) for s in shape), channels_last, lo, hi if hi > lo else lo + 1.0)

    @property
    def rows(self) -> int:
        return min(CELL_ROWS, self._height_width[0])

    @property
    def cols(self) -> int:
        return min(CELL_COLUMNS, self._height_width[1])

    @property
    def n_features(self) -> int:
        return self.rows * self.cols

    @property
    def _height_width(self) -> tuple[int, int]:
        if len(self.shape) == 2:
            return self.shape[0], self.shape[1]
        return (self.shape[0], self.shape[1]) if self.channels_last else (self.shape[1], self.shape[2])

    def __call__(self, flat: np.ndarray) -> np.ndarray:
        """The cells' mean values, ``[rows * cols]`` (the spec's buckets are their levels)."""
        image = np.asarray(flat, dtype=np.float64).reshape(self.shape)
        if image.ndim == 3:
            image = image.mean(axis=2 if self.channels_last else 0)
        return _block_means(image, self.rows, self.cols).reshape(-1)


@dataclass(frozen=True)
class PooledVector:
    """A long flat observation averaged over ``n_features`` near-equal runs of values."""

    size: int
    n_features: int

    def __call__(self, flat: np.ndarray) -> np.ndarray:
        edges = np.linspace(0, self.size, self.n_features + 1).astype(np.int64)
        sums = np.add.reduceat(np.asarray(flat, dtype=np.float64).reshape(-1), edges[:-1])
        return sums / np.diff(edges)

    def bounds(self, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pooled features' bounds from per-value bounds."""
        return self(low), self(high)
