"""A thing named alone where the game has one deed for it, "after" that orders two steps one way or
the other, a goal that heads its steps, a purpose said first, and a step said twice, as wave 25
showed them (issue 55): read as meant, or refused with the closest reading. Every text here is in
words of our own; the families came from ``dev/*_dev53.yaml`` and ``*_dev54.yaml``, which
``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a thing named alone: the one deed the game does to it (a visit where it has none, or several)
    (DUNGEON, "Route: lever, pit, altar.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Coin 2 first, then the lever, then through the gate.", ("go coin_2", "interact switch", "go door")),
    (DUNGEON, "Quick one: lever. Then wait for the gate to open and walk through.", ("interact switch", "go door if door_open")),
    (DUNGEON, "lever, then yank it", ("interact switch",)),
    (DUNGEON, "Troll first, then orc. Slay both.", ("attack ogre", "attack goblin")),
    (PARK, "barrel 2, then lamp 4", ("go barrel_2", "go lamp_4")),
    (DUNGEON, "walk to the lever give it a yank then head through the gate", ("interact switch", "go door")),
    (PARK, "walk to stump 2 turn left then walk to lamp 1 turn right", ("turn_left stump_2", "turn_right lamp_1")),
    (PARK, "First lamp 4, then barrel 1.", ("go lamp_4", "go barrel_1")),
    # "after": which step is done first
    (DUNGEON, "Hop the pit after you yank the lever, then pray at the altar.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "walk through the gate after you yank the lever and then slay the troll",
     ("interact switch", "go door", "attack ogre")),
    (DUNGEON, "Yank the lever and pray at the altar after hopping the pit.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Slay goblin 1 and ogre 1, after yanking the lever.", ("interact switch", "attack goblin_1", "attack ogre_1")),
    (DUNGEON, "Please you yank the lever, after you hop the pit and then you pray at altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "you slay the troll and after you pick the coin 2", ("attack ogre", "go coin_2")),
    (DUNGEON, "Hop the pit, after you yank the lever.", ("interact switch", "jump lava")),
    (PARK, "Circle lamp 1, after you've looked down at stump 2.", ("look_down stump_2", "circle lamp_1")),
    # a goal over its steps, a purpose first, where a thing is and a step on it
    (DUNGEON, "Reach the altar: yank the lever, hop the pit, then walk up to the altar.", ("interact switch", "jump lava", "go shrine")),
    (DUNGEON, "As soon as the gate is open, hop the pit. To open the gate, yank the lever.", ("interact switch", "jump lava if door_open")),
    (DUNGEON, "Yank the lever to open the gate. Then walk through it.", ("interact switch", "go door")),
    (DUNGEON, "Once the gate is open, walk through it. The lever sits by the entrance; yank it first.",
     ("interact switch", "go door if door_open")),
    (DUNGEON, "Bug #12: the altar does nothing?? Yank the lever, then pray at the altar.", ("interact switch", "interact shrine")),
    # a wait said twice
    (DUNGEON, "The lever: yank it. The gate: walk through it once it's open.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Yank the lever, walk back to the gate and go through it when it is open.", ("interact switch", "go door if door_open")),
    # waves 26 and 27: any one of a kind in a row of steps, a run-on of places and looks, conditions said other ways
    (DUNGEON, "Slay the troll, then the skeleton, then any orc.", ("attack ogre", "attack skeleton", "attack goblin")),
    (PARK, "Just walk to any pillar.", ("go pillar",)),
    (PARK, "go stump 1 look down go stump 2 look down", ("look_down stump_1", "look_down stump_2")),
    (DUNGEON, "Once the gate opens, walk through it and hop the pit. To open it, yank the lever.",
     ("interact switch", "go door if door_open", "jump lava")),
    (DUNGEON, "Yank the lever, hop the pit, and then, provided the lever is still on, pray at the altar.",
     ("interact switch", "jump lava", "interact shrine if switch_on")),
    (DUNGEON, "Pray at the altar. You'll have to yank the lever and hop the pit to get there.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Case 3 Pit jump\nSetup: yank the lever so that the gate opens.\nSteps: walk through the gate, then hop the pit.",
     ("interact switch", "go door", "jump lava")),
    (DUNGEON, "Walk up to the lever but leave it alone for now. Slay the troll first, then come back and yank it.",
     ("go switch", "attack ogre", "interact switch")),
    (DUNGEON, "so the thing we want to check is the coin counter. grab coin 1, then coin 3.", ("go coin_1", "go coin_3")),
    (DUNGEON, "The gate sensor moved in build 1.4 and doesn't open the gate any more. Yank the lever, and once the gate is open, walk through.",
     ("interact switch", "go door if door_open")),
    (DUNGEON, "The player he must yank the lever, and when the gate is opened he go through it.", ("interact switch", "go door if door_open")),
    (PARK, "Please walk until the barrel number 2 and make jump there.", ("jump barrel_2",)),
    (PARK, "could you walk the bot over to pillar 2 and have it look down?", ("look_down pillar_2",)),
    (DUNGEON, "Hop the pit after opening the gate with the lever.", ("interact switch", "jump lava")),
    (DUNGEON, "Slay the troll, then open the gate with the lever and walk through.", ("attack ogre", "interact switch", "go door")),
    (DUNGEON, "Repro: walk up to orc 1 and slay it. Look at the kill counter, it stays at 0.", ("attack goblin_1",)),
    (DUNGEON, "Any skeleton that comes close, slay it. Same for orcs.", ("rule attack skeleton", "rule attack goblin", "budget 150")),
    (DUNGEON, "Slay orc 1. Same for orc 2.", ("attack goblin_1", "attack goblin_2")),
    # numbers said after the things
    (PARK, "Circle each of the three barrels, one after another: 1, 2, 3.", ("circle barrel_1", "circle barrel_2", "circle barrel_3")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_a_turn_is_no_budget_of_turns(nlp) -> None:  # type: ignore[no-untyped-def]
    """"stump 3 turn right" is a step at stump 3; "Play 3 turns" is a budget."""
    assert plan_words(plan_from_text("go to stump 3 turn right", PARK, nlp=nlp)[0]) == ("turn_right stump_3",)
    assert plan_words(plan_from_text("Play 40 turns. Circle barrels.", PARK, nlp=nlp)[0]) == ("rule circle barrel", "budget 40")


@pytest.mark.parametrize("game, text", [
    (DUNGEON, "Slay the troll and after you pick coin 2, pray at the altar."),  # "after" in the middle: which step it orders is unsaid
])
def test_an_order_the_words_leave_open_is_refused(game: GameFactory, text: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError):  # a clause in doubt
        plan_from_text(text, game, nlp=nlp)
