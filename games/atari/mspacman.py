"""MsPacman with RELINE's four injected performance bugs at the tunnel mouths, on bare ALE.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games") seeds
Atari MsPacman with four places where a frame is slow: the four mouths of the two wrap-around
tunnels. Here every agent step that ends with Pac-Man in a mouth runs a heavy operation for
``heavy_ms`` milliseconds of real CPU work (:func:`games.core.frame_cost.heavy_operation`), so
the engine, which times each step, sees the slow frame; nothing is reported in ``info``.

The rules live in :class:`MsPacmanPerfVector`; :class:`MsPacmanPerf` is the generic scalar
adapter over one copy (:class:`games.core.scalar_env.VectorEnv`). The emulator and its screen are
in :mod:`games.atari.emulator`, what the RAM says (position, mouths, RAM observations) in
:mod:`games.atari.mspacman_ram`.

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
says about the actors and the dots left (:func:`games.atari.mspacman_ram.observe`); or
``"frames"``, the screen as a DQN-style agent sees it (Mnih et al. 2015), downsampled for a
CPU budget: the max of the step's last two grayscale frames, max-pooled over 4 x 4 blocks to
``[1, 48, 40]`` float32 in [0, 1] (:mod:`games.atari.emulator`). DQN's stack of the last 4
frames is the ``frame_stack`` observation wrapper (:mod:`games.core.wrappers`): ``[4, 48, 40]``,
7,680 floats (30 KB), so the ``[N, T + 1, obs_dim]`` observations that A2C keeps hold 15.4 MB
per 500-step episode (the RAM's 128 bytes: 0.26 MB).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.core.base import GameSpec, InjectedBug, VecStep
from games.core.frame_cost import CLOCKS, check_clock, heavy_operation
from games.atari.mspacman_ram import (
    MOUTH_NAMES, MOUTH_TABLE, MOUTHS, OBS_DIMS, RAM_X, RAM_Y, X_BINS, Y_BINS, Y_HIGH, Y_LOW,
    SCREEN_WIDTH, features_of, mouth_of, observe, render_map,
)
from games.atari.emulator import (
    ALE_ACTIONS, FRAME_SHAPE, INTRO_FRAMES, SCREEN_SHAPE, ALEInterface, act, new_ale,
    pool_screens, start_episode,
)
from games.core.scalar_env import VectorEnv

__all__ = [
    "ACTION_NAMES", "FRAME_SHAPE", "FRAMESKIP", "INTRO_FRAMES", "MAX_STEPS", "MOUTHS", "NOOP_MAX",
    "OBS_DIMS", "OBS_TYPES", "REFERENCE_ROUTE", "X_BINS", "Y_BINS", "MsPacmanPerf",
    "MsPacmanPerfVector", "features_of", "heavy_operation", "mouth_of", "obs_shape", "observe",
    "render_map",
]

# RELINE: 5 actions, NOOP, UP, RIGHT, LEFT, DOWN (ALE codes in ALE_ACTIONS).
ACTION_NAMES: tuple[str, ...] = ("NOOP", "UP", "RIGHT", "LEFT", "DOWN")
OBS_TYPES: tuple[str, ...] = ("ram", "features", "frames")

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


def obs_shape(obs_type: str) -> tuple[int, ...]:
    """Shape of one observation: ``(OBS_DIMS[obs_type],)``, or ``(1, 48, 40)`` for frames."""
    return (1, *FRAME_SHAPE) if obs_type == "frames" else (OBS_DIMS[obs_type],)


def _game_spec(max_steps: int, obs_type: str = "ram") -> GameSpec:
    return GameSpec(
        obs_shape=obs_shape(obs_type),
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
    heavy_ms: float, max_steps: int, frameskip: int, noop_max: int, obs_type: str, clock: str
) -> None:
    check_clock(clock)
    if obs_type not in OBS_TYPES:
        raise ValueError(f"obs_type must be one of {', '.join(OBS_TYPES)}, got {obs_type!r}")
    if heavy_ms < 0:
        raise ValueError(f"heavy_ms must be >= 0, got {heavy_ms}")
    if max_steps < 1:
        raise ValueError(f"max_steps must be positive, got {max_steps}")
    if frameskip < 1:
        raise ValueError(f"frameskip must be positive, got {frameskip}")
    if noop_max < 0:
        raise ValueError(f"noop_max must be >= 0, got {noop_max}")


def _noops(rng: np.random.Generator, noop_max: int) -> int:
    """NOOP frames a reset plays: the first draw of the episode's generator."""
    return int(rng.integers(0, noop_max + 1))


