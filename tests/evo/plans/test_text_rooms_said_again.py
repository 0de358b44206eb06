"""A room said again ("there", "in that room", "the one past the door", "both trolls", "All in
the first room."), things numbered in brackets, a list said first, a step taken back with "wait,
no", "take on", "do nothing else", compound times, labels inside a line, "don't forget X first":
the families of waves 70 to 73 (issue 55). Every text here is in words of our own; the families
came from ``dev/*_dev143.yaml`` to ``*_dev150.yaml``, which ``test_text_letters.test_dev_sets``
reads as measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # the room the text is in: entered last, or named last
    (DUNGEON, "Yank the lever. Wait for the gate to open. Walk through it. Slay the troll on the other side.",
     ("interact switch", "go door if door_open", "attack ogre_2")),
    (DUNGEON, "Yank the lever, walk through the gate, grab coin 5, then slay the orc in that room.",
     ("interact switch", "go door", "go coin_5", "attack goblin_2")),
    (DUNGEON, "From the first room, grab coin 3 and slay the orc there.", ("go coin_3", "attack goblin_1")),
    (DUNGEON, "Walk through the gate and slay whichever troll is in that room.", ("go door", "attack ogre_2")),
    (DUNGEON, "In room A slay the orc. Then yank the lever, and in room B slay the troll there as well.",
     ("attack goblin_1", "interact switch", "attack ogre_2")),
    (DUNGEON, "Slay the troll in room A, then yank the lever and slay the one behind the door.",
     ("attack ogre_1", "interact switch", "attack ogre_2")),
    (DUNGEON, "See the troll in the middle room? Take it down.", ("attack ogre_2",)),
    # kinds the level holds two of, and lists said with their room
    (DUNGEON, "Yank the lever, then slay both trolls.", ("interact switch", "attack ogre_1", "attack ogre_2")),
    (DUNGEON, "Yank the lever, then slay both skeletons, the one in room B first.",
     ("interact switch", "attack skeleton_2", "attack skeleton_1")),
    (DUNGEON, "Slay each foe in the first room: the troll, then the orc.", ("attack ogre_1", "attack goblin_1")),
    (DUNGEON, "Slay the skelly in the spawn room.", ("attack skeleton_1",)),
    (DUNGEON, "Slay the orc, sorry, I mean the troll, in room A, then yank the lever.", ("attack ogre_1", "interact switch")),
    # numbers in brackets, and a list said first
    (DUNGEON, "Gold first (2, 3), then walk to the gate.", ("go coin_2", "go coin_3", "go door")),
    (DUNGEON, "Coins 3, 1, 2 first, then walk to the gate.", ("go coin_3", "go coin_1", "go coin_2", "go door")),
    # a step taken back, "take on", "do nothing else", "first ..., after you ..."
    (DUNGEON, "Hop the pit, wait, no, yank the lever first, then hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Take on skeleton 1, then yank the lever.", ("attack skeleton_1", "interact switch")),
    (DUNGEON, "Walk to the lever. Do nothing else.", ("go switch",)),
    (DUNGEON, "Please first you yank the lever, after you slay skeleton 2.", ("interact switch", "attack skeleton_2")),
    # waves 72 and 73
    (DUNGEON, "Slay the orc. Then the troll. All in the first room.", ("attack goblin_1", "attack ogre_1")),
    (DUNGEON, "Yank the lever to open the gate and grab the gold past it.", ("interact switch", "go coin_4", "go coin_5", "go coin_6")),
    (DUNGEON, "The troll in room B is said to be too strong. Yank the lever, walk through the gate and fight that troll.",
     ("interact switch", "go door", "attack ogre_2")),
    (DUNGEON, "I wonder whether the troll in the first room is too strong. Just go and slay it.", ("attack ogre_1",)),
    (DUNGEON, "Could you write a test plan for the gate bug? Yank the lever, then walk through the gate.", ("interact switch", "go door")),
    (DUNGEON, "1) grab coin_3 2) yank the lever 3) walk through the gate", ("go coin_3", "interact switch", "go door")),
    (DUNGEON, "Slay troll 2. Don't forget the lever first.", ("interact switch", "attack ogre_2")),
    (DUNGEON, "Could you set up a run where the player grabs coin 2 and then yanks the lever?", ("go coin_2", "interact switch")),
    (PARK, "Walk to lamp 3, then pillar 1 and look down there, then stump 2.", ("go lamp_3", "look_down pillar_1", "go stump_2")),
    (PARK, "2 minutes 15 seconds: circle every stump you see.", ("rule circle stump", "budget 1181")),
    (PARK, "A quarter of a minute: look up at every lamp.", ("rule look_up lamp", "budget 131")),
    (PARK, "Check out every barrel, 90 steps.", ("rule go barrel", "budget 90")),
    (PARK, "Visit stumps for 10 seconds.", ("rule go stump", "budget 88")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_the_one_in_a_room_holding_several_of_its_kind_is_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=r"room B holds 3 of them"):
        plan_from_text("Grab coin 1, then walk through the gate and grab the one in the middle room.", DUNGEON, nlp=nlp)
