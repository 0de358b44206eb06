"""A thing's number said over at once, a step put first of all as an afterthought, an expected
result on the steps' line, a turn where the player stands, a thing's deed after it on a numbered
line, a standing order on what is in view, a state said without its verb, a coin numbered above six, a step on the way: the families waves 54 and 55 showed (issue 55), each
read as a wrong plan or refused before. Every text here is in words of our own; the families
came from ``dev/*_dev111.yaml`` to ``*_dev114.yaml``, which ``test_text_letters.test_dev_sets``
reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.plans.slang import unslanged
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # the number said over: the second one meant, not both
    (DUNGEON, "slay orc 1, no wait, orc 2, then cross the pit", ("attack goblin_2", "jump lava")),
    (DUNGEON, "Grab coin 2, sorry I mean coin 1, and walk to the gate.", ("go coin_1", "go door")),
    (PARK, "look down at stump 1, sorry, stump 3", ("look_down stump_3",)),
    (PARK, "Head to pillar 1, no sorry, pillar 2, and circle it.", ("circle pillar_2",)),
    (DUNGEON, "Slay orc 2 - no wait, orc 1.", ("attack goblin_1",)),
    (DUNGEON, "grab coin 1 - sorry, I meant coin 2 - then the gate", ("go coin_2", "go door")),
    (DUNGEON, "loot coin 3... sorry I mean coin 5, then pray at the altar", ("go coin_5", "interact shrine")),
    # numbers above six: the dungeon has eight coins (each read as the nearest coin, or not at all)
    (DUNGEON, "Pocket coin seven, then the 8th coin.", ("go coin_7", "go coin_8")),
    (DUNGEON, "Collect coins one, three and eight, in that order.", ("go coin_1", "go coin_3", "go coin_8")),
    # a step on the way, said after the step it is on the way to
    (DUNGEON, "Head to the altar, but on the way grab coin 2.", ("go coin_2", "go shrine")),
    (DUNGEON, "Walk to the altar and pray at it, hopping the pit on the way.", ("jump lava", "interact shrine")),  # "it": the altar
    # a gamer's words, a second language's turn
    (DUNGEON, "gank the troll then beeline to the altar and pray", ("attack ogre", "interact shrine")),
    (PARK, "Please go until the stump number 2 and make turn to right.", ("turn_right stump_2",)),
    # a thing and its deed after it, on a numbered line; a list item after a dash is no signature
    (DUNGEON, "1) coin 2\n2) altar (interact with it)", ("go coin_2", "interact shrine")),
    (DUNGEON, "Step 1 - pull the lever\nStep 2 - gate\nStep 3 - altar", ("interact switch", "go door", "interact shrine")),
    # a state said without its verb
    (DUNGEON, "yank lever. if gate open walk thru it", ("interact switch", "go door if door_open")),
    (DUNGEON, "once lever on, cross the pit", ("jump lava if switch_on",)),
    (DUNGEON, "Walk through the gate (only if it's open), then pray at the altar.", ("go door if door_open", "interact shrine")),
    # a step said again by "do this", after what comes first
    (DUNGEON, "If the gate is open, go through it. Do this after picking up coin 2.", ("go coin_2", "go door if door_open")),
    # a standing order on what is in view
    (PARK, "Go to barrel 1. Any time a lamp is in view, look up at it.", ("go barrel_1", "rule look_up lamp")),
    # an afterthought put first of all, after more than one sentence
    (DUNGEON, "Slay the troll. Then go pray at the altar. Oh and first of all yank the lever.",
     ("interact switch", "attack ogre", "interact shrine")),
    (DUNGEON, "Hop the pit. First of all pull the lever.", ("interact switch", "jump lava")),
    # an expected result before the steps on one line: no step
    (DUNGEON, "Expected: the gate opens once the lever is pulled. Steps: pull the lever; walk through the gate.",
     ("interact switch", "go door")),
    # "turn right where you stand" is a right turn
    (PARK, "Look down at barrel 3. Then turn right where you stand.", ("look_down barrel_3", "turn_right barrel_3")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_a_number_said_over_needs_a_thing_of_the_game() -> None:
    assert unslanged("Kill goblin 1, no wait, goblin 2.", {"goblin"}) == "Kill goblin 2."
    assert unslanged("Wait 2, no, 3 seconds.", {"goblin"}) == "Wait 2, no, 3 seconds."  # no thing: as written