def _check_actions(actions: np.ndarray, n: int) -> np.ndarray:
    actions = np.asarray(actions, dtype=np.int64)
    if actions.shape != (n,):
        raise ValueError(f"step needs {n} actions, got shape {actions.shape}")
    if actions.size and (actions.min() < 0 or actions.max() >= len(ACTION_NAMES)):
        raise ValueError(f"actions must be in 0..{len(ACTION_NAMES) - 1}, got {actions.tolist()}")
    return actions


class MsPacmanPerfVector:
    """``num_envs`` copies of MsPacman with RELINE's slow mouths, one ALE each, stepped in a loop.

    Each ALE loads the ROM once. A step costs, per copy still playing, ``frameskip`` calls of
    ``act`` and one ``getRAM`` into a preallocated ``[N, 128]`` uint8 array (with
    ``"frames"``, also two ``getScreenGrayscale`` into a preallocated ``[N, 2, 210, 160]``);
    observations, features and mouths are then computed for all copies at once. No
    auto-reset: a finished copy keeps its observation, reward 0 and its done flags until the
    next ``reset``.

    ``frame_ms[i]`` is copy ``i``'s own measured time by ``clock``: its emulation (and its
    screen grabs), plus its heavy operation if it ended in a mouth.

    Args:
        num_envs: Number of copies.
        heavy_ms, max_steps, inject_bugs, frameskip, noop_max, obs_type, skip_intro, clock:
            Those of :class:`MsPacmanPerf`.
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
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        _check_kwargs(heavy_ms, max_steps, frameskip, noop_max, obs_type, clock)
        self.clock = clock
        self.num_envs = int(num_envs)
        self.heavy_ms = float(heavy_ms)
        self.inject_bugs = bool(inject_bugs)
        self.frameskip = int(frameskip)
        self.noop_max = int(noop_max)
        self.obs_type = obs_type
        self.game_spec = _game_spec(int(max_steps), obs_type)
        self.injected_bugs: list[InjectedBug] = _injected_bugs() if inject_bugs else []
        made = [new_ale(bool(skip_intro)) for _ in range(self.num_envs)]
        self.ales: list[ALEInterface] = [ale for ale, _ in made]
        self._snapshots = [snapshot for _, snapshot in made]
        n = self.num_envs
        self._ram = np.zeros((n, 128), dtype=np.uint8)
        # The last two grayscale frames of each copy, for "frames" (pool_screens).
        self._screens = np.zeros((n, 2, *SCREEN_SHAPE), dtype=np.uint8) if obs_type == "frames" else None
        self._steps = np.zeros(n, dtype=np.int64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        if self._screens is None:
            obs = observe(self._ram, self.obs_type)
        else:
            obs = np.multiply(pool_screens(self._screens)[:, None], np.float32(1.0 / 255.0), dtype=np.float32)
        return obs, features_of(self._ram[:, RAM_X], self._ram[:, RAM_Y])

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start copy ``i`` after ``noops`` NOOP frames drawn from ``default_rng(seeds[i])``."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        for i, seed in enumerate(seeds):
            noops = _noops(np.random.default_rng(int(seed)), self.noop_max)
            screens = None if self._screens is None else self._screens[i]
            start_episode(self.ales[i], self._snapshots[i], noops, self._ram[i], screens)
        self._steps.fill(0)
        self._terminated.fill(False)
        self._truncated.fill(False)
        return self._observe()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing by ``frameskip`` frames of its action."""
        codes = ALE_ACTIONS[_check_actions(actions, self.num_envs)].tolist()
        active = ~(self._terminated | self._truncated)
        reward = np.zeros(self.num_envs, dtype=np.float64)
        frame_ms = np.zeros(self.num_envs, dtype=np.float64)
        ram, frameskip, clock, screens = self._ram, self.frameskip, CLOCKS[self.clock], self._screens
        for i in np.flatnonzero(active).tolist():
            ale, code = self.ales[i], codes[i]
            t0 = clock()
            score = act(ale, code, frameskip, None if screens is None else screens[i])
            ale.getRAM(ram[i])
            over = ale.game_over()
            frame_ms[i] = (clock() - t0) * 1000.0
            reward[i] = score / 10.0
            self._terminated[i] = over
        self._steps += active
        self._truncated |= active & ~self._terminated & (self._steps >= self.game_spec.max_steps)
        if self.inject_bugs:
            slow = active & (MOUTH_TABLE[ram[:, RAM_X], ram[:, RAM_Y]] >= 0)
            for i in np.flatnonzero(slow).tolist():
                frame_ms[i] += heavy_operation(self.heavy_ms, self.clock)
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

    action_names = ACTION_NAMES

    def render_frames(self) -> np.ndarray:
        """Each copy's screen now, ``[N, 210, 160, 3]`` uint8 (ALE's ``getScreenRGB``)."""
        return np.stack([ale.getScreenRGB() for ale in self.ales])

    def close(self) -> None:
        """Let go of the emulators (ALE frees them when they are collected)."""
        self.ales.clear()
        self._snapshots.clear()


