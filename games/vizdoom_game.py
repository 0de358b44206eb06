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
:data:`CELL` map units and the view direction into 8 octants. The scalar game puts no
measured time in ``info`` (Gymnasium's determinism check compares infos); the engine times
its ``step`` itself. The vector form measures each copy separately.

No ground truth: the slow places are whatever the level and the renderer make them, so the
game declares no ``injected_bugs`` and no ``match``.
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.base import GameError, GameSpec, VecStep
from games.gym_adapter import game_error

# Defaults chosen by measurement on 2 cores loaded by other work (load average 3-4), without
# monsters: every 256-unit grid point of a map warped to, 4 view directions, the median of 5
# frames, two passes. At 320x240, Freedoom 2 MAP01's views take 0.50 / 0.59 / 0.80 ms of engine
# CPU time (5th / 50th / 95th percentile) and the passes rank them alike (Spearman 0.98; wall
# clock 0.96). Of MAP02-MAP08 only MAP04 varies more (1.8x from 5th to 95th percentile against
# 1.6x); MAP01 is kept because its slowest views lie a few hundred steps from the start, where
# even random agents reach them. Larger screens cost more but vary less relative to their
# cost, and their wall times drown in the machine's load (640x480: 1.75 / 1.92 / 2.38 ms,
# wall-clock Spearman 0.0-0.4). Along walked routes at 320x240 the slowest places take about
# twice the fastest (0.45 vs 1.0 ms).
DEFAULT_WAD = "freedoom2.wad"
DEFAULT_MAP = "MAP01"
DEFAULT_RESOLUTION = "320x240"
DEFAULT_FRAME_SKIP = 4
DEFAULT_MAX_STEPS = 400

CELL = 64.0
"""Map units per bucket of x and y: a Doom grid block, about two player widths. At the
default frame skip the player runs about 60 units a step, so a step moves about a cell."""
ANGLE_BINS = 8
"""View direction cut into octants: what is in view, and so what rendering costs, changes
with the direction (measured at 320x240 on a 64-unit grid: the 8 directions at one point
differ by a median 0.26 ms, the points' means by 0.8 ms from 5th to 95th percentile)."""
MARGIN = 16.0
"""Map units added around the level's linedefs before rounding the bounds out to whole
cells (the player's radius)."""

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
EXIT_REWARD = 100.0
"""Reward for leaving the level through its exit (Doom's own goal)."""
MIN_HEADROOM = 56.0
"""Doom's player height: a sector lower than this cannot be stood in (for ``render_map``)."""

# (name, move forward, move backward, turn degrees per tic: positive = left).
ACTIONS: tuple[tuple[str, int, int, float], ...] = (
    ("forward", 1, 0, 0.0),
    ("turn_left", 0, 0, TURN_PER_TIC),
    ("turn_right", 0, 0, -TURN_PER_TIC),
    ("forward_left", 1, 0, TURN_PER_TIC),
    ("forward_right", 1, 0, -TURN_PER_TIC),
    ("backward", 0, 1, 0.0),
)
CLOCKS = ("wall", "cpu")
IWADS = ("freedoom1.wad", "freedoom2.wad", "doom.wad", "doom2.wad", "plutonia.wad", "tnt.wad")

OBS_SIZE = 7 + DEPTH_COLUMNS
_OBS_LOW = np.array([-1.0] * 6 + [0.0] + [0.0] * DEPTH_COLUMNS, dtype=np.float32)
_OBS_HIGH = np.array([1.0] * 6 + [2.0] + [1.0] * DEPTH_COLUMNS, dtype=np.float32)


def _vzd() -> Any:
    """The ``vizdoom`` module, imported on first use with a clear message if it is missing."""
    try:
        import vizdoom
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the vizdoom game needs the vizdoom package: pip install 'evo-game-testing[vizdoom]'"
        ) from exc
    return vizdoom


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class DoomSettings:
    """The checked kwargs of one configured game, shared by the scalar and vector forms."""

    wad_path: str
    is_iwad: bool
    doom_map: str
    resolution: str
    frame_skip: int
    max_steps: int
    monsters: bool
    clock: str


