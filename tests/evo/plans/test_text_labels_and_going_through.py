"""A test's label over its steps, going through with no object, a step put before the one said
first, a second language's passive: the families waves 40 and 41 showed (issue 55), read as meant.
Each of these read a plan without a word of warning that left a step out or put one in. Every
text here is in words of our own; the families came from ``dev/*_dev83.yaml`` to
``*_dev86.yaml``, which ``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a list label and its first step on one line: the step is read (it was dropped as a title)
    (DUNGEON, "Steps: 1) Yank the lever. 2) Walk to the pit. 3) Leap across.", ("interact switch", "jump lava")),
    (DUNGEON, "Procedure\nSteps: 1) Slay goblin 2. 2) Grab coin 1.", ("attack goblin_2", "go coin_1")),
    (PARK, "Steps: 1) Walk up to barrel 2. 2) Glance up.", ("look_up barrel_2",)),
    # a test's label and its name before the steps: no step ("Test: troll balance." read a visit)
    (DUNGEON, "Test: troll balance. Steps: (1) yank the lever, (2) slay the troll.", ("interact switch", "attack ogre")),
    (DUNGEON, "Check: slay goblin 1, then grab coin 3.", ("attack goblin_1", "go coin_3")),
    # going through, in or inside with nothing after it: through the door (it was dropped)
    (DUNGEON, "Yank the lever and go in.", ("interact switch", "go door")),
    (DUNGEON, "- yank the lever\n- walk through\n- leap the pit", ("interact switch", "go door", "jump lava")),
    (DUNGEON, "Yank the lever, head inside and slay the troll.", ("interact switch", "go door", "attack ogre")),
    # a step said to come before the one going for a thing
    (DUNGEON, "Slay the troll. Before going for him, grab coin 2.", ("go coin_2", "attack ogre")),
    (DUNGEON, "Slay goblin 1. Before heading for it though, leap the pit.", ("jump lava", "attack goblin_1")),
    # a second language's passive with the verb's base form
    (DUNGEON, "Firstly the lever must be yank. After, walk through the gate.", ("interact switch", "go door")),
    (DUNGEON, "Walk at the button, active it. After, slay orc number 1.", ("interact switch", "attack goblin_1")),
    (PARK, "Go until the pillar number 3 and make look to up.", ("look_up pillar_3",)),
    # a checklist's boxes are list items
    (DUNGEON, "[ ] yank the lever\n[x] walk through the gate\n[ ] leap the pit", ("interact switch", "go door", "jump lava")),
    # going to get, hit or check out a thing is getting, hitting or visiting it
    (DUNGEON, "Each time you spot a coin, go get it.", ("rule go coin", "budget 150")),
    (PARK, "Circle stump 2, then swing by barrel 4.", ("circle stump_2", "go barrel_4")),
    (PARK, "Check out pillar 3, then glance up.", ("look_up pillar_3",)),
    # a remark on a thing named by the game's own name, and the steps that show it
    (PARK, "Barrel 2 looks squashed.\nRepro: walk to barrel_2 and go all the way round it.", ("circle barrel_2",)),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_a_clause_the_tagger_reads_oddly_is_refused_not_a_crash(nlp) -> None:  # type: ignore[no-untyped-def]
    """A verb tagged with its object as one word once crashed the reader on a one-word verb."""
    with pytest.raises(ConfigError):
        plan_from_text("Could you do me a favour and hit the first orc a few times until it dies? "
                       "I'm curious if the kill registers. No need for anything else.", DUNGEON, nlp=nlp)
