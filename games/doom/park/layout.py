"""A park laid out from a seed: grass, a network of pathways, rocks, ponds, trees and objects.

PPGTA's evaluation level ("Preference-conditioned pixel-based game testing agent", Section
V-A; ``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) is a city park in
Unreal: pathways through green spaces, lakes, and objects of interest (OOIs) of four types
distributed along the pathways, half of each type with a texture bug (low resolution or
stretched). :func:`park_layout` draws such a park on a grid of :data:`CELL`-unit cells, from
a seed alone: the same seed gives the same park. :mod:`games.doom.udmf` turns it into a Doom map,
:mod:`games.doom.park.wad` into a WAD with the degraded sprites.

Pathways are thick segments between waypoints, joined by a minimum spanning tree (every
pathway reachable from every other) plus a few extra links (loops, as in a park); rocks and
ponds sit on the grass away from them; OOIs stand on grass cells beside a pathway.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELL = 64
"""Map units per layout cell: a Doom grid block, and the cell the game's coverage uses."""
GRASS, PATH, ROCK, WATER = 0, 1, 2, 3
"""Terrain codes of the layout grid."""

PATH_HALF_WIDTH = 1.0
"""Half-width of a pathway in cells: cells whose centre lies within it of a segment are
pathway, so pathways are two to three cells (128-192 units) wide."""
BUG_KINDS = ("lowres", "stretched")
"""PPGTA's two texture bugs: a low-resolution texture and a stretched one."""


@dataclass(frozen=True)
class OOIType:
    """A decoration of Freedoom used as an object of interest.

    Attributes:
        name: The type's name (what a detector is told and scored on).
        actor: The decoration's class in the engine's DECORATE (what the labels buffer says).
        ednum: Its editor number (a UDMF thing's ``type``).
        sprite: The four-letter sprite its spawn state shows.
        frames: The frames of that state, in order.
        tics: Tics per frame (-1: a still image).
        bright: Drawn at full brightness (lamps).
    """

    name: str
    actor: str
    ednum: int
    sprite: str
    frames: str
    tics: int
    bright: bool = False


# PPGTA's four OOI types are rock pillars, barrels, tires and chairs; Freedoom has no tire
# or chair, so its own pillar, barrel, burnt stump and lamp stand in.
OOI_TYPES: tuple[OOIType, ...] = (
    OOIType("barrel", "ExplosiveBarrel", 2035, "BAR1", "AB", 6),
    OOIType("pillar", "TallGreenColumn", 30, "COL1", "A", -1),
    OOIType("stump", "TorchTree", 43, "TRE1", "A", -1),
    OOIType("lamp", "TechLamp", 85, "TLMP", "ABCD", 4, bright=True),
)
TREES: tuple[tuple[str, int], ...] = (("Stalagtite", 47), ("BigTree", 54))
"""Trees (class, editor number): scenery and obstacles on the grass, not objects of interest."""


@dataclass(frozen=True)
class Preset:
    """How big a park is and how much is in it."""

    size: int
    waypoints: int
    loops: int
    oois_per_type: int
    rocks: int
    ponds: int
    trees: int


PRESETS: dict[str, Preset] = {
    "small": Preset(size=2048, waypoints=6, loops=1, oois_per_type=4, rocks=4, ponds=1, trees=12),
    "large": Preset(size=8192, waypoints=36, loops=8, oois_per_type=16, rocks=48, ponds=8,
                    trees=160),
}


@dataclass(frozen=True)
class OOI:
    """One object of interest, as placed: ground truth, read only to score a run.

    Attributes:
        id: Index in the park's list of OOIs (placement order, not bug order).
        type: One of the :data:`OOI_TYPES` names.
        x: Map x of its centre.
        y: Map y of its centre.
        bugged: Whether it shows a degraded sprite.
        bug: ``"lowres"``, ``"stretched"`` or ``""`` when not bugged.
    """

    id: int
    type: str
    x: float
    y: float
    bugged: bool
    bug: str


