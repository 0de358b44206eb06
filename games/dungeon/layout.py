"""How a dungeon level is laid out: the article's example level grown into a benchmark.

The explicit-plan article's dungeon (AGT, Fig. 9): a locked door opened by a switch, a lava
pit to jump over and an end-of-level shrine. Here it is three rooms in a row inside a border
wall: room A (start, switch, enemies, coins), a wall with ``door_1``, room B (enemies,
coins), a full-height lava column ``lava_1``, and room C with ``shrine_1``. Every actor has
a name (``goblin_2``) and a type (``goblin``); names are fixed by the template, places by
``level_seed``, so two runs and every copy of the game play the same level.

The injected bugs (:data:`BUGS`) are chosen by name, so a build with some of them removed is
the same level with those fixed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from games.core.navigation import actor_type

# Tiles of the static grid.
FLOOR, WALL, DOOR, LAVA = range(4)

# Level template: 9 rows; room A is columns 1-9, the door wall column 10, room B columns
# 11-17, the lava column 18, room C columns 19-23, the east wall column 24.
HEIGHT, WIDTH = 9, 25
DOOR_COL, LAVA_COL = 10, 18
ROOM_A, ROOM_B, ROOM_C = (1, 9), (11, 17), (19, 23)

# Actions: four moves, then the gameplay actions of the article ("interact, attack, and
# jump"), then waiting, which a plan's node may ask for.
NORTH, SOUTH, EAST, WEST, INTERACT, ATTACK, JUMP, WAIT = range(8)
ACTION_NAMES = ("north", "south", "east", "west", "interact", "attack", "jump", "wait")
MOVES: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, 1), (0, -1))  # (row, col)

MAX_HEALTH = 20
PLAYER_ATTACK = 2
ENEMY_STATS: dict[str, tuple[int, int]] = {"goblin": (2, 1), "skeleton": (4, 1), "ogre": (6, 1)}
"""type -> (health, attack per step next to the player): every type costs the player about
the same per fight; the ogre takes longer to kill but hits no harder."""
STRONG_OGRE_ATTACK = 6
"""The balance bug's ogre attack: six times any other type's."""

# Which enemies and coins each room holds, by type, in name order.
ROOM_ENEMIES = {"A": ("goblin", "skeleton", "ogre"), "B": ("goblin", "skeleton", "ogre"), "C": ("goblin",)}
ROOM_COINS = {"A": 3, "B": 3, "C": 2}

BUGS = ("moved_switch", "dead_jump", "uncounted_kill", "strong_ogre")
"""The injected bugs, by name:

