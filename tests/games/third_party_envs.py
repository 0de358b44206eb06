"""Games this project did not write, with bugs planted the way a user of the engine would.

One idea, one module (over 400 lines): the suite of six third-party games that
``benchmarks/third_party_games.py`` and the docs name as ``tests.games.third_party_envs:<Game>``.

Each game is a ``gymnasium.Wrapper`` around a third-party game, made by ``gymnasium.make``
inside a constructor without required arguments (``render_mode`` and other kwargs go on to
the game), that adds ground truth: ``injected_bugs`` and ``match(bug)``. A planted bug fires
in ``step``, after the wrapped game's step: a crash raises ``RuntimeError``; a logic bug
raises ``AssertionError`` or, where play must go on past it, is listed in
``info["violations"]`` (the engine quotes the text either way); a stuck place freezes the
player: every action becomes MiniGrid's ``done``, which changes nothing, so the observation
and the state features stay the same whatever the player tries. Each bug's text is constant
(no coordinates or numbers), so that one bug is one signature for the engine, and ``match``
reads a report's kind and that text, never a state feature of the inner game. A game has at
most one stuck place and the unmodified games have none (in MiniGrid a turn always changes
the direction), so a stuck report is the stuck place. Every game declares its horizon.

- :class:`DoorKeyBugs`: ``MiniGrid-DoorKey-16x16-v0``; a crash on a floor cell near the
  start, a logic bug on unlocking the door, a stuck place two cells past the door, a logic
  bug at the goal (the level's end).
- :class:`MultiRoomBugs`: ``MiniGrid-MultiRoom-N4-S5-v1``; a crash on a cell of the second
  room, a logic bug on opening the door from the third room into the fourth.
- :class:`KeyCorridorBugs`: ``MiniGrid-KeyCorridorS6R3-v0``; a crash in the hallway near the
  start, logic bugs on picking the key up and on unlocking the door, a crash on picking the
  ball up (the level's end): a chain random play does not get far along.
- :class:`HighwayBugs`: highway-env's ``highway-fast-v0``; a crash in the left lane at top
  speed, a logic bug 500 m from the start.
- :class:`LunarBugs`: Gymnasium's Box2D ``LunarLander-v3``; a crash when a leg touches ground
  far left of the pad, a logic bug when the main engine fires after a landing.
- :class:`CrafterBugs`: Crafter (Hafner, 2021; the old gym API, so behind a small
  :class:`CrafterEnv`); a crash on collecting a sapling, a logic bug on placing a table.

MiniGrid observes a ``Dict`` with a text mission, which the engine cannot flatten, so its
games observe the agent's 7x7 view alone (MiniGrid's own ``ImgObsWrapper``) and declare
``state_features`` (the agent's column, row and direction). MiniGrid's layouts follow the reset
seed: the planted cells are computed from each layout after reset, and an ``InjectedBug``'s
location is its place in the layout of seed 0. The random-play figures below are of uniform
random actions in seeded episodes. Use from a YAML as
``game: {entry_point: "tests.games.third_party_envs:DoorKeyBugs"}`` (``tests`` importable:
the repository root on ``PYTHONPATH``).
"""

from __future__ import annotations

import os
from collections import deque
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from gymnasium.wrappers import TimeLimit

from games.core.base import InjectedBug

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before highway_env imports pygame

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)
"""MiniGrid's actions; ``DONE`` does nothing in any of its games."""
Cell = tuple[int, int]


class Planted(gym.Wrapper):
    """Ground truth of a game: ``injected_bugs`` and ``TEXTS``, the text each crash or logic
    bug raises with (id -> text)."""

    TEXTS: dict[int, str] = {}
    injected_bugs: tuple[InjectedBug, ...] = ()

    def match(self, bug: Any) -> int | None:
        """The planted bug a report is: the same kind and, for a crash or a logic bug, its
        text in the report's message (the engine quotes the exception); a stuck report is
        the game's one stuck place."""
        for planted in self.injected_bugs:
            if planted.kind == bug.kind and (planted.kind == "stuck" or self.TEXTS[planted.id] in bug.message):
                return planted.id
        return None


NOWHERE: Cell = (-1, -1)
"""The planted cell of a layout that has no room for it: that layout does not have the bug."""


def _region(grid: Any, start: Cell, avoid: Cell | None = None) -> set[Cell]:
    """The empty cells reachable from ``start`` over empty cells, never through ``avoid``."""
    seen, todo = {start}, deque([start])
    while todo:
        x, y = todo.popleft()
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if nxt != avoid and nxt not in seen and 0 <= nxt[0] < grid.width and 0 <= nxt[1] < grid.height \
                    and grid.get(*nxt) is None:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _at(cell: Cell) -> tuple[float, float, float]:
    """A cell as the state features of the agent standing on it, facing east."""
    return float(cell[0]), float(cell[1]), 0.0