@dataclass(frozen=True, eq=False)
class ParkLayout:
    """A whole park.

    Attributes:
        preset: The preset's name.
        seed: The level seed it was drawn from.
        terrain: ``[cells_x, cells_y]`` uint8 terrain codes (:data:`GRASS`...).
        oois: The objects of interest.
        trees: ``(class, editor number, x, y)`` of every tree.
        start: ``(x, y, angle in degrees)`` of the player start, on a pathway.
    """

    preset: str
    seed: int
    terrain: np.ndarray
    oois: tuple[OOI, ...]
    trees: tuple[tuple[str, int, float, float], ...]
    start: tuple[float, float, float]

    @property
    def size(self) -> int:
        """Map units along x and y (the park spans ``[0, size]`` on both)."""
        return int(self.terrain.shape[0] * CELL)

    @property
    def pathway(self) -> np.ndarray:
        """``[cells_x, cells_y]`` bool, True on pathway cells (the preferred area)."""
        return self.terrain == PATH

    @property
    def blocked(self) -> np.ndarray:
        """``[cells_x, cells_y]`` uint8, 1 where no one can stand (rocks)."""
        return (self.terrain == ROCK).astype(np.uint8)


def cell_centre(i: int, j: int) -> tuple[float, float]:
    """Map position of the centre of cell ``(i, j)``."""
    return float((i + 0.5) * CELL), float((j + 0.5) * CELL)


def _waypoints(rng: np.random.Generator, n_cells: int, count: int) -> np.ndarray:
    """``[count, 2]`` float cell coordinates, spread out (the farthest of a few candidates)."""
    margin = 3
    points = [rng.uniform(margin, n_cells - margin, size=2)]
    while len(points) < count:
        candidates = rng.uniform(margin, n_cells - margin, size=(8, 2))
        dist = np.linalg.norm(candidates[:, None] - np.array(points)[None], axis=2).min(axis=1)
        points.append(candidates[int(np.argmax(dist))])
    return np.array(points)


def _links(points: np.ndarray, loops: int) -> list[tuple[int, int]]:
    """A minimum spanning tree of the waypoints (Prim), plus the ``loops`` shortest other links."""
    n = len(points)
    dist = np.linalg.norm(points[:, None] - points[None], axis=2)
    inside = np.zeros(n, dtype=bool)
    inside[0] = True
    links = []
    for _ in range(n - 1):
        masked = np.where(inside[:, None] & ~inside[None, :], dist, np.inf)
        a, b = np.unravel_index(int(np.argmin(masked)), masked.shape)
        links.append((int(a), int(b)))
        inside[b] = True
    tree = {frozenset(link) for link in links}
    others = sorted((dist[a, b], a, b) for a in range(n) for b in range(a + 1, n)
                    if frozenset((a, b)) not in tree)
    links += [(a, b) for _, a, b in others[:loops]]
    return links


