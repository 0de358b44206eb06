"""Block maze: Wuji's embedded benchmark game, as a numpy batch and its Gymnasium env.

A robot walks a grid of random blocks inside a border wall towards a goal coin (Wuji, Sec.
V-A). Bug cells are seeded into the maze; entering one makes the game misbehave in a way an
oracle can see from the outside: ``step`` raises, the robot freezes, the score jumps, the
robot ends up inside a wall, or the step takes milliseconds of real CPU work. The ground
truth (``injected_bugs``, ``match``) is only for scoring a run.

The rules live in :class:`BlockMazeVector`; :class:`BlockMaze` is the generic scalar adapter
(:class:`games.core.scalar_env.VectorEnv`) over one copy of it. The layout comes from
:mod:`games.maze.layout`, the performance bug's flood fill from :mod:`games.core.frame_cost`.
"""

from __future__ import annotations

from typing import Any, NoReturn, Sequence

import numpy as np

from games.core.base import GameError, GameSpec, InjectedBug, VecStep
from numpy.random import Generator
from games.core.frame_cost import BatchClock, flood_fill
from games.maze.layout import (
    CRASH, LOGIC_ASSERT, LOGIC_IN_BLOCK, LOGIC_SCORE, MIN_BUG_DISTANCE, MOVES, NONE, OBS_SIZE,
    PERFORMANCE, PRESETS, SCORE_JUMP, STUCK, STUCK_SLACK, MazeLayout, MazeTables, generate_layout,
    resolve_settings,
)
from games.maze.navigation import MazeNavigation
from games.core.scalar_env import VectorEnv

__all__ = ["CRASH", "LOGIC_ASSERT", "LOGIC_IN_BLOCK", "LOGIC_SCORE", "MIN_BUG_DISTANCE", "MOVES",
           "NONE", "OBS_SIZE", "PERFORMANCE", "PRESETS", "SCORE_JUMP", "STUCK", "STUCK_SLACK",
           "BlockMaze", "BlockMazeVector", "MazeLayout", "generate_layout"]

# Rewards of the released game. They are exclusive: a step earns exactly one of them.
GOAL_REWARD = 10.0
BUMP_REWARD = -1.0
STEP_REWARD = -0.01


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


_FATAL = (CRASH, LOGIC_ASSERT)


def _raise_fatal_bug(event: int, cell: tuple[int, int]) -> NoReturn:
    """Raise a crash or assertion bug's exception at ``cell``: a real raise, so the recorded
    error's innermost frame (``file:function:line``, which oracles tell bugs apart by) is the
    game's own. Signatures hold these two lines' numbers (78, 79): moving them changes them."""
    row, col = cell
    if event == CRASH:
        raise RuntimeError(f"tile handler failed at ({row}, {col})")
    raise AssertionError(f"invariant broken: tile state inconsistent at ({row}, {col})")


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


