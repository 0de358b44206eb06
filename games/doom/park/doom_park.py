"""A park generated from a seed, played in ViZDoom from pixels: PPGTA's open-world test level.

PPGTA ("Preference-conditioned pixel-based game testing agent", Section V;
``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) tests a city park in Unreal:
an agent sees RGB frames, walks pathways through green spaces, and circles objects of interest
(OOIs) of four types, half of them with a texture bug (low resolution or stretched). This
module is that level on a real 3D engine: :mod:`games.doom.park.layout` draws the park from
``level_seed``, :mod:`games.doom.park.wad` writes it as a UDMF map with the bugged decorations, and
ViZDoom plays it headless (:mod:`games.doom.engine`).

Episodes:

- PPGTA's 9 actions: move forward, back, left, right; turn left, right; look up, down; jump.
  Each is held for ``frame_skip`` tics (default 4); the player runs, turns 7.5 degrees and
  looks 2 degrees a tic.
- Observation: the RGB frame, ``[3, height, width]`` uint8 (160x120 by default), nothing
  else: position and angle never reach a pixel policy.
- Reward: +1 the first time an episode enters a cell of 64 x 64 map units (exploring).
- Truncated after ``max_steps`` (default 500; PPGTA plays 2,000); nothing terminates.
- Starts at the map's player start, or with ``start: random`` at a walkable cell drawn from
  the episode's seed (PPGTA's evaluation; :mod:`games.doom.park.starts`).
- State features ``(x, y, angle)``: map units over the park's bounds in cells of 64 units,
  and 8 octants, for coverage and maps.

ViZDoom ignores movement and turning for the first 7 tics of an episode; ``reset`` plays them
idle, so an episode's first step moves.

What a detector is trained and scored on: ``visible[i]``, the OOIs in copy ``i``'s last frame
as the labels buffer boxes them, each named by its type only (``barrel``...); the bugged
actors' class names never leave this module. Ground truth, for scoring only: ``oois``
(id, type, place, bugged, bug kind), ``pathway`` (the preferred area's cells), the game
contract's ``injected_bugs`` and ``match`` (:mod:`games.doom.park.truth`: one visual bug per bugged
OOI), and ``VecStep.info["visible"]`` (per copy, the ids of the OOIs in view after the step):
what scoring oracles read (:mod:`oracles.objects_tested`); a pixel policy never does. What
the frames show, for the oracles that judge them, is the contract's ``scene``
(:mod:`games.doom.park.scene`: OOI places and types, the camera, the pathways).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from games.core.base import GameSpec, VecStep
from games.doom.engine import DoomSettings, EngineView, check_settings
from games.doom.engine_pool import give_engine, take_engine
from games.doom.copies import step_each
from games.doom.park.layout import BUG_KINDS, CELL, OOI, OOI_TYPES, PRESETS, ParkLayout, park_layout
from games.doom.park.navigation import ParkNavigator
from games.doom.park.scene import park_scene
from games.doom.park.starts import STARTS, random_place, start_cells
from games.doom.park.truth import injected_bugs, match
from games.doom.park.wad import MAP_NAME, bugged_actor, park_wad_path
from games.core.scalar_env import VectorEnv

__all__ = ["ACTIONS", "VISIBLE", "DoomPark", "DoomParkVector", "VisibleObject", "park_spec"]

# PPGTA: 9 discrete actions, WASD to move, the arrow keys to turn and look, space to jump.
ACTIONS: tuple[str, ...] = (
    "forward", "backward", "left", "right", "turn_left", "turn_right", "look_up", "look_down",
    "jump",
)
TICS_PER_SECOND = 35
"""Doom's game clock: a step of ``frame_skip`` tics is ``frame_skip / 35`` seconds of play
(``step_seconds``, what a plan's time budget counts in)."""
TURN_PER_TIC = 7.5
"""Degrees a turn turns per tic: 30 a step at the default frame skip (as the vizdoom game)."""
LOOK_PER_TIC = 2.0
"""Degrees a look up or down tilts the view per tic (ZDoom stops it at about 32 degrees)."""
START_TICS = 7
"""Tics after ``new_episode`` in which ViZDoom ignores movement and turning (measured)."""
ANGLE_BINS = 8
EXPLORE_REWARD = 1.0
DEFAULT_MAX_STEPS = 500
"""Episode horizon by default; PPGTA plays episodes of 2,000 steps (its experiments set it)."""
DEFAULT_RESOLUTION = "160x120"
DEFAULT_FRAME_SKIP = 4

_BUTTONS = ("MOVE_FORWARD", "MOVE_BACKWARD", "MOVE_LEFT", "MOVE_RIGHT", "TURN_LEFT_RIGHT_DELTA",
            "LOOK_UP_DOWN_DELTA", "JUMP", "SPEED")
# Per action, the buttons held for its tics, in the order of _BUTTONS (SPEED always: the
# player runs); deltas are degrees per tic: a negative turn turns left, a positive look up.
HELD = np.array([
    [1, 0, 0, 0, 0, 0, 0, 1],
    [0, 1, 0, 0, 0, 0, 0, 1],
    [0, 0, 1, 0, 0, 0, 0, 1],
    [0, 0, 0, 1, 0, 0, 0, 1],
    [0, 0, 0, 0, -TURN_PER_TIC, 0, 0, 1],
    [0, 0, 0, 0, TURN_PER_TIC, 0, 0, 1],
    [0, 0, 0, 0, 0, LOOK_PER_TIC, 0, 1],
    [0, 0, 0, 0, 0, -LOOK_PER_TIC, 0, 1],
    [0, 0, 0, 0, 0, 0, 1, 1],
], dtype=np.float64)
VISIBLE = "visible"
"""``VecStep.info`` key: per copy, the tuple of ids of the OOIs in view (ground truth)."""
VIEW = EngineView(buttons=_BUTTONS, variables=("POSITION_X", "POSITION_Y", "ANGLE"),
                  screen="CRCGCB", depth=False, labels=True, weapon=False)


@dataclass(frozen=True)
class VisibleObject:
    """An OOI in view, as the labels buffer boxes it.

    Attributes:
        type: Its OOI type (``barrel``, ``pillar``, ``stump``, ``lamp``), never its class.
        box: ``(x, y, width, height)`` in pixels of the frame.
        ooi: Its id in the game's ``oois`` (ground truth: for scoring what was seen).
    """

    type: str
    box: tuple[int, int, int, int]
    ooi: int


def label_types() -> dict[str, str]:
    """Class name in the labels buffer -> OOI type, for the decorations and their bugged
    copies; any other class (trees, the player) is not an OOI."""
    types = {t.actor: t.name for t in OOI_TYPES}
    types.update({bugged_actor(t, bug): t.name for t in OOI_TYPES for bug in BUG_KINDS})
    return types


def park_spec(layout: ParkLayout, resolution: str, max_steps: int) -> GameSpec:
    """RGB frames, 9 actions, ``(x, y, angle)`` over the park in 64-unit cells and octants."""
    width, height = (int(v) for v in resolution.lower().split("x"))
    cells = layout.terrain.shape[0]
    return GameSpec(
        obs_shape=(3, height, width), n_actions=len(ACTIONS), feature_names=("x", "y", "angle"),
        feature_low=(0.0, 0.0, 0.0), feature_high=(float(layout.size), float(layout.size), 360.0),
        feature_bins=(cells, cells, ANGLE_BINS), max_steps=int(max_steps), obs_dtype="uint8",
    )


def _check(level_seed: Any, preset: Any, labels: Any) -> None:
    if isinstance(level_seed, bool) or not isinstance(level_seed, (int, np.integer)) or level_seed < 0:
        raise ValueError(f"level_seed must be a non-negative integer, got {level_seed!r}")
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    if not isinstance(labels, bool):
        raise ValueError(f"labels must be true or false, got {labels!r}")


class ParkCopy:
    """One running engine on the park and one episode on it."""

    def __init__(self, settings: DoomSettings, view: EngineView, oois: Sequence[OOI],
                 starts: np.ndarray | None = None) -> None:
        self.settings, self._starts, self._view = settings, starts, view
        self.game = take_engine(settings, view)
        self._labels = view.labels
        self._types = label_types()
        self._ooi_at = {(round(o.x), round(o.y)): o.id for o in oois}
        self.steps = 0
        self.done = False
        self.obs: np.ndarray | None = None
        self.features = np.zeros(3, dtype=np.float64)
        self.visible: tuple[VisibleObject, ...] = ()
        self._visited: set[tuple[int, int]] = set()

    def _observe(self, state: Any) -> float:
        """Read the state; the exploration reward of the cell it stands in."""
        self.obs = np.asarray(state.screen_buffer, dtype=np.uint8)
        x, y, angle = (float(v) for v in state.game_variables)
        self.features = np.array([x, y, angle % 360.0], dtype=np.float64)
        if self._labels:
            self.visible = tuple(
                VisibleObject(self._types[lb.object_name], (lb.x, lb.y, lb.width, lb.height),
                              self._ooi_at.get((round(lb.object_position_x),
                                                round(lb.object_position_y)), -1))
                for lb in state.labels if lb.object_name in self._types
            )
        cell = (math.floor(x / CELL), math.floor(y / CELL))
        if cell in self._visited:
            return 0.0
        self._visited.add(cell)
        return EXPLORE_REWARD

    def reset(self, seed: int) -> None:
        """A new episode seeded with ``seed``, its idle first tics played."""
        self.game.set_seed(int(seed) % 2**32)
        self.game.new_episode()
        self.game.advance_action(START_TICS, True)
        if self._starts is not None:  # a random start (games.doom.park.starts), shown after a tic
            self.game.send_game_command("warp {:.1f} {:.1f}".format(*random_place(self._starts, seed)))
            self.game.advance_action(1, True)
        self.steps = 0
        self.done = False
        self._visited = set()
        self._observe(self.game.get_state())

    def step(self, action: int) -> tuple[float, bool, float]:
        """Play ``action`` for ``frame_skip`` tics: ``(reward, truncated, frame_ms)``."""
        if not 0 <= int(action) < len(ACTIONS):
            raise ValueError(f"action {action} is not in 0..{len(ACTIONS) - 1}")
        t0 = time.perf_counter()
        self.game.set_action(HELD[int(action)].tolist())
        self.game.advance_action(self.settings.frame_skip, True)
        state = self.game.get_state()
        frame_ms = (time.perf_counter() - t0) * 1000.0
        if state is None:  # the engine ended the episode by itself
            raise RuntimeError("the engine ended the episode (no state)")
        reward = self._observe(state)
        self.steps += 1
        truncated = self.steps >= self.settings.max_steps
        self.done = truncated
        return reward, truncated, frame_ms

    def close(self, reuse: bool = True) -> None:
        """Hand the engine to the next copy (``games.doom.engine_pool``), or stop a failed one."""
        game = self.__dict__.pop("game", None)
        if game is not None:
            give_engine(self.settings, self._view, game, stop=not reuse)


class DoomParkVector:
    """``num_envs`` engines on one generated park, stepped one after another.

    Same kwargs, actions, observations, rewards and features as :class:`DoomPark`. No
    auto-reset: a finished copy keeps its observation, reward 0 and its flags until the next
    ``reset``. A copy whose engine raised (or died) is reported in ``VecStep.errors`` and gets
    a fresh engine at the next ``reset``.

    Attributes:
        layout: The park (ground truth included: read it only to score a run).
        oois: The OOIs, with which are bugged and how (ground truth).
        pathway: ``[cells_x, cells_y]`` bool, the pathway cells (ground truth).
        scene: The game contract's scene (:func:`games.doom.park.scene.park_scene`): the
            OOIs' places and types, ViZDoom's camera, the pathways; nothing of which is bugged.
        visible: Per copy, the OOIs in its last frame (empty with ``labels=False``).
        injected_bugs: One visual bug per bugged OOI (ground truth, :mod:`games.doom.park.truth`).
        action_names, actor_names, actor_types, categories, removal_events, idle_action, route,
        nearest, straight, manoeuvres, manoeuvre: What plans run by (:class:`games.doom.park.navigation.ParkNavigator`): the OOIs
            by type and number (``barrel_1``), never by bug; places ``(x, y)`` in map units.

    Every step's ``VecStep.info["visible"]`` is an object array with, per copy that stepped,
    the tuple of ids of the OOIs in its frame (``visible``; None for a copy that did not step,
    as the contract pads): ground truth for scoring oracles only (objects seen and tested),
    never a policy's or a detector's input. A reset returns no info, so the first frame of an
    episode is not in it.
    """

    def __init__(
        self, num_envs: int, *, level_seed: int = 0, preset: str = "small",
        resolution: str = DEFAULT_RESOLUTION, frame_skip: int = DEFAULT_FRAME_SKIP,
        max_steps: int = DEFAULT_MAX_STEPS, labels: bool = True, start: str = "fixed",
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        _check(level_seed, preset, labels)
        if start not in STARTS:
            raise ValueError(f"start must be one of {', '.join(STARTS)}, got {start!r}")
        self.layout = park_layout(preset, int(level_seed))
        self._starts = None if start == "fixed" else start_cells(self.layout)
        self.settings = check_settings(park_wad_path(self.layout), MAP_NAME, resolution,
                                       frame_skip, max_steps, False, "wall")
        self.view = dataclasses.replace(VIEW, labels=labels)
        self.num_envs = int(num_envs)
        self.game_spec = park_spec(self.layout, self.settings.resolution, self.settings.max_steps)
        self.oois: tuple[OOI, ...] = self.layout.oois
        self.pathway: np.ndarray = self.layout.pathway
        _, height, width = self.game_spec.obs_shape
        self.scene = park_scene(self.layout, (width, height), tuple(-HELD[:, 5] * self.settings.frame_skip))
        self.injected_bugs = injected_bugs(self.oois)
        nav = ParkNavigator(self.layout, ACTIONS)
        self.action_names, self.actor_names, self.actor_types = nav.action_names, nav.actor_names, nav.actor_types
        self.categories, self.removal_events, self.idle_action = nav.categories, nav.removal_events, nav.idle_action
        self.route, self.nearest, self.straight = nav.route, nav.nearest, nav.straight
        self.manoeuvres, self.manoeuvre, self.synonyms = nav.manoeuvres, nav.manoeuvre, nav.synonyms
        self.step_seconds = self.settings.frame_skip / TICS_PER_SECOND
        self.visible: list[tuple[VisibleObject, ...]] = [()] * self.num_envs
        self.copies: list[ParkCopy | None] = [None] * self.num_envs
        self._done = np.zeros(self.num_envs, dtype=bool)
        self._truncated = np.zeros(self.num_envs, dtype=bool)
        self._failed = np.zeros(self.num_envs, dtype=bool)
        self._obs = np.zeros((self.num_envs, *self.game_spec.obs_shape), dtype=np.uint8)
        self._features = np.zeros((self.num_envs, 3), dtype=np.float64)
        try:
            for i in range(self.num_envs):
                self.copies[i] = self._new_copy()
        except BaseException:
            self.close()
            raise

    def _new_copy(self) -> ParkCopy:
        return ParkCopy(self.settings, self.view, self.oois, self._starts)

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start every copy as ``DoomPark.reset(seed=seeds[i])`` would."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        for i, seed in enumerate(seeds):
            copy = self.copies[i]
            if copy is None or self._failed[i]:
                self.copies[i] = None
                if copy is not None:  # stopped, not handed on (a dead engine's close may raise: ignored)
                    copy.close(reuse=False)
                copy = self.copies[i] = self._new_copy()
            copy.reset(int(seed))
            self._obs[i], self._features[i], self.visible[i] = copy.obs, copy.features, copy.visible
        self._done.fill(False)
        self._truncated.fill(False)
        self._failed.fill(False)
        return self._obs.copy(), self._features.copy()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing, one after the other."""
        stepped, errors = step_each(self.copies, actions, ~self._done)
        reward = np.zeros(self.num_envs, dtype=np.float64)
        frame_ms = np.zeros(self.num_envs, dtype=np.float64)
        in_view = np.full(self.num_envs, None, dtype=object)
        for i in errors:
            self._done[i] = self._failed[i] = True
        for i, (r, truncated, ms) in stepped.items():
            copy = self.copies[i]
            reward[i], frame_ms[i] = r, ms
            self._done[i] = self._truncated[i] = truncated
            self._obs[i], self._features[i], self.visible[i] = copy.obs, copy.features, copy.visible
            in_view[i] = tuple(v.ooi for v in copy.visible if v.ooi >= 0)
        return VecStep(
            obs=self._obs.copy(), reward=reward, terminated=self._failed.copy(),
            truncated=self._truncated.copy(), features=self._features.copy(),
            frame_ms=frame_ms, errors=errors, info={VISIBLE: in_view},
        )

    def match(self, bug: Any) -> int | None:
        """Ground truth: the bugged OOI a visual report is about (:func:`games.doom.park.truth.match`)."""
        return match(self.oois, bug)

    def render_frames(self) -> np.ndarray | None:
        """What each copy shows: its last frame ``[N, H, W, 3]`` uint8 RGB (the observation,
        channels last), so that a replay video shows the park as the agent saw it, whatever
        wrappers turned the observations into; None once closed."""
        if any(copy is None for copy in self.copies):
            return None
        return np.ascontiguousarray(self._obs.transpose(0, 2, 3, 1))

    def render_map(self) -> np.ndarray:
        """The park from above: ``[x cell, y cell]`` uint8, 1 where no one can stand (rocks)."""
        return self.layout.blocked

    def close(self) -> None:
        """Hand every engine to the next copies, stop a failed one (safe to call twice)."""
        copies, self.copies = self.copies, [None] * self.num_envs
        for copy, failed in zip(copies, self._failed.tolist()):
            if copy is not None:  # never raises: the pool ignores a dead engine's errors
                copy.close(reuse=not failed)


class DoomPark(VectorEnv):
    """PPGTA's park as a Gymnasium env: RGB frames in, 9 actions out (see the module).

    Args:
        level_seed: Seed of the park's layout (same seed, same park, byte for byte).
        preset: ``"small"`` (2048 x 2048 map units, 16 OOIs) or ``"large"`` (8192 x 8192,
            64 OOIs).
        resolution: Frame size, a ViZDoom resolution such as ``"160x120"`` or ``"320x240"``.
        frame_skip: Tics each action is held; the last one is rendered.
        max_steps: Episode horizon (truncation).
        labels: Read the labels buffer for ``visible`` (about a fifth of the frame rate).
        start: ``fixed`` (the map's start) or ``random`` (a walkable cell drawn from the
            episode's seed; :mod:`games.doom.park.starts`).
        render_mode: Unused (the game runs headless); accepted for Gymnasium.
    """

    observation_kwargs = ("resolution", "labels")

    def __init__(
        self, level_seed: int = 0, preset: str = "small", resolution: str = DEFAULT_RESOLUTION,
        frame_skip: int = DEFAULT_FRAME_SKIP, max_steps: int = DEFAULT_MAX_STEPS,
        labels: bool = True, start: str = "fixed", render_mode: str | None = None,
    ) -> None:
        game = DoomParkVector(1, level_seed=level_seed, preset=preset, resolution=resolution,
                              frame_skip=frame_skip, max_steps=max_steps, labels=labels, start=start)
        super().__init__(game, spaces.Box(0, 255, game.game_spec.obs_shape, dtype=np.uint8))
        self.layout, self.oois, self.pathway = game.layout, game.oois, game.pathway
        for name in ("action_names", "actor_names", "actor_types", "categories", "removal_events",
                     "idle_action", "route", "nearest", "straight", "manoeuvres", "manoeuvre", "synonyms",
                     "step_seconds"):  # the navigator (plans)
            setattr(self, name, getattr(game, name))
        # injected_bugs and match come from the vector game (VectorEnv hands them on).

    @property
    def visible(self) -> tuple[VisibleObject, ...]:
        """The OOIs in the last frame (see :class:`DoomParkVector`)."""
        return self.game.visible[0]