def _harmless(grid: Any, region: set[Cell], candidates: list[Cell], near: list[Cell]) -> Cell:
    """The first candidate of ``region`` next to none of ``near`` whose loss cuts no other
    cell of the region off: a planted cell the player can walk around. The first if none, and
    :data:`NOWHERE` if there is no candidate (a start room the key walls in: DoorKey's seed
    1390761999 starts the agent in a corridor one cell wide, the key in its one way out)."""
    for cell in candidates:
        beside = any(abs(cell[0] - a) + abs(cell[1] - b) <= 1 for a, b in near)
        if cell in region and not beside and len(region) > 1 \
                and len(_region(grid, min(region - {cell}), cell)) == len(region) - 1:
            return cell
    return candidates[0] if candidates else NOWHERE


class GridBugs(Planted):
    """A MiniGrid game seen through its 7x7 view, with planted cells recomputed at each reset
    (:meth:`layout`) and a freeze: once ``frozen``, every action is ``DONE``."""

    def __init__(self, env_id: str, **kwargs: Any) -> None:
        from minigrid.wrappers import ImgObsWrapper  # registers the MiniGrid ids

        game = gym.make(env_id, **kwargs)
        super().__init__(TimeLimit(ImgObsWrapper(game), game.unwrapped.max_steps))  # declares it
        self.frozen = False
        self.reset(seed=0)  # the layout of seed 0 gives the bugs' locations

    def state_features(self, obs: Any, info: dict[str, Any]) -> np.ndarray:
        """Where the agent is (column, row, direction: 0 east, 1 south, 2 west, 3 north) and how
        far it got: whether it carries something, how many doors are open."""
        u = self.unwrapped
        doors = sum(1 for cell in u.grid.grid if cell is not None and cell.type == "door" and cell.is_open)
        return np.array([u.agent_pos[0], u.agent_pos[1], u.agent_dir, u.carrying is not None, doors],
                        dtype=np.float64)

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        self.frozen = False
        self.layout(self.unwrapped.grid, tuple(int(v) for v in self.unwrapped.agent_pos))
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(DONE if self.frozen else action)
        broken = self.check(tuple(int(v) for v in self.unwrapped.agent_pos))
        return obs, reward, terminated, truncated, {**info, "violations": broken} if broken else info

    def layout(self, grid: Any, start: Cell) -> None:
        """Compute the planted cells of a new layout (``start``: the agent's cell)."""
        raise NotImplementedError

    def check(self, pos: Cell) -> list[str]:
        """After a step that left the agent on ``pos``: raise, freeze, or return the
        invariants it broke without ending the episode (``info["violations"]``)."""
        raise NotImplementedError


