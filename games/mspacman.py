"""MsPacman with RELINE's four injected performance bugs at the tunnel mouths, on bare ALE.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games") seeds
Atari MsPacman with four places where a frame is slow: the four mouths of the two wrap-around
tunnels. Here every agent step that ends with Pac-Man in a mouth runs a heavy operation for
``heavy_ms`` milliseconds of real CPU work (:func:`games.cartpole_perf.heavy_operation`), so
the engine, which times each step, sees the slow frame; nothing is reported in ``info``.

The game runs on ``ale_py.ALEInterface`` directly, not through ``gymnasium.make``:
Gymnasium's ``ALE/MsPacman-v5`` reloads the ROM on every seeded ``reset`` (about 85 ms, as
much as 1,300 emulated frames), which kept 56% of the raw frame rate in our benchmark. Each
ALE instance here loads the ROM once; ``reset`` restores a snapshot taken once, after the
game's intro. With sticky actions off (``repeat_action_probability=0``) the emulator is
deterministic given the actions, and a restored snapshot plays exactly as a freshly reset
game does (the tests check both), so every episode replays exactly from its seed and actions.

Episodes:

- 5 actions (RELINE): NOOP, UP, RIGHT, LEFT, DOWN; each is held for ``frameskip`` frames.
- Reward: the score gained, divided by 10: +1 per dot as in RELINE (ALE scores a dot 10,
  a power pill 50, ghosts 200-1600, fruit 100+; here 1, 5, 20-160, 10+).
- The intro (264 frames, about 66 agent steps, in which the game ignores the joystick) is
  played once per ALE instance and skipped by every ``reset`` (``skip_intro``): otherwise
  every episode would open with 66 steps in which every action leaves Pac-Man standing, what
  the stuck oracle reports. Then ``reset`` plays 0..``noop_max`` NOOP frames, the number
  drawn from ``np.random.default_rng(seed)`` (the usual Atari no-op starts, up to 30): Pac-Man
  sets off left by himself and the ghosts move, so seeds start from up to 31 different states.
- Terminated at game over (three lives lost), truncated after ``max_steps`` agent steps.
  The default, 500, is about six times what :data:`REFERENCE_ROUTE` needs to pass all four
  mouths (77 steps); random play loses its three lives in 340-530 steps.
- Each life lost freezes Pac-Man for about 18 steps (the death animation) and then about 29
  (the restart pause) whatever the joystick says. The stuck oracle with its default window
  of 8 reports both; give it a window above 30 for this game, or leave it out (RELINE looks
  for performance bugs only).

Observations (``obs_type``): ``"ram"``, the 128 RAM bytes; ``"features"``, what the RAM
says about the actors and the dots left (:func:`observe`); or ``"frames"``, the screen as a DQN-style agent sees
it (Mnih et al. 2015), downsampled for a CPU budget:

- ALE's grayscale screen (``getScreenGrayscale``, 210 x 160) of the step's last frame,
  max-ed with the frame before it, as DQN does: the game draws only two or three of the four
  ghosts on any one frame (the others flicker). Over 1,213 random-play steps a single frame
  showed 2.3 ghosts on average, the max of two frames 3.2 (all four in 51% of the steps).
- Rows 3..194, max-pooled over 4 x 4 blocks: 48 x 40 pixels (:data:`FRAME_SHAPE`). The rows
  kept hold the maze below its top border (rows 3..171), the lives and the fruit (173..182)
  and the score (187..193); rows 0..2 (the border) and 195..209 (blank) are dropped. The
  150 dots are 4 px wide and 2 high, starting on columns 0 mod 4 and rows 3 mod 4: from row
  3 on, each lies inside one block, so a dot is one pixel that goes dark when it is eaten (max-pooled, a dot
  is as bright as a wall: it is the isolated bright pixel in a corridor). Every sprite keeps
  its own gray level: over 1,051 steps of random play Pac-Man's (167) was in the pooled
  frame whenever he was on screen, each ghost's (110, 131, 132, 151) in 96-100% of the
  frames it was on screen (a wall or a brighter sprite in the same block hides the rest).
  Pooling a screen costs about 4 us, grabbing it about 10 us.
- The last ``frame_stack`` frames (4 by default, oldest first), scaled to [0, 1] float32:
  ``obs_shape`` is ``(frame_stack, 48, 40)``, 7,680 floats (30 KB) with 4 frames, so the
  ``[N, T + 1, obs_dim]`` observations that A2C keeps hold 15.4 MB per 500-step episode
  (the RAM's 128 bytes: 0.26 MB). ``reset`` fills the stack with its first frame.

``restoreState`` does not restore the screen: every ALE keeps the two frames of its
snapshot, and a reset with fewer than two no-op frames takes the missing ones from there.

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

from typing import Any, NamedTuple, Sequence

import gymnasium as gym
import numpy as np

from games.base import GameSpec, InjectedBug, VecStep
from games.cartpole_perf import CLOCKS, heavy_operation

try:
    from ale_py import ALEInterface, LoggerMode, roms
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("games.mspacman needs ale-py: pip install -e '.[atari]'") from exc

# RELINE: 5 actions. ALE codes of NOOP, UP, RIGHT, LEFT, DOWN.
ACTION_NAMES: tuple[str, ...] = ("NOOP", "UP", "RIGHT", "LEFT", "DOWN")
_ALE_ACTIONS = np.array([0, 2, 3, 4, 5], dtype=np.int64)

RAM_X, RAM_Y = 10, 16
# Sprite centre = RAM position + offset (fitted on getScreenRGB, see the module docstring).
X_OFFSET, Y_OFFSET = -8.5, 5.5
SCREEN_WIDTH = 160
# Frames after reset_game() in which the game ignores the joystick (the first input that
# changes anything is read on frame 265; with NOOP Pac-Man sets off left by himself).
INTRO_FRAMES = 264

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

MAX_STEPS = 500
NOOP_MAX = 30  # the usual Atari no-op starts (Mnih et al. 2015)
FRAMESKIP = 4

# A route through all four mouths from a reset without no-ops (noop_max=0, frameskip=4, the
# intro skipped), as (action, steps) runs; found by breadth-first search over ALE snapshots.
# Pac-Man goes up the left side, through the upper tunnel from left to right and back, down
# the left side and through the lower tunnel: upper left (steps 44-46 and 50-51), upper right
# (47-49), lower left (72-74), lower right (75-77), at least two steps in each, no life lost.
# 77 agent steps (308 frames); 143 with skip_intro=False, 66 steps of intro first.
REFERENCE_ROUTE: tuple[tuple[int, int], ...] = (
    (3, 8), (1, 7), (3, 18), (1, 6), (3, 9), (2, 7), (4, 12), (3, 10),
)

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
OBS_TYPES: tuple[str, ...] = ("ram", "features", "frames")

# ``obs_type="frames"`` (see the module docstring): rows 3..194 of the 210 x 160 screen,
# max-pooled over 4 x 4 blocks, so that every dot falls inside one block.
SCREEN_SHAPE = (210, SCREEN_WIDTH)
FRAME_TOP = 3
FRAME_SHAPE = (48, 40)
FRAME_STACK = 4


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
_MOUTH_TABLE = mouth_of(*np.moveaxis(features_of(*_RAM_GRID), -1, 0)).astype(np.int8)
del _RAM_GRID

# Cells ([x bucket, y bucket]) Pac-Man's centre never enters in the first maze: every position
# reachable from the start (breadth-first search over ALE snapshots) marked the others free.
# One string per x bucket (left to right), one character per y bucket (top to bottom),
# "." = reachable; 158 of the 280 cells.
_FREE_CELLS: tuple[str, ...] = (
    "####.###.#####", "...#.###.#....", ".#.........##.", ".#.###.###.##.", ".....#.#......",
    "##.#.#.#.####.", "...#.#.#....#.", ".#.......##.#.", ".#.#.###......", ".#.#.###.#.##.",
    ".#.#.###.#.##.", ".#.#.###......", ".#.......##.#.", "...#.#.#....#.", "##.#.#.#.####.",
    ".....#.#......", ".#.###.###.##.", ".#.........##.", "...#.###.#....", "####.###.#####",
)


def obs_shape(obs_type: str, frame_stack: int = FRAME_STACK) -> tuple[int, ...]:
    """Shape of one observation: ``(OBS_DIMS[obs_type],)``, or ``(frame_stack, 48, 40)``."""
    return (frame_stack, *FRAME_SHAPE) if obs_type == "frames" else (OBS_DIMS[obs_type],)


def _game_spec(max_steps: int, obs_type: str = "ram", frame_stack: int = FRAME_STACK) -> GameSpec:
    return GameSpec(
        obs_shape=obs_shape(obs_type, frame_stack),
        n_actions=len(ACTION_NAMES),
        feature_names=("x", "y"),
        feature_low=(0.0, Y_LOW),
        feature_high=(float(SCREEN_WIDTH), Y_HIGH),
        feature_bins=(X_BINS, Y_BINS),
        max_steps=max_steps,
    )


def _injected_bugs() -> list[InjectedBug]:
    return [
        InjectedBug(
            id=i,
            kind="performance",
            location=((x0 + x1) / 2, (y0 + y1) / 2),
            description=(
                f"every step ending with Pac-Man in the {MOUTH_NAMES[i]} tunnel mouth "
                f"(screen x {x0:g}-{x1 - 1:g}, y {y0:g}-{y1 - 1:g}) runs a heavy operation"
            ),
        )
        for i, (x0, x1, y0, y1) in enumerate(MOUTHS)
    ]


def _match(bug: Any) -> int | None:
    """Id of the injected bug a report is: a performance report whose step ended in a mouth
    (``next_state``'s x, y); None otherwise."""
    if bug.kind != "performance":
        return None
    x, y = np.asarray(bug.next_state, dtype=np.float64).ravel()[:2]
    i = int(mouth_of(x, y))
    return None if i < 0 else i


def _check_kwargs(
    heavy_ms: float,
    max_steps: int,
    frameskip: int,
    noop_max: int,
    obs_type: str,
    clock: str = "wall",
    frame_stack: int = FRAME_STACK,
) -> None:
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
    if obs_type not in OBS_TYPES:
        raise ValueError(f"obs_type must be one of {', '.join(OBS_TYPES)}, got {obs_type!r}")
    if frame_stack < 1:
        raise ValueError(f"frame_stack must be positive, got {frame_stack}")
    if heavy_ms < 0:
        raise ValueError(f"heavy_ms must be >= 0, got {heavy_ms}")
    if max_steps < 1:
        raise ValueError(f"max_steps must be positive, got {max_steps}")
    if frameskip < 1:
        raise ValueError(f"frameskip must be positive, got {frameskip}")
    if noop_max < 0:
        raise ValueError(f"noop_max must be >= 0, got {noop_max}")


class _Start(NamedTuple):
    """Where every ``reset`` of one ALE starts.

    Attributes:
        state: ``cloneState()`` after the intro.
        screens: ``[2, 210, 160]`` uint8 grayscale frames before and at the snapshot, which
            ``restoreState`` does not bring back (it leaves the screen as it was).
    """

    state: Any
    screens: np.ndarray


def _new_ale(skip_intro: bool) -> tuple[ALEInterface, _Start]:
    """An ALE with the ROM loaded (once) and the snapshot every ``reset`` starts from."""
    path = roms.get_rom_path("ms_pacman")
    if path is None:  # pragma: no cover - the ROM ships in ale-py's wheel
        raise FileNotFoundError("ale-py has no ms_pacman ROM (ale_py.roms.get_rom_path)")
    ALEInterface.setLoggerMode(LoggerMode.Error)
    ale = ALEInterface()
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)  # no sticky actions: deterministic
    ale.setInt("frame_skip", 1)
    ale.setInt("max_num_frames_per_episode", 0)  # the horizon is max_steps
    ale.loadROM(str(path))
    ale.reset_game()
    screens = np.zeros((2, *SCREEN_SHAPE), dtype=np.uint8)
    ale.getScreenGrayscale(screens[1])
    for _ in range(INTRO_FRAMES if skip_intro else 0):
        screens[0] = screens[1]
        ale.act(0)
        ale.getScreenGrayscale(screens[1])
    return ale, _Start(ale.cloneState(), screens)


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


