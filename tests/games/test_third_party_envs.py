"""The third-party games with planted bugs (:mod:`tests.games.third_party_envs`; one suite, so
one file over 400 lines), played with
plain Gymnasium and no engine: scripted play reaches each planted bug; the engine's own
oracles, given the episode recorded as its adapter records one, report it; and ``match``
names the planted bug the report is. Random play is checked not to reach the deep bugs in its
first episodes (deterministic: seeded layouts and a seeded action stream)."""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

import numpy as np
import pytest

from games.core.component import Context
from games.core.base import GameError, GameSpec
from games.core.record import Rollout, RolloutBatch
from oracles.base import Bug
from oracles.crash import CrashConfig, CrashOracle
from oracles.logic import LogicConfig, LogicOracle
from oracles.stuck import StuckConfig, StuckOracle
from tests.games import third_party_envs as tp

DIRS = ((1, 0), (0, 1), (-1, 0), (0, -1))
"""MiniGrid's ``agent_dir`` 0..3 as (dx, dy)."""


class Recorder:
    """One episode played step by step and kept as the engine's adapter keeps it: the
    features after reset and after each step (unchanged by a step that raised), the actions,
    the error that ended it and the violations with their step."""

    def __init__(self, env: Any, seed: int) -> None:
        self.env, self.seed = env, seed
        self.obs, info = env.reset(seed=seed)
        self.features = [self._features(self.obs, info)]
        self.actions: list[int] = []
        self.violations: list[tuple[int, str]] = []
        self.exc: BaseException | None = None
        self.terminated = self.truncated = False
        self.info: dict[str, Any] = info

    def _features(self, obs: Any, info: dict[str, Any]) -> np.ndarray:
        own = getattr(self.env, "state_features", None)
        return np.asarray(own(obs, info) if own else np.ravel(obs), dtype=np.float64)

    @property
    def done(self) -> bool:
        return self.exc is not None or self.terminated or self.truncated

    def step(self, action: int) -> bool:
        """Play ``action``; True when the episode is over (the game raised or ended it)."""
        assert not self.done
        self.actions.append(int(action))
        try:
            self.obs, _, self.terminated, self.truncated, self.info = self.env.step(action)
        except Exception as exc:  # noqa: BLE001 - what the engine catches
            self.exc = exc
            self.features.append(self.features[-1])
            return True
        self.features.append(self._features(self.obs, self.info))
        self.violations += [(len(self.actions) - 1, str(v)) for v in self.info.get("violations", [])]
        return self.done

    def reports(self) -> list[Bug]:
        """What the engine's crash, logic and stuck oracles report of the episode."""
        n = len(self.actions)
        features = np.stack(self.features)
        f = features.shape[1]
        rollout = Rollout(
            policy=0, episode_seed=self.seed, actions=np.asarray(self.actions, dtype=np.int64),
            rewards=np.zeros(n), features=features, frame_ms=np.zeros(n),
            terminated=self.terminated or self.exc is not None, truncated=self.truncated,
            error=None if self.exc is None else GameError.from_exception(self.exc),
            violations=tuple(self.violations),
        )
        spec = GameSpec(  # a bucket per whole unit: a MiniGrid cell and direction each
            obs_shape=(f,), n_actions=int(self.env.action_space.n), feature_names=tuple(f"f{i}" for i in range(f)),
            feature_low=(0.0,) * f, feature_high=(64.0,) * f, feature_bins=(64,) * f, max_steps=max(n, 1),
        )
        oracles = (CrashOracle(spec, CrashConfig(), Context()), LogicOracle(spec, LogicConfig(), Context()),
                   StuckOracle(spec, StuckConfig(), Context()))
        batch = RolloutBatch.from_rollouts([rollout])
        return [bug for oracle in oracles for bug in oracle.check(batch)]

    def found(self) -> list[tuple[str, int | None]]:
        """``(kind, match)`` of every report: the planted bugs the engine would count."""
        return [(bug.kind, self.env.match(bug)) for bug in self.reports()]


def _cell(pos: Any) -> tuple[int, int]:
    return int(pos[0]), int(pos[1])


def _face(rec: Recorder, d: int) -> bool:
    """Turn the agent to direction ``d`` (at most 3 turns: a frozen agent does not turn)."""
    u = rec.env.unwrapped
    for _ in range(3):
        if u.agent_dir == d:
            return False
        if rec.step(tp.LEFT if (d - u.agent_dir) % 4 == 3 else tp.RIGHT):
            return True
    return False


