"""Things named by their room, what must come first said in any aside, steps said over in a
sentence, clipped deeds, labels in letters and roman numerals, a deed at each of a range: the
families of waves 66 and 67 (issue 55). Every text here is in words of our own; the families came
from ``dev/*_dev135.yaml`` to ``*_dev138.yaml``, which ``test_text_letters.test_dev_sets`` reads
as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a thing named by its room: the one of its kind there (the games reference says which holds what)
    (DUNGEON, "Slay the troll in the starting room, yank the lever, then slay the troll in the second room.",
     ("attack ogre_1", "interact switch", "attack ogre_2")),
    (DUNGEON, "Yank the lever. In room B, slay the orc there.", ("interact switch", "attack goblin_2")),
    (DUNGEON, "Yank the lever, hop the pit, slay the orc past the lava and pray at the altar.",
     ("interact switch", "jump lava", "attack goblin_3", "interact shrine")),
    (DUNGEON, "Yank the lever, then grab the coins in room B.", ("interact switch", "go coin_4", "go coin_5", "go coin_6")),
    (DUNGEON, "Yank the lever in the first room, then walk through the gate.", ("interact switch", "go door")),
    (DUNGEON, "Slay the troll in the first room (troll 1), then grab coin 2.", ("attack ogre_1", "go coin_2")),
    # what must come first, in any aside after the steps that need it
    (DUNGEON, "grab coin 5 (gate's shut, do the lever first)", ("interact switch", "go coin_5")),
    (DUNGEON, "Slay troll 2 - you will have to open the gate with the lever first.", ("interact switch", "attack ogre_2")),
    (DUNGEON, "loot coin 8 (it sits in the last room, past the pit, so lever + jump first)", ("interact switch", "jump lava", "go coin_8")),
    (DUNGEON, "could you slay orc 2? you will need to yank the lever to get in there", ("interact switch", "attack goblin_2")),
    (DUNGEON, "Hop the pit. Oh, you have to yank the lever before that.", ("interact switch", "jump lava")),
    (DUNGEON, "yank the lever and hop the pit (the lever has to come first of course)", ("interact switch", "jump lava")),
    (DUNGEON, "Slay skeleton 2 and ogre 2, but before you must yank the lever.", ("interact switch", "attack skeleton_2", "attack ogre_2")),
    (DUNGEON, "Pray at the altar; the lever comes first, then the pit jump.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Test: hop the pit if the lever is on, then pray at the altar.\nPrecondition: yank the lever first.",
     ("interact switch", "jump lava if switch_on", "interact shrine")),
    (DUNGEON, "Pray at the altar at the end, but before that hop the pit, and first of all yank the lever.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Use the lever, and only if it's on, hop the pit.", ("interact switch", "jump lava if switch_on")),
    # steps said over inside a sentence, or in the place of another
    (DUNGEON, "Slay the troll, sorry I mean the orc, then yank the lever.", ("attack goblin", "interact switch")),
    (DUNGEON, "Slay the troll. Sorry, I meant the orc, not the troll.", ("attack goblin",)),
    (DUNGEON, "grab coin 2. no wait, coin 4.", ("go coin_4",)),
    (DUNGEON, "Grab coin 1, then coin 3. Actually make that coin 2 instead of coin 3.", ("go coin_1", "go coin_2")),
    # a tester's shorthand, labels and frames
    (DUNGEON, "int lever, atk orc1, jmp pit", ("interact switch", "attack goblin_1", "jump lava")),
    (DUNGEON, "1) lever on\n2) slay troll 1", ("interact switch", "attack ogre_1")),
    (DUNGEON, "The bot should (i) yank the lever, (ii) hop the pit and (iii) pray at the altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (PARK, "Procedure: (a) walk to lamp_2; (b) circle stump_1.", ("go lamp_2", "circle stump_1")),
    (DUNGEON, "For my thesis I need the bot to slay orc 1, then grab coin 3.", ("attack goblin_1", "go coin_3")),
    (DUNGEON, "For tonight's build check please run the following: yank the lever, hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Slay a skeleton, any one.", ("attack skeleton",)),
    (DUNGEON, "Please the bot go to slay orc 1.", ("attack goblin_1",)),
    (DUNGEON, "Slay the skeleton and the troll in room A.", ("attack skeleton_1", "attack ogre_1")),
    (DUNGEON, "Clear the starting room: slay the goblin and the ogre.", ("attack goblin_1", "attack ogre_1")),
    (DUNGEON, "yank the lever, hop the pit, slay the orc on the other side and grab both coins there",
     ("interact switch", "jump lava", "attack goblin_3", "go coin_7", "go coin_8")),
    (DUNGEON, "Yank the lever. Once the gate is open, slay the troll behind it.", ("interact switch", "attack ogre_2 if door_open")),
    (DUNGEON, "slay the orc in rm A", ("attack goblin_1",)),
    (DUNGEON, "Slay goblin 2 and skeleton 2, lever first.", ("interact switch", "attack goblin_2", "attack skeleton_2")),
    (DUNGEON, "1) lever on\n2) over the pit\n3) pray at the altar", ("interact switch", "jump lava", "interact shrine")),
    (PARK, "walk to stump 1 (no wait, stump 4) and look upp there", ("look_up stump_4",)),
    (PARK, "visit any stump for 20 seconds", ("rule go stump", "budget 175")),
    (PARK, "For a minute and a half, circle every pillar you meet.", ("rule circle pillar", "budget 788")),
    # a deed at each of a range
    (PARK, "stroll to each stump in turn, 1 to 3, and look down at it", ("look_down stump_1", "look_down stump_2", "look_down stump_3")),
    (PARK, "Go to pillars 2-4 and look up at each.", ("look_up pillar_2", "look_up pillar_3", "look_up pillar_4")),
    (PARK, "visit each barrel, 1 to 3, in order", ("go barrel_1", "go barrel_2", "go barrel_3")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_a_thing_of_a_kind_its_room_holds_several_of_is_refused_naming_them(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=r"room B holds 3 of them \(coin_4, coin_5, coin_6\)"):
        plan_from_text("Yank the lever, then grab a coin in room B.", DUNGEON, nlp=nlp)


def test_a_step_before_that_after_two_steps_is_still_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError):
        plan_from_text("Grab coin 1, then slay orc 1. You need to grab coin 3 before that.", DUNGEON, nlp=nlp)
