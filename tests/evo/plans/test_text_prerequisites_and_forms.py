"""What must come first said as an aside, a form's fields, steps said over and numbered out of
order, a route whose deed does not fit the next thing, and an unknown word where a step would be:
the families of waves 61 and 62 and of the second blind set's wrong plans (issue 55). Every text
here is in words of our own; the families came from ``dev/*_dev125.yaml`` to ``*_dev128.yaml``
and ``blind2``, which ``test_text_letters.test_dev_sets`` and ``test_blind2`` read as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # what must come first, as an aside after the steps that need it: before all of them
    (DUNGEON, "slay skeleton 2 and then troll 2 (lever first)", ("interact switch", "attack skeleton_2", "attack ogre_2")),
    (DUNGEON, "Hop the pit (lever first please), then slay orc 3.", ("interact switch", "jump lava", "attack goblin_3")),
    (DUNGEON, "Walk up to troll 2 (it is past the gate, so yank the lever before).", ("interact switch", "go ogre_2")),
    (DUNGEON, "Slay orc 3. To reach it you will need to yank the lever and hop the pit first.",
     ("interact switch", "jump lava", "attack goblin_3")),
    (DUNGEON, "Pray at the altar. Prerequisites: lever, then jump the pit.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Grab coin 7, then pray at the altar. The lever and the pit jump come before all of that.",
     ("interact switch", "jump lava", "go coin_7", "interact shrine")),
    (DUNGEON, "Grab coin 5 and coin 6. You will have to yank the lever first.", ("interact switch", "go coin_5", "go coin_6")),
    (DUNGEON, "Slay troll 2. Before that, slay orc 2. And before both, yank the lever.",
     ("interact switch", "attack goblin_2", "attack ogre_2")),
    (DUNGEON, "loot coin #8 after hopping the pit (lever first obv)", ("interact switch", "jump lava", "go coin_8")),
    (DUNGEON, "coin 8, then the altar; the lever and the pit jump come first", ("interact switch", "jump lava", "go coin_8", "interact shrine")),
    (DUNGEON, "walk up to the gate. lever first pls", ("interact switch", "go door")),
    # the state asked for beside the deed that brings it about: the deed
    (DUNGEON, "Open the gate (flip the lever), then grab coin 5.", ("interact switch", "go coin_5")),
    (DUNGEON, "Slay troll 2. Of course the gate must be open, so yank the lever beforehand.", ("interact switch", "attack ogre_2")),
    # a form's fields, a routine's name, a goal that is the step, numbered steps out of order
    (DUNGEON, "Target: orc_2. Action: slay.", ("attack goblin_2",)),
    (DUNGEON, 'Run the "pit drill": yank the lever, then hop the pit.', ("interact switch", "jump lava")),
    (DUNGEON, "Goal: reach the altar and pray at it. On the way, slay any troll that comes close.",
     ("interact shrine", "rule attack ogre")),
    (DUNGEON, "Step 2: hop the pit.\nStep 3: pray at the altar.\nStep 1: yank the lever.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Second: walk through the gate. Third: slay orc 2. First: yank the lever.", ("interact switch", "go door", "attack goblin_2")),
    # a thing or a step said over
    (PARK, "Walk to lamp 1 (sorry, lamp 3) and look up at it.", ("look_up lamp_3",)),
    (DUNGEON, "Yank the lever, then slay troll 1 -- sorry, I meant troll 2.", ("interact switch", "attack ogre_2")),
    (DUNGEON, "Grab coin 4. Sorry, I meant coin 3.", ("go coin_3",)),
    (DUNGEON, "Slay orc 1 - actually scratch that, slay troll 1 instead.", ("attack ogre_1",)),
    (DUNGEON, "Slay troll 1. No wait, slay orc 1 instead.", ("attack goblin_1",)),
    (DUNGEON, "Grab coin three. Actually no, coin two.", ("go coin_2",)),
    (PARK, "Look down at stump 2 - scratch that, look up at it.", ("look_up stump_2",)),
    (PARK, "Walk to barrel 4 and circle it. Actually no, just turn left at it.", ("turn_left barrel_4",)),
    # a route whose deed does not fit the next thing: step by step
    (DUNGEON, "yank lever -> hop pit -> coin 7 -> altar", ("interact switch", "jump lava", "go coin_7", "interact shrine")),
    (DUNGEON, "Repro: (1) lever (2) hop pit (3) coin 8 (4) altar", ("interact switch", "jump lava", "go coin_8", "interact shrine")),
    (PARK, "lamp_2: look_down. barrel_3: jump.", ("look_down lamp_2", "jump barrel_3")),
    (DUNGEON, "any orc -> slay. any coin -> grab. then: lever, pit, altar.",
     ("interact switch", "jump lava", "interact shrine", "rule attack goblin", "rule go coin")),
    # smaller forms
    (DUNGEON, "See coin 4? Grab it.", ("go coin_4",)),
    (DUNGEON, "Yank the lever; should the gate be open, walk through it.", ("interact switch", "go door if door_open")),
    (PARK, "circle lamp 2 slowly, that's all", ("circle lamp_2",)),
    (DUNGEON, "Pray at the altar, that is the only step.", ("interact shrine",)),
    (PARK, "At pillar 2, pillar 3 and pillar 4, look down.", ("look_down pillar_2", "look_down pillar_3", "look_down pillar_4")),
    (PARK, "Whenever a barrel is in view look down at it. Ten seconds.", ("rule look_down barrel", "budget 88")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("text", ["lever, pit, blorf", "- lever\n- blorf\n- altar", "Yank the lever. Hop the pit. blorf."])
def test_an_unknown_word_where_a_step_would_be_is_refused_not_dropped(text: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="blorf"):
        plan_from_text(text, DUNGEON, nlp=nlp)


def test_a_name_signing_off_is_no_step(nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text("Yank the lever, hop the pit. Cheers,\nBram", DUNGEON, nlp=nlp)[0]) == ("interact switch", "jump lava")


def test_a_step_said_first_among_steps_already_said_is_still_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError):
        plan_from_text("slay orc 3 and also troll 2. troll 2 first, it is nearer.", DUNGEON, nlp=nlp)