def _noops(rng: np.random.Generator, noop_max: int) -> int:
    """NOOP frames a reset plays: the first draw of the episode's generator."""
    return int(rng.integers(0, noop_max + 1))


def _start(
    ale: ALEInterface, start: _Start, noops: int, ram: np.ndarray, screens: np.ndarray | None = None
) -> None:
    """Restore the post-intro snapshot, play ``noops`` NOOP frames, read the RAM into ``ram``
    and, given ``screens [2, 210, 160]``, the last two frames (the snapshot's own frames
    stand in for those not played)."""
    ale.restoreState(start.state)
    for k in range(noops):
        ale.act(0)
        if screens is not None and k >= noops - 2:
            ale.getScreenGrayscale(screens[k - noops + 2])
    ale.getRAM(ram)
    if screens is not None and noops < 2:
        screens[: 2 - noops] = start.screens[noops:]


def _act(ale: ALEInterface, code: int, frameskip: int, screens: np.ndarray | None = None) -> int:
    """Hold ALE action ``code`` for ``frameskip`` frames; return the score gained. Given
    ``screens [2, 210, 160]``, grab the step's last two frames into it (with one frame per
    step, the one before is the previous step's)."""
    score = 0
    for _ in range(frameskip - 1):
        score += ale.act(code)
    if screens is not None:
        if frameskip > 1:
            ale.getScreenGrayscale(screens[0])
        else:
            screens[0] = screens[1]
    score += ale.act(code)
    if screens is not None:
        ale.getScreenGrayscale(screens[1])
    return score


