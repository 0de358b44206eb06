"""Slips of the keyboard, a route listed by its things, a standing order's thing said first, a
step said in between the first and the last, and steps taken back: the largest families the fresh waves 54 to 57 were refused on (issue 55).
Every text here is in words of our own; the families came from ``dev/*_dev111.yaml`` to
``*_dev118.yaml``, which ``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.plans.items import itemized
from evo.plans.spelling import respelled
from evo.plans.taken_back import taken_back
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK

WORDS = ["switch", "lever", "door", "lava", "shrine", "altar", "goblin", "ogre", "skeleton", "coin", "pull", "jump", "attack",
         "interact", "collect", "circle", "barrel", "pillar", "lamp", "stump"]


@pytest.mark.parametrize("game, text, plan", [
    # slips: letters swapped, dropped, doubled or changed, in the game's words and the reader's
    (DUNGEON, "yank the levr, then jmup teh lavva", ("interact switch", "jump lava")),
    (DUNGEON, "go to the lever and pul it", ("interact switch",)),  # "pul" is a coin of Afghanistan, WordNet says
    (DUNGEON, "atack orc 2 thn the ogr 1", ("attack goblin_2", "attack ogre_1")),
    (PARK, "cirlce the barel 2, then trun left", ("circle barrel_2", "turn_left barrel_2")),
    (PARK, "walk to pilar 4 and look dwon", ("look_down pillar_4",)),
    (PARK, "circle the forth lamp", ("circle lamp_4",)),
    # a route by its things: each its own deed, or the deed beside it, or a visit
    (DUNGEON, "lever\npit\naltar", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "coin 3 - coin 1 - altar (pray at it)", ("go coin_3", "go coin_1", "interact shrine")),
    (DUNGEON, "Orc 3 - slay it", ("attack goblin_3",)),
    (DUNGEON, "#3 coin, then #2 orc (attack)", ("go coin_3", "attack goblin_2")),
    (DUNGEON, "#1 coin 4 #2 gate #3 altar", ("go coin_4", "go door", "interact shrine")),  # "#" counting the list
    (DUNGEON, "Order: (a) lever on (b) coin #6 (c) pit jump (d) gate", ("interact switch", "go coin_6", "jump lava", "go door")),
    (DUNGEON, "Yank the lever. Gate (if open). Altar.", ("interact switch", "go door if door_open", "interact shrine")),
    (DUNGEON, "my route: lever, jump, altar", ("interact switch", "jump lava", "interact shrine")),  # only the lava is jumped
    (PARK, "stump 1 -> turn right -> lamp 2 -> look up", ("turn_right stump_1", "look_up lamp_2")),
    (PARK, "3rd pillar: circle. 1st lamp: look down.", ("circle pillar_3", "look_down lamp_1")),
    (DUNGEON, "[ ] lever\n[ ] gate (only if open)\n[ ] altar", ("interact switch", "go door if door_open", "interact shrine")),
    (DUNGEON, "Step 1 - coin 2; step 2 - coin 7; step 3 - the altar", ("go coin_2", "go coin_7", "interact shrine")),
    (DUNGEON, "orc 3; orc 1 - slay both in that order", ("attack goblin_3", "attack goblin_1")),
    (DUNGEON, "Lever first. Then the 2nd coin. Then jump the pit. Finally the altar.", ("interact switch", "go coin_2", "jump lava", "interact shrine")),
    (DUNGEON, "Closest orc: slay. Closest coin: grab.", ("attack goblin", "go coin")),
    (PARK, "1. stump 1\n2. stump 4\n(just walk to each one)", ("go stump_1", "go stump_4")),
    (PARK, "race: lamp2, pillar3, barrel1", ("go lamp_2", "go pillar_3", "go barrel_1")),
    # a number or ordinal with its thing left out: one more of the kind just named
    (DUNGEON, "Loot the 3rd coin and then the 7th.", ("go coin_3", "go coin_7")),
    (PARK, "look down at stump one. then two. then four.", ("look_down stump_1", "look_down stump_2", "look_down stump_4")),
    # a standing order's thing said first, then "it"
    (DUNGEON, "Each orc you run into: slay it. 90 steps.", ("rule attack goblin", "budget 90")),
    (PARK, "Any lamp that comes near, look up at it.", ("rule look_up lamp", "budget 150")),
    # a first and a last said, and a step with no rank, or "in between": that one in between
    (DUNGEON, "Pray at the altar last. First slay orc 2. Grab coin 4.", ("attack goblin_2", "go coin_4", "interact shrine")),
    (DUNGEON, "Finally, walk through the gate. Start by slaying skeleton 1. In between, loot coin 3.",
     ("attack skeleton_1", "go coin_3", "go door")),
    (PARK, "Lastly circle pillar 1. Start at lamp 3. In between, look down at stump 2.", ("go lamp_3", "look_down stump_2", "circle pillar_1")),
    # a deed done where the player stood is no verb for the thing named after it
    (PARK, "walk to lamp 3 and look down. then pillar 1.", ("look_down lamp_3", "go pillar_1")),
    (PARK, "Stump 2. Then barrel 3, turn right. Then pillar 4.", ("go stump_2", "turn_right barrel_3", "go pillar_4")),
    # Gherkin: a "Given" done by the player, a "When" that is a state, a "Then" that is the player's deed
    (DUNGEON, "Given I yanked the lever\nWhen the gate is open\nThen I walk through the gate", ("interact switch", "go door if door_open")),
    (PARK, "Given the small park\nWhen I circle pillar 3\nThen I look down at stump 1", ("circle pillar_3", "look_down stump_1")),
    (PARK, "Given the small park\nWhen I circle pillar 3\nThen I should see its texture", ("circle pillar_3",)),
    # a condition in brackets, or as "unless", is kept: read, or refused, never dropped
    (DUNGEON, "cross the pit (only once the lever has been flipped on)", ("jump lava if switch_on",)),
    (DUNGEON, "Walk through the gate, unless it is still shut.", ("go door if door_open",)),
    (DUNGEON, "Yank the lever. After the lever, cross the pit only if the switch is on.", ("interact switch", "jump lava if switch_on")),
    # a texter's hello, "&", whom the step is sent through
    (DUNGEON, "yo slay skeleton 1 & skeleton 2", ("attack skeleton_1", "attack skeleton_2")),
    (PARK, "Please send the bot to lamp 4 and have it look down.", ("look_down lamp_4",)),
    # steps taken back and said again
    (DUNGEON, "Slay ogre 2. Actually, make that ogre 1.", ("attack ogre_1",)),
    (DUNGEON, "Forget the coins, just slay orc 1.", ("attack goblin_1",)),
    (PARK, "walk to pillar 3 and look down, sorry, look up", ("look_up pillar_3",)),
    (DUNGEON, "Slay the troll. Wait no, yank the lever first, then slay the troll.", ("interact switch", "attack ogre")),
    (DUNGEON, "Cross the pit. Actually, pray at the altar instead.", ("interact shrine",)),
    (DUNGEON, "grab coin 2, then coin 5, actually skip coin 5 and walk to the gate", ("go coin_2", "go door")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_the_plan_names_what_it_read_otherwise(nlp) -> None:  # type: ignore[no-untyped-def]
    plan = plan_from_text("jmup the lava. Cross the pit. Actually, pray at the altar instead.", DUNGEON, nlp=nlp)[0]
    assert plan.respelled == [("jmup", "jump")]
    assert plan.taken_back == ["Cross the pit."]


def test_a_slip_is_read_only_where_one_word_is_meant() -> None:
    assert respelled("swtich and shirne", WORDS)[0] == "switch and shrine"
    assert respelled("Hi team, thx, Gabe", WORDS + ["gate"])[0] == "Hi team, thx, Gabe"  # a name is no gate
    assert respelled("the gob and the skel", WORDS)[0] == "the gob and the skel"  # a gamer's clipped names
    assert respelled("pill and pole and lame", WORDS)[0] == "pill and pole and lame"  # English words, each its own
    assert respelled("ofc tho", WORDS + ["orc"])[0] == "ofc tho"  # chat


def test_a_list_is_read_only_where_every_piece_is_a_thing() -> None:
    things = {"lever": "switch", "lava": "lava", "shrine": "shrine", "coin": "coin", "goblin": "goblin"}
    verbs = {"pull": "interact", "jump": "jump", "attack": "attack", "visit": "move"}
    deeds = {"lever": "interact", "lava": "jump", "shrine": "interact", "goblin": "attack"}
    assert itemized("lever, lava, shrine", things, verbs, deeds) == "interact the lever, then jump the lava, then interact the shrine."
    assert itemized("Visit coin 1, coin 2.", things, verbs, deeds) == "Visit coin 1, coin 2."  # a verb of its own: the reader's
    assert itemized("Lever. The lava is hot, shrine.", things, verbs, deeds) == "Lever. The lava is hot, shrine."


def test_a_correction_that_says_no_thing_again_is_still_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    assert taken_back("Pull the lever. Sorry for the noise. Jump the lava.", ["lever", "lava"])[1] == []
    with pytest.raises(ConfigError, match="corrects itself"):
        plan_from_text("Slay the troll and cross the pit, actually no.", DUNGEON, nlp=nlp)