def _paint_segment(terrain: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
    """Mark as pathway the cells whose centre lies within :data:`PATH_HALF_WIDTH` of ``pq``."""
    n = terrain.shape[0]
    centres = np.stack(np.meshgrid(np.arange(n) + 0.5, np.arange(n) + 0.5, indexing="ij"), -1)
    d = q - p
    t = np.clip(((centres - p) @ d) / max(float(d @ d), 1e-9), 0.0, 1.0)
    dist = np.linalg.norm(centres - (p + t[..., None] * d), axis=-1)
    terrain[dist <= PATH_HALF_WIDTH] = PATH


def _near(mask: np.ndarray, radius: int) -> np.ndarray:
    """``mask`` grown by ``radius`` cells in the 8 directions (no wrap-around)."""
    out = mask.copy()
    n0, n1 = mask.shape
    for di in range(-radius, radius + 1):
        for dj in range(-radius, radius + 1):
            shifted = np.zeros_like(mask)
            shifted[max(di, 0): n0 + min(di, 0), max(dj, 0): n1 + min(dj, 0)] = \
                mask[max(-di, 0): n0 + min(-di, 0), max(-dj, 0): n1 + min(-dj, 0)]
            out |= shifted
    return out


def _free_cells(terrain: np.ndarray, away_from_path: int) -> np.ndarray:
    """``[K, 2]`` grass cells at least ``away_from_path + 1`` cells from any pathway, in
    row-major order (so a seeded draw among them repeats), off the border."""
    ok = (terrain == GRASS) & ~_near(terrain == PATH, away_from_path)
    ok[[0, -1], :] = False
    ok[:, [0, -1]] = False
    return np.argwhere(ok)


def _blobs(rng: np.random.Generator, terrain: np.ndarray, count: int, code: int,
           radius: tuple[int, int]) -> None:
    """Paint ``count`` round blobs of terrain ``code`` on grass at least 2 cells from paths."""
    allowed = (terrain == GRASS) & ~_near(terrain == PATH, 1)
    n = terrain.shape[0]
    ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    for _ in range(count):
        free = np.argwhere(allowed)
        if not len(free):
            return
        ci, cj = free[rng.integers(len(free))]
        r = rng.uniform(*radius)
        blob = ((ii - ci) ** 2 + (jj - cj) ** 2 <= r * r) & allowed
        blob[[0, -1], :] = blob[:, [0, -1]] = False
        terrain[blob] = code
        allowed &= ~_near(blob, 1)


def _oois(rng: np.random.Generator, terrain: np.ndarray, per_type: int) -> tuple[OOI, ...]:
    """OOIs on grass cells beside a pathway, 3 cells apart at least; half of each type bugged
    (PPGTA: a 50%-50% split between normal and bugged instances of each type)."""
    beside = (terrain == GRASS) & _near(terrain == PATH, 1)
    candidates = np.argwhere(beside)
    order = rng.permutation(len(candidates))
    taken: list[np.ndarray] = []
    total = per_type * len(OOI_TYPES)
    for k in order:
        cell = candidates[k]
        if all(np.abs(cell - t).max() >= 3 for t in taken):
            taken.append(cell)
            if len(taken) == total:
                break
    if len(taken) < total:
        raise ValueError(f"the park has room for {len(taken)} objects beside its pathways, "
                         f"not {total}")
    types = rng.permutation(np.repeat(np.arange(len(OOI_TYPES)), per_type))
    bug = np.full(total, "", dtype=object)
    for t in range(len(OOI_TYPES)):
        members = rng.permutation(np.flatnonzero(types == t))[: per_type // 2]
        for n, idx in enumerate(members):
            bug[idx] = BUG_KINDS[n % len(BUG_KINDS)]
    return tuple(
        OOI(id=k, type=OOI_TYPES[types[k]].name, x=cell_centre(*taken[k])[0],
            y=cell_centre(*taken[k])[1], bugged=bool(bug[k]), bug=str(bug[k]))
        for k in range(total)
    )


def park_layout(preset: str = "small", seed: int = 0) -> ParkLayout:
    """The park of ``preset`` drawn from ``seed`` (same preset and seed, same park).

    Raises:
        ValueError: ``preset`` is not one of :data:`PRESETS`.
    """
    if preset not in PRESETS:
        raise ValueError(f"preset {preset!r} is not one of {', '.join(PRESETS)}")
    p = PRESETS[preset]
    rng = np.random.default_rng([int(seed), p.size])
    n = p.size // CELL
    terrain = np.full((n, n), GRASS, dtype=np.uint8)
    points = _waypoints(rng, n, p.waypoints)
    for a, b in _links(points, p.loops):
        _paint_segment(terrain, points[a], points[b])
    _blobs(rng, terrain, p.ponds, WATER, (2.0, 4.5))
    _blobs(rng, terrain, p.rocks, ROCK, (0.8, 2.2))
    oois = _oois(rng, terrain, p.oois_per_type)
    used = np.zeros((n, n), dtype=bool)
    for o in oois:
        used[int(o.x // CELL), int(o.y // CELL)] = True
    used = _near(used, 1)
    free = [c for c in _free_cells(terrain, 1) if not used[tuple(c)]]
    picks = rng.permutation(len(free))[: p.trees]
    trees = []
    for k in sorted(picks.tolist()):
        name, ednum = TREES[int(rng.integers(len(TREES)))]
        trees.append((name, ednum, *cell_centre(*free[k])))
    path_cells = np.argwhere((terrain == PATH) & ~used)
    centre = np.array([n / 2, n / 2])
    start_cell = path_cells[int(np.argmin(np.linalg.norm(path_cells + 0.5 - centre, axis=1)))]
    start = (*cell_centre(*start_cell), float(rng.integers(8)) * 45.0)
    return ParkLayout(preset, int(seed), terrain, oois, tuple(trees), start)
