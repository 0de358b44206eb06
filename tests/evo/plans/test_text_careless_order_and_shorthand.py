"""A step said after the step it enables, shorthand with no articles, a deed said once for two
kinds of thing, talk before the steps, and the budget and title forms wave 18 showed (issue 55):
read as meant, or refused with the closest reading, never a wrong plan. Every text here is in words
of our own; the families came from ``dev/*_dev39.yaml`` and ``*_dev40.yaml`` and from the spent
first blind set, which ``test_text_letters.test_dev_sets`` and ``test_blind`` read as measured."""

from __future__ import annotations

import pytest

from evo.plans.doubts import UnsureReading
from evo.plans.from_text import plan_from_text
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a step said after the step it enables
    (DUNGEON, "Walk through the gate once it's open. Open it with the lever.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Head through the gate (yank the lever first, of course) and slay the troll.",
     ("interact switch", "go door", "attack ogre")),
    (DUNGEON, "Pray at the altar. Oh, you'll have to yank the lever first.", ("interact switch", "interact shrine")),
    (DUNGEON, "If the lever is on, hop the pit. You'll need to yank it first, though.", ("interact switch", "jump lava if switch_on")),
    (DUNGEON, "Slay the troll. Before that, though, grab a coin.", ("go coin", "attack ogre")),
    (DUNGEON, "Pray at the altar, but only after you've leapt the pit.", ("jump lava", "interact shrine")),
    # shorthand with no articles
    (DUNGEON, "go to lever pull it then go to gate", ("interact switch", "go door")),
    (DUNGEON, "interact lever; jump pit; interact altar", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "1) lever -> interact\n2) gate -> go", ("interact switch", "go door")),
    (PARK, "- stump 1: circle it\n- lamp 2: look up", ("circle stump_1", "look_up lamp_2")),
    (DUNGEON, "- yank lever\n- cross pit (jump)\n- altar: interact", ("interact switch", "jump lava", "interact shrine")),
    # one deed at two kinds of thing, a standing order said with "it"
    (DUNGEON, "Slay goblins and ogres on sight.", ("rule attack goblin", "rule attack ogre", "budget 150")),
    (DUNGEON, "Fight trolls and skeletons whenever they're in range, for 90 steps.",
     ("rule attack ogre", "rule attack skeleton", "budget 90")),
    (PARK, "Visit every stump you pass and circle it, for 8 seconds.", ("rule circle stump", "budget 70")),
    (PARK, "Any lamp you see on the way, look up at it.", ("rule look_up lamp", "budget 150")),
    (PARK, "Look down at each stump in turn: stump 3, stump 1.", ("look_down stump_3", "look_down stump_1")),
    # talk before and around the steps
    (DUNGEON, "Yesterday the gate stayed shut. Yank the lever and walk through the gate.", ("interact switch", "go door")),
    (DUNGEON, "For this one I'd like you to slay the second orc, then the first one.", ("attack goblin_2", "attack goblin_1")),
    (DUNGEON, "Can you check that the third coin counts? Just walk onto it.", ("go coin_3",)),
    (DUNGEON, "So, basically, yank the lever and then, like, hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Hop the pit. If you make it across, great.", ("jump lava",)),
    (DUNGEON, "Yank the lever that opens the gate.", ("interact switch",)),
    (DUNGEON, "The tester shall yank the lever. Subsequently, the tester shall cross the pit by leaping over it.",
     ("interact switch", "jump lava")),
    (PARK, "Walk up to pillar 2 and look up at the top of it.", ("look_up pillar_2",)),
    # budgets and titles
    (PARK, "Circle every lamp. Budget: 120 steps.", ("rule circle lamp", "budget 120")),
    (PARK, "Steps: 90. Look down at every barrel.", ("rule look_down barrel", "budget 90")),
    (DUNGEON, "Keep grabbing coins until step 80.", ("rule go coin", "budget 80")),
    (PARK, "About 12 seconds: walk to stump 2 and circle it.", ("circle stump_2",)),
    (PARK, "Spend 20 seconds walking around every pillar you find.", ("rule circle pillar", "budget 175")),
    (DUNGEON, "TC-77: lever activation.\n1. Yank lever 1.\n2. Walk through the gate.", ("interact switch_1", "go door")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("game, text, why", [
    (PARK, "Visit stump 1, lamp 2 and pillar 3, in that order, and circle the lamp.",
     "a step at any lamp follows one at 'lamp_2'"),
])
def test_a_doubtful_reading_is_refused(game: GameFactory, text: str, why: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnsureReading, match=why):
        plan_from_text(text, game, nlp=nlp)


@pytest.mark.parametrize("text, steps", [
    ("Budget: 300 steps.", 300),
    ("Max steps = 90", 90),
    ("Step 1: flip the switch\nStep 2: walk through\nStep 3: jump the lava", None),
    ("Steps:\n1) go to stump 2\n2) look up", None),
])
def test_a_labelled_count_is_a_budget_and_a_numbered_step_is_not(text: str, steps: int | None) -> None:
    from evo.plans.budgets import budget_steps

    assert budget_steps(text, 1 / 8.75) == steps


def test_a_title_before_a_budget_stays_a_title() -> None:
    """"Idle test: for 120 ticks" is a title, then the budget: only the budget is taken out."""
    from evo.plans.budgets import without_budget

    assert (without_budget("Idle fight test: for 120 ticks, attack any skeleton.") or "").startswith("Idle fight test:")
