"""Steps said out of order, a text that corrects itself, a deed said once for several things, and
the precision checks waves 14 and 15 asked for (issue 55): read in general, or refused with the
closest reading, never a wrong plan. Every text here is in words of our own; the families came from
``dev/*_dev31.yaml`` to ``*_dev34.yaml``, which ``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.doubts import UnsureReading
from evo.plans.from_text import plan_from_text
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    (DUNGEON, "Hop the pit second. First, yank the lever. Last, pray at the altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "head through the gate, you'll have to yank the lever first", ("interact switch", "go door")),
    (DUNGEON, "Pray at the altar. Slay the orc first.", ("attack goblin", "interact shrine")),
    # "first" said after several steps: before all of them (every development text of the form, session 28)
    (DUNGEON, "Yank the lever. Walk through the gate. Slay the orc first.", ("attack goblin", "interact switch", "go door")),
    (DUNGEON, "Slay the troll, but only after you've cleared the pit.", ("jump lava", "attack ogre")),
    (DUNGEON, "There's a troll by the gate. Slay it.", ("attack ogre",)),
    (DUNGEON, "On your way to the altar, grab the second coin.", ("go coin_2", "go shrine")),
    (DUNGEON, "Head to the altar, but grab the third coin on the way there.", ("go coin_3", "go shrine")),
    (DUNGEON, "first goblin, then second goblin, slay them both, then the troll",
     ("attack goblin_1", "attack goblin_2", "attack ogre")),
    (DUNGEON, "Leave it running 200 steps: any troll in range gets hit.", ("rule attack ogre", "budget 200")),
    (DUNGEON, "Just wander about and fight off anything that comes at you.", ("rule attack enemy", "budget 150")),
    (DUNGEON, "Yank the lever, and when the gate opens walk through it.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Have a go at the second skeleton.", ("attack skeleton_2",)),
    (PARK, "Head to any barrel and look down at it.", ("look_down barrel",)),
    (PARK, "Walk past the lamps and look down at each one, for 20 seconds.", ("rule look_down lamp", "budget 175")),
    (PARK, "Visit stump 1. Then stump 3. Circle each one.", ("circle stump_1", "circle stump_3")),
    (PARK, "go to pillar 1, pillar 2 and pillar 3 and look up at each", ("look_up pillar_1", "look_up pillar_2", "look_up pillar_3")),
    (PARK, "Inspect barrel 2 from all sides.", ("circle barrel_2",)),
    (PARK, "Go to lamp 1. Tilt the camera up, then back down.", ("look_up lamp_1", "look_down lamp_1")),
    (PARK, "Look up at every lamp you pass. Run time: 20 seconds.", ("rule look_up lamp", "budget 175")),
    (PARK, "whenever you get near a stump look down at it", ("rule look_down stump", "budget 150")),
    (PARK, "Circle pillars whenever you find one.", ("rule circle pillar", "budget 150")),
    (DUNGEON, "Pray at the altar last. Before that hop the pit, and before THAT yank the lever.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Grab coins 1 to 3 in order.", ("go coin_1", "go coin_2", "go coin_3")),
    (DUNGEON, "Walk up to the pit and stop at the edge. No jump.", ("go lava",)),
    (PARK, "I need two things: lamp 1, then stump 2. Just walk to each one, nothing fancy.", ("go lamp_1", "go stump_2")),
    (PARK, "Steps budget 300. Standing orders: circle whenever a lamp is near.", ("rule circle lamp", "budget 300")),
    (PARK, "Walk to pillar 2 and turn right there.", ("turn_right pillar_2",)),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("game, text, why", [
    (DUNGEON, "grab the gold and slay the troll, actually skip the gold", "the text corrects itself at 'actually skip the gold'"),
    (DUNGEON, "Grab a coin, then head through the gate, yank the lever beforehand",
     "'beforehand' puts it before an earlier step"),
    (DUNGEON, "Walk there.", "'there' stands for nothing named before it"),
    (DUNGEON, "I wrote these backwards, so do them in reverse: pray at the altar, hop the pit.",
     "'backwards' asks for the steps in another order than written"),
    (DUNGEON, "The last thing you do is pray at the altar. The first thing is the lever.", "'lever' names 'switch'"),
    (DUNGEON, "Spend 60 steps hunting goblins, slay any you find.", "'any' names no kind of thing"),
    (PARK, "Circle every barrel you see. Look up at it.", "'it' stands for the thing of a standing order"),
    (DUNGEON, "hop the pit (after yanking the lever)", "'lever' names 'switch', but no step of the plan goes to it"),
    (DUNGEON, "Slay the troll, the one behind the gate, by first hopping the pit and then hitting it.",
     "'pit' names 'lava', but no step of the plan goes to it"),
])
def test_what_cannot_be_placed_is_refused(game: GameFactory, text: str, why: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnsureReading) as caught:
        plan_from_text(text, game, nlp=nlp)
    assert caught.value.doubts[0].why.startswith(why), caught.value.doubts[0].why