- ``moved_switch`` (logic): ``switch_1`` sits elsewhere in room A and no longer reaches the
  door; interacting toggles it but the door stays locked (the article's Video 1).
- ``dead_jump`` (logic): a jump from the pit's edge in line with the door does nothing.
- ``uncounted_kill`` (logic): killing ``goblin_1`` does not increment the kill counter.
- ``strong_ogre`` (balance): ogres hit :data:`STRONG_OGRE_ATTACK` instead of 1.
"""

ENEMY_TYPES = tuple(ENEMY_STATS)
ACTOR_TYPES = ("switch", "door", "lava", "shrine", *ENEMY_TYPES, "coin")
CATEGORIES = {"enemy": ENEMY_TYPES, "collectable": ("coin",)}
"""Words that name several actor types at once ("attack any enemies")."""
ACTION_TARGETS = {"attack": ENEMY_TYPES, "interact": ("switch", "shrine"), "jump": ("lava",)}
"""The actor types an action does something to (attacking hurts enemies, interacting works
switches and shrines, a jump crosses the lava): "hit the switch" is read in the sense that fits a
switch, "cross the door" as going through it."""
SYNONYMS = {
    "activate": "interact", "press": "interact", "use": "interact", "toggle": "interact",
    "pull": "interact", "open": "interact", "touch": "interact", "pray": "interact", "turn on": "interact",
    "hit": "attack", "fight": "attack", "kill": "attack", "strike": "attack", "slay": "attack",
    "take out": "attack", "take down": "attack", "take on": "attack", "swing at": "attack", "chase": "attack",
    "hunt": "attack", "dispatch": "attack", "stab": "attack",
    "exit": "door", "fire": "lava",
    "leap": "jump", "hop": "jump", "cross": "jump", "vault": "jump",
    "up": "north", "down": "south", "right": "east", "left": "west", "idle": "wait",
    "button": "switch", "lever": "switch", "gate": "door", "ledge": "lava", "pit": "lava",
    "chasm": "lava", "gap": "lava", "altar": "shrine", "statue": "shrine", "goal": "shrine",
    "monster": "enemy", "monsters": "enemy", "enemies": "enemy", "foe": "enemy", "mob": "enemy", "mobs": "enemy",
    "baddie": "enemy", "orc": "goblin", "orcs": "goblin", "trolls": "ogre",
    "skeletons": "skeleton", "goblins": "goblin", "ogres": "ogre", "troll": "ogre",
    "gold": "coin", "coins": "coin", "item": "collectable", "items": "collectable",
    "collectables": "collectable", "loot": "collectable", "treasure": "collectable",
    "pickup": "collectable", "pickups": "collectable",
}
"""Words a tester may write, mapped to the game's action, actor type or category names."""


def _enemy_names() -> tuple[str, ...]:
    counts: dict[str, int] = {}
    names = []
    for room in "ABC":
        for kind in ROOM_ENEMIES[room]:
            counts[kind] = counts.get(kind, 0) + 1
            names.append(f"{kind}_{counts[kind]}")
    return tuple(names)


ENEMY_NAMES = _enemy_names()
COIN_NAMES = tuple(f"coin_{i + 1}" for i in range(sum(ROOM_COINS.values())))
ACTOR_NAMES = ("switch_1", "door_1", "lava_1", "shrine_1", *ENEMY_NAMES, *COIN_NAMES)


def _areas() -> dict[str, tuple[str, ...]]:
    coins = iter(COIN_NAMES)
    enemies = iter(ENEMY_NAMES)
    out: dict[str, tuple[str, ...]] = {}
    for room in "ABC":
        held = [next(enemies) for _ in ROOM_ENEMIES[room]] + [next(coins) for _ in range(ROOM_COINS[room])]
        out[f"room {room}"] = tuple(({"A": ["switch_1"], "C": ["shrine_1"]}.get(room, [])) + sorted(held, key=ACTOR_NAMES.index))
    return out


AREAS = _areas()
"""Room -> the actors in it, rooms in the order the level is played: which room holds what is
fixed by the template ("the ogre in room B": ``ogre_2``)."""
AREA_SYNONYMS = {
    "first room": "room A", "starting room": "room A", "start room": "room A", "spawn room": "room A", "spawn": "room A",
    "second room": "room B", "middle room": "room B", "room past the door": "room B", "room behind the door": "room B",
    "past the door": "room B", "behind the door": "room B", "beyond the door": "room B",
    "third room": "room C", "last room": "room C", "final room": "room C", "shrine room": "room C",
    "room past the lava": "room C", "past the lava": "room C", "beyond the lava": "room C", "across the lava": "room C",
    "other side of the lava": "room C", "past the pit": "room C", "across the pit": "room C",
}
"""What testers call a room ("the first room", "the room behind the door", "past the lava")."""


@dataclass(frozen=True)
class Actor:
    """A named thing of the level.

    Attributes:
        name: Unique name (``ogre_2``).
        type: Its type (``ogre``).
        cells: (row, col) cells it occupies (the lava column has several).
        solid: True when the player cannot walk into it (enemies, switch, shrine, walls).
    """

    name: str
    type: str
    cells: tuple[tuple[int, int], ...]
    solid: bool


@dataclass(frozen=True, eq=False)
class DungeonLayout:
    """One generated level.

    Attributes:
        tiles: ``[HEIGHT, WIDTH]`` int8 static tiles (:data:`FLOOR`, :data:`WALL`, ...).
        start: (row, col) where every episode starts.
        door: (row, col) of ``door_1``.
        switch: (row, col) of ``switch_1`` (moved when ``moved_switch`` is injected).
        switch_wired: False when the switch no longer reaches the door.
        shrine: (row, col) of ``shrine_1``.
        enemies: Enemy actors in :data:`ENEMY_NAMES` order.
        coins: Coin actors in :data:`COIN_NAMES` order.
        dead_jump: The cell from which a jump does nothing, or None.
        bugs: The injected bugs' names.
    """

    tiles: np.ndarray
    start: tuple[int, int]
    door: tuple[int, int]
    switch: tuple[int, int]
    switch_wired: bool
    shrine: tuple[int, int]
    enemies: tuple[Actor, ...]
    coins: tuple[Actor, ...]
    dead_jump: tuple[int, int] | None
    bugs: tuple[str, ...]

    @property
    def actors(self) -> dict[str, Actor]:
        """Every actor by name."""
        lava = tuple((r, LAVA_COL) for r in range(1, HEIGHT - 1))
        fixed = (
            Actor("switch_1", "switch", (self.switch,), True),
            Actor("door_1", "door", (self.door,), False),
            Actor("lava_1", "lava", lava, False),
            Actor("shrine_1", "shrine", (self.shrine,), True),
        )
        return {a.name: a for a in (*fixed, *self.enemies, *self.coins)}


def _room_cells(cols: tuple[int, int]) -> list[tuple[int, int]]:
    return [(r, c) for r in range(1, HEIGHT - 1) for c in range(cols[0], cols[1] + 1)]


def _reachable(tiles: np.ndarray, solid: set[tuple[int, int]], start: tuple[int, int]) -> set[tuple[int, int]]:
    """Cells reachable on foot from ``start`` with the door open, lava and solids as walls."""
    seen = {start}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in MOVES:
            nxt = (r + dr, c + dc)
            if nxt not in seen and tiles[nxt] in (FLOOR, DOOR) and nxt not in solid:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _sides_reachable(cells: list[tuple[int, int]], reach: set[tuple[int, int]]) -> bool:
    """Every solid cell has a reachable neighbour (so it can be interacted with)."""
    return all(any((r + dr, c + dc) in reach for dr, dc in MOVES) for r, c in cells)


def generate_layout(level_seed: int = 0, bugs: tuple[str, ...] = BUGS) -> DungeonLayout:
    """The level of ``level_seed`` with the named bugs injected.

    Places are drawn until every actor can be reached: each solid actor has a free side
    reachable from the start with the door open (room C from the landing cell of the jump),
    no enemy or coin lies within three moves of the start (an episode's first moves are
    clean), and nothing stands in the door's row of room B (the straight way from the door
    to the pit's edge stays open, and the edge in that row is where ``dead_jump`` sits).

    Raises:
        ValueError: an unknown bug name.
    """
    unknown = sorted(set(bugs) - set(BUGS))
    if unknown:
        raise ValueError(f"unknown dungeon bugs {unknown}; known: {', '.join(BUGS)}")
    rng = np.random.default_rng(level_seed)
    tiles = np.full((HEIGHT, WIDTH), FLOOR, dtype=np.int8)
    tiles[0, :] = tiles[-1, :] = WALL
    tiles[:, 0] = tiles[:, -1] = tiles[:, DOOR_COL] = WALL
    tiles[1:-1, LAVA_COL] = LAVA
    for _ in range(1000):
        door = (int(rng.integers(2, HEIGHT - 2)), DOOR_COL)
        start = (int(rng.integers(1, HEIGHT - 1)), 1)
        switch = (1, int(rng.integers(3, ROOM_A[1] + 1)))
        moved = (HEIGHT - 2, int(rng.integers(3, ROOM_A[1] + 1)))
        shrine = (int(rng.integers(1, HEIGHT - 1)), ROOM_C[1])
        taken = {start, switch, moved, shrine, (door[0], LAVA_COL - 1), (door[0], LAVA_COL + 1)}
        free = {room: [c for c in _room_cells(cols) if c not in taken]
                for room, cols in zip("ABC", (ROOM_A, ROOM_B, ROOM_C))}
        enemy_cells: list[tuple[int, int]] = []
        coin_cells: list[tuple[int, int]] = []
        for room in "ABC":
            cells = free[room]
            if room == "B":
                cells = [c for c in cells if c[0] != door[0]]
            if room == "A":
                cells = [c for c in cells if abs(c[0] - start[0]) + abs(c[1] - start[1]) > 3]
            pick = rng.choice(len(cells), size=len(ROOM_ENEMIES[room]) + ROOM_COINS[room], replace=False)
            chosen = [cells[int(i)] for i in pick]
            enemy_cells += chosen[: len(ROOM_ENEMIES[room])]
            coin_cells += chosen[len(ROOM_ENEMIES[room]):]
        placed_switch = moved if "moved_switch" in bugs else switch
        solid = {placed_switch, shrine, *enemy_cells}
        opened = tiles.copy()
        opened[door] = DOOR
        reach = _reachable(opened, solid, start) | _reachable(opened, solid, (door[0], LAVA_COL + 1))
        if {(door[0], DOOR_COL), (door[0], LAVA_COL - 1)} - reach or set(coin_cells) - reach:
            continue
        if _sides_reachable([placed_switch, shrine, *enemy_cells], reach):
            break
    else:  # pragma: no cover - the template always admits a placement
        raise RuntimeError(f"no dungeon layout found for level_seed={level_seed}")
    tiles[door] = DOOR
    enemies = tuple(Actor(n, actor_type(n), (c,), True) for n, c in zip(ENEMY_NAMES, enemy_cells))
    coins = tuple(Actor(n, "coin", (c,), False) for n, c in zip(COIN_NAMES, coin_cells))
    return DungeonLayout(
        tiles=tiles, start=start, door=door, switch=placed_switch,
        switch_wired="moved_switch" not in bugs, shrine=shrine, enemies=enemies, coins=coins,
        dead_jump=(door[0], LAVA_COL - 1) if "dead_jump" in bugs else None, bugs=tuple(bugs),
    )
