"""A texter's and a gamer's words, things listed alone, and a thing with its deed after it: the
families waves 50 and 51 showed (issue 55), read as meant. Each was refused on a word the reader
did not know, or walked to things it should have acted on. Every text here is in words of our own;
the families came from ``dev/*_dev103.yaml`` to ``*_dev106.yaml``, which
``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.plans.slang import unslanged
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # texting: "u", a greeting before the request, "real quick", an emoji
    (DUNGEON, "yo can u slay orc 2 real quick then yank the lever", ("attack goblin_2", "interact switch")),
    (DUNGEON, "can u do lever -> pit -> altar 🙏", ("interact switch", "jump lava", "interact shrine")),
    # a gamer's verbs and nouns
    (DUNGEON, "yeet urself over the pit, then yoink coin 3", ("jump lava", "go coin_3")),
    (DUNGEON, "Farm coins for 90 steps.", ("rule go coin", "budget 90")),
    (DUNGEON, "Mosey on over to the gate.", ("go door",)),
    (DUNGEON, "Kneel at the altar and pray.", ("interact shrine",)),
    (PARK, "Go round lamp 2 fully, then look for the stump. Glance down.", ("circle lamp_2", "look_down stump")),
    # talk around the steps: how the week went, what the tester wants to see, "no this, no that"
    (DUNGEON, "Hope the trip went fine! Grab coin 1, then yank the lever. After that you can call it a day.", ("go coin_1", "interact switch")),
    (PARK, "Could you circle the nearest barrel? Want to see it from every side.", ("circle barrel",)),
    (DUNGEON, "Yank the lever, leap the pit, use the altar. No trolls, no coins.", ("interact switch", "jump lava", "interact shrine")),
    # things listed alone: each its own deed, after a standing order, in a list item, after "and"
    (DUNGEON, "Slay any orc that comes close. Route: lever, pit, altar.", ("interact switch", "jump lava", "interact shrine", "rule attack goblin")),
    (DUNGEON, "Step 1: lever. Step 2: leap the pit. Step 3: altar.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "The lever, the pit and the altar, in that order.", ("interact switch", "jump lava", "interact shrine")),
    # a thing with its deed after it, in brackets or after a colon
    (DUNGEON, "lever, then troll (slay), then altar (use).", ("interact switch", "attack ogre", "interact shrine")),
    (PARK, "Pillar #3: circle.\nLamp #2: look up.", ("circle pillar_3", "look_up lamp_2")),
    # a wait said as a prohibition, a single jump, a number after "nr", a kill said as finishing off
    (DUNGEON, "Don't walk through the gate until it's open.", ("go door if door_open",)),
    (DUNGEON, "Clear the pit in a single leap.", ("jump lava",)),
    (DUNGEON, "slay the troll and grab coin nr 2", ("attack ogre", "go coin_2")),
    (DUNGEON, "1. Walk up to orc 2\n2. Finish it off", ("attack goblin_2",)),
    # "the moment ...", a door that has swung open, a switch set to on, a shrine fired up, a visit paid
    (DUNGEON, "Yank the lever. The moment the gate is open, walk through it.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Once the gate has swung open, leap the pit.", ("jump lava if door_open",)),
    (DUNGEON, "1. Start from a fresh save\n2. Set the lever to on.\n3. Fire up the altar.", ("interact switch", "interact shrine")),
    (PARK, "Circle pillar 2, but first pay lamp 1 a visit.", ("go lamp_1", "circle pillar_2")),
    (DUNGEON, "Usual route please - lever, pit, altar.", ("interact switch", "jump lava", "interact shrine")),
    # a verb said before a list still carries over a list that goes on from it
    (PARK, "Circle pillar 1. Then pillar 2, pillar 3.", ("circle pillar_1", "circle pillar_2", "circle pillar_3")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_slang_keeps_words_that_only_look_like_it() -> None:
    """"u" alone is "you", never a letter of a word; "farm" is collecting only for things picked up
    ("farm mobs" stays, for the reader to refuse); a U-turn stays one."""
    assert unslanged("can u do a U-turn") == "can you do a U-turn"
    assert unslanged("farm mobs for 500 steps") == "farm mobs for 500 steps"
    assert unslanged("Loot run: pick up every coin") == "Loot run: pick up every coin"
