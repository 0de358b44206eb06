"""Steps put ahead of all the others, standing orders said twice, a tester's chat shorthand, a
second language's forms and test cases' result lists: the families waves 36 to 39 showed (issue
55), read as meant or refused with the closest reading. Every text here is in words of our own; the
families came from ``dev/*_dev75.yaml`` to ``*_dev82.yaml``, which
``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a step put ahead of all the others, wherever it is said
    (DUNGEON, "Finish at the altar. Before that, leap the pit, and before anything else, yank the lever.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Pray at the altar at the end. Before all of that, press the button and hop the pit.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Pray at the altar, but slay the troll before you do. And of course yank the lever before any of that.",
     ("interact switch", "attack ogre", "interact shrine")),
    (DUNGEON, "Before leaping the pit, grab coin 2. Oh and you need the lever pulled before any of this.",
     ("interact switch", "go coin_2", "jump lava")),
    (DUNGEON, "Pray at the altar last. Before it: grab coin 1, then leap the pit. Very first thing: yank the lever.",
     ("interact switch", "go coin_1", "jump lava", "interact shrine")),
    (DUNGEON, "Walk through the gate as soon as the lever is on (yank it first).", ("interact switch", "go door if switch_on")),
    # one standing order, however many times it is said
    (DUNGEON, "Stand on every coin in the level.", ("rule go coin", "budget 150")),
    (DUNGEON, "Slay the orcs. All of them.", ("rule attack goblin", "budget 150")),
    (DUNGEON, "Spend 60 steps hunting trolls: hit every one you meet.", ("rule attack ogre", "budget 60")),
    (DUNGEON, "Slay any orc that comes near, and grab the coins too.", ("rule attack goblin", "rule go coin", "budget 150")),
    (DUNGEON, "If an orc gets within two tiles, hit it.", ("rule attack goblin", "budget 150")),
    # numbers and lists
    (DUNGEON, "grab the 1st and 3rd coins", ("go coin_1", "go coin_3")),
    (DUNGEON, "Grab coins: 2, then 3, then 1.", ("go coin_2", "go coin_3", "go coin_1")),
    (DUNGEON, "Slay two goblins: goblin 2 and goblin 1.", ("attack goblin_2", "attack goblin_1")),
    (DUNGEON, "first the lever, then leap the pit, then the altar", ("interact switch", "jump lava", "interact shrine")),
    # a tester's chat shorthand and words around the steps
    (DUNGEON, "Hey, could you do the basic run for me real quick? Yank the lever, then hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "@qa can u yank the lever and walk thru the gate? usual stuff, thx", ("interact switch", "go door")),
    (DUNGEON, "Locate the troll. Walk up to it and strike it with your sword.", ("attack ogre",)),
    (DUNGEON, "just go wild, slay every monster and grab every coin, in no particular order",
     ("rule attack enemy", "rule go coin", "budget 150")),
    (DUNGEON, "Please clear out all the monsters.", ("rule attack enemy", "budget 150")),
    (DUNGEON, "lever on first, then go to the pit and leap over it", ("interact switch", "jump lava")),
    (PARK, "Pillar 3 flickers badly.\nRepro: go to pillar 3, circle it, then look down.", ("circle pillar_3", "look_down pillar_3")),
    (PARK, "Bug: barrel 1 looks squashed.\nTo reproduce: walk all the way round barrel 1 and look at it from every side.", ("circle barrel_1",)),
    (PARK, "Go to lamp 2, and look up at the top. Then look down at it too.", ("look_up lamp_2", "look_down lamp_2")),
    (PARK, "Start at the spawn. Walk to stump 3 and circle it. Should take well under a minute.", ("circle stump_3",)),
    (PARK, "Before going round pillar 1, jump once at lamp 4.", ("jump lamp_4", "circle pillar_1")),
    # a second language's forms
    (DUNGEON, "Please you go to the lever for pull it, after this you leap the pit and at the end you touch the altar for finish.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "First the lever must be pulled. Then when gate is opened you go inside and slay orc number two.",
     ("interact switch", "go door if door_open", "attack goblin_2")),
    (DUNGEON, "slay the orcs what come near, and nothing else, 90 steps long", ("rule attack goblin", "budget 90")),
    (PARK, "You must going to the stump number two and make look down, after you turning right.", ("look_down stump_2", "turn_right stump_2")),
    (PARK, "Go near of the barrel three, look at up.", ("look_up barrel_3",)),
    # a test case's results and lettered steps: no steps
    (DUNGEON, "Steps:\n1. Slay the skeleton.\n2. Yank the lever.\n\nExpected:\n- Gate opens at step 2.\n- Kill count is 1.",
     ("attack skeleton", "interact switch")),
    (DUNGEON, "Steps:\n  a) yank the lever\n  b) walk through the gate\nPass if the hero stands in the doorway.", ("interact switch", "go door")),
    (PARK, "Objective: stump sprites\nSteps: (a) go to stump 1 (b) turn right (c) go to barrel 2\nPass: no stretched sprites", ("turn_right stump_1", "go barrel_2")),
    # waves 38 and 39: what to expect with a step after it, waits, a report's title, "there is" in other words
    (DUNGEON, "Grab coin 1. The third coin should be past the gate, pick that one up too.", ("go coin_1", "go coin_3")),
    (DUNGEON, "If the gate is open, walk through it; the lever should do that, so yank the lever first.",
     ("interact switch", "go door if door_open")),
    (DUNGEON, "Pray at the altar last. Right before it, slay the troll. Before all that, yank the lever and leap the pit.",
     ("interact switch", "jump lava", "attack ogre", "interact shrine")),
    (DUNGEON, "To reproduce: open the gate (lever), walk through it, step onto coin 2.", ("interact switch", "go door", "go coin_2")),
    (DUNGEON, "1) Yank the lever.\n2) Do not touch anything else until the gate is open.\n3) When the gate is open, walk through it.",
     ("interact switch", "go door if door_open")),
    (DUNGEON, "Standing orders: slay any monster next to the player.\nSteps:\n1. Yank the lever.\n2. Leap the pit.",
     ("interact switch", "jump lava", "rule attack enemy")),
    (DUNGEON, "BUG-7: leap over pit does nothing near the gate.\nSteps:\n1) Yank the lever.\n2) Walk through the gate.\n3) Leap the pit.",
     ("interact switch", "go door", "jump lava")),
    (DUNGEON, "Grab the nearest coin, and then the nearest one after that.", ("go coin", "go coin")),
    (DUNGEON, "You'll find a lever in the first room. Yank it. Then leap the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Keep grabbing coins and keep slaying orcs, 120 steps max.", ("rule go coin", "rule attack goblin", "budget 120")),
    (DUNGEON, "I want that you slay all the monster in the level, you have 300 step.", ("rule attack enemy", "budget 300")),
    (DUNGEON, "Agent should go to the lever and yank it. Then agent leap the pit. Finally agent pray at the altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (PARK, "Look for stumps for 20 seconds and walk up to each one.", ("rule go stump", "budget 175")),
    (PARK, "Check out the barrels for 20 seconds, just walk to them.", ("rule go barrel", "budget 175")),
    (PARK, "Please go until lamp 2 and make one round around him, after you look up.", ("circle lamp_2", "look_up lamp_2")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("game, text", [
    # a bare thing after a deed it cannot take, with no deed of its own: no guess
    (DUNGEON, "Leap the pit, then the coin, then the gate."),
    # "right before that" after more than one step: before which one is not clear
    (DUNGEON, "Yank the lever, walk through the gate and leap the pit. Right before that, grab coin 1."),
    # an instance named in a remark and in no step: refused, not read as the kind
    (PARK, "so lamp at index 1 looks off. go look up at it, and look down at it afterwards"),
])
def test_what_stays_in_doubt_is_refused(game: GameFactory, text: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError):
        plan_from_text(text, game, nlp=nlp)