def _walk(rec: Recorder, targets: set[tuple[int, int]], avoid: tuple[tuple[int, int], ...] = ()) -> bool:
    """Drive the agent along a shortest path to the nearest of ``targets`` over empty cells
    and unlocked doors (opened on the way), never onto ``avoid``; True if the episode ended."""
    u = rec.env.unwrapped
    start = _cell(u.agent_pos)
    prev: dict[tuple[int, int], Any] = {start: None}
    todo, end = deque([start]), None
    while todo and end is None:
        c = todo.popleft()
        if c in targets:
            end = c
        for dx, dy in DIRS:
            n = (c[0] + dx, c[1] + dy)
            obj = u.grid.get(*n)
            if n not in prev and n not in avoid and (obj is None or (obj.type == "door" and not obj.is_locked)):
                prev[n] = c
                todo.append(n)
    assert end is not None, f"no way from {start} to {targets}"
    path = []
    while end != start:
        path.append(end)
        end = prev[end]
    for c in reversed(path):
        pos = _cell(u.agent_pos)
        if _face(rec, DIRS.index((c[0] - pos[0], c[1] - pos[1]))):
            return True
        obj = u.grid.get(*c)
        if obj is not None and obj.type == "door" and not obj.is_open and rec.step(tp.TOGGLE):
            return True
        if rec.step(tp.FORWARD):
            return True
    return False


def _random(env: Any, episodes: int, seed: int = 0,
            after_reset: Callable[[Any], None] = lambda env: None) -> list[Recorder]:
    """Uniform random play of ``episodes`` whole episodes (seeds 0, 1, ...), one action stream."""
    rng, played = np.random.default_rng(seed), []
    for episode in range(episodes):
        rec = Recorder(env, episode)
        after_reset(env)
        while not rec.step(int(rng.integers(env.action_space.n))):
            pass
        played.append(rec)
    return played


# DoorKey -------------------------------------------------------------------------------


