"""A Gherkin scenario line by line, a test case's lines that start the game, a list of things with
one deed for all, "do the same" after two deeds, steps said after the step that enables them, and
the talk around the steps waves 19 and 20 showed (issue 55): read as meant, or refused with the
closest reading. Every text here is in words of our own; the families came from ``dev/*_dev41.yaml``
to ``*_dev44.yaml``, which ``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.doubts import UnsureReading
from evo.plans.from_text import plan_from_text
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a Gherkin scenario; lines that start the game
    (DUNGEON, "Given a new dungeon\nWhen the tester yanks the lever\nAnd walks through the gate\nThen the gate should stay open",
     ("interact switch", "go door")),
    (PARK, "Given the small park\nWhen I walk to stump 2\nAnd I look down\nThen the stump texture is crisp", ("look_down stump_2",)),
    (DUNGEON, "1) Load the level.\n2) Yank the lever.\n3) Hop the pit.", ("interact switch", "jump lava")),
    (PARK, "Start at the third lamp and look up at it.", ("look_up lamp_3",)),
    # one deed for a list; "do the same"
    (DUNGEON, "The troll first, then the orc: slay both.", ("attack ogre", "attack goblin")),
    (DUNGEON, "lever, altar: interact with each", ("interact switch", "interact shrine")),
    (PARK, "Walk to pillar 1, look up, then look down. Do the same at pillar 3.",
     ("look_up pillar_1", "look_down pillar_1", "look_up pillar_3", "look_down pillar_3")),
    (PARK, "Go to stump 1 and circle it. Then stump 3, same thing.", ("circle stump_1", "circle stump_3")),
    (PARK, "Circle the first, second and third lamps.", ("circle lamp_1", "circle lamp_2", "circle lamp_3")),
    (PARK, "Stop at each of these in order: stump 2, lamp 1.", ("go stump_2", "go lamp_1")),
    (PARK, "Circle barrel 3 and then do another lap.", ("circle barrel_3", "circle barrel_3")),
    # a step said after the step that enables it
    (DUNGEON, "Walk to the gate once the lever is on. Yank the lever.", ("interact switch", "go door if switch_on")),
    (DUNGEON, "Slay the troll once the gate is open. Start by yanking the lever.", ("interact switch", "attack ogre if door_open")),
    (DUNGEON, "Once the gate is open, slay the orc. You'll need to yank the lever for that.",
     ("interact switch", "attack goblin if door_open")),
    (DUNGEON, "Walk through the gate once it opens, after yanking the lever.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Hop the pit, after having slain the orc.", ("attack goblin", "jump lava")),
    (DUNGEON, "Yank the lever first. Don't approach the gate until the lever is on.", ("interact switch", "go door if switch_on")),
    (DUNGEON, "Pray at the altar. Before that you must get over the pit, and before any of that, yank the lever.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Open the gate (use the lever for that), then walk through.", ("interact switch", "go door")),
    (DUNGEON, "1) yank lever\n2) through the gate once it opens", ("interact switch", "go door if door_open")),
    # talk around the steps
    (DUNGEON, "Can the player hop the pit straight after the lever? Yank the lever and hop the pit at once.",
     ("interact switch", "jump lava")),
    (DUNGEON, "Trolls hit hard, so slay any troll that comes close.", ("rule attack ogre", "budget 150")),
    (DUNGEON, "The troll fight felt off in the last build. Slay the troll.", ("attack ogre",)),
    (DUNGEON, "Yank the lever, otherwise the gate stays shut, and then walk through the gate.", ("interact switch", "go door")),
    (DUNGEON, "Grab any one coin and then head to the altar.", ("go coin", "go shrine")),
    (PARK, "Approach any lamp.", ("go lamp",)),
    (DUNGEON, "Then there's an orc by the gate; slay him.", ("attack goblin",)),
    (DUNGEON, "Keep swinging at goblins the whole time.", ("rule attack goblin", "budget 150")),
    (DUNGEON, "Loot everything for 90 steps.", ("rule go collectable", "budget 90")),
    (PARK, "- [ ] lamp 2: look up\n- [x] stump 1: look down", ("look_up lamp_2", "look_down stump_1")),
    (PARK, "Could the agent loop round pillar 2 and then look at the ground?", ("circle pillar_2", "look_down pillar_2")),
    (PARK, "Let it roam for 8 seconds; any time it's near a lamp, turn right.", ("rule turn_right lamp", "budget 70")),
    # wave 21
    (DUNGEON, "(a) Yank lever 1.\n(b) Walk through the gate once it reports open.", ("interact switch_1", "go door if door_open")),
    (DUNGEON, "yank lever -> thru gate -> hop pit", ("interact switch", "go door", "jump lava")),
    (DUNGEON, "Slay both orcs, the first one and then the second.", ("attack goblin_1", "attack goblin_2")),
    (DUNGEON, "grab the 1st coin then the 2nd", ("go coin_1", "go coin_2")),
    (DUNGEON, "Yank the lever. Keep an eye out for coins and grab them as you go.", ("interact switch", "rule go coin")),
    (DUNGEON, "Roam for 90 steps: if there's gold nearby, take it.", ("rule go coin", "budget 90")),
    (DUNGEON, "Slay anything that comes near you, and otherwise just get to the altar.", ("go shrine", "rule attack enemy")),
    (DUNGEON, "Yank the lever. Once the gate opens, walk through it and then keep going to the altar.",
     ("interact switch", "go door if door_open", "go shrine")),
    (DUNGEON, "1) Hop the pit (careful, it's wide).\n2) Pray at the altar.", ("jump lava", "interact shrine")),
    (DUNGEON, "The lever shall be yanked by the agent.", ("interact switch",)),
    (PARK, "Circle stump 2 and then look up at the same stump.", ("circle stump_2", "look_up stump_2")),
    (PARK, "Run for a minute. Circle every lamp you pass.", ("rule circle lamp", "budget 525")),
    (PARK, "Tour: one lamp, one stump. Nearest ones are fine.", ("go lamp", "go stump")),
    (PARK, "Look up at lamp 2 - but before that, head to stump 1.", ("go stump_1", "look_up lamp_2")),
    # wave 22
    (DUNGEON, "Walk to the pit (don't hop yet, I just want to see the edge), then yank the lever.", ("go lava", "interact switch")),
    (DUNGEON, "Yank the lever, and only once the gate is open should you head to the altar to use it.",
     ("interact switch", "interact shrine if door_open")),
    (PARK, "Look up, then look down, at the nearest stump.", ("look_up stump", "look_down stump")),
    (PARK, "For 8 seconds, jump next to any stump or lamp.", ("rule jump stump", "rule jump lamp", "budget 70")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_a_thing_the_game_does_not_have_is_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    """"Slay skeleton 3" where the dungeon has two: refused, not read as any skeleton."""
    with pytest.raises(UnsureReading, match="names 'skeleton_3', which the game does not have"):
        plan_from_text("Slay skeleton 3.", DUNGEON, nlp=nlp)