class BlockMazeVector(MazeNavigation):
    """``num_envs`` copies of the block maze stepped together in numpy: the game's rules.

    All copies play the same maze (the kwargs fix it). A step is a handful of array
    operations over all copies; only copies that enter a crash, assertion or performance
    bug this step are handled one by one. There is no auto-reset: a copy that has finished
    or raised keeps its state, reward 0 and done flags until the next ``reset``.

    A sticky maze (``sticky`` above 0) does not replay, so it offers snapshots of its copies
    (``reset_from``: four integers, cell, steps, stuck and last move, 32 bytes): Go-Explore's
    returns restore them. The deterministic maze offers none: it replays a way in
    microseconds, and the visits a replay counts weigh Go-Explore's choice towards the deep
    cells, where the small maze's last bugs lie (seed 0: all 25 in 48k env steps with replayed
    returns, 163k with restored ones; the large maze: 38 s and 68 s to all 50).

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
        fixed_bugs: Sequence[int] = (),
        sticky: float = 0.0,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if int(maze_seed) < 0:
            raise ValueError(f"maze_seed must be a non-negative integer (a seed), got {maze_seed}")
        size, max_steps, n_bugs, block_density = resolve_settings(
            preset, size, max_steps, n_bugs, block_density
        )
        self.num_envs = int(num_envs)
        self.layout = generate_layout(size, max_steps, n_bugs, block_density, int(maze_seed))
        unknown = sorted(set(fixed_bugs) - set(range(len(self.layout.bug_cells))))
        if unknown:
            raise ValueError(f"fixed_bugs names no injected bug: {unknown} (ids are 0..{len(self.layout.bug_cells) - 1})")
        self._tables = MazeTables(self.layout, inject_bugs, tuple(int(b) for b in fixed_bugs))
        self.heavy_ms = float(heavy_ms)
        if isinstance(sticky, bool) or not isinstance(sticky, (int, float)) or not 0.0 <= sticky < 1.0:
            raise ValueError(f"sticky must be a chance from 0 up to (not including) 1, got {sticky!r}")
        self.sticky = float(sticky)
        if self.sticky:
            self.reset_from = self._start
        self._slips: Generator = np.random.default_rng()  # no seed reaches it: sticky episodes do not replay
        self.game_spec = _game_spec(size, max_steps)
        self.injected_bugs: list[InjectedBug] = list(self._tables.bugs)
        n = self.num_envs
        self._pos = np.full(n, self._tables.start, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._stuck = np.zeros(n, dtype=bool)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._frozen = np.zeros(n, dtype=bool)  # done or stuck: the robot cannot move
        self._last = np.full(n, -1, dtype=np.int64)  # the move played last (sticky: played again)
        self._every, self._since = 0, np.zeros(n, dtype=np.int64)
        self._fatal_errors: dict[int, GameError] = {}

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Put every copy back on the start (the seeds change nothing in this game)."""
        return self._start(seeds)

    def _start(self, seeds: Sequence[int], starts: Sequence[bytes | None] | None = None,
                   offsets: Sequence[int] | None = None, every: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Put every copy on the start, or back where snapshot ``starts[i]`` was taken (its
        cell, steps, stuck flag and last move; ``offsets`` are in it). With ``every``, each copy
        sends its snapshot after every ``every`` steps it plays from here (:attr:`VecStep.snapshots`)."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        self._pos.fill(self._tables.start)
        self._steps.fill(0)
        self._last.fill(-1)
        for flags in (self._stuck, self._terminated, self._truncated, self._frozen):
            flags.fill(False)
        for i, start in enumerate(() if starts is None else starts):
            if start is not None:
                self._pos[i], self._steps[i], stuck, self._last[i] = np.frombuffer(start, dtype=np.int64)
                self._stuck[i] = self._frozen[i] = bool(stuck)
        self._every = int(every)
        self._since = self._steps.copy()
        return self._tables.obs[self._pos], self._tables.features[self._pos]

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy; a copy whose step raised gets its error in ``errors`` and ends.

        ``frame_ms[i]`` is the batch's own wall time shared evenly between the copies, plus
        the measured time of the performance bug copy ``i`` ran, if any.
        """
        clock = BatchClock()
        tables = self._tables
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        active = ~(self._terminated | self._truncated)
        moving = ~self._frozen
        if self.sticky:  # Machado et al.'s sticky actions: the last move again, by chance
            again = (self._last >= 0) & (self._slips.random(self.num_envs) < self.sticky)
            actions = np.where(again, self._last, actions)
        self._last = np.where(moving, actions, self._last)
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
            heavy[i] = flood_fill(tables.free, divmod(p, tables.width), self.heavy_ms)

        self._pos = new_pos
        self._steps += active
        self._terminated |= ended
        self._truncated |= active & ~ended & (self._steps >= self.game_spec.max_steps)
        self._frozen = self._terminated | self._truncated | self._stuck
        obs = tables.obs[new_pos]
        features = tables.features[new_pos]
        frame_ms = clock.frame_ms(heavy)
        return VecStep(
            obs=obs,
            reward=reward,
            terminated=self._terminated.copy(),
            truncated=self._truncated.copy(),
            features=features,
            frame_ms=frame_ms,
            errors=errors,
            violations=violations,
            snapshots=self._snapshots(active) if self._every else {},
        )

    def _snapshots(self, active: np.ndarray) -> dict[int, bytes]:
        """The state of each copy still playing whose steps since its reset are a multiple of
        ``every``: ``int64 [cell, steps, stuck, last move]``."""
        due = active & ~(self._terminated | self._truncated) & ((self._steps - self._since) % self._every == 0)
        return {i: np.array([self._pos[i], self._steps[i], self._stuck[i], self._last[i]], dtype=np.int64).tobytes()
                for i in np.flatnonzero(due).tolist()}

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
        """Ground truth: which injected bug a reported bug is (see :func:`_match`).

        A robot that a logic bug moved into a block next to the bug's cell is trapped there
        (every way out re-enters the bug's cell and lands it back in the block), so a stuck
        report from inside that block is the logic bug, seen by another oracle. With sticky
        inputs the move played may not be the one recorded: the bug's cell is then the one
        next to the robot that holds a bug of its kind (bugs lie 3 or more moves apart).
        """
        found = _match(self.injected_bugs, bug)
        if found is None and self.sticky:
            state = np.asarray(bug.state, dtype=np.float64).ravel()
            row, col = int(round(state[0])), int(round(state[1]))
            near = {(float(row + dr), float(col + dc)) for dr, dc in MOVES}
            found = next((b.id for b in self.injected_bugs if b.kind == bug.kind and b.location in near), None)
        if found is None and bug.kind == "stuck":
            state = np.asarray(bug.state, dtype=np.float64).ravel()
            cell = (int(round(state[0])), int(round(state[1])))
            live = {b.id for b in self.injected_bugs}
            for i, (event, target) in enumerate(zip(self.layout.bug_events, self.layout.bug_targets)):
                if event == LOGIC_IN_BLOCK and tuple(target) == cell and i in live:
                    return i
        return found

    action_names = ("N", "S", "E", "W")  # MOVES, in order

    def render_map(self) -> np.ndarray:
        """The maze from above for plots: ``[row, col]`` uint8, 1 = block or wall, 0 = floor.

        Indexed like the buckets of the state features (row, col) at the game's resolution.
        """
        return self.layout.blocks.astype(np.uint8)

    def close(self) -> None:
        """Nothing to release: the game lives in this process's arrays."""


class BlockMaze(VectorEnv):
    """The block maze as a Gymnasium env, with Wuji's released setup as defaults.

    Actions 0..3 move N, S, E, W. A step earns +10 and ends the episode on the goal, -1 when
    it bumps into a block (the robot stays), -0.01 otherwise; episodes are truncated at
    ``max_steps``. The observation is the robot's and the goal's (row, col) scaled to [0, 1]
    and the 5x5 window of blocks around the robot (1 = block or off the grid). A crash or
    assertion bug's cell raises ``RuntimeError`` or ``AssertionError`` from ``step``;
    ``info["violations"]`` holds what a non-fatal logic bug reported.

    One copy of :class:`BlockMazeVector` (:class:`games.core.scalar_env.VectorEnv`).

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
        fixed_bugs: Ids of injected bugs this build of the game has fixed (they do nothing
            and are no longer in ``injected_bugs``): what ``evo regress`` is tried on.
        sticky: Chance that a step plays the previous move again instead of the one asked
            (Machado et al.'s sticky actions, 0.25 in their protocol), drawn from a generator
            no seed reaches: episodes no longer replay from their seed and actions.
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
        fixed_bugs: Sequence[int] = (),
        sticky: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        game = BlockMazeVector(
            1, preset=preset, size=size, max_steps=max_steps, n_bugs=n_bugs,
            block_density=block_density, maze_seed=maze_seed, heavy_ms=heavy_ms,
            inject_bugs=inject_bugs, fixed_bugs=fixed_bugs, sticky=sticky,
        )
        super().__init__(game, low=0.0, high=1.0, render_mode=render_mode)
        self.layout = game.layout

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The robot's (row, col), read back from the observation ``obs`` (any past one)."""
        return np.rint(np.asarray(obs[:2], dtype=np.float64) * (self.layout.size - 1))

    def render(self) -> str | None:
        """The maze as text: ``#`` block, ``R`` robot, ``G`` goal."""
        if self.render_mode != "ansi":
            return None
        chars = np.where(self.layout.blocks, "#", ".")
        chars[self.layout.goal] = "G"
        chars[tuple(int(v) for v in self._features)] = "R"
        return "\n".join("".join(row) for row in chars) + "\n"
