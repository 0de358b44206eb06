"""ViZDoom: a real Doom level whose frame times really vary by place, for RELINE's load testing.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games") looks
for the places of a game where frames render slowly. On CartPole and MsPacman the slow frames
are injected; its third case study, SuperTuxKart, measures real rendering time and reports a
point as low-FPS when more than half of its visits rendered slower than
``mean + 5 sd`` of a baseline (``../shared/ANCHORS.md``). This module is that third kind of
game: nothing is injected, and the engine's performance oracle and ``fps_drop`` objective
work on the time the Doom engine really spends producing each frame.

The game is a Doom level (by default Freedoom 2's MAP01, shipped in the ``vizdoom`` wheel)
played headless in ViZDoom's synchronous PLAYER mode, software-rendered at 320x240. A step
holds one of six discrete actions for ``frame_skip`` tics (default 4) and renders the last of
them. Moving forward also presses USE on the step's first tic, so walking into a door opens
it and walking into a switch flips it (Doom only reacts to a fresh press, hence the pulse).

Frame time (``VecStep.frame_ms``) is what the engine spent on the step: the tics, rendering
the frame and handing over its buffers (``advance_action`` and ``get_state``). ``clock``
says how it is measured: ``"wall"`` (the default) is ``time.perf_counter`` around those
calls; ``"cpu"`` is the CPU time the engine process ran in them, read from Linux's
``/proc/<pid>/task/<pid>/schedstat`` (nanoseconds). On a machine shared with other work the
wall clock also counts the time the engine waited for a core, noise that follows the other
work, not the place; CPU time keeps only the engine's own cost.

Rendering cost is a property of what is in view: where the player stands and where it
looks. The state features are therefore ``(x, y, angle)``: map position cut into cells of
:data:`games.doom.level.CELL` map units and the view direction into 8 octants. The rules
live in :class:`VizDoomVector`, which measures each copy separately; :class:`VizDoomGame`
is the generic scalar adapter over one copy (:class:`games.core.scalar_env.VectorEnv`), which
puts no measured time in ``info`` (Gymnasium's determinism check compares infos). Starting
an engine is :mod:`games.doom.engine`, reading the level's geometry :mod:`games.doom.level`.

No ground truth: the slow places are whatever the level and the renderer make them, so the
game declares no ``injected_bugs`` and no ``match``.
"""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from games.core.base import GameSpec, VecStep
from games.doom.engine import (
    DEFAULT_FRAME_SKIP, DEFAULT_MAP, DEFAULT_MAX_STEPS, DEFAULT_RESOLUTION, DEFAULT_WAD, EXIT_REWARD,
    DoomSettings, check_settings, child_pids, new_engine,
)
from games.doom.level import CELL, level_geometry
from games.doom.copies import step_each
from games.core.scalar_env import VectorEnv

__all__ = ["ACTIONS", "EXIT_REWARD", "VizDoomGame", "VizDoomVector", "child_pids", "game_spec"]

ANGLE_BINS = 8
"""View direction cut into octants: what is in view, and so what rendering costs, changes
with the direction (measured at 320x240 on a 64-unit grid: the 8 directions at one point
differ by a median 0.26 ms, the points' means by 0.8 ms from 5th to 95th percentile)."""

TURN_PER_TIC = 7.5
"""Degrees a turning action turns per tic: 30 degrees a step at the default frame skip."""
DEPTH_COLUMNS = 16
"""Columns of the depth profile in the observation."""
DEPTH_BAND = 1 / 12
"""Half-height of the band around the screen's middle row that the depth profile reads,
as a share of the screen height."""
VELOCITY_SCALE = 20.0
"""Map units per tic that map to 1 in the observation (running tops out near 17)."""
EXPLORE_REWARD = 1.0
"""Reward for entering a cell (of :data:`CELL` units) for the first time in the episode."""

# (name, move forward, move backward, turn degrees per tic: positive = left).
ACTIONS: tuple[tuple[str, int, int, float], ...] = (
    ("forward", 1, 0, 0.0),
    ("turn_left", 0, 0, TURN_PER_TIC),
    ("turn_right", 0, 0, -TURN_PER_TIC),
    ("forward_left", 1, 0, TURN_PER_TIC),
    ("forward_right", 1, 0, -TURN_PER_TIC),
    ("backward", 0, 1, 0.0),
)

OBS_SIZE = 7 + DEPTH_COLUMNS
_OBS_LOW = np.array([-1.0] * 6 + [0.0] + [0.0] * DEPTH_COLUMNS, dtype=np.float32)
_OBS_HIGH = np.array([1.0] * 6 + [2.0] + [1.0] * DEPTH_COLUMNS, dtype=np.float32)


