"""The dungeon: a seeded level with named actors, what each action does and the events it
names, the navigator, and the injected bugs that only a validation can see."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from games import GameFactory
from games.dungeon.dungeon import DungeonVector
from games.dungeon.layout import (
    ACTION_NAMES, ACTOR_NAMES, BUGS, CATEGORIES, ENEMY_STATS, LAVA_COL, MAX_HEALTH, STRONG_OGRE_ATTACK, SYNONYMS,
    generate_layout,
)

NAMES = {name: i for i, name in enumerate(ACTION_NAMES)}
X, Y, FACING, HEALTH, SWITCH_ON, DOOR_OPEN, COINS, KILLS = range(8)


class Player:
    """One copy of the dungeon played through its navigator, keeping every event."""

    def __init__(self, bugs: tuple[str, ...] = (), level_seed: int = 0) -> None:
        self.game = DungeonVector(1, level_seed=level_seed, bugs=bugs)
        self.events: list[str] = []
        _, feats = self.game.reset([0])
        self.f = feats[0]
        self.gone: set[str] = set()
        self.reward = 0.0
        self.done = False

    def do(self, action: str | int) -> tuple[str, ...]:
        out = self.game.step(np.array([NAMES.get(action, action) if isinstance(action, str) else action]))
        self.f = out.features[0]
        self.reward += float(out.reward[0])
        self.done = bool(out.terminated[0] or out.truncated[0])
        happened = out.info["events"][0]
        self.events.extend(happened)
        for e in happened:
            kind, _, actor = e.partition(":")
            if kind in self.game.removal_events:
                self.gone.add(actor)
        return happened

    def go(self, target: Any, action: str | None = None) -> int:
        """Walk to ``target`` by the navigator; the number of moves it took."""
        moves = 0
        while (a := self.game.navigate(self.f, target, action=action, gone=frozenset(self.gone))) is not None:
            self.do(a)
            moves += 1
            assert moves < 100 and not self.done
        return moves


def test_the_level_is_seeded_and_its_actors_are_named_with_types() -> None:
    a, b, c = generate_layout(0), generate_layout(0), generate_layout(1)
    np.testing.assert_array_equal(a.tiles, b.tiles)
    assert a.actors.keys() == set(ACTOR_NAMES)
    assert {n: x.cells for n, x in a.actors.items()} == {n: x.cells for n, x in b.actors.items()}
    assert {n: x.cells for n, x in a.actors.items()} != {n: x.cells for n, x in c.actors.items()}
    assert a.actors["ogre_2"].type == "ogre" and a.actors["coin_3"].type == "coin"
    assert {x.type for x in a.actors.values()} == {"switch", "door", "lava", "shrine", "goblin", "skeleton", "ogre", "coin"}
    game = DungeonVector(1)
    assert game.action_names == ACTION_NAMES and game.game_spec.n_actions == 8
    assert game.game_spec.feature_names[:2] == ("x", "y")
    vocabulary = set(ACTION_NAMES) | set(game.actor_types) | set(CATEGORIES)
    assert set(SYNONYMS.values()) <= vocabulary


def test_the_article_level_switch_door_pit_and_shrine() -> None:
    p = Player()
    assert p.game.navigate(p.f, "lava", action="jump") is None  # the door is locked
    p.go("switch_1")
    assert p.do("interact")[:2] == ("switch_on:switch_1", "door_opened:door_1")
    assert p.f[SWITCH_ON] == 1 and p.f[DOOR_OPEN] == 1
    p.go("lava", action="jump")
    x = p.f[X]
    assert p.f[FACING] == NAMES["east"] and p.f[X] == LAVA_COL - 1
    assert p.do("jump")[:1] == ("jumped:lava_1",)
    assert p.f[X] == x + 2
    p.go("shrine")
    assert p.do("interact")[:1] == ("shrine_activated:shrine_1",)
    assert p.done and p.reward > 5


def test_walking_into_lava_kills_and_enemies_hit_every_step_next_to_the_player() -> None:
    p = Player()
    p.go("switch_1")
    p.do("interact")
    p.go("lava", action="jump")
    assert p.do("east") == ("player_died:lava_1",)
    assert p.done and p.f[HEALTH] == 0
    q = Player()
    q.go("ogre_1")
    hits = [e for e in q.events if e.startswith("player_damaged:ogre_1")]
    assert hits == ["player_damaged:ogre_1:1"]  # the move that arrived took one blow
    damage = sum(int(e.rsplit(":", 1)[1]) for e in q.events if e.startswith("player_damaged:"))
    assert q.f[HEALTH] == MAX_HEALTH - damage  # passing other enemies costs blows too
    assert "player_damaged:ogre_1:1" in q.do("wait")


def test_attacks_kill_and_coins_are_collected_with_their_events() -> None:
    p = Player()
    p.go("skeleton_1", action="attack")
    blows = ENEMY_STATS["skeleton"][0] // 2
    for k in range(blows):
        happened = p.do("attack")
        assert "enemy_hit:skeleton_1" in happened
    assert "enemy_killed:skeleton_1" in happened and p.f[KILLS] == 1
    assert p.game.route(p.f, "skeleton_1", gone=frozenset(p.gone)) is None  # gone
    p.go("coin")  # the nearest coin left, again and again: every coin on this side of the door
    collected = [e for e in p.events if e.startswith("item_collected:coin_")]
    assert collected and p.f[COINS] == len(collected) == len(set(collected))  # each coin once


def test_the_navigator_finds_shortest_ways_and_says_when_there_is_none() -> None:
    game = DungeonVector(1)
    _, feats = game.reset([0])
    lay = game.layout
    route = game.route(feats[0], (3, lay.start[0]))
    assert route is not None and len(route.actions) == 2 and route.actor is None
    assert game.route(feats[0], "shrine") is None  # behind the door and the pit
    assert game.nearest(feats[0], ["enemy"], within=2) is None
    near = game.nearest(feats[0], ["enemy", "collectable"], within=30)
    assert near is not None and near.actor in ACTOR_NAMES


def test_the_injected_bugs_only_change_what_an_action_does() -> None:
    moved = Player(bugs=("moved_switch",))
    assert moved.game.layout.switch != generate_layout(0, ()).switch
    moved.go("switch_1")
    assert [e for e in moved.do("interact") if "switch" in e or "door" in e] == ["switch_on:switch_1"]  # the door stays locked
    assert moved.f[DOOR_OPEN] == 0

    dead = Player(bugs=("dead_jump",))
    dead.go("switch_1")
    dead.do("interact")
    dead.go("lava", action="jump")
    assert (dead.f[Y], dead.f[X]) == dead.game.layout.dead_jump
    before = dead.f.copy()
    assert not any(e.startswith("jumped") for e in dead.do("jump"))
    np.testing.assert_array_equal(dead.f[:3], before[:3])

    uncounted = Player(bugs=("uncounted_kill",))
    uncounted.go("goblin_1", action="attack")
    assert "enemy_killed:goblin_1" in uncounted.do("attack")
    assert uncounted.f[KILLS] == 0

    strong = Player(bugs=("strong_ogre",))
    strong.go("ogre_1")
    assert f"player_damaged:ogre_1:{STRONG_OGRE_ATTACK}" in strong.events


def test_ground_truth_matches_reports_by_kind_and_name() -> None:
    from oracles.base import Bug

    game = DungeonVector(1)
    assert [b.description for b in game.injected_bugs] == list(BUGS)
    assert [b.kind for b in game.injected_bugs] == ["logic", "logic", "logic", "balance"]

    def bug(kind: str, signature: str) -> Bug:
        return Bug(kind, "x", signature, "", 0, (0.0,) * 8, (0.0,) * 8, 0, 0, (0,))

    assert game.match(bug("balance", "balance:ogre")) == 3
    assert game.match(bug("balance", "balance:goblin")) is None
    assert game.match(bug("logic", "validation:interact:switch_1")) == 0
    assert DungeonVector(1, bugs=[]).injected_bugs == []
    with pytest.raises(ValueError, match="unknown dungeon bugs"):
        DungeonVector(1, bugs=["nope"])


def test_the_vector_form_steps_many_copies_and_the_registry_finds_it() -> None:
    game = GameFactory(name="dungeon").make_vector(64)
    assert isinstance(game, DungeonVector)
    game.reset(list(range(64)))
    rng = np.random.default_rng(0)
    for _ in range(50):
        out = game.step(rng.integers(0, 8, 64))
    assert out.info["events"].dtype == object and out.info["events"].shape == (64,)
    assert all(isinstance(e, tuple) for e in out.info["events"])
    assert out.obs.shape == (64, game.game_spec.obs_shape[0]) and out.obs.dtype == np.float32
    assert 0.0 <= out.obs.min() and out.obs.max() <= 1.0