class FrameStack:
    """The ``obs_type="frames"`` observations of N games: their last ``k`` downsampled frames.

    The games write their last two grayscale frames into :attr:`screens` (:func:`_start`,
    :func:`_act`); :meth:`fill` and :meth:`push` pool them into a frame (see the module
    docstring) and start or shift the stacks of the copies named.
    """

    def __init__(self, n: int, k: int) -> None:
        self.screens = np.zeros((n, 2, *SCREEN_SHAPE), dtype=np.uint8)
        self.stack = np.zeros((n, k, *FRAME_SHAPE), dtype=np.uint8)
        self._frame = np.zeros((n, *FRAME_SHAPE), dtype=np.uint8)

    def _pool(self) -> np.ndarray:
        """``[N, 48, 40]``: the max of each copy's two frames over 4 x 4 blocks of rows 3..194."""
        kept = slice(FRAME_TOP, FRAME_TOP + 4 * FRAME_SHAPE[0])
        m = np.maximum(self.screens[:, 0, kept], self.screens[:, 1, kept])
        # 4 x 4 blocks as strided maxima: 40x faster than reshape(...).max(axis=(2, 4)) here.
        m = np.maximum(np.maximum(m[:, 0::4], m[:, 1::4]), np.maximum(m[:, 2::4], m[:, 3::4]))
        return np.maximum(
            np.maximum(m[:, :, 0::4], m[:, :, 1::4]), np.maximum(m[:, :, 2::4], m[:, :, 3::4]), out=self._frame
        )

    def fill(self, rows: np.ndarray | list[int]) -> None:
        """After a reset: every frame of the copies ``rows`` is their current frame."""
        frame = self._pool()
        self.stack[rows] = frame[rows, None]

    def push(self, rows: np.ndarray | list[int]) -> None:
        """After a step: the copies ``rows`` drop their oldest frame and add the current one."""
        frame = self._pool()
        self.stack[rows, :-1] = self.stack[rows, 1:]
        self.stack[rows, -1] = frame[rows]

    def observation(self) -> np.ndarray:
        """``[N, k, 48, 40]`` float32 in [0, 1], oldest frame first (a fresh array)."""
        return np.multiply(self.stack, _INV_255, dtype=np.float32)


