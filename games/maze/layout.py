"""How a block maze is laid out: blocks, start, goal and where its bugs sit (Wuji, Sec. V-A).

The layout is a pure function of ``maze_seed`` and the size settings, so two runs (and every
copy of the game) play exactly the same maze. Generation guarantees that the goal can be
reached avoiding every bug and that each bug can be entered early enough in an episode to
show (:func:`generate_layout`). :class:`MazeTables` turns a layout into the per-cell
arrays a vector step gathers from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from games.core.base import InjectedBug

# Wuji's released block maze: 20x20 with a border wall, 40-step episodes, 25 bugs. "large" is
# the same game scaled up so that random search stops being competitive (Wuji, Sec. V-B).
PRESETS: dict[str, dict[str, Any]] = {
    "small": {"size": 20, "max_steps": 40, "n_bugs": 25, "block_density": 0.25},
    "large": {"size": 64, "max_steps": 400, "n_bugs": 50, "block_density": 0.25},
}

# Actions 0..3 = N, S, E, W as (row, col) moves.
MOVES: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, 1), (0, -1))


# A score-jump logic bug adds this to the step's reward.
SCORE_JUMP = 1000.0

# Every position is kept inside a frame of always-blocked cells this wide, so a move off the
# grid (possible after a logic bug puts the robot into the border wall) is a bump and the
# 5x5 observation window never reads outside the array.
PAD = 2
WINDOW = 5
OBS_SIZE = 4 + WINDOW * WINDOW

# Bugs may only sit where an episode still has this many steps left after reaching them, so
# that a stuck bug has time to show as a frozen state.
STUCK_SLACK = 10
# No bug within this many moves of the start: an episode's first moves are always clean
# (Gymnasium's check_env takes up to three random steps from the start).
MIN_BUG_DISTANCE = 3

# What entering a cell does. One int8 per cell so a batch step needs one gather.
NONE, CRASH, STUCK, LOGIC_SCORE, LOGIC_IN_BLOCK, LOGIC_ASSERT, PERFORMANCE = range(7)
_KIND_OF_EVENT = {
    CRASH: "crash",
    STUCK: "stuck",
    LOGIC_SCORE: "logic",
    LOGIC_IN_BLOCK: "logic",
    LOGIC_ASSERT: "logic",
    PERFORMANCE: "performance",
}

@dataclass(frozen=True, eq=False)
class MazeLayout:
    """One generated maze: blocks, start, goal and the seeded bugs.

    Attributes:
        size: Grid side, border wall included.
        max_steps: Episode horizon the layout was generated for.
        blocks: ``[size, size]`` bool, True where a block or the wall is.
        start: (row, col) where every episode starts.
        goal: (row, col) of the coin.
        bug_cells: (row, col) of each bug, in id order.
        bug_events: What each bug does (one of the event codes of this module).
        bug_targets: For a logic bug that moves the robot into a block, that block's cell;
            the bug's own cell otherwise.
    """

    size: int
    max_steps: int
    blocks: np.ndarray
    start: tuple[int, int]
    goal: tuple[int, int]
    bug_cells: tuple[tuple[int, int], ...]
    bug_events: tuple[int, ...]
    bug_targets: tuple[tuple[int, int], ...]


def resolve_settings(
    preset: str,
    size: int | None,
    max_steps: int | None,
    n_bugs: int | None,
    block_density: float | None,
) -> tuple[int, int, int, float]:
    """Apply the overrides to the preset and check that a maze can be built from them."""
    if preset not in PRESETS:
        raise ValueError(f"preset {preset!r} is not one of {', '.join(sorted(PRESETS))}")
    base = PRESETS[preset]
    size = int(base["size"] if size is None else size)
    max_steps = int(base["max_steps"] if max_steps is None else max_steps)
    n_bugs = int(base["n_bugs"] if n_bugs is None else n_bugs)
    block_density = float(base["block_density"] if block_density is None else block_density)
    if size < 5:
        raise ValueError(f"size must be at least 5 (a border wall around a 3x3 room), got {size}")
    if max_steps < 1:
        raise ValueError(f"max_steps must be positive, got {max_steps}")
    if n_bugs < 0:
        raise ValueError(f"n_bugs must be >= 0, got {n_bugs}")
    if n_bugs > 0 and max_steps - STUCK_SLACK < MIN_BUG_DISTANCE:
        raise ValueError(
            f"max_steps={max_steps} leaves no room for bugs: they sit between "
            f"{MIN_BUG_DISTANCE} and max_steps - {STUCK_SLACK} moves from the start"
        )
    if not 0.0 <= block_density < 1.0:
        raise ValueError(f"block_density must be in [0, 1), got {block_density}")
    return size, max_steps, n_bugs, block_density


def _distances(walls: np.ndarray, start: tuple[int, int], limit: int) -> np.ndarray:
    """BFS move counts from ``start`` over non-wall cells, up to ``limit``; -1 = not reached.

    ``walls`` must have a wall border (every maze does), so no bounds checks are needed.
    Runs over plain lists: layout generation calls it once per candidate bug cell.
    """
    n_cols = walls.shape[1]
    blocked = walls.ravel().tolist()
    dist = [-1] * len(blocked)
    origin = start[0] * n_cols + start[1]
    dist[origin] = 0
    steps = (-n_cols, n_cols, 1, -1)
    frontier = [origin]
    for d in range(1, limit + 1):
        grown = []
        for p in frontier:
            for step in steps:
                q = p + step
                if dist[q] < 0 and not blocked[q]:
                    dist[q] = d
                    grown.append(q)
        if not grown:
            break
        frontier = grown
    return np.array(dist, dtype=np.int64).reshape(walls.shape)


def _entry_distance(dist: np.ndarray, cell: tuple[int, int]) -> int | None:
    """Moves needed to step into ``cell`` from a BFS that treated it as a wall."""
    best: int | None = None
    for dr, dc in MOVES:
        nr, nc = cell[0] + dr, cell[1] + dc
        if 0 <= nr < dist.shape[0] and 0 <= nc < dist.shape[1] and dist[nr, nc] >= 0:
            d = int(dist[nr, nc]) + 1
            best = d if best is None else min(best, d)
    return best


def _placement_holds(
    blocks: np.ndarray,
    start: tuple[int, int],
    goal: tuple[int, int],
    bugs: Sequence[tuple[int, int]],
    max_steps: int,
) -> bool:
    """The two guarantees of a layout, checked with one BFS.

    With the goal and every bug cell walled off, a shortest path into one of them passes
    through none of the others, so one BFS answers both: each bug can be entered within
    ``max_steps - STUCK_SLACK`` moves avoiding the goal and the other bugs, and the goal can
    be reached within ``max_steps`` avoiding every bug (winning is possible).
    """
    walls = blocks.copy()
    walls[goal] = True
    for cell in bugs:
        walls[cell] = True
    dist = _distances(walls, start, max_steps)
    goal_d = _entry_distance(dist, goal)
    if goal_d is None or goal_d > max_steps:
        return False
    for cell in bugs:
        d = _entry_distance(dist, cell)
        if d is None or d > max_steps - STUCK_SLACK:
            return False
    return True


def _bug_events(n_bugs: int) -> list[int]:
    """Kinds split as evenly as possible (25 -> 6 crash, 6 stuck, 7 logic, 6 performance).

    Logic bugs cycle through their three variants: score jump, robot inside a block,
    failed assertion.
    """
    counts = {kind: n_bugs // 4 for kind in ("crash", "stuck", "logic", "performance")}
    for kind in ("logic", "crash", "stuck", "performance")[: n_bugs % 4]:
        counts[kind] += 1
    logic_variants = (LOGIC_SCORE, LOGIC_IN_BLOCK, LOGIC_ASSERT)
    return (
        [CRASH] * counts["crash"]
        + [STUCK] * counts["stuck"]
        + [logic_variants[i % 3] for i in range(counts["logic"])]
        + [PERFORMANCE] * counts["performance"]
    )


@lru_cache(maxsize=64)
def generate_layout(
    size: int, max_steps: int, n_bugs: int, block_density: float, maze_seed: int
) -> MazeLayout:
    """Build the maze for these settings; the same arguments always give the same maze.

    Blocks are drawn cell by cell with probability ``block_density`` inside the border
    wall. The start is a random free cell; the goal a random free cell between ``size // 2``
    and ``max_steps`` moves away. Bug cells are added one at a time in random order and kept
    only if the guarantees of :func:`_placement_holds` still hold; a layout that cannot fit
    ``n_bugs`` is redrawn. Cached, as many game instances share a maze.

    Raises:
        ValueError: no layout within 200 draws fits the settings.
    """
    rng = np.random.default_rng(maze_seed)
    for _ in range(200):
        blocks = np.ones((size, size), dtype=bool)
        blocks[1:-1, 1:-1] = rng.random((size - 2, size - 2)) < block_density
        free = np.argwhere(~blocks)
        if len(free) < 2:
            continue
        start = tuple(int(v) for v in free[rng.integers(len(free))])
        dist = _distances(blocks, start, max_steps)
        lo = min(size // 2, max_steps)
        goals = np.argwhere((dist >= lo) & (dist <= max_steps))
        if len(goals) == 0:
            goals = np.argwhere(dist >= 1)
        if len(goals) == 0:
            continue
        goal = tuple(int(v) for v in goals[rng.integers(len(goals))])

        walls = blocks.copy()
        walls[goal] = True
        near = _distances(walls, start, max_steps - STUCK_SLACK)
        candidates = np.argwhere(near >= MIN_BUG_DISTANCE)
        bugs: list[tuple[int, int]] = []
        for idx in rng.permutation(len(candidates)):
            if len(bugs) == n_bugs:
                break
            cell = (int(candidates[idx, 0]), int(candidates[idx, 1]))
            if _placement_holds(blocks, start, goal, bugs + [cell], max_steps):
                bugs.append(cell)
        if len(bugs) < n_bugs:
            continue

        events, targets = _assign_events(blocks, bugs, rng)
        blocks.setflags(write=False)
        return MazeLayout(
            size=size,
            max_steps=max_steps,
            blocks=blocks,
            start=start,  # type: ignore[arg-type]
            goal=goal,  # type: ignore[arg-type]
            bug_cells=tuple(bugs),
            bug_events=tuple(events),
            bug_targets=tuple(targets),
        )
    raise ValueError(
        f"cannot fit {n_bugs} bugs into a {size}x{size} maze with {max_steps}-step episodes "
        f"and block_density={block_density} (maze_seed={maze_seed}); use fewer bugs, a lower "
        "density or a longer horizon"
    )


def _assign_events(
    blocks: np.ndarray, bugs: Sequence[tuple[int, int]], rng: np.random.Generator
) -> tuple[list[int], list[tuple[int, int]]]:
    """Give each bug cell its kind; "inside a block" bugs go to cells next to a block.

    A cell with no block beside it cannot put the robot inside an adjacent block, so such a
    slot falls back to the score-jump variant when no cell qualifies.
    """
    events = _bug_events(len(bugs))
    order = [int(i) for i in rng.permutation(len(bugs))]
    cell_event: dict[int, int] = {}
    cell_target: dict[int, tuple[int, int]] = {}
    for slot, event in enumerate(events):
        if event != LOGIC_IN_BLOCK:
            continue
        for i in order:
            if i in cell_event:
                continue
            r, c = bugs[i]
            walls = [(r + dr, c + dc) for dr, dc in MOVES if blocks[r + dr, c + dc]]
            if walls:
                cell_event[i] = LOGIC_IN_BLOCK
                cell_target[i] = walls[int(rng.integers(len(walls)))]
                break
        else:
            events[slot] = LOGIC_SCORE
    rest = [e for e in events if e != LOGIC_IN_BLOCK]
    for i in order:
        if i not in cell_event:
            cell_event[i] = rest.pop(0)
            cell_target[i] = bugs[i]
    return [cell_event[i] for i in range(len(bugs))], [cell_target[i] for i in range(len(bugs))]


class MazeTables:
    """Per-cell lookup tables over the padded grid, shared by both forms of the game.

    Positions are flat indices into the ``(size + 2 * PAD)`` square grid, so a move is one
    addition and everything a step needs about a cell is one gather.
    """

    def __init__(self, layout: MazeLayout, inject_bugs: bool, fixed_bugs: Sequence[int] = ()) -> None:
        size = layout.size
        width = size + 2 * PAD
        self.width = width
        padded = np.ones((width, width), dtype=bool)
        padded[PAD:-PAD, PAD:-PAD] = layout.blocks
        self.free = ~padded
        self.blocked = padded.ravel().copy()
        self.deltas = np.array([dr * width + dc for dr, dc in MOVES], dtype=np.int64)
        self.start = self.flat(layout.start)
        self.goal = self.flat(layout.goal)

        # Observation and features of the robot standing on each grid cell.
        scale = np.float32(size - 1)
        rows, cols = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        # With PAD == WINDOW // 2, window [r, c] of the padded grid is centred on cell (r, c).
        windows = np.lib.stride_tricks.sliding_window_view(padded, (WINDOW, WINDOW))
        obs = np.zeros((width, width, OBS_SIZE), dtype=np.float32)
        inner = obs[PAD:-PAD, PAD:-PAD]
        inner[..., 0] = rows / scale
        inner[..., 1] = cols / scale
        inner[..., 2] = np.float32(layout.goal[0]) / scale
        inner[..., 3] = np.float32(layout.goal[1]) / scale
        inner[..., 4:] = windows.reshape(size, size, WINDOW * WINDOW)
        self.obs = obs.reshape(width * width, OBS_SIZE)
        feats = np.zeros((width, width, 2), dtype=np.float64)
        feats[PAD:-PAD, PAD:-PAD, 0] = rows
        feats[PAD:-PAD, PAD:-PAD, 1] = cols
        self.features = feats.reshape(width * width, 2)

        # What entering each cell does, and which bug did it.
        self.event = np.zeros(width * width, dtype=np.int8)
        self.bug_id = np.full(width * width, -1, dtype=np.int64)
        self.bug_target = np.zeros(width * width, dtype=np.int64)
        self.bugs: list[InjectedBug] = []
        if inject_bugs:
            for i, (cell, event, target) in enumerate(
                zip(layout.bug_cells, layout.bug_events, layout.bug_targets)
            ):
                if i in fixed_bugs:
                    continue  # this build of the game has it fixed
                p = self.flat(cell)
                self.event[p] = event
                self.bug_id[p] = i
                self.bug_target[p] = self.flat(target)
                self.bugs.append(
                    InjectedBug(i, _KIND_OF_EVENT[event], (float(cell[0]), float(cell[1])),
                                _describe(event, cell, target))
                )

    def flat(self, cell: tuple[int, int]) -> int:
        return (cell[0] + PAD) * self.width + (cell[1] + PAD)

    def cell(self, p: int) -> tuple[int, int]:
        return (int(p) // self.width - PAD, int(p) % self.width - PAD)

    def violation(self, event: int, p: int) -> str:
        """The message a non-fatal logic bug entered at flat cell ``p`` reports."""
        cell = self.cell(p)
        if event == LOGIC_SCORE:
            return f"score jumped by {SCORE_JUMP:g} entering {_fmt(cell)}"
        block = self.cell(self.bug_target[p])
        return f"agent inside block at {_fmt(block)} after entering {_fmt(cell)}"


def _fmt(cell: tuple[int, int]) -> str:
    return f"({cell[0]}, {cell[1]})"


def _describe(event: int, cell: tuple[int, int], target: tuple[int, int]) -> str:
    where = _fmt(cell)
    return {
        CRASH: f"step raises RuntimeError entering {where}",
        STUCK: f"robot frozen for the rest of the episode after entering {where}",
        LOGIC_SCORE: f"score jumps by {SCORE_JUMP:g} entering {where}",
        LOGIC_IN_BLOCK: f"robot moved inside the block at {_fmt(target)} entering {where}",
        LOGIC_ASSERT: f"step raises AssertionError entering {where}",
        PERFORMANCE: f"every frame spent in {where} runs a heavy flood fill",
    }[event]
