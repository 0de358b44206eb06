"""Block maze: Wuji's embedded benchmark game, as a Gymnasium env and as a numpy batch.

A robot walks a grid of random blocks inside a border wall towards a goal coin (Wuji, Sec.
V-A). Bug cells are seeded into the maze; entering one makes the game misbehave in a way an
oracle can see from the outside: ``step`` raises, the robot freezes, the score jumps, the
robot ends up inside a wall, or the step takes milliseconds of real CPU work. The ground
truth (``injected_bugs``, ``match``) is only for scoring a run.

The layout is a pure function of ``maze_seed`` and the size settings, so two runs (and the
scalar and vector forms) play exactly the same maze. Both forms read the same precomputed
per-cell tables, and both raise their fatal bugs from the single function
:func:`_raise_fatal_bug`, so an exception's innermost frame is the same in either form.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NoReturn, Sequence

import gymnasium as gym
import numpy as np

from games.base import GameError, GameSpec, InjectedBug, VecStep

# Wuji's released block maze: 20x20 with a border wall, 40-step episodes, 25 bugs. "large" is
# the same game scaled up so that random search stops being competitive (Wuji, Sec. V-B).
PRESETS: dict[str, dict[str, Any]] = {
    "small": {"size": 20, "max_steps": 40, "n_bugs": 25, "block_density": 0.25},
    "large": {"size": 64, "max_steps": 400, "n_bugs": 50, "block_density": 0.25},
}

# Actions 0..3 = N, S, E, W as (row, col) moves.
MOVES: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, 1), (0, -1))

# Rewards of the released game. They are exclusive: a step earns exactly one of them.
GOAL_REWARD = 10.0
BUMP_REWARD = -1.0
STEP_REWARD = -0.01
SCORE_JUMP = 1000.0

# Bugs may only sit where an episode still has this many steps left after reaching them, so
# that a stuck bug has time to show as a frozen state.
STUCK_SLACK = 10
# No bug within this many moves of the start: an episode's first moves are always clean
# (Gymnasium's check_env takes up to three random steps from the start).
MIN_BUG_DISTANCE = 3
# Every position is kept inside a frame of always-blocked cells this wide, so a move off the
# grid (possible after a logic bug puts the robot into the border wall) is a bump and the
# 5x5 observation window never reads outside the array.
PAD = 2
WINDOW = 5
OBS_SIZE = 4 + WINDOW * WINDOW

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
_FATAL = (CRASH, LOGIC_ASSERT)


def _raise_fatal_bug(event: int, cell: tuple[int, int]) -> NoReturn:
    """Raise the exception of a crash or assertion bug at ``cell``.

    Both forms of the game call this one function, so the exception's innermost frame
    (``file:function:line``, which oracles use to tell bugs apart) does not depend on
    whether the game ran alone or in a batch.
    """
    row, col = cell
    if event == CRASH:
        raise RuntimeError(f"tile handler failed at ({row}, {col})")
    raise AssertionError(f"invariant broken: tile state inconsistent at ({row}, {col})")


def _heavy_operation(free: np.ndarray, seed_index: tuple[int, int], heavy_ms: float) -> float:
    """Flood-fill the maze again and again until ``heavy_ms`` of wall time have passed.

    This is the performance bug's real cost: the CPU work is done, not just reported, so a
    frame-time oracle that times ``step`` itself sees it too.

    Args:
        free: Padded bool grid of walkable cells.
        seed_index: Padded (row, col) the fills start from.
        heavy_ms: How long to keep the CPU busy.

    Returns:
        The measured duration in milliseconds.
    """
    t0 = time.perf_counter()
    deadline = t0 + heavy_ms / 1000.0
    while time.perf_counter() < deadline:
        reach = np.zeros_like(free)
        reach[seed_index] = True
        while time.perf_counter() < deadline:
            grown = reach.copy()
            grown[1:, :] |= reach[:-1, :]
            grown[:-1, :] |= reach[1:, :]
            grown[:, 1:] |= reach[:, :-1]
            grown[:, :-1] |= reach[:, 1:]
            grown &= free
            grown[seed_index] = True
            if np.array_equal(grown, reach):
                break
            reach = grown
    return (time.perf_counter() - t0) * 1000.0


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


def _resolve_settings(
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


class _Tables:
    """Per-cell lookup tables over the padded grid, shared by both forms of the game.

    Positions are flat indices into the ``(size + 2 * PAD)`` square grid, so a move is one
    addition and everything a step needs about a cell is one gather.
    """

    def __init__(self, layout: MazeLayout, inject_bugs: bool) -> None:
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


def _game_spec(size: int, max_steps: int) -> GameSpec:
    return GameSpec(
        obs_shape=(OBS_SIZE,),
        n_actions=len(MOVES),
        feature_names=("row", "col"),
        feature_low=(0.0, 0.0),
        feature_high=(float(size - 1), float(size - 1)),
        feature_bins=(size, size),
        max_steps=max_steps,
    )


def _match(bugs: Sequence[InjectedBug], bug: Any) -> int | None:
    """Id of the injected bug a reported bug is, by kind and cell; None for a false report.

    Cells tried in order: the cell the last action moved into, the cell after the step, the
    cell before it. A stuck report names where the robot froze, so it tries the cell before
    the step first.
    """
    def cell_of(features: Any) -> tuple[int, int]:
        values = np.asarray(features, dtype=np.float64).ravel()
        return (int(round(values[0])), int(round(values[1])))

    state = cell_of(bug.state)
    candidates: list[tuple[int, int]] = []
    actions = tuple(bug.actions)
    if actions and 0 <= int(actions[-1]) < len(MOVES):
        dr, dc = MOVES[int(actions[-1])]
        candidates.append((state[0] + dr, state[1] + dc))
    candidates.append(cell_of(bug.next_state))
    if bug.kind == "stuck":
        candidates.insert(0, state)
    else:
        candidates.append(state)
    for cell in candidates:
        for injected in bugs:
            if injected.kind == bug.kind and injected.location == (float(cell[0]), float(cell[1])):
                return injected.id
    return None


class BlockMaze(gym.Env):
    """The block maze as a Gymnasium env, with Wuji's released setup as defaults.

    Actions 0..3 move N, S, E, W. A step earns +10 and ends the episode on the goal, -1 when
    it bumps into a block (the robot stays), -0.01 otherwise; episodes are truncated at
    ``max_steps``. The observation is the robot's and the goal's (row, col) scaled to [0, 1]
    and the 5x5 window of blocks around the robot (1 = block or off the grid).

    ``info`` of every step holds ``violations`` (broken invariants reported by a logic bug,
    usually empty). The scalar game reports no ``frame_ms``: the engine times ``step`` itself,
    and a measured time in ``info`` would make two identical steps differ, which Gymnasium's
    ``check_env`` rejects. The vector form does report it, since one call steps every copy.

    Args:
        preset: ``"small"`` (20x20, 40 steps, 25 bugs) or ``"large"`` (64x64, 400, 50).
        size: Grid side including the border wall; overrides the preset.
        max_steps: Episode horizon; overrides the preset.
        n_bugs: Number of bug cells; overrides the preset.
        block_density: Chance that an inner cell is a block; overrides the preset.
        maze_seed: Seed of the layout, start, goal and bugs (the episode seed of ``reset``
            changes nothing, as the game has no randomness of its own).
        heavy_ms: CPU time a performance bug burns, in milliseconds.
        inject_bugs: False plays the same maze with no bugs.
        render_mode: None or ``"ansi"``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        preset: str = "small",
        *,
        size: int | None = None,
        max_steps: int | None = None,
        n_bugs: int | None = None,
        block_density: float | None = None,
        maze_seed: int = 0,
        heavy_ms: float = 5.0,
        inject_bugs: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, 'ansi'")
        size, max_steps, n_bugs, block_density = _resolve_settings(
            preset, size, max_steps, n_bugs, block_density
        )
        self.layout = generate_layout(size, max_steps, n_bugs, block_density, int(maze_seed))
        self._tables = _Tables(self.layout, inject_bugs)
        self.heavy_ms = float(heavy_ms)
        self.render_mode = render_mode
        self.game_spec = _game_spec(size, max_steps)
        self.injected_bugs: list[InjectedBug] = list(self._tables.bugs)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(len(MOVES))
        self._pos = self._tables.start
        self._steps = 0
        self._stuck = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._pos = self._tables.start
        self._steps = 0
        self._stuck = False
        return self._tables.obs[self._pos].copy(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Move the robot one cell; a bug cell it enters may raise or misbehave.

        Raises:
            RuntimeError: a crash bug's cell was entered (the robot does not move).
            AssertionError: an assertion bug's cell was entered (the robot does not move).
        """
        tables = self._tables
        violations: list[str] = []
        terminated = False
        reward = STEP_REWARD
        if not self._stuck:
            target = self._pos + int(tables.deltas[int(action)])
            event = int(tables.event[target])
            if event in _FATAL:
                _raise_fatal_bug(event, tables.cell(target))
            if tables.blocked[target]:
                reward = BUMP_REWARD
            else:
                self._pos = target
                if target == tables.goal:
                    reward = GOAL_REWARD
                    terminated = True
            if event == STUCK:
                self._stuck = True
            elif event == LOGIC_SCORE:
                reward = SCORE_JUMP
                violations.append(tables.violation(event, target))
            elif event == LOGIC_IN_BLOCK:
                self._pos = int(tables.bug_target[target])
                violations.append(tables.violation(event, target))
            # A slow region: every frame that ends in the cell is slow, entering or bumping.
            if tables.event[self._pos] == PERFORMANCE:
                _heavy_operation(tables.free, divmod(self._pos, tables.width), self.heavy_ms)
        self._steps += 1
        truncated = not terminated and self._steps >= self.game_spec.max_steps
        obs = tables.obs[self._pos].copy()
        return obs, reward, terminated, truncated, {"violations": violations}

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The robot's (row, col), read back from the observation."""
        return np.rint(np.asarray(obs[:2], dtype=np.float64) * (self.layout.size - 1))

    def match(self, bug: Any) -> int | None:
        """Ground truth: which injected bug a reported bug is (see :func:`_match`)."""
        return _match(self.injected_bugs, bug)

    def render_map(self) -> np.ndarray:
        """The maze from above for plots: ``[row, col]`` uint8, 1 = block or wall, 0 = floor.

        Indexed like the buckets of the state features (row, col) at the game's resolution.
        """
        return self.layout.blocks.astype(np.uint8)

    def render(self) -> str | None:
        """The maze as text: ``#`` block, ``R`` robot, ``G`` goal."""
        if self.render_mode != "ansi":
            return None
        chars = np.where(self.layout.blocks, "#", ".")
        chars[self.layout.goal] = "G"
        chars[self._tables.cell(self._pos)] = "R"
        return "\n".join("".join(row) for row in chars) + "\n"


class BlockMazeVector:
    """``num_envs`` copies of :class:`BlockMaze` stepped together in numpy.

    All copies play the same maze (the kwargs fix it). A step is a handful of array
    operations over all copies; only copies that enter a crash, assertion or performance
    bug this step are handled one by one. There is no auto-reset: a copy that has finished
    or raised keeps its state, reward 0 and done flags until the next ``reset``.

    Args:
        num_envs: Number of copies.
        **kwargs: Those of :class:`BlockMaze` (``render_mode`` excepted).
    """

    def __init__(
        self,
        num_envs: int,
        *,
        preset: str = "small",
        size: int | None = None,
        max_steps: int | None = None,
        n_bugs: int | None = None,
        block_density: float | None = None,
        maze_seed: int = 0,
        heavy_ms: float = 5.0,
        inject_bugs: bool = True,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        size, max_steps, n_bugs, block_density = _resolve_settings(
            preset, size, max_steps, n_bugs, block_density
        )
        self.num_envs = int(num_envs)
        self.layout = generate_layout(size, max_steps, n_bugs, block_density, int(maze_seed))
        self._tables = _Tables(self.layout, inject_bugs)
        self.heavy_ms = float(heavy_ms)
        self.game_spec = _game_spec(size, max_steps)
        self.injected_bugs: list[InjectedBug] = list(self._tables.bugs)
        n = self.num_envs
        self._pos = np.full(n, self._tables.start, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._stuck = np.zeros(n, dtype=bool)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._frozen = np.zeros(n, dtype=bool)  # done or stuck: the robot cannot move
        self._fatal_errors: dict[int, GameError] = {}

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Put every copy back on the start (the seeds change nothing in this game)."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        self._pos.fill(self._tables.start)
        self._steps.fill(0)
        for flags in (self._stuck, self._terminated, self._truncated, self._frozen):
            flags.fill(False)
        return self._tables.obs[self._pos], self._tables.features[self._pos]

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy; a copy whose step raised gets its error in ``errors`` and ends.

        ``frame_ms[i]`` is the batch's own wall time shared evenly between the copies, plus
        the measured time of the performance bug copy ``i`` ran, if any.
        """
        t0 = time.perf_counter()
        tables = self._tables
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        active = ~(self._terminated | self._truncated)
        moving = ~self._frozen
        target = self._pos + tables.deltas[actions]
        bumped = tables.blocked[target] & moving
        go = moving & ~bumped
        new_pos = np.where(go, target, self._pos)
        reward = np.where(bumped, BUMP_REWARD, STEP_REWARD)
        reached = go & (target == tables.goal)
        reward[reached] = GOAL_REWARD
        reward[~active] = 0.0
        ended = reached

        errors: dict[int, GameError] = {}
        violations: dict[int, list[str]] = {}
        heavy = np.zeros(self.num_envs, dtype=np.float64)
        event = tables.event[target]
        event[~moving] = NONE
        hits = np.flatnonzero(event)
        if hits.size:
            hit_event = event[hits]
            hit_target = target[hits]
            self._stuck[hits[hit_event == STUCK]] = True
            reward[hits[hit_event == LOGIC_SCORE]] = SCORE_JUMP
            in_block = hit_event == LOGIC_IN_BLOCK
            new_pos[hits[in_block]] = tables.bug_target[hit_target[in_block]]
            for i, e, p in zip(hits.tolist(), hit_event.tolist(), hit_target.tolist()):
                if e in _FATAL:
                    errors[i] = self._fatal_error(e, p)
                    new_pos[i] = self._pos[i]
                    reward[i] = 0.0
                elif e not in (STUCK, PERFORMANCE):
                    violations[i] = [tables.violation(e, p)]
            if errors:
                ended[list(errors)] = True

        # A slow region: every frame that ends in the cell is slow, entering or bumping.
        slow = moving & (tables.event[new_pos] == PERFORMANCE)
        if errors:
            slow[list(errors)] = False
        for i in np.flatnonzero(slow).tolist():
            p = int(new_pos[i])
            heavy[i] = _heavy_operation(tables.free, divmod(p, tables.width), self.heavy_ms)

        self._pos = new_pos
        self._steps += active
        self._terminated |= ended
        self._truncated |= active & ~ended & (self._steps >= self.game_spec.max_steps)
        self._frozen = self._terminated | self._truncated | self._stuck
        obs = tables.obs[new_pos]
        features = tables.features[new_pos]
        batch_ms = (time.perf_counter() - t0) * 1000.0 - float(heavy.sum())
        frame_ms = heavy + batch_ms / self.num_envs
        return VecStep(
            obs=obs,
            reward=reward,
            terminated=self._terminated.copy(),
            truncated=self._truncated.copy(),
            features=features,
            frame_ms=frame_ms,
            errors=errors,
            violations=violations,
        )

    def _fatal_error(self, event: int, p: int) -> GameError:
        """The error a copy entering flat cell ``p`` gets, raised by the shared function.

        The exception depends only on the cell, so it is raised and converted once per cell
        and reused: turning a traceback into a :class:`GameError` reads source lines and
        would otherwise dominate a batch step in which hundreds of copies crash.
        """
        error = self._fatal_errors.get(p)
        if error is None:
            try:
                _raise_fatal_bug(event, self._tables.cell(p))
            except (RuntimeError, AssertionError) as exc:
                error = GameError.from_exception(exc)
            self._fatal_errors[p] = error
        return error

    def match(self, bug: Any) -> int | None:
        """Ground truth: which injected bug a reported bug is (see :func:`_match`)."""
        return _match(self.injected_bugs, bug)

    def close(self) -> None:
        """Nothing to release: the game lives in this process's arrays."""