def _check_actions(actions: np.ndarray, n: int) -> np.ndarray:
    actions = np.asarray(actions, dtype=np.int64)
    if actions.shape != (n,):
        raise ValueError(f"step needs {n} actions, got shape {actions.shape}")
    if actions.size and (actions.min() < 0 or actions.max() >= len(ACTION_NAMES)):
        raise ValueError(f"actions must be in 0..{len(ACTION_NAMES) - 1}, got {actions.tolist()}")
    return actions


def render_map() -> np.ndarray:
    """The first maze from above for plots: ``[x bucket, y bucket]`` uint8, 1 = a cell
    Pac-Man's centre never enters, 0 = a cell he can reach (first two features' buckets)."""
    grid = np.ones((X_BINS, Y_BINS), dtype=np.uint8)
    for row, line in enumerate(_FREE_CELLS):
        for col, ch in enumerate(line):
            if ch == ".":
                grid[row, col] = 0
    return grid


class MsPacmanPerf(gym.Env):
    """Atari MsPacman with RELINE's four slow tunnel mouths (see the module docstring).

    Observation (``obs_type``): ``"ram"``, the 128 bytes of the console's RAM as float32 in
    [0, 1]; ``"features"``, Pac-Man's position, direction and cell, the ghosts' offsets,
    the lives and the dots left, read from the RAM (:func:`observe`); or ``"frames"``, the last
    ``frame_stack`` downsampled grayscale screens, ``[frame_stack, 48, 40]`` float32 in [0, 1]
    (:class:`FrameStack`, the module docstring).
    State features: Pac-Man's sprite centre ``(x, y)`` in native screen pixels. A step that
    ends with it in one of the four mouth boxes burns ``heavy_ms`` of CPU.

    Args:
        heavy_ms: CPU time a slow step burns, in milliseconds.
        max_steps: Episode horizon in agent steps (truncation).
        inject_bugs: False plays plain MsPacman with the same horizon.
        frameskip: Frames per agent step, the action held; rewards are summed.
        noop_max: Most NOOP frames played at reset (drawn from the seed).
        obs_type: ``"ram"``, ``"features"`` (:func:`observe`) or ``"frames"`` (:class:`FrameStack`).
        skip_intro: Start episodes when the game starts reading the joystick (264 frames
            after power-on); False starts them at the intro, as Gymnasium's ALE envs do.
        clock: ``"wall"`` or ``"cpu"`` (:data:`games.cartpole_perf.CLOCKS`): how the vector
            form times a frame, and what the heavy operation burns. On a machine shared with
            other work the wall clock adds the scheduler's delays, several milliseconds at a
            time, to random frames; the emulator's CPU time does not see them.
        frame_stack: Frames in an observation of ``obs_type="frames"`` (ignored otherwise).
    """

    metadata = {"render_modes": []}
    # What the agent sees, not the game it plays: `evo evaluate` compares agents across them.
    observation_kwargs = ("obs_type", "frame_stack")

    def __init__(
        self,
        heavy_ms: float = 2.0,
        max_steps: int = MAX_STEPS,
        inject_bugs: bool = True,
        frameskip: int = FRAMESKIP,
        noop_max: int = NOOP_MAX,
        obs_type: str = "ram",
        skip_intro: bool = True,
        clock: str = "wall",
        frame_stack: int = FRAME_STACK,
    ) -> None:
        _check_kwargs(heavy_ms, max_steps, frameskip, noop_max, obs_type, clock, frame_stack)
        self.clock = clock
        self.heavy_ms = float(heavy_ms)
        self.inject_bugs = bool(inject_bugs)
        self.frameskip = int(frameskip)
        self.noop_max = int(noop_max)
        self.obs_type = obs_type
        self.game_spec = _game_spec(int(max_steps), obs_type, int(frame_stack))
        self.injected_bugs: list[InjectedBug] = _injected_bugs() if inject_bugs else []
        low = -1.0 if obs_type == "features" else 0.0
        self.observation_space = gym.spaces.Box(low, 1.0, shape=self.game_spec.obs_shape, dtype=np.float32)
        self.action_space = gym.spaces.Discrete(len(ACTION_NAMES))
        self.ale, self._snapshot = _new_ale(bool(skip_intro))
        self._ram = np.zeros(128, dtype=np.uint8)
        self._frames = FrameStack(1, int(frame_stack)) if obs_type == "frames" else None
        self._steps = 0
        self._over = True

    def _observe(self) -> np.ndarray:
        if self._frames is not None:
            return self._frames.observation()[0]
        return observe(self._ram[None], self.obs_type)[0]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        frames = self._frames
        screens = None if frames is None else frames.screens[0]
        _start(self.ale, self._snapshot, _noops(self.np_random, self.noop_max), self._ram, screens)
        if frames is not None:
            frames.fill([0])
        self._steps = 0
        self._over = False
        return self._observe(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        code = int(_ALE_ACTIONS[_check_actions(np.array([action]), 1)[0]])
        ale, frames = self.ale, self._frames
        score = _act(ale, code, self.frameskip, None if frames is None else frames.screens[0])
        ale.getRAM(self._ram)
        if frames is not None:
            frames.push([0])
        terminated = bool(ale.game_over())
        if self.inject_bugs and _MOUTH_TABLE[self._ram[RAM_X], self._ram[RAM_Y]] >= 0:
            heavy_operation(self.heavy_ms, self.clock)
        self._steps += 1
        truncated = not terminated and self._steps >= self.game_spec.max_steps
        return self._observe(), score / 10.0, terminated, truncated, {}

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """Pac-Man's sprite centre ``(x, y)`` in screen pixels, read from the RAM position in
        ``obs`` (bytes 10 and 16 of ``"ram"``, the first two values of ``"features"``).

        Pixels do not give the position to the pixel (a 4 x 4 block blurs it, a ghost on top
        hides him): with ``"frames"`` it is read from the RAM after the last ``reset`` or
        ``step``, which is the state ``obs`` shows when called as the engine calls it, right
        after each (as :class:`games.vizdoom_game.VizDoomGame` does). It is the RAM the other
        observation types read, so the features are the same whatever ``obs_type``.
        """
        if self.obs_type == "frames":
            return features_of(self._ram[RAM_X], self._ram[RAM_Y])
        at = (RAM_X, RAM_Y) if self.obs_type == "ram" else (0, 1)
        ram_x, ram_y = np.rint(np.asarray(obs, dtype=np.float64)[list(at)] * 255.0)
        return features_of(ram_x, ram_y)

    def match(self, bug: Any) -> int | None:
        """Ground truth: which injected bug a reported bug is (see :func:`_match`)."""
        return _match(bug) if self.inject_bugs else None

    def render_map(self) -> np.ndarray:
        """The first maze from above, indexed by the feature buckets (see :func:`render_map`)."""
        return render_map()


class MsPacmanPerfVector:
    """``num_envs`` copies of :class:`MsPacmanPerf`, one ALE instance each, stepped in a loop.

    Each ALE loads the ROM once. A step costs, per copy still playing, ``frameskip`` calls of
    ``act`` and one ``getRAM`` into a preallocated ``[N, 128]`` uint8 array (with
    ``"frames"``, also two ``getScreenGrayscale`` into a preallocated ``[N, 2, 210, 160]``);
    observations, features and mouths are then computed for all copies at once. No
    auto-reset: a finished copy keeps its observation, reward 0 and its done flags until the
    next ``reset``.

    ``frame_ms[i]`` is copy ``i``'s own measured wall time: its emulation (and its screen
    grabs), plus its heavy operation if it ended in a mouth.

    Args:
        num_envs: Number of copies.
        heavy_ms, max_steps, inject_bugs, frameskip, noop_max, obs_type, skip_intro, clock,
            frame_stack: Those of :class:`MsPacmanPerf`.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        heavy_ms: float = 2.0,
        max_steps: int = MAX_STEPS,
        inject_bugs: bool = True,
        frameskip: int = FRAMESKIP,
        noop_max: int = NOOP_MAX,
        obs_type: str = "ram",
        skip_intro: bool = True,
        clock: str = "wall",
        frame_stack: int = FRAME_STACK,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        _check_kwargs(heavy_ms, max_steps, frameskip, noop_max, obs_type, clock, frame_stack)
        self.clock = clock
        self.num_envs = int(num_envs)
        self.heavy_ms = float(heavy_ms)
        self.inject_bugs = bool(inject_bugs)
        self.frameskip = int(frameskip)
        self.noop_max = int(noop_max)
        self.obs_type = obs_type
        self.game_spec = _game_spec(int(max_steps), obs_type, int(frame_stack))
        self.injected_bugs: list[InjectedBug] = _injected_bugs() if inject_bugs else []
        made = [_new_ale(bool(skip_intro)) for _ in range(self.num_envs)]
        self.ales: list[ALEInterface] = [ale for ale, _ in made]
        self._snapshots = [snapshot for _, snapshot in made]
        n = self.num_envs
        self._ram = np.zeros((n, 128), dtype=np.uint8)
        self._frames = FrameStack(n, int(frame_stack)) if obs_type == "frames" else None
        self._steps = np.zeros(n, dtype=np.int64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        frames = self._frames
        obs = observe(self._ram, self.obs_type) if frames is None else frames.observation()
        return obs, features_of(self._ram[:, RAM_X], self._ram[:, RAM_Y])

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start every copy as ``MsPacmanPerf.reset(seed=seeds[i])`` would."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        frames = self._frames
        for i, seed in enumerate(seeds):
            noops = _noops(np.random.default_rng(int(seed)), self.noop_max)
            screens = None if frames is None else frames.screens[i]
            _start(self.ales[i], self._snapshots[i], noops, self._ram[i], screens)
        if frames is not None:
            frames.fill(np.arange(self.num_envs))
        self._steps.fill(0)
        self._terminated.fill(False)
        self._truncated.fill(False)
        return self._observe()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing by ``frameskip`` frames of its action."""
        codes = _ALE_ACTIONS[_check_actions(actions, self.num_envs)].tolist()
        active = ~(self._terminated | self._truncated)
        reward = np.zeros(self.num_envs, dtype=np.float64)
        frame_ms = np.zeros(self.num_envs, dtype=np.float64)
        ram, frameskip, clock, frames = self._ram, self.frameskip, CLOCKS[self.clock], self._frames
        playing = np.flatnonzero(active)
        for i in playing.tolist():
            ale, code = self.ales[i], codes[i]
            t0 = clock()
            score = _act(ale, code, frameskip, None if frames is None else frames.screens[i])
            ale.getRAM(ram[i])
            over = ale.game_over()
            frame_ms[i] = (clock() - t0) * 1000.0
            reward[i] = score / 10.0
            self._terminated[i] = over
        self._steps += active
        self._truncated |= active & ~self._terminated & (self._steps >= self.game_spec.max_steps)
        if self.inject_bugs:
            slow = active & (_MOUTH_TABLE[ram[:, RAM_X], ram[:, RAM_Y]] >= 0)
            for i in np.flatnonzero(slow).tolist():
                frame_ms[i] += heavy_operation(self.heavy_ms, self.clock)
        if frames is not None:
            frames.push(playing)
        obs, features = self._observe()
        return VecStep(
            obs=obs,
            reward=reward,
            terminated=self._terminated.copy(),
            truncated=self._truncated.copy(),
            features=features,
            frame_ms=frame_ms,
        )

    def match(self, bug: Any) -> int | None:
        """Ground truth: which injected bug a reported bug is (see :func:`_match`)."""
        return _match(bug) if self.inject_bugs else None

    def render_map(self) -> np.ndarray:
        """The first maze from above, indexed by the feature buckets (see :func:`render_map`)."""
        return render_map()

    def close(self) -> None:
        """Let go of the emulators (ALE frees them when they are collected)."""
        self.ales.clear()
        self._snapshots.clear()