def _unlock(rec: Recorder) -> None:
    """Fetch the key and unlock the door, around the crash cell; the episode goes on."""
    env, u = rec.env, rec.env.unwrapped
    key = next((x, y) for x in range(u.width) for y in range(u.height)
               if u.grid.get(x, y) is not None and u.grid.get(x, y).type == "key")
    beside = {(key[0] + dx, key[1] + dy) for dx, dy in DIRS if u.grid.get(key[0] + dx, key[1] + dy) is None}
    assert not _walk(rec, beside, avoid=(env.crash_cell,))
    pos = _cell(u.agent_pos)
    assert not _face(rec, DIRS.index((key[0] - pos[0], key[1] - pos[1]))) and not rec.step(tp.PICKUP)
    assert u.carrying is not None and u.carrying.type == "key"
    assert not _walk(rec, {(env.door[0] - 1, env.door[1])}, avoid=(env.crash_cell,))
    assert not _face(rec, 0) and not rec.step(tp.TOGGLE)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_doorkey_crash_cell_raises_and_matches(seed):
    rec = Recorder(tp.DoorKeyBugs(), seed)
    start = _cell(rec.env.unwrapped.agent_pos)
    assert 1 <= abs(rec.env.crash_cell[0] - start[0]) + abs(rec.env.crash_cell[1] - start[1]) <= 3
    assert _walk(rec, {rec.env.crash_cell})
    assert type(rec.exc) is RuntimeError and str(rec.exc) == tp.DoorKeyBugs.TEXTS[0]
    assert rec.found() == [("crash", 0)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_doorkey_unlocking_is_a_logic_bug_and_the_cell_past_the_door_freezes(seed):
    rec = Recorder(tp.DoorKeyBugs(), seed)
    _unlock(rec)
    assert rec.info["violations"] == [tp.DoorKeyBugs.TEXTS[1]]
    assert rec.env.unwrapped.grid.get(*rec.env.door).is_open and not rec.done
    assert rec.found() == [("logic", 1)]
    stuck = rec.env.stuck_cell
    assert stuck[0] > rec.env.door[0] and abs(stuck[0] - rec.env.door[0]) + abs(stuck[1] - rec.env.door[1]) == 2
    assert not _walk(rec, {stuck}, avoid=(rec.env.crash_cell,)) and rec.env.frozen
    frozen_obs, frozen_features = rec.obs.copy(), rec.features[-1]
    for action in [*range(7), *range(7)]:  # every action, twice: nothing changes
        assert not rec.step(action)
        assert np.array_equal(rec.obs, frozen_obs) and np.array_equal(rec.features[-1], frozen_features)
    assert sorted(rec.found()) == [("logic", 1), ("stuck", 2)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_doorkey_reaching_the_goal_behind_the_door_is_a_logic_bug(seed):
    rec = Recorder(tp.DoorKeyBugs(), seed)
    _unlock(rec)
    env, u = rec.env, rec.env.unwrapped
    (gx, gy), door = env.goal, env.door
    assert gx > door[0] and u.grid.get(gx, gy).type == "goal"
    beside = {(gx + dx, gy + dy) for dx, dy in DIRS if u.grid.get(gx + dx, gy + dy) is None}
    assert not _walk(rec, beside, avoid=(env.crash_cell, env.stuck_cell))
    pos = _cell(u.agent_pos)
    assert not _face(rec, DIRS.index((gx - pos[0], gy - pos[1])))
    assert rec.step(tp.FORWARD) and type(rec.exc) is AssertionError and str(rec.exc) == tp.DoorKeyBugs.TEXTS[3]
    assert sorted(rec.found()) == [("logic", 1), ("logic", 3)]


def test_doorkey_a_start_room_the_key_walls_in_has_no_crash_cell():
    """Found by random testing in the benchmark: a layout whose start room is a corridor one
    cell wide with the key in its one way out had no cell for the crash, and the wrapper's
    reset raised IndexError (a crash report matching no planted bug)."""
    env = tp.DoorKeyBugs()
    env.reset(seed=1390761999)
    assert env.crash_cell == tp.NOWHERE and env.unwrapped.grid.get(1, 13).type == "key"


def test_doorkey_random_play_neither_unlocks_the_door_nor_gets_stuck():
    """With the crash cell out of the way, 3 random episodes of 2560 steps never carry the
    key to the door (the door bug and the stuck place behind it are deep); with it, random
    play crashes there within its first episodes."""
    env = tp.DoorKeyBugs()

    def no_crash(game: Any) -> None:
        game.crash_cell = (-1, -1)

    played = _random(env, 3, after_reset=no_crash)
    assert all(rec.truncated and len(rec.actions) == 2560 for rec in played)
    assert [rec.found() for rec in played] == [[], [], []]
    crashed = _random(env, 3)
    assert ("crash", 0) in [kind for rec in crashed for kind in rec.found()]


# KeyCorridor ---------------------------------------------------------------------------


def _beside(u: Any, cell: tuple[int, int]) -> set[tuple[int, int]]:
    return {(cell[0] + dx, cell[1] + dy) for dx, dy in DIRS if u.grid.get(cell[0] + dx, cell[1] + dy) is None}


def _take(rec: Recorder, cell: tuple[int, int], avoid: tuple[tuple[int, int], ...]) -> bool:
    """Walk beside ``cell``, face it and pick up what lies there; True if the episode ended."""
    u = rec.env.unwrapped
    assert not _walk(rec, _beside(u, cell), avoid=avoid)
    pos = _cell(u.agent_pos)
    assert not _face(rec, DIRS.index((cell[0] - pos[0], cell[1] - pos[1])))
    return rec.step(tp.PICKUP)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keycorridor_each_link_of_the_chain_is_a_planted_bug(seed):
    """Key (logic 1), locked door (logic 2), ball (crash 3), walked around the hallway's crash
    cell; and the crash cell itself raises (crash 0)."""
    rec = Recorder(tp.KeyCorridorBugs(), seed)
    env, u = rec.env, rec.env.unwrapped
    avoid = (env.crash_cell,)
    assert not _take(rec, env.key, avoid) and u.carrying.type == "key"
    assert rec.violations[-1][1] == tp.KeyCorridorBugs.TEXTS[1]
    assert not _walk(rec, {(env.door[0] - 1, env.door[1])}, avoid=avoid)
    assert not _face(rec, 0) and not rec.step(tp.TOGGLE) and u.grid.get(*env.door).is_open
    assert rec.violations[-1][1] == tp.KeyCorridorBugs.TEXTS[2]
    floor = next(d for d in (1, 3) if u.grid.get(*(np.array(u.agent_pos) + DIRS[d])) is None)
    assert not _face(rec, floor) and not rec.step(tp.DROP) and u.carrying is None
    assert _take(rec, env.ball, avoid) and str(rec.exc) == tp.KeyCorridorBugs.TEXTS[3]
    assert sorted(rec.found()) == [("crash", 3), ("logic", 1), ("logic", 2)]
    crash = Recorder(tp.KeyCorridorBugs(), seed)
    assert _walk(crash, {crash.env.crash_cell}) and crash.found() == [("crash", 0)]


def test_keycorridor_random_play_neither_unlocks_the_door_nor_takes_the_ball():
    env = tp.KeyCorridorBugs()
    played = _random(env, 3, after_reset=lambda game: setattr(game, "crash_cell", (-1, -1)))
    assert all(rec.truncated and len(rec.actions) == 1080 for rec in played)
    assert not {found for rec in played for found in rec.found()} & {("logic", 2), ("crash", 3)}


# MultiRoom -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_multiroom_crash_in_room_two_and_logic_at_the_door_of_room_four(seed):
    env = tp.MultiRoomBugs()
    rec = Recorder(env, seed)
    rooms = env.unwrapped.rooms
    (left, top), (width, height) = rooms[1].top, rooms[1].size
    assert left < env.crash_cell[0] < left + width - 1 and top < env.crash_cell[1] < top + height - 1
    assert _walk(rec, {env.crash_cell})
    assert type(rec.exc) is RuntimeError and rec.found() == [("crash", 0)]
    rec = Recorder(env, seed)  # around the crash cell, through rooms 2 and 3, to the door of room 4
    assert _walk(rec, {env.door}, avoid=(env.crash_cell,))
    assert type(rec.exc) is AssertionError and str(rec.exc) == tp.MultiRoomBugs.TEXTS[1]
    assert len(rec.actions) <= 80 and rec.found() == [("logic", 1)]


def test_multiroom_random_play_does_not_reach_room_four():
    played = _random(tp.MultiRoomBugs(), 20)
    assert all(("logic", 1) not in rec.found() for rec in played)


# highway-env ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def highway() -> Any:
    return tp.HighwayBugs()


@pytest.mark.parametrize("seed", [0, 1])
def test_highway_left_lane_at_top_speed_crashes(highway, seed):
    rec = Recorder(highway, seed)
    for action in [0, 0, 3, 3, 3, 3, 3, 3]:  # two lanes left (or into the edge), then faster
        if rec.step(action):
            break
    car = highway.unwrapped.vehicle
    assert type(rec.exc) is RuntimeError and car.lane_index[2] == 0 and car.speed > 29
    assert rec.found() == [("crash", 0)]


@pytest.mark.parametrize("seed", [0, 1])
def test_highway_500_m_without_collision_is_a_logic_bug(highway, seed):
    rec = Recorder(highway, seed)
    while not rec.step(4):  # slower: 20 m/s, behind the traffic, never hit
        pass
    assert type(rec.exc) is AssertionError and rec.found() == [("logic", 1)]
    assert highway.unwrapped.vehicle.position[0] - highway.start_x > 500 and len(rec.actions) < 30


# LunarLander ---------------------------------------------------------------------------


def _heuristic(env: Any, obs: np.ndarray, target_x: float = 0.0) -> int:
    """Gymnasium's own landing controller, steered to land at ``target_x``."""
    from gymnasium.envs.box2d.lunar_lander import heuristic

    shifted = np.array(obs, dtype=np.float64)
    shifted[0] -= target_x
    return int(heuristic(env.unwrapped, shifted))


@pytest.mark.parametrize("seed", [1, 2])
def test_lunar_touching_ground_far_left_crashes(seed):
    rec = Recorder(tp.LunarBugs(), seed)
    while not rec.step(_heuristic(rec.env, rec.obs, target_x=-0.8)):
        pass
    assert type(rec.exc) is RuntimeError and str(rec.exc) == tp.LunarBugs.TEXTS[0]
    assert rec.found() == [("crash", 0)]


@pytest.mark.parametrize("seed", [0, 1])
def test_lunar_main_engine_after_landing_is_a_logic_bug(seed):
    rec, rested = Recorder(tp.LunarBugs(), seed), 0
    while not rec.step(tp.LunarBugs.MAIN if rested >= 5 else 0 if rested else _heuristic(rec.env, rec.obs)):
        rested = rested + 1 if rec.obs[6] and rec.obs[7] else 0
    assert type(rec.exc) is AssertionError and rec.found() == [("logic", 1)]
    assert rec.actions[-1] == tp.LunarBugs.MAIN and abs(rec.obs[0]) < 0.2  # landed on the pad


def test_lunar_random_play_does_not_relaunch():
    played = _random(tp.LunarBugs(), 20)
    assert all(("logic", 1) not in rec.found() for rec in played)
    assert ("crash", 0) in [kind for rec in played for kind in rec.found()]  # lands far left now and then


# Crafter -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def crafter() -> Any:
    return tp.CrafterBugs()


def _crafter_do(rec: Recorder, goal: str, limit: int = 300) -> None:
    """Walk the world (breadth first around creatures) and act until ``goal``: ``sapling``
    (``do`` facing grass) or ``table`` (``do`` facing trees until 2 wood, then place it)."""
    from crafter.constants import actions

    act = {name: i for i, name in enumerate(actions)}
    moves = {(-1, 0): act["move_left"], (1, 0): act["move_right"], (0, -1): act["move_up"], (0, 1): act["move_down"]}
    game = rec.env.unwrapped.game
    world, player = game._world, game._player

    def free(c: tuple[int, int]) -> bool:
        return 0 <= c[0] < 64 and 0 <= c[1] < 64 and world[c][0] in ("grass", "sand", "path") and world[c][1] is None

    for _ in range(limit):
        pos = _cell(player.pos)
        ahead = (pos[0] + int(player.facing[0]), pos[1] + int(player.facing[1]))
        wood = player.inventory["wood"]
        if goal == "sapling":
            want = free
            action = act["do"] if free(ahead) else None
        else:
            want = (lambda c: world[c][0] == "tree") if wood < 2 else free
            if wood < 2:
                action = act["do"] if world[ahead][0] == "tree" else None
            else:
                action = act["place_table"] if free(ahead) else None
        if action is None:
            prev, todo, end = {pos: None}, deque([pos]), None
            while todo and end is None:
                c = todo.popleft()
                if any(want((c[0] + dx, c[1] + dy)) for dx, dy in moves):
                    end = c
                for dx, dy in moves:
                    n = (c[0] + dx, c[1] + dy)
                    if n not in prev and free(n):
                        prev[n] = c
                        todo.append(n)
            assert end is not None
            while end != pos and prev[end] != pos:
                end = prev[end]
            if end == pos:  # beside it: turn to it (a move into what blocks only turns)
                action = moves[next(d for d in moves if want((pos[0] + d[0], pos[1] + d[1])))]
            else:
                action = moves[(end[0] - pos[0], end[1] - pos[1])]
        if rec.step(action):
            return


def test_crafter_collecting_a_sapling_crashes(crafter):
    rec = Recorder(crafter, 0)
    _crafter_do(rec, "sapling")
    assert type(rec.exc) is RuntimeError and rec.found() == [("crash", 0)]
    assert rec.env.unwrapped.game._player.inventory["sapling"] == 1


def test_crafter_placing_a_table_is_a_logic_bug(crafter):
    rec = Recorder(crafter, 1)
    _crafter_do(rec, "table")
    assert type(rec.exc) is AssertionError and rec.found() == [("logic", 1)]
    assert rec.actions[-1] == 8  # place_table


def test_crafter_random_play_places_no_table(crafter):
    played = _random(crafter, 2)
    assert all(("logic", 1) not in rec.found() for rec in played)


# Ground truth --------------------------------------------------------------------------


GAMES = [tp.DoorKeyBugs, tp.MultiRoomBugs, tp.HighwayBugs, tp.LunarBugs, tp.CrafterBugs, tp.KeyCorridorBugs]


@pytest.mark.parametrize("cls", GAMES[:2] + GAMES[3:4])
def test_constructor_takes_no_arguments_and_passes_render_mode_on(cls):
    env = cls(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8


@pytest.mark.parametrize("cls", [tp.DoorKeyBugs, tp.MultiRoomBugs, tp.LunarBugs, tp.KeyCorridorBugs])
def test_match_names_no_other_report(cls):
    env = cls()
    kinds = [b.kind for b in env.injected_bugs]
    assert [b.id for b in env.injected_bugs] == list(range(len(kinds))) and kinds.count("stuck") <= 1
    other = dict(oracle="x", signature="s", step=0, state=(), next_state=(), policy=0, episode_seed=0, actions=())
    assert env.match(Bug(kind="crash", message="ValueError at step 3: index out of range", **other)) is None
    assert env.match(Bug(kind="performance", message=env.TEXTS[0], **other)) is None
    assert env.match(Bug(kind="logic", message=f"AssertionError at step 1: {env.TEXTS[0]}", **other)) is None
    assert (env.match(Bug(kind="stuck", message="state unchanged", **other)) is None) == ("stuck" not in kinds)