class DoorKeyBugs(GridBugs):
    """``MiniGrid-DoorKey-16x16-v0`` (2560 steps): fetch the key, unlock the door in the
    splitting wall, reach the goal in the far corner.

    - 0, crash: the start room's empty cell nearest two steps from the start (next to neither
      the key nor the door, and one the room stays connected without) raises; random play
      reaches it in 17 episodes of 20, after 155 steps at the median.
    - 1, logic: the locked door opening (a toggle while carrying the key) breaks an invariant,
      reported in ``info["violations"]``: not an ``AssertionError``, which would end every
      episode at the door and leave the stuck place behind it out of reach. It needs the key,
      which random play does not carry to the door in 20 episodes (51,200 steps).
    - 2, stuck: the first empty cell two steps past the door (straight on, else beside the
      cell behind the door) freezes the agent.
    - 3, logic: reaching the goal (the level's end, in the far corner of the room behind the
      door) fails an assertion; random play, even with the crash cell out of its way, never
      does in 150 episodes (380,000 steps: 6 of them opened the door).
    """

    TEXTS = {0: "floor tile in the start room has no collision box",
             1: "door unlocked and opened by one toggle; the key was never checked",
             3: "level end reached but the exit trigger saw no player"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("MiniGrid-DoorKey-16x16-v0", **kwargs)
        self.injected_bugs = (
            InjectedBug(0, "crash", _at(self.crash_cell), "RuntimeError on an empty cell two steps from the start"),
            InjectedBug(1, "logic", _at((self.door[0] - 1, self.door[1])),
                        "violation (non-fatal) when the locked door goes from locked to open"),
            InjectedBug(2, "stuck", _at(self.stuck_cell), "the agent freezes two cells past the door"),
            InjectedBug(3, "logic", _at(self.goal), "AssertionError on reaching the goal"),
        )

    def layout(self, grid: Any, start: Cell) -> None:
        rows = range(1, grid.height - 1)
        split = next(x for x in range(2, grid.width - 1) if all(grid.get(x, y) is not None for y in rows))
        row = next(y for y in rows if grid.get(split, y).type == "door")
        self.door = (split, row)
        self.goal = next((x, y) for x in range(split + 1, grid.width - 1) for y in rows
                         if grid.get(x, y) is not None and grid.get(x, y).type == "goal")
        key = next((x, y) for x in range(1, split) for y in rows
                   if grid.get(x, y) is not None and grid.get(x, y).type == "key")
        room = _region(grid, start)
        dx, dy = self.unwrapped.dir_vec  # two steps straight ahead first, then by distance from 2
        ahead = (start[0] + 2 * int(dx), start[1] + 2 * int(dy))
        cells = sorted(room - {start},
                       key=lambda c: (c != ahead, abs(abs(c[0] - start[0]) + abs(c[1] - start[1]) - 2), c))
        self.crash_cell = _harmless(grid, room, cells, [key, (split, row)])
        past = [c for c in ((split + 2, row), (split + 1, row - 1), (split + 1, row + 1)) if grid.get(*c) is None]
        self.stuck_cell = _harmless(grid, _region(grid, (split + 1, row)), past, [])

    def check(self, pos: Cell) -> list[str]:
        door = self.unwrapped.grid.get(*self.door)
        was_locked, self.locked = self.locked, door.is_locked
        if pos == self.crash_cell:
            raise RuntimeError(self.TEXTS[0])
        if pos == self.stuck_cell:
            self.frozen = True
        if pos == self.goal:
            raise AssertionError(self.TEXTS[3])
        return [self.TEXTS[1]] if was_locked and door.is_open else []

    def reset(self, **kwargs: Any):
        self.locked = True
        return super().reset(**kwargs)


class MultiRoomBugs(GridBugs):
    """``MiniGrid-MultiRoom-N4-S5-v1`` (80 steps): four small rooms in a chain, each door
    closed (not locked), the goal in the last room.

    - 0, crash: an empty cell of the second room, next to neither of its doors and one the
      room stays connected without, raises (the third room stays reachable around it);
      random play reaches it in 4 episodes of 200.
    - 1, logic: opening the door from the third room into the fourth fails an assertion;
      random play never does in 200 episodes.
    """

    TEXTS = {0: "room 2 streamed in without its lightmap",
             1: "door into room 4 opened before room 4 finished loading"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("MiniGrid-MultiRoom-N4-S5-v1", **kwargs)
        self.injected_bugs = (
            InjectedBug(0, "crash", _at(self.crash_cell), "RuntimeError on a cell of the second room"),
            InjectedBug(1, "logic", _at(self.door), "AssertionError when the door into the fourth room opens"),
        )

    def layout(self, grid: Any, start: Cell) -> None:
        rooms = self.unwrapped.rooms
        (left, top), (width, height) = rooms[1].top, rooms[1].size
        inside = [(x, y) for y in range(top + 1, top + height - 1) for x in range(left + 1, left + width - 1)]
        self.crash_cell = _harmless(grid, set(inside), inside, [rooms[1].entryDoorPos, rooms[1].exitDoorPos])
        self.door = tuple(int(v) for v in rooms[3].entryDoorPos)
        self.was_open = False

    def check(self, pos: Cell) -> list[str]:
        was_open, self.was_open = self.was_open, self.unwrapped.grid.get(*self.door).is_open
        if pos == self.crash_cell:
            raise RuntimeError(self.TEXTS[0])
        if self.was_open and not was_open:
            raise AssertionError(self.TEXTS[1])
        return []


class KeyCorridorBugs(GridBugs):
    """``MiniGrid-KeyCorridorS6R3-v0`` (1080 steps): a hallway of rooms down the middle, a key
    in one of the rooms on its left, a ball behind the one locked door on its right; fetch the
    key, unlock the door, drop the key, pick the ball up. Each step of that chain has a bug.

    - 0, crash: the hallway's empty cell nearest two steps from the start (next to no door,
      and one the hallway stays connected without) raises; random play reaches it early.
    - 1, logic: picking the key up breaks an invariant (``info["violations"]``, play goes
      on); random play does it in 3 episodes of 60 (64,800 steps).
    - 2, logic: the locked door opening (a toggle while carrying the key) breaks one; random
      play never does in those 60 episodes.
    - 3, crash: picking the ball up (the level's end) raises; never in random play either.
    """

    TEXTS = {0: "hallway tile streamed in without its collision mesh",
             1: "key added to the inventory twice",
             2: "locked door opened without consuming the key",
             3: "ball pickup fired the level-end event before saving"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("MiniGrid-KeyCorridorS6R3-v0", **kwargs)
        self.injected_bugs = (
            InjectedBug(0, "crash", _at(self.crash_cell), "RuntimeError on a hallway cell two steps from the start"),
            InjectedBug(1, "logic", _at(self.key), "violation (non-fatal) when the key is picked up"),
            InjectedBug(2, "logic", _at((self.door[0] - 1, self.door[1])),
                        "violation (non-fatal) when the locked door goes from locked to open"),
            InjectedBug(3, "crash", _at(self.ball), "RuntimeError when the ball is picked up"),
        )

    def layout(self, grid: Any, start: Cell) -> None:
        cells = [(x, y) for x in range(grid.width) for y in range(grid.height) if grid.get(x, y) is not None]
        doors = [c for c in cells if grid.get(*c).type == "door"]
        self.door = next(c for c in doors if grid.get(*c).is_locked)
        self.key = next(c for c in cells if grid.get(*c).type == "key")
        self.ball = tuple(int(v) for v in self.unwrapped.obj.cur_pos)
        hallway = _region(grid, start)
        dx, dy = self.unwrapped.dir_vec
        ahead = (start[0] + 2 * int(dx), start[1] + 2 * int(dy))
        near = sorted(hallway - {start},
                      key=lambda c: (c != ahead, abs(abs(c[0] - start[0]) + abs(c[1] - start[1]) - 2), c))
        self.crash_cell = _harmless(grid, hallway, near, doors)
        self.carried: str | None = None
        self.locked = True

    def check(self, pos: Cell) -> list[str]:
        u = self.unwrapped
        carried, self.carried = self.carried, None if u.carrying is None else u.carrying.type
        was_locked, self.locked = self.locked, u.grid.get(*self.door).is_locked
        if pos == self.crash_cell:
            raise RuntimeError(self.TEXTS[0])
        if self.carried == "ball" and carried != "ball":
            raise RuntimeError(self.TEXTS[3])
        broken = [self.TEXTS[1]] if self.carried == "key" and carried != "key" else []
        return broken + ([self.TEXTS[2]] if was_locked and not self.locked else [])


class HighwayBugs(Planted):
    """highway-env's ``highway-fast-v0``: three lanes, 30 one-second steps, actions
    0 lane left, 1 idle, 2 lane right, 3 faster, 4 slower; the episode ends in a collision.
    Observes highway-env's kinematics (5 vehicles x presence, x, y, vx, vy; ego first).

    - 0, crash: the ego vehicle in the leftmost lane (index 0) faster than 29 m/s (top speed
      is 30, reached by ``faster`` from 25) raises; random play, which collides within 10
      steps at the median, does it in 2 episodes of 20.
    - 1, logic: the ego vehicle 500 m past its start without a collision fails an assertion
      (25 steps of ``slower`` reach it); random play in 2 episodes of 20.
    """

    TEXTS = {0: "tyre model returned NaN grip in the fast lane",
             1: "odometer passed 500 m but the lap counter did not tick"}
    CRASH_LANE, CRASH_SPEED, LOGIC_DISTANCE = 0, 29.0, 500.0
    injected_bugs = (  # located at the ego row of such a state (x clipped at 200 m), others zero
        InjectedBug(0, "crash", (1.0, 1.0, 0.0, 30 / 80, 0.0) + (0.0,) * 20,
                    "RuntimeError in the left lane above 29 m/s"),
        InjectedBug(1, "logic", (1.0, 1.0, 4 / 12, 25 / 80, 0.0) + (0.0,) * 20,
                    "AssertionError 500 m past the start"),
    )

    def __init__(self, **kwargs: Any) -> None:
        import highway_env  # noqa: F401  (registers its ids)

        game = gym.make("highway-fast-v0", **kwargs)
        config = game.unwrapped.config  # it ends its episodes at ``duration`` but declares no horizon
        super().__init__(TimeLimit(game, int(config["duration"] * config["policy_frequency"])))
        self.start_x = 0.0

    def reset(self, **kwargs: Any):
        out = self.env.reset(**kwargs)
        self.start_x = float(self.unwrapped.vehicle.position[0])
        return out

    def step(self, action: Any):
        out = self.env.step(action)
        car = self.unwrapped.vehicle
        if car.lane_index[2] == self.CRASH_LANE and car.speed > self.CRASH_SPEED:
            raise RuntimeError(self.TEXTS[0])
        if float(car.position[0]) - self.start_x > self.LOGIC_DISTANCE and not car.crashed:
            raise AssertionError(self.TEXTS[1])
        return out


class LunarBugs(Planted):
    """Gymnasium's ``LunarLander-v3`` (Box2D, 1000 steps): actions 0 nothing, 1 left engine,
    2 main engine, 3 right engine; observes x, y, vx, vy, angle, angular speed and the two
    legs' ground contact. The pad spans x from -0.2 to 0.2.

    - 0, crash: a leg on the ground left of x = -0.5 raises (random play lands there in about
      one episode in five).
    - 1, logic: the main engine fired after both legs have rested on the ground for 5 steps in
      a row (a relaunch after a landing) fails an assertion; random play seldom lands softly
      enough (1 episode in 500).
    """

    TEXTS = {0: "terrain collider missing left of the pad",
             1: "main engine fired after touchdown; the landing lock did not engage"}
    FAR_LEFT, RESTED, MAIN = -0.5, 5, 2
    injected_bugs = (
        InjectedBug(0, "crash", (-0.7, 0.0, 0.0, -0.5, 0.0, 0.0, 1.0, 1.0),
                    "RuntimeError when a leg touches ground left of x = -0.5"),
        InjectedBug(1, "logic", (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0),
                    "AssertionError when the main engine fires after 5 steps resting on both legs"),
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(gym.make("LunarLander-v3", **kwargs))
        self.rested = 0

    def reset(self, **kwargs: Any):
        self.rested = 0
        return self.env.reset(**kwargs)

    def step(self, action: Any):
        relaunch = int(action) == self.MAIN and self.rested >= self.RESTED
        out = self.env.step(action)
        obs = out[0]
        self.rested = self.rested + 1 if obs[6] > 0.5 and obs[7] > 0.5 else 0
        if (obs[6] > 0.5 or obs[7] > 0.5) and obs[0] < self.FAR_LEFT:
            raise RuntimeError(self.TEXTS[0])
        if relaunch:
            raise AssertionError(self.TEXTS[1])
        return out


class CrafterEnv(gym.Env):
    """Crafter behind the Gymnasium API (it speaks the old gym's: ``reset() -> obs``, ``step ->
    (obs, reward, done, info)``): a seeded reset replays the world of that seed; death
    terminates, the end of its ``length`` truncates. 64x64 pixels, 17 actions."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, render_mode: str | None = None, length: int = 1000) -> None:
        import crafter

        self.game = crafter.Env(length=length, seed=0)
        self.spec = EnvSpec("Crafter-v1", f"{__name__}:CrafterEnv", max_episode_steps=length)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0, 255, (64, 64, 3), np.uint8)
        self.action_space = spaces.Discrete(len(self.game.action_names))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:  # its world is generated from (seed, episode number)
            self.game._seed, self.game._episode = int(seed), 0
        obs = self.game.reset()
        return obs, {"achievements": dict(self.game._player.achievements)}

    def step(self, action: Any):
        obs, reward, done, info = self.game.step(int(action))
        dead = info["discount"] == 0.0
        return obs, float(reward), dead, bool(done and not dead), info

    def render(self) -> np.ndarray | None:
        return self.game.render() if self.render_mode == "rgb_array" else None


class CrafterBugs(Planted):
    """Crafter: collect, craft, survive; episodes of 1000 steps here (Crafter's own are 10000,
    a long record of frames for the engine), random play dies within 70 to 250 steps.

    - 0, crash: collecting a sapling (``do`` on grass succeeds one time in ten) raises; random
      play does it in 9 episodes of 20, after 65 steps at the median.
    - 1, logic: placing a table (two wood, from two ``do`` on trees, then ``place_table``
      facing grass, sand or path) fails an assertion; random play never does in 20 episodes.
    """

    TEXTS = {0: "sapling item has no inventory sprite",
             1: "table placed but the recipe book was not unlocked"}
    injected_bugs = (
        InjectedBug(0, "crash", (), "RuntimeError on collecting a sapling"),
        InjectedBug(1, "logic", (), "AssertionError on placing a table"),
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(CrafterEnv(**kwargs))

    def step(self, action: Any):
        before = dict(self.unwrapped.game._player.achievements)
        out = self.env.step(action)
        after = out[4]["achievements"]
        if after["collect_sapling"] > before["collect_sapling"]:
            raise RuntimeError(self.TEXTS[0])
        if after["place_table"] > before["place_table"]:
            raise AssertionError(self.TEXTS[1])
        return out
