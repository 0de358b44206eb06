"""Test cases pasted from a tracker, English written as a second language, a researcher's
scenarios (issue 55, waves 11-13), read in general: a title line over the steps, lines of
context, labels of the test's kind (:mod:`evo.plans.tracker`); a second language's forms and a
tracker's button words (:mod:`evo.plans.second_language`); steps said out of order ("Before
that"); a deed done a few times; the agent told of in the third person. And the precision checks
those waves asked for: an instance named but never gone to, a title that may be a step, a verb
matched only by its spelling. Every text here is in words of our own; the families came from
``dev/*_dev25.yaml`` to ``*_dev30.yaml``, which ``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.budgets import budget_steps
from evo.plans.doubts import UnsureReading
from evo.plans.from_text import plan_from_text
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    (DUNGEON, "Altar visit\nEnv: release build\n1. Walk to the altar\n2. Pray there", ("interact shrine",)),
    (DUNGEON, "Troll beating\nHit the troll three times.", ("attack ogre", "attack ogre", "attack ogre")),
    (DUNGEON, "Hop the pit. Before that, press the button.", ("interact switch", "jump lava")),
    (DUNGEON, "Please to press the button, then wait the gate to open and pass the gate.",
     ("interact switch", "go door if door_open")),
    (DUNGEON, "You take the gold, then you pray at the altar.", ("go coin", "interact shrine")),
    (DUNGEON, "Give the orc a hit.", ("attack goblin",)),
    (DUNGEON, "Go after the troll and hit it.", ("attack ogre",)),
    (DUNGEON, "Visit the coins in order: 3, 1.", ("go coin_3", "go coin_1")),
    (DUNGEON, "skeleton 2: hit.", ("attack skeleton_2",)),
    (DUNGEON, "The agent presses the button and then walks through the gate once it stands open.",
     ("interact switch", "go door if door_open")),
    (DUNGEON, "Pray at the altar only after the pit has been jumped.", ("jump lava", "interact shrine")),
    (DUNGEON, "Yank the lever. Slay anything that gets in your way.", ("interact switch", "rule attack enemy")),
    (DUNGEON, "Pull the lever to open the gate, then go to the troll and hit it.", ("interact switch", "attack ogre")),
    (DUNGEON, "Gather two coins.", ("go coin", "go coin")),
    (PARK, "Go to stump 3, then barrel 2. At the barrel, look down.", ("go stump_3", "look_down barrel_2")),
    (PARK, "Soak: circle any lamp you pass. 20 seconds.", ("rule circle lamp", "budget 175")),
    (PARK, "Go to lamp 1 and look up. Then go to lamp 3 and do the same.", ("look_up lamp_1", "look_up lamp_3")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("game, text, why", [
    (DUNGEON, "Hit the orc, then pray at the altar. Before that, jump.", "'Before that' follows more than one step"),
    (DUNGEON, "Troll then altar\n1. Hit the orc.\n2. Pray at the altar.", "the first line 'Troll then altar' reads as a title"),
    (DUNGEON, "Sidle up to the orc.", "'Sidle up to' is a word of its own, only spelled like 'idle'"),
    (PARK, "Visit the barrel 2, after the barrel 1.", "'barrel 1' names 'barrel_1', but no step of the plan goes to it"),
])
def test_a_reading_in_doubt_is_refused_not_guessed(game: GameFactory, text: str, why: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnsureReading) as caught:
        plan_from_text(text, game, nlp=nlp)
    assert caught.value.doubts[0].why.startswith(why), caught.value.doubts[0].why


@pytest.mark.parametrize("text, steps", [("Step budget: 90. Hit any orc.", 90), ("Run for 60 ticks; hit orcs.", 60),
                                         ("Maximum 45 steps, hit any orc.", 45),
                                         ("Press the button. I am expecting that the gate opens in one or two steps.", None)])
def test_budgets_in_a_tracker_and_an_expectation(text: str, steps: int | None) -> None:
    assert budget_steps(text, 0.114) == steps
