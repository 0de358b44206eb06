"""A plan's own step takes the jump over the lava a tester left out ("flip the switch, then
use the shrine"), as a player would; a standing order never leaps after what it sees; and a
step that cannot get there says what is in the way."""

from __future__ import annotations

from evo.plans import parse_plan, run_plan
from games import GameFactory
from games.dungeon.layout import LAVA_COL


def dungeon(bugs: list[str] | None = None) -> GameFactory:
    return GameFactory(name="dungeon", kwargs=(("bugs", bugs or []), ("level_seed", 0)))


def test_a_step_past_the_lava_jumps_it_when_the_plan_leaves_the_jump_out() -> None:
    plan = parse_plan({"nodes": [{"target": "switch_1", "action": "interact"},
                                 {"target": "shrine", "action": "interact"}]})
    result = run_plan(plan, dungeon())
    assert result.passed, result.failure
    assert result.nodes_done == 2


def test_a_standing_order_does_not_leap_over_the_lava_after_an_enemy() -> None:
    rules = [{"name": "attack enemies", "when": [{"near": "enemy", "within": 30}], "action": "attack"}]
    plan = parse_plan({"nodes": [{"target": "switch_1", "action": "interact"}], "rules": rules, "max_steps": 120})
    result = run_plan(plan, dungeon())
    layout = dungeon().make_env().layout
    beyond = {a.name for a in layout.actors.values() if a.type in ("goblin", "skeleton", "ogre")
              and min(c for _, c in a.cells) > LAVA_COL}
    attacked = {text.split()[1] for _, text in result.lines if text.startswith("attack ")}
    assert beyond and attacked  # enemies past the pit, and the rule acts on this side
    assert not attacked & beyond, attacked & beyond


def test_a_step_behind_the_shut_door_fails_saying_the_door_is_shut() -> None:
    result = run_plan(parse_plan({"nodes": [{"target": "shrine", "action": "interact"}]}), dungeon())
    assert not result.passed
    assert result.failure == "node 1 (interact shrine): no way to shrine (the door is shut)"


def test_each_room_holds_what_the_games_reference_says_on_every_level_seed() -> None:
    from games.dungeon.layout import DOOR_COL
    said = {"A": {"switch_1", "goblin_1", "skeleton_1", "ogre_1", "coin_1", "coin_2", "coin_3"},
            "B": {"goblin_2", "skeleton_2", "ogre_2", "coin_4", "coin_5", "coin_6"},
            "C": {"goblin_3", "coin_7", "coin_8", "shrine_1"}}
    for seed in range(5):
        layout = GameFactory(name="dungeon", kwargs=(("bugs", []), ("level_seed", seed))).make_env().layout
        rooms: dict[str, set[str]] = {"A": set(), "B": set(), "C": set()}
        for actor in layout.actors.values():
            if actor.type not in ("door", "lava"):
                col = actor.cells[0][1]
                rooms["A" if col < DOOR_COL else "B" if col < LAVA_COL else "C"].add(actor.name)
        assert rooms == said, (seed, rooms)