def _wad_maps(path: str) -> list[str]:
    """Names of the maps in a WAD: marker lumps followed by ``THINGS`` or ``TEXTMAP``."""
    with open(path, "rb") as f:
        header = f.read(12)
        if len(header) < 12 or header[:4] not in (b"IWAD", b"PWAD"):
            raise ValueError(f"wad {path!r} is not a WAD file")
        count, offset = struct.unpack("<ii", header[4:])
        f.seek(offset)
        table = f.read(16 * count)
    names = [table[i * 16 + 8: i * 16 + 16].rstrip(b"\0").decode("ascii", "replace").upper()
             for i in range(len(table) // 16)]
    return [n for n, nxt in zip(names, names[1:]) if nxt in ("THINGS", "TEXTMAP")]


def _resolve_wad(wad: str) -> str:
    """A WAD given by path, or by name in the vizdoom package or its ``scenarios`` folder."""
    if os.path.isfile(wad):
        return os.path.abspath(wad)
    root = Path(_vzd().__file__).parent
    for candidate in (root / wad, root / "scenarios" / wad):
        if candidate.is_file():
            return str(candidate)
    shipped = sorted(p.name for p in root.glob("*.wad")) + sorted(
        p.name for p in (root / "scenarios").glob("*.wad"))
    raise ValueError(f"wad {wad!r} is neither a file nor a WAD shipped with vizdoom "
                     f"({', '.join(shipped)})")


def check_settings(
    wad: str, doom_map: str, resolution: str, frame_skip: int, max_steps: int,
    monsters: bool, clock: str,
) -> DoomSettings:
    """Check the kwargs of the game and resolve the WAD.

    Raises:
        ValueError: naming the kwarg that is wrong and what it may be.
    """
    if int(frame_skip) < 1:
        raise ValueError(f"frame_skip must be at least 1 tic, got {frame_skip}")
    if int(max_steps) < 1:
        raise ValueError(f"max_steps must be positive, got {max_steps}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
    res = str(resolution).upper()
    if not hasattr(_vzd().ScreenResolution, f"RES_{res}"):
        known = sorted(n[4:].lower() for n in dir(_vzd().ScreenResolution) if n.startswith("RES_"))
        raise ValueError(f"resolution {resolution!r} is not a ViZDoom resolution "
                         f"({', '.join(known)})")
    path = _resolve_wad(str(wad))
    maps = _wad_maps(path)
    if str(doom_map).upper() not in maps:
        raise ValueError(f"doom_map {doom_map!r} is not in {os.path.basename(path)} "
                         f"(maps: {', '.join(maps) or 'none'})")
    return DoomSettings(
        wad_path=path, is_iwad=os.path.basename(path).lower() in IWADS,
        doom_map=str(doom_map).upper(), resolution=res, frame_skip=int(frame_skip),
        max_steps=int(max_steps), monsters=bool(monsters), clock=clock,
    )


# --------------------------------------------------------------------------- one engine


def _child_pids(name: str) -> set[int]:
    """Pids of this process's children whose command name is ``name`` (Linux ``/proc``)."""
    me = os.getpid()
    out: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        comm = stat[stat.find("(") + 1: stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if comm == name and int(fields[1]) == me:
            out.add(int(entry))
    return out


def _new_game(settings: DoomSettings, *, sectors: bool = False) -> Any:
    """A configured, initialised, headless ``DoomGame``."""
    vzd = _vzd()
    game = vzd.DoomGame()
    if settings.is_iwad:
        game.set_doom_game_path(settings.wad_path)
    else:
        game.set_doom_scenario_path(settings.wad_path)
    game.set_doom_map(settings.doom_map)
    # ZDoom keeps its settings in an ini file, by default _vizdoom.ini in the working folder.
    game.set_doom_config_path(os.path.join(tempfile.gettempdir(), "evo_vizdoom.ini"))
    game.set_screen_resolution(getattr(vzd.ScreenResolution, f"RES_{settings.resolution}"))
    game.set_screen_format(vzd.ScreenFormat.GRAY8)
    game.set_depth_buffer_enabled(True)
    game.set_render_hud(False)
    game.set_render_messages(False)
    game.set_window_visible(False)
    game.set_sound_enabled(False)
    game.set_mode(vzd.Mode.PLAYER)
    game.set_episode_timeout(0)  # the horizon is max_steps, counted here
    game.set_episode_start_time(1)
    game.set_living_reward(0.0)
    game.set_map_exit_reward(EXIT_REWARD)
    game.set_doom_skill(3)
    game.set_available_buttons([
        vzd.Button.MOVE_FORWARD, vzd.Button.MOVE_BACKWARD, vzd.Button.USE, vzd.Button.SPEED,
        vzd.Button.TURN_LEFT_RIGHT_DELTA,
    ])
    game.set_available_game_variables([
        vzd.GameVariable.POSITION_X, vzd.GameVariable.POSITION_Y, vzd.GameVariable.ANGLE,
        vzd.GameVariable.VELOCITY_X, vzd.GameVariable.VELOCITY_Y, vzd.GameVariable.HEALTH,
    ])
    game.set_sectors_info_enabled(sectors)
    if not settings.monsters:
        game.add_game_args("-nomonsters")
    game.init()
    return game


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
    game = _new_game(probe, sectors=True)
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
        before = _child_pids("vizdoom") if settings.clock == "cpu" else set()
        self.game = _new_game(settings)
        if settings.clock == "cpu":
            self._open_cpu_clock(before)
        self.steps = 0
        self.done = False
        self.obs = np.zeros(OBS_SIZE, dtype=np.float32)
        self.features = np.zeros(3, dtype=np.float64)
        self._visited: set[tuple[int, int]] = set()
        self._total = 0.0

    def _open_cpu_clock(self, before: set[int]) -> None:
        new = sorted(_child_pids("vizdoom") - before)
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


class VizDoomGame(gym.Env):
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
            (see the measurements at the top of the module).
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

    metadata = {"render_modes": []}

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
        self.settings = check_settings(wad, doom_map, resolution, frame_skip, max_steps,
                                       monsters, clock)
        self.game_spec = game_spec(self.settings)
        self.action_space = spaces.Discrete(len(ACTIONS))
        self.observation_space = spaces.Box(_OBS_LOW, _OBS_HIGH, dtype=np.float32)
        self.render_mode = render_mode
        self._copy: DoomCopy | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31 - 1))
        if self._copy is None:
            self._copy = DoomCopy(self.settings)
        self._copy.reset(seed)
        return self._copy.obs.copy(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._copy is None:
            raise RuntimeError("step called before reset")
        reward, terminated, truncated, _ = self._copy.step(int(action))
        return self._copy.obs.copy(), reward, terminated, truncated, {}

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """``(x, y, angle)`` of the player after the last reset or step."""
        if self._copy is None:
            raise RuntimeError("state_features called before reset")
        return self._copy.features.copy()

    def render_map(self) -> np.ndarray:
        """The level from above: ``[x cell, y cell]`` uint8, 1 where no one can stand."""
        return level_geometry(self.settings).walls.copy()

    def close(self) -> None:
        """Stop the engine process (safe to call twice)."""
        copy, self._copy = self._copy, None
        if copy is not None:
            copy.close()


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
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        reward = np.zeros(self.num_envs, dtype=np.float64)
        frame_ms = np.zeros(self.num_envs, dtype=np.float64)
        errors: dict[int, GameError] = {}
        for i in np.flatnonzero(~(self._terminated | self._truncated)).tolist():
            copy = self.copies[i]
            try:
                if copy is None:
                    raise RuntimeError("step called before reset")
                r, term, trunc, ms = copy.step(int(actions[i]))
            except Exception as exc:  # noqa: BLE001 - the game's fault, reported per copy
                errors[i] = game_error(exc)
                self._terminated[i] = self._failed[i] = True
                continue
            reward[i], frame_ms[i] = r, ms
            self._terminated[i], self._truncated[i] = term, trunc
            self._obs[i], self._features[i] = copy.obs, copy.features
        return VecStep(
            obs=self._obs.copy(), reward=reward, terminated=self._terminated.copy(),
            truncated=self._truncated.copy(), features=self._features.copy(),
            frame_ms=frame_ms, errors=errors,
        )

    def render_map(self) -> np.ndarray:
        """The level from above (see :meth:`VizDoomGame.render_map`)."""
        return level_geometry(self.settings).walls.copy()

    def close(self) -> None:
        """Stop every engine process (safe to call twice)."""
        copies, self.copies = self.copies, [None] * self.num_envs
        for copy in copies:
            if copy is not None:
                with contextlib.suppress(Exception):  # keep closing the others
                    copy.close()