class MsPacmanPerf(VectorEnv):
    """Atari MsPacman with RELINE's four slow tunnel mouths (see the module docstring).

    Observation (``obs_type``): ``"ram"``, the 128 bytes of the console's RAM as float32 in
    [0, 1]; ``"features"``, Pac-Man's position, direction and cell, the ghosts' offsets,
    the lives and the dots left, read from the RAM (:func:`observe`); or ``"frames"``, the
    downsampled grayscale screen, ``[1, 48, 40]`` float32 in [0, 1] (stack frames with the
    ``frame_stack`` wrapper). State features: Pac-Man's sprite centre ``(x, y)`` in native
    screen pixels, read from the RAM whatever the observation (pixels do not give the position
    to the pixel). A step that ends with it in one of the four mouth boxes burns ``heavy_ms``
    of CPU. One copy of :class:`MsPacmanPerfVector` (:class:`games.core.scalar_env.VectorEnv`).

    Args:
        heavy_ms: CPU time a slow step burns, in milliseconds.
        max_steps: Episode horizon in agent steps (truncation).
        inject_bugs: False plays plain MsPacman with the same horizon.
        frameskip: Frames per agent step, the action held; rewards are summed.
        noop_max: Most NOOP frames played at reset (drawn from the seed).
        obs_type: ``"ram"``, ``"features"`` (:func:`observe`) or ``"frames"``.
        skip_intro: Start episodes when the game starts reading the joystick (264 frames
            after power-on); False starts them at the intro, as Gymnasium's ALE envs do.
        clock: ``"wall"`` or ``"cpu"`` (:data:`games.core.frame_cost.CLOCKS`): how the vector
            form times a frame, and what the heavy operation burns. On a machine shared with
            other work the wall clock adds the scheduler's delays, several milliseconds at a
            time, to random frames; the emulator's CPU time does not see them.
    """

    # What the agent sees, not the game it plays: `evo evaluate` compares agents across them.
    observation_kwargs = ("obs_type",)

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
    ) -> None:
        game = MsPacmanPerfVector(
            1, heavy_ms=heavy_ms, max_steps=max_steps, inject_bugs=inject_bugs,
            frameskip=frameskip, noop_max=noop_max, obs_type=obs_type, skip_intro=skip_intro,
            clock=clock,
        )
        super().__init__(game, low=-1.0 if obs_type == "features" else 0.0, high=1.0)
        self.clock, self.heavy_ms, self.inject_bugs = game.clock, game.heavy_ms, game.inject_bugs
        self.frameskip, self.noop_max, self.obs_type = game.frameskip, game.noop_max, obs_type
        self.ale = game.ales[0]
