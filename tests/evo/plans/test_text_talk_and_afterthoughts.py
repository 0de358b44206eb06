"""Talk around a test that names nothing of the game, a step added as an afterthought to all that
was said, and the rest of the families waves 28 and 29 showed (issue 55): read as meant, or refused
with the closest reading where dropping the talk would lose a step. Every text here is in words
of our own; the families came from ``dev/*_dev59.yaml`` to ``*_dev62.yaml``, which
``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # talk that names nothing of the game: no step
    (DUNGEON, "Honestly, we rewrote half the physics last week. Yank the lever and hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Could you give it a quick try for me? Slay the troll.", ("attack ogre",)),
    (DUNGEON, "Nothing special. Pray at the altar.\nCheers", ("interact shrine",)),
    (PARK, "We are chasing a flicker in release 2.0.1. Walk to lamp 3 and look up.", ("look_up lamp_3",)),
    (DUNGEON, "Load the level, walk to the lever and yank it.", ("interact switch",)),
    (DUNGEON, "I was playing this morning and I think the altar is off by a tile. Can you go and pray at it?", ("interact shrine",)),
    (DUNGEON, "Yank the lever. If the gate stays shut, that's the defect.", ("interact switch",)),
    (DUNGEON, "Slay orc 2. If the counter goes up, the fix works.", ("attack goblin_2",)),
    (DUNGEON, "Yank the lever and walk through the gate. The player should not lose any health on the way.", ("interact switch", "go door")),
    # a step said after all the others, to be done before them
    (DUNGEON, "Pray at the altar once you have hopped the pit. The lever needs to be yanked before all of that.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Walk through the gate when it is open, then slay the troll. Oh, and yank the lever first, naturally.",
     ("interact switch", "go door if door_open", "attack ogre")),
    (DUNGEON, "Grab coin 3 before you hop the pit, and the lever must be yanked before anything else.",
     ("interact switch", "go coin_3", "jump lava")),
    (DUNGEON, "If the lever is on, walk to the gate; yank it first though.", ("interact switch", "go door if switch_on")),
    (DUNGEON, "Slay orc 1 before you hop the pit, and before slaying it, yank the lever.", ("interact switch", "attack goblin_1", "jump lava")),
    (DUNGEON, "Yank the lever, then walk to the altar and pray at it, hopping the pit on the way.",
     ("interact switch", "jump lava", "interact shrine")),
    # counts, the first one met, looks at a part of a thing, pronouns of a state
    (DUNGEON, "Pocket two coins.", ("go coin", "go coin")),
    (DUNGEON, "Grab 3 coins, then pray at the altar.", ("go coin", "go coin", "go coin", "interact shrine")),
    (DUNGEON, "Slay the first orc you run into.", ("attack goblin",)),
    (PARK, "Walk to pillar 4 and look at the top of it.", ("look_up pillar_4",)),
    (PARK, "Go to barrel 2 and look at the foot of it.", ("look_down barrel_2",)),
    (PARK, "walk to stump 1 and then lamp 2, in that order, and jump at the last one", ("go stump_1", "jump lamp_2")),
    (DUNGEON, "Yank the lever. The gate beside it should open; once it is open, walk through it.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Yank the lever. The gate should open; when it does, walk through.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Once gate is opening you walk in it, then you pray at altar for finish.", ("go door if door_open", "interact shrine")),
    (DUNGEON, "Yank the lever, carry on and hop the pit.", ("interact switch", "jump lava")),
    # waves 30 and 31
    (DUNGEON, "Yank the lever. Before you hop the pit, slay the troll. Then hop.", ("interact switch", "attack ogre", "jump lava")),
    (DUNGEON, "Fights to check:\n- slay orc 1\n- then any skeleton\n- then troll 1", ("attack goblin_1", "attack skeleton", "attack ogre_1")),
    (DUNGEON, "Take out orc 1, then walk to the troll and take it out as well.", ("attack goblin_1", "attack ogre")),
    (DUNGEON, "Walk up to the altar but leave it be; hop the pit first, and the lever must be yanked before everything.",
     ("interact switch", "jump lava", "go shrine")),
    (DUNGEON, "Pray at the altar at the end. Before that, hop the pit, and before the jump, slay the troll.",
     ("attack ogre", "jump lava", "interact shrine")),
    (DUNGEON, "Yank the lever. The gate beside it should open; walk through it when it does.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Do the usual route (lever, pit, altar) but slay every skeleton you come across.",
     ("interact switch", "jump lava", "interact shrine", "rule attack skeleton")),
    (DUNGEON, "Whenever an orc comes near, slay it. Keep doing that for 70 steps.", ("rule attack goblin", "budget 70")),
    (DUNGEON, "Yank the lever, wait for the gate to open and walk through, then hop the pit.", ("interact switch", "go door if door_open", "jump lava")),
    (DUNGEON, "Slay orc 1 and grab the coin it was standing on, coin 3.", ("attack goblin_1", "go coin_3")),
    (PARK, "Circle barrel 2 then pillar 1, then look down.", ("circle barrel_2", "circle pillar_1", "look_down pillar_1")),
    (PARK, "Please to walk all around of the barrel 3.", ("circle barrel_3",)),
    (DUNGEON, "Open the gate with the lever and hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Slay any skeleton that comes close while you yank the lever, hop the pit and pray at the altar.",
     ("interact switch", "jump lava", "interact shrine", "rule attack skeleton")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("game, text", [
    (DUNGEON, "Hug the wall. Yank the lever."),  # an order in words the game does not know: refused, never dropped
    (DUNGEON, "Yank the lever, then is necessary to slay the troll."),  # a step the clause lost to its purpose
    (DUNGEON, "Grab a coin, then another."),  # "another" asks for a step: kept, and refused as before
])
def test_talk_that_may_hold_a_step_is_refused(game: GameFactory, text: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError):
        plan_from_text(text, game, nlp=nlp)
