"""Dungeon: the explicit-plan article's example level as a benchmark game, in numpy.

The player walks a level of three rooms (:mod:`games.dungeon.layout`): a switch opens the
locked door, a lava pit must be jumped, and interacting with the shrine ends the level.
Enemies (goblins, skeletons, ogres) hit the player every step it stands next to them; coins
are collected by walking onto them. Actions: move N/S/E/W (a blocked move turns the player
in place; walking into lava kills), interact (with the switch or shrine next to the player),
attack (the enemy next to the player, the one faced first), jump (two cells the way the
player faces, over lava), wait.

Every step names what happened in ``info["events"]``, a tuple of ``"kind:actor"`` strings
(``door_opened:door_1``, ``enemy_killed:goblin_2``, ``item_collected:coin_3``,
``player_damaged:ogre_1:1`` with the damage last): what a plan's validations wait for and
what the balance oracle counts; ``info["aim"]`` names each step's action and the actor it was
aimed at (``jump:lava_1``), what the ``validation`` oracle binds validations to. The injected bugs show only there and in the state
features: no step raises and no invariant is reported broken.

The rules live in :class:`DungeonVector`; :class:`Dungeon` is the generic scalar adapter.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.core.base import GameSpec, InjectedBug, VecStep
from games.core.navigation import Route, Target, straight_move
from games.dungeon.layout import (
    ACTION_NAMES, ACTION_TARGETS, ACTOR_NAMES, AREA_SYNONYMS, AREAS, ACTOR_TYPES, ATTACK, BUGS, CATEGORIES, DOOR, ENEMY_STATS,
    HEIGHT, INTERACT, JUMP, LAVA, MAX_HEALTH, MOVES, PLAYER_ATTACK, STRONG_OGRE_ATTACK, SYNONYMS,
    WALL, WIDTH, DungeonLayout, generate_layout,
)
from games.dungeon.navigation import Situation, nearest, route
from games.core.scalar_env import VectorEnv

SHRINE_REWARD, KILL_REWARD, COIN_REWARD, DEATH_REWARD, STEP_REWARD = 10.0, 1.0, 1.0, -10.0, -0.01
FEATURES = ("x", "y", "facing", "health", "switch_on", "door_open", "coins", "kills")
WINDOW = 5
# Codes of the observation's window around the player, scaled by the largest.
_OPEN, _WALL, _DOOR, _LAVA, _ENEMY, _COIN, _SWITCH, _SHRINE = range(8)
_DELTAS = np.array(MOVES, dtype=np.int64)
_TOKENS = {"moved_switch": "switch_1", "dead_jump": "jump", "uncounted_kill": "goblin_1", "strong_ogre": "ogre"}


class DungeonVector:
    """``num_envs`` copies of the dungeon stepped together: the game's rules.

    Args:
        num_envs: Number of copies.
        level_seed: Seed of the level's layout (the episode seed changes nothing: the game
            has no randomness of its own).
        max_steps: Episode horizon.
        bugs: Names of the injected bugs (:data:`games.dungeon.layout.BUGS`); all by
            default, ``[]`` for the released game.
    """

    action_names = ACTION_NAMES
    action_targets = ACTION_TARGETS
    actor_names = ACTOR_NAMES
    actor_types = ACTOR_TYPES
    categories = CATEGORIES
    synonyms = SYNONYMS
    areas = AREAS
    area_synonyms = AREA_SYNONYMS
    removal_events = ("enemy_killed", "item_collected")
    """Events after which the actor they name is gone (navigation walks through its cell)."""

    def __init__(self, num_envs: int, *, level_seed: int = 0, max_steps: int = 200,
                 bugs: Sequence[str] = BUGS) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if max_steps < 1:
            raise ValueError(f"max_steps must be positive, got {max_steps}")
        self.num_envs = num_envs
        self.layout: DungeonLayout = generate_layout(level_seed, tuple(bugs))
        lay = self.layout
        self.actors = lay.actors
        n_coins, n_enemies = len(lay.coins), len(lay.enemies)
        self.game_spec = GameSpec(
            obs_shape=(len(FEATURES) + WINDOW * WINDOW,), n_actions=len(ACTION_NAMES),
            feature_names=FEATURES,
            feature_low=(0.0,) * len(FEATURES),
            feature_high=(WIDTH - 1, HEIGHT - 1, 3, MAX_HEALTH, 1, 1, n_coins, n_enemies),
            feature_bins=(WIDTH, HEIGHT, 4, MAX_HEALTH + 1, 2, 2, n_coins + 1, n_enemies + 1),
            max_steps=max_steps,
        )
        self._enemy_cells = np.array([a.cells[0] for a in lay.enemies], dtype=np.int64)
        self._coin_cells = np.array([a.cells[0] for a in lay.coins], dtype=np.int64)
        self._enemy_hp = np.array([ENEMY_STATS[a.type][0] for a in lay.enemies], dtype=np.int64)
        strong = "strong_ogre" in lay.bugs
        self._enemy_atk = np.array([STRONG_OGRE_ATTACK if strong and a.type == "ogre" else ENEMY_STATS[a.type][1]
                                    for a in lay.enemies], dtype=np.int64)
        self._uncounted = next((i for i, a in enumerate(lay.enemies) if a.name == "goblin_1"), -1) \
            if "uncounted_kill" in lay.bugs else -1
        pad = WINDOW // 2
        self._static = np.pad(np.where(lay.tiles == WALL, _WALL, np.where(lay.tiles == LAVA, _LAVA, _OPEN)),
                              pad, constant_values=_WALL)
        self._static[lay.door[0] + pad, lay.door[1] + pad] = _DOOR
        self._static[lay.switch[0] + pad, lay.switch[1] + pad] = _SWITCH
        self._static[lay.shrine[0] + pad, lay.shrine[1] + pad] = _SHRINE
        offsets = np.arange(WINDOW)
        self._win_r, self._win_c = np.meshgrid(offsets, offsets, indexing="ij")
        self.injected_bugs = [
            InjectedBug(i, "balance" if name == "strong_ogre" else "logic", self._bug_location(name), name)
            for i, name in enumerate(b for b in BUGS if b in lay.bugs)
        ]
        self.reset(list(range(num_envs)))

    def _bug_location(self, name: str) -> tuple[float, ...]:
        lay = self.layout
        cell = {"moved_switch": lay.switch, "dead_jump": lay.dead_jump or (0, 0),
                "uncounted_kill": self.actors["goblin_1"].cells[0],
                "strong_ogre": self.actors["ogre_1"].cells[0]}[name]
        return (float(cell[1]), float(cell[0]))

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Every copy back at the start of the level."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        n = self.num_envs
        self._pos = np.tile(np.array(self.layout.start, dtype=np.int64), (n, 1))
        self._facing = np.full(n, 2, dtype=np.int64)  # east, towards the door
        self._health = np.full(n, MAX_HEALTH, dtype=np.int64)
        self._switch_on = np.zeros(n, dtype=bool)
        self._door_open = np.zeros(n, dtype=bool)
        self._hp = np.tile(self._enemy_hp, (n, 1))
        self._coin_taken = np.zeros((n, len(self.layout.coins)), dtype=bool)
        self._coins = np.zeros(n, dtype=np.int64)
        self._kills = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        return self._obs(), self._features()

    def _features(self) -> np.ndarray:
        return np.stack([self._pos[:, 1], self._pos[:, 0], self._facing, self._health, self._switch_on,
                         self._door_open, self._coins, self._kills], axis=1).astype(np.float64)

    def _obs(self) -> np.ndarray:
        feats = self._features() / np.maximum(np.array(self.game_spec.feature_high), 1.0)
        rows = self._pos[:, :1, None] + self._win_r[None]  # padded coordinates of the window
        cols = self._pos[:, 1:, None] + self._win_c[None]
        window = self._static[rows, cols].copy()
        pad = WINDOW // 2
        door = (rows == self.layout.door[0] + pad) & (cols == self.layout.door[1] + pad)
        window[door & self._door_open[:, None, None]] = _OPEN
        for e, (r, c) in enumerate(self._enemy_cells):
            window[(rows == r + pad) & (cols == c + pad) & (self._hp[:, e] > 0)[:, None, None]] = _ENEMY
        for k, (r, c) in enumerate(self._coin_cells):
            window[(rows == r + pad) & (cols == c + pad) & ~self._coin_taken[:, k, None, None]] = _COIN
        return np.concatenate([feats, window.reshape(len(window), -1) / _SHRINE], axis=1).astype(np.float32)

    def _blocked(self, cells: np.ndarray) -> np.ndarray:
        """``[N]`` True where copy i cannot stand on ``cells[i]`` (lava is not blocked)."""
        r, c = np.clip(cells[:, 0], 0, HEIGHT - 1), np.clip(cells[:, 1], 0, WIDTH - 1)
        tile = self.layout.tiles[r, c]
        blocked = (tile == WALL) | ((tile == DOOR) & ~self._door_open)
        for cell in (self.layout.switch, self.layout.shrine):
            blocked |= (r == cell[0]) & (c == cell[1])
        at_enemy = (r[:, None] == self._enemy_cells[None, :, 0]) & (c[:, None] == self._enemy_cells[None, :, 1])
        return blocked | (at_enemy & (self._hp > 0)).any(axis=1)

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy: move or act, collect, then take the enemies' blows."""
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        n = self.num_envs
        events: list[list[str]] = [[] for _ in range(n)]
        active = ~(self._terminated | self._truncated)
        reward = np.where(active, STEP_REWARD, 0.0)
        ended = np.zeros(n, dtype=bool)
        lay = self.layout
        aims = self._aims(actions, active)
        moving = active & (actions < 4)
        self._facing = np.where(moving, actions, self._facing)
        target = self._pos + _DELTAS[np.where(moving, actions, 0)]
        go = moving & ~self._blocked(target)
        self._pos = np.where(go[:, None], target, self._pos)
        # A jump: two cells the way the player faces, over anything but a wall or a closed door.
        jumping = active & (actions == JUMP)
        mid = self._pos + _DELTAS[self._facing]
        land = self._pos + 2 * _DELTAS[self._facing]
        lr, lc = np.clip(land[:, 0], 0, HEIGHT - 1), np.clip(land[:, 1], 0, WIDTH - 1)
        hop = jumping & ~self._blocked(mid) & ~self._blocked(land) & (lay.tiles[lr, lc] != LAVA)
        if lay.dead_jump is not None:
            hop &= ~((self._pos[:, 0] == lay.dead_jump[0]) & (self._pos[:, 1] == lay.dead_jump[1]))
        for i in np.flatnonzero(hop):
            over = lay.tiles[mid[i, 0], mid[i, 1]] == LAVA
            events[i].append("jumped:lava_1" if over else "jumped")
        self._pos = np.where(hop[:, None], land, self._pos)
        in_lava = active & (lay.tiles[self._pos[:, 0], self._pos[:, 1]] == LAVA)
        for i in np.flatnonzero(in_lava):
            events[i].append("player_died:lava_1")
        self._health[in_lava] = 0
        for i in np.flatnonzero(active & (actions == INTERACT)):
            self._interact(int(i), events[i], reward, ended)
        for i in np.flatnonzero(active & (actions == ATTACK)):
            self._attack(int(i), events[i], reward)
        self._collect(active, events, reward)
        self._take_blows(active & ~in_lava & ~ended, events)
        died = active & (self._health <= 0)
        reward[died] += DEATH_REWARD
        ended |= died
        self._steps += active
        self._terminated |= active & ended
        self._truncated |= active & ~ended & (self._steps >= self.game_spec.max_steps)
        info = np.empty(n, dtype=object)
        for i, happened in enumerate(events):
            info[i] = tuple(happened)
        return VecStep(obs=self._obs(), reward=reward, terminated=self._terminated.copy(),
                       truncated=self._truncated.copy(), features=self._features(),
                       info={"events": info, "aim": aims})

    def _aims(self, actions: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``info["aim"]``: each copy's action by name and, after a colon, the actor it is aimed
        at from where the player stands (``interact:switch_1``, ``attack:goblin_2``,
        ``jump:lava_1`` when a jump over the pit can land), before the step plays it.

        What the action should reach, not what it did: a validation compares the two.
        """
        lay = self.layout
        names = np.array(ACTION_NAMES, dtype=object)
        aims = np.where(active, names[actions], None)
        mid = self._pos + _DELTAS[self._facing]
        land = self._pos + 2 * _DELTAS[self._facing]
        lr, lc = np.clip(land[:, 0], 0, HEIGHT - 1), np.clip(land[:, 1], 0, WIDTH - 1)
        mr, mc = np.clip(mid[:, 0], 0, HEIGHT - 1), np.clip(mid[:, 1], 0, WIDTH - 1)
        over_lava = (lay.tiles[mr, mc] == LAVA) & (lay.tiles[lr, lc] != LAVA) & ~self._blocked(land)
        for i in np.flatnonzero(active & (actions >= INTERACT)).tolist():
            a, target = int(actions[i]), None
            if a == INTERACT:
                target = "switch_1" if self._adjacent(i, lay.switch) else (
                    "shrine_1" if self._adjacent(i, lay.shrine) else None)
            elif a == ATTACK:
                e = self._attacked(i)
                target = None if e is None else lay.enemies[e].name
            elif a == JUMP and over_lava[i]:
                target = "lava_1"
            if target is not None:
                aims[i] = f"{ACTION_NAMES[a]}:{target}"
        return aims

    def _adjacent(self, i: int, cell: tuple[int, int]) -> bool:
        return abs(int(self._pos[i, 0]) - cell[0]) + abs(int(self._pos[i, 1]) - cell[1]) == 1

    def _interact(self, i: int, events: list[str], reward: np.ndarray, ended: np.ndarray) -> None:
        lay = self.layout
        if self._adjacent(i, lay.switch):
            self._switch_on[i] = not self._switch_on[i]
            events.append(("switch_on:" if self._switch_on[i] else "switch_off:") + "switch_1")
            if lay.switch_wired and self._switch_on[i] and not self._door_open[i]:
                self._door_open[i] = True
                events.append("door_opened:door_1")
        elif self._adjacent(i, lay.shrine):
            events.append("shrine_activated:shrine_1")
            reward[i] += SHRINE_REWARD
            ended[i] = True

    def _attacked(self, i: int) -> int | None:
        """The enemy an attack of copy ``i`` hits: next to the player, the one faced first."""
        dist = np.abs(self._enemy_cells - self._pos[i]).sum(axis=1)
        near = np.flatnonzero((dist == 1) & (self._hp[i] > 0))
        if near.size == 0:
            return None
        faced = self._pos[i] + _DELTAS[self._facing[i]]
        in_front = near[(self._enemy_cells[near] == faced).all(axis=1)]
        return int(in_front[0] if in_front.size else near[0])

    def _attack(self, i: int, events: list[str], reward: np.ndarray) -> None:
        e = self._attacked(i)
        if e is None:
            return
        name = self.layout.enemies[e].name
        self._hp[i, e] -= PLAYER_ATTACK
        events.append(f"enemy_hit:{name}")
        if self._hp[i, e] <= 0:
            events.append(f"enemy_killed:{name}")
            reward[i] += KILL_REWARD
            if e != self._uncounted:
                self._kills[i] += 1

    def _collect(self, active: np.ndarray, events: list[list[str]], reward: np.ndarray) -> None:
        on = (self._pos[:, None, :] == self._coin_cells[None]).all(axis=2) & ~self._coin_taken & active[:, None]
        for i, k in zip(*np.nonzero(on)):
            self._coin_taken[i, k] = True
            self._coins[i] += 1
            reward[i] += COIN_REWARD
            events[i].append(f"item_collected:{self.layout.coins[k].name}")

    def _take_blows(self, exposed: np.ndarray, events: list[list[str]]) -> None:
        dist = np.abs(self._enemy_cells[None] - self._pos[:, None, :]).sum(axis=2)
        hits = (dist == 1) & (self._hp > 0) & exposed[:, None]
        self._health = np.maximum(self._health - (hits * self._enemy_atk[None]).sum(axis=1), 0)
        for i, e in zip(*np.nonzero(hits)):
            events[i].append(f"player_damaged:{self.layout.enemies[e].name}:{self._enemy_atk[e]}")
            if self._health[i] <= 0 and not any(ev.startswith("player_died") for ev in events[i]):
                events[i].append(f"player_died:{self.layout.enemies[e].name}")

    # -- what a plan agent and a tester need ------------------------------------------------

    def situation(self, features: np.ndarray, gone: frozenset[str] = frozenset()) -> Situation:
        """The navigation state of a feature row (``x, y, facing, ..., door_open``)."""
        f = np.asarray(features)
        return Situation(int(f[1]), int(f[0]), int(f[2]), bool(f[5]), gone)

    def route(self, features: np.ndarray, target: Target, *, action: str | None = None,
              tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> Route | None:
        """A shortest way from a feature row to a target (see :func:`games.dungeon.navigation.route`)."""
        code = None if action is None else ACTION_NAMES.index(action)
        return route(self.layout, self.situation(features, gone), target, action=code, tolerance=tolerance)

    def leap(self, features: np.ndarray, target: Target, *, action: str | None = None,
             tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> Route | None:
        """A way with jumps over the lava where no walk gets there: a plan's own step takes it
        ("flip the switch, then use the shrine" with the jump left out), a rule never does."""
        code = None if action is None else ACTION_NAMES.index(action)
        return route(self.layout, self.situation(features, gone), target, action=code, tolerance=tolerance,
                     jumps=True)

    def why_no_way(self, features: np.ndarray, target: Target, *, action: str | None = None,
                   tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> str | None:
        """What stands in the way where :meth:`leap` finds none: "the door is shut" when the
        open door would let the player through (a plan that never works the switch), else None."""
        code = None if action is None else ACTION_NAMES.index(action)
        state = self.situation(features, gone)
        if state.door_open:
            return None
        opened = Situation(state.row, state.col, state.facing, True, state.gone)
        found = route(self.layout, opened, target, action=code, tolerance=tolerance, jumps=True)
        return "the door is shut" if found is not None else None

    def navigate(self, features: np.ndarray, target: Target, *, action: str | None = None,
                 tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> int | None:
        """The next move towards ``target`` by BFS; None when already there or unreachable."""
        found = self.route(features, target, action=action, tolerance=tolerance, gone=gone)
        return found.actions[0] if found is not None and found.actions else None

    def nearest(self, features: np.ndarray, targets: Sequence[Target], within: int,
                gone: frozenset[str] = frozenset()) -> Route | None:
        """The shortest route to any of ``targets`` within ``within`` moves, or None."""
        return nearest(self.layout, self.situation(features, gone), targets, within)

    def straight(self, features: np.ndarray, location: tuple[int, int]) -> int:
        """A move along the longer axis towards ``location`` (x, y), no path finding."""
        f = np.asarray(features)
        return straight_move(location[0] - f[0], location[1] - f[1])

    def match(self, bug: Any) -> int | None:
        """Ground truth: the injected bug a report is, by kind and the actor, type or action
        its signature names; None for a false report."""
        for injected in self.injected_bugs:
            token = _TOKENS[injected.description]
            if bug.kind == injected.kind and token in str(bug.signature).split(":"):
                return injected.id
        return None

    def render_map(self) -> np.ndarray:
        """The level from above, ``[x, y]`` (the state features' order), 1 = wall or lava."""
        return np.isin(self.layout.tiles, (WALL, LAVA)).T.astype(np.uint8)

    def close(self) -> None:
        """Nothing to release."""


class Dungeon(VectorEnv):
    """The dungeon as a Gymnasium env: one copy of :class:`DungeonVector`.

    Args:
        level_seed: Seed of the layout.
        max_steps: Episode horizon.
        bugs: Injected bugs by name (all by default; ``[]`` for none).
    """

    def __init__(self, level_seed: int = 0, *, max_steps: int = 200, bugs: Sequence[str] = BUGS) -> None:
        game = DungeonVector(1, level_seed=level_seed, max_steps=max_steps, bugs=bugs)
        super().__init__(game, low=0.0, high=1.0)
        self.layout = game.layout
        self.actors = game.actors
        for name in ("action_names", "action_targets", "actor_names", "actor_types", "categories", "synonyms", "areas", "area_synonyms",
                     "removal_events", "route", "leap", "why_no_way", "navigate", "nearest", "straight", "situation"):
            setattr(self, name, getattr(game, name))