def game_spec(settings: DoomSettings) -> GameSpec:
    """``(x, y, angle)`` over the level's bounds, in cells of :data:`CELL` units and octants."""
    geo = level_geometry(settings)
    return GameSpec(
        obs_shape=(OBS_SIZE,),
        n_actions=len(ACTIONS),
        feature_names=("x", "y", "angle"),
        feature_low=(geo.low[0], geo.low[1], 0.0),
        feature_high=(geo.high[0], geo.high[1], 360.0),
        feature_bins=(geo.bins[0], geo.bins[1], ANGLE_BINS),
        max_steps=settings.max_steps,
    )


class DoomCopy:
    """One running Doom engine and one episode on it; both game forms step through this.

    Args:
        settings: The checked kwargs.
    """

    def __init__(self, settings: DoomSettings) -> None:
        self.settings = settings
        geo = level_geometry(settings)
        self._low = np.array(geo.low)
        self._size = np.array(geo.high) - self._low
        self._cpu: Any = None
        before = child_pids("vizdoom") if settings.clock == "cpu" else set()
        self.game = new_engine(settings)
        if settings.clock == "cpu":
            self._open_cpu_clock(before)
        self.steps = 0
        self.done = False
        self.obs = np.zeros(OBS_SIZE, dtype=np.float32)
        self.features = np.zeros(3, dtype=np.float64)
        self.screen: np.ndarray | None = None
        self._visited: set[tuple[int, int]] = set()
        self._total = 0.0

    def _open_cpu_clock(self, before: set[int]) -> None:
        new = sorted(child_pids("vizdoom") - before)
        path = f"/proc/{new[-1]}/task/{new[-1]}/schedstat" if new else ""
        try:
            self._cpu = open(path, "rb", buffering=0)  # noqa: SIM115 - closed in close()
        except OSError as exc:
            self.close()
            raise ValueError(
                "clock='cpu' reads the engine's CPU time from Linux's /proc/<pid>/schedstat, "
                f"which is not available here ({exc}); use clock='wall'"
            ) from exc

    def _cpu_ns(self) -> int:
        self._cpu.seek(0)
        return int(self._cpu.read().split()[0])

    def _observe(self, state: Any) -> None:
        x, y, angle, vx, vy, health = (float(v) for v in state.game_variables)
        depth = state.depth_buffer
        h = depth.shape[0]
        band = max(1, int(h * DEPTH_BAND))
        rows = depth[h // 2 - band: h // 2 + band]
        w = rows.shape[1] - rows.shape[1] % DEPTH_COLUMNS
        profile = rows[:, :w].reshape(rows.shape[0], DEPTH_COLUMNS, -1).min(axis=(0, 2)) / 255.0
        pos = 2.0 * (np.array([x, y]) - self._low) / self._size - 1.0
        rad = math.radians(angle)
        self.obs = np.concatenate([
            np.clip(pos, -1.0, 1.0), [math.sin(rad), math.cos(rad)],
            np.clip(np.array([vx, vy]) / VELOCITY_SCALE, -1.0, 1.0),
            [min(max(health / 100.0, 0.0), 2.0)], profile,
        ]).astype(np.float32)
        self.features = np.array([x, y, angle % 360.0], dtype=np.float64)
        self.screen = state.screen_buffer  # [H, W] uint8 (GRAY8), kept for replay videos

    def _explore_reward(self) -> float:
        cell = tuple(np.floor((self.features[:2] - self._low) / CELL).astype(int).tolist())
        if cell in self._visited:
            return 0.0
        self._visited.add(cell)
        return EXPLORE_REWARD

    def reset(self, seed: int) -> None:
        """Start a new episode seeded with ``seed``: same seed and actions, same episode."""
        self.game.set_seed(int(seed) % 2**32)
        self.game.new_episode()
        self._total = self.game.get_total_reward()
        self.steps = 0
        self.done = False
        self._visited = set()
        self._observe(self.game.get_state())
        self._explore_reward()  # the start cell is not a discovery

    def step(self, action: int) -> tuple[float, bool, bool, float]:
        """Play ``action`` for ``frame_skip`` tics.

        Returns:
            ``(reward, terminated, truncated, frame_ms)``; the new observation and features
            are in ``obs`` and ``features`` (unchanged when the episode ended on this step).
        """
        if not 0 <= int(action) < len(ACTIONS):
            raise ValueError(f"action {action} is not in 0..{len(ACTIONS) - 1}")
        _, forward, backward, turn = ACTIONS[int(action)]
        game, tics = self.game, self.settings.frame_skip
        held = [forward, backward, 0, 1, -turn]  # SPEED always: the player runs
        cpu0 = self._cpu_ns() if self._cpu is not None else 0
        t0 = time.perf_counter()
        if forward and tics > 1:
            # Doom uses a line on a fresh press only: press USE on the first tic, release it.
            game.set_action([forward, backward, 1, 1, -turn])
            game.advance_action(1, False)
            game.set_action(held)
            game.advance_action(tics - 1, True)
        else:
            game.set_action([forward, backward, forward, 1, -turn])
            game.advance_action(tics, True)
        state = game.get_state()
        t1 = time.perf_counter()
        frame_ms = ((self._cpu_ns() - cpu0) / 1e6 if self._cpu is not None
                    else (t1 - t0) * 1000.0)
        total = game.get_total_reward()
        reward, self._total = total - self._total, total
        self.steps += 1
        terminated = bool(game.is_episode_finished())
        if state is not None:
            self._observe(state)
            reward += self._explore_reward()
        truncated = not terminated and self.steps >= self.settings.max_steps
        self.done = terminated or truncated
        return float(reward), terminated, truncated, frame_ms

    def close(self) -> None:
        """Stop the engine process; safe to call twice."""
        cpu, self._cpu = self._cpu, None
        if cpu is not None:
            cpu.close()
        game = self.__dict__.pop("game", None)
        if game is not None:
            game.close()


# --------------------------------------------------------------------------- game forms


class VizDoomVector:
    """``num_envs`` Doom engines stepped one after another, each timed on its own.

    Same kwargs, actions, observations, rewards and features as :class:`VizDoomGame`; a
    copy given the same seed and actions plays the same episode. ``frame_ms[i]`` is the
    time copy ``i``'s engine spent on its step (see ``clock``); a finished copy reports 0.
    No auto-reset: a finished copy keeps its observation, reward 0 and its done flags until
    the next ``reset``. A copy whose engine raised (its process died, say) is reported in
    ``VecStep.errors`` and gets a fresh engine at the next ``reset``.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        wad: str = DEFAULT_WAD,
        doom_map: str = DEFAULT_MAP,
        resolution: str = DEFAULT_RESOLUTION,
        frame_skip: int = DEFAULT_FRAME_SKIP,
        max_steps: int = DEFAULT_MAX_STEPS,
        monsters: bool = False,
        clock: str = "wall",
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.settings = check_settings(wad, doom_map, resolution, frame_skip, max_steps,
                                       monsters, clock)
        self.num_envs = int(num_envs)
        self.game_spec = game_spec(self.settings)
        self.copies: list[DoomCopy | None] = [None] * self.num_envs
        self._terminated = np.zeros(self.num_envs, dtype=bool)
        self._truncated = np.zeros(self.num_envs, dtype=bool)
        self._failed = np.zeros(self.num_envs, dtype=bool)
        self._obs = np.zeros((self.num_envs, OBS_SIZE), dtype=np.float32)
        self._features = np.zeros((self.num_envs, 3), dtype=np.float64)
        try:
            for i in range(self.num_envs):
                self.copies[i] = DoomCopy(self.settings)
        except BaseException:
            self.close()
            raise

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start every copy as ``VizDoomGame.reset(seed=seeds[i])`` would."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        for i, seed in enumerate(seeds):
            copy = self.copies[i]
            if copy is None or self._failed[i]:
                self.copies[i] = None
                if copy is not None:
                    with contextlib.suppress(Exception):  # a dead engine may fail to close
                        copy.close()
                copy = self.copies[i] = DoomCopy(self.settings)
            copy.reset(int(seed))
            self._obs[i], self._features[i] = copy.obs, copy.features
        self._terminated.fill(False)
        self._truncated.fill(False)
        self._failed.fill(False)
        return self._obs.copy(), self._features.copy()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing, one after the other."""
        stepped, errors = step_each(self.copies, actions, ~(self._terminated | self._truncated))
        reward = np.zeros(self.num_envs, dtype=np.float64)
        frame_ms = np.zeros(self.num_envs, dtype=np.float64)
        for i in errors:
            self._terminated[i] = self._failed[i] = True
        for i, (r, term, trunc, ms) in stepped.items():
            reward[i], frame_ms[i] = r, ms
            self._terminated[i], self._truncated[i] = term, trunc
            self._obs[i], self._features[i] = self.copies[i].obs, self.copies[i].features
        return VecStep(
            obs=self._obs.copy(), reward=reward, terminated=self._terminated.copy(),
            truncated=self._truncated.copy(), features=self._features.copy(),
            frame_ms=frame_ms, errors=errors,
        )

    def render_map(self) -> np.ndarray:
        """The level from above: ``[x cell, y cell]`` uint8, 1 where no one can stand."""
        return level_geometry(self.settings).walls.copy()

    action_names = tuple(name for name, *_ in ACTIONS)

    def render_frames(self) -> np.ndarray | None:
        """Each copy's last screen, ``[N, H, W, 3]`` uint8 (gray: equal channels); None before a reset."""
        if any(c is None or c.screen is None for c in self.copies):
            return None
        return np.repeat(np.stack([c.screen for c in self.copies])[..., None], 3, axis=-1)

    def close(self) -> None:
        """Stop every engine process (safe to call twice)."""
        copies, self.copies = self.copies, [None] * self.num_envs
        for copy in copies:
            if copy is not None:
                with contextlib.suppress(Exception):  # keep closing the others
                    copy.close()


class VizDoomGame(VectorEnv):
    """A Doom level as a Gymnasium env: explore it; the engine times the frames.

    Actions (``Discrete(6)``): forward, turn left, turn right, forward and turn left,
    forward and turn right, backward; the player always runs, turns are 7.5 degrees a tic,
    and moving forward presses USE (doors, switches).

    Observation (float32, 23 values), what an MLP can steer by: x and y scaled to [-1, 1]
    over the level's bounds, sine and cosine of the view angle, the velocity (x, y) scaled
    by 20 units a tic, health / 100, and a depth profile: the nearest depth in each of 16
    column strips of the band around the screen's middle row, scaled to [0, 1] (0 = close,
    so a wall ahead shows as low values in the middle strips). No pixels: the engine's
    policies are MLPs over a flat vector.

    Reward: +1 the first time an episode enters a cell of 64x64 map units, +100 for
    leaving through the level's exit, 0 otherwise (no living reward): exploring is playing
    the level. An episode terminates at the exit or on death (with ``monsters``), and is
    truncated after ``max_steps`` steps.

    State features: ``(x, y, angle)`` in map units and degrees; cells of 64 units and 8
    octants (:func:`game_spec`).

    Args:
        wad: A WAD file path, or the name of one shipped with vizdoom (``freedoom2.wad``,
            ``freedoom1.wad``, or a scenario such as ``my_way_home.wad``).
        doom_map: Map lump in the WAD (``MAP01``, ``E1M1``).
        resolution: Screen size of the software renderer, ``"320x240"``, ``"640x480"``...
            (see the measurements in :mod:`games.doom.engine`).
        frame_skip: Tics each action is held; only the last one is rendered. At least 2 for
            doors to open on every forward step (USE needs a release in between).
        max_steps: Episode horizon (truncation).
        monsters: Play with the level's monsters (they move, so what is in view, and so the
            frame time, then also depends on the time; the player can die). Off by default.
        clock: How the vector form measures frame time: ``"wall"`` (``time.perf_counter``
            around the engine calls) or ``"cpu"`` (the engine process's CPU time in them,
            Linux only). Measured at 320x240 while other processes loaded both cores: two
            passes over the views of Freedoom 2 MAP01-MAP08 ranked them alike with Spearman
            0.79-0.98 by CPU time but 0.34-0.96 by wall time; two copies walking one route
            in lockstep agree by either clock (0.9-0.98), but over a run's minutes the wall
            clock adds spikes of several ms where a core was busy elsewhere.
        render_mode: Unused (the game runs headless); accepted for Gymnasium.
    """

    def __init__(
        self,
        wad: str = DEFAULT_WAD,
        doom_map: str = DEFAULT_MAP,
        resolution: str = DEFAULT_RESOLUTION,
        frame_skip: int = DEFAULT_FRAME_SKIP,
        max_steps: int = DEFAULT_MAX_STEPS,
        monsters: bool = False,
        clock: str = "wall",
        render_mode: str | None = None,
    ) -> None:
        game = VizDoomVector(1, wad=wad, doom_map=doom_map, resolution=resolution,
                             frame_skip=frame_skip, max_steps=max_steps, monsters=monsters,
                             clock=clock)
        super().__init__(game, spaces.Box(_OBS_LOW, _OBS_HIGH, dtype=np.float32))
        self.settings = game.settings
        self.render_mode = render_mode
