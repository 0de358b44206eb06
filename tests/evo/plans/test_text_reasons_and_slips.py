"""A step said after its reason, a thing named in a sentence of its own, a condition with no comma,
a slip of the pen: the families waves 44 to 49 showed (issue 55), read as meant or refused.
Each of these read a plan without a word of warning that left a step out, put one in, or put
them out of order. Every text here is in words of our own; the families came from
``dev/*_dev91.yaml`` to ``*_dev102.yaml``, which ``test_text_letters.test_dev_sets`` reads as
measured."""

from __future__ import annotations

import pytest

from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("game, text, plan", [
    # a condition with its own verb and no comma before the step it conditions (it went to the thing)
    (DUNGEON, "whenever a troll is nearby slay it", ("rule attack ogre", "budget 150")),
    (DUNGEON, "if an orc comes close strike it", ("rule attack goblin", "budget 150")),
    # a thing named in a sentence of its own, then done to as "it": one step (it was done twice)
    (DUNGEON, "The troll. Slay it.", ("attack ogre",)),
    (PARK, "Lamp 2. Glance up at it.", ("look_up lamp_2",)),
    # a step, then why another comes first, and that one: that one first, the reason no step
    (DUNGEON, "Leap the pit; the lever must be down before you can cross, so yank it first.", ("interact switch", "jump lava")),
    (DUNGEON, "Once the gate is open, slay the troll. The lever opens it, so yank the lever first.",
     ("interact switch", "attack ogre if door_open")),
    # "but before you do," and the earlier step
    (DUNGEON, "Slay the troll, but before you do, grab coin 2.", ("go coin_2", "attack ogre")),
    # a deed said as what must happen to a thing
    (DUNGEON, "Grab coin 1, and after that the second orc has to die.", ("go coin_1", "attack goblin_2")),
    # a route of places, one of them crossed
    (DUNGEON, "Route: lever, then coin 2, then across the pit, then the altar.", ("interact switch", "go coin_2", "jump lava", "interact shrine")),
    # a thing made precise after a comma, and the place said as "there"
    (PARK, "There's a pillar, the third one. Walk to it. Glance down at it.", ("look_down pillar_3",)),
    (PARK, "Walk to lamp 4 and there you glance up.", ("look_up lamp_4",)),
    (PARK, "Walk to the closest object, whatever it is.", ("go object",)),
    # things of a kind, then each by its number
    (PARK, "Walk to each of the three pillars in order (pillar 1, 2, 3) and glance up at each one.",
     ("look_up pillar_1", "look_up pillar_2", "look_up pillar_3")),
    # a standing order said while walking
    (PARK, "Walk to lamp 1 and lamp 2. While you're walking, if you pass a stump, walk all the way round it.",
     ("go lamp_1", "go lamp_2", "rule circle stump")),
    # a bug report's summary before its steps is no step
    (DUNGEON, "Bug: slaying orc 2 doesn't add to the score.\nRepro: walk up to orc 2 and strike it.", ("attack goblin_2",)),
    # a second language's "after you are" and "for" before a deed
    (DUNGEON, "Please you go at the lever and make it on, after you are leap over the pit and go to altar for interact with it.",
     ("interact switch", "jump lava", "interact shrine")),
    # two turns at one place, said after "rotate"
    (PARK, "Rotate at the first stump, turn right and then turn left.", ("turn_right stump_1", "turn_left stump_1")),
    # a goal said with its condition, then the steps that reach it
    (DUNGEON, "Once the gate opens, head for the altar: leap the pit and use the altar. Yank the lever first, of course.",
     ("interact switch", "jump lava if door_open", "interact shrine")),
    # a budget said as an example in brackets
    (DUNGEON, "Keep slaying monsters until you run out of steps (say 120).", ("rule attack enemy", "budget 120")),
    # a kind as a heading over what to do to "them", and a scope said with "only"
    (DUNGEON, "Skeletons: slay them when they come close. Coins: pick them up whenever you pass one.",
     ("rule attack skeleton", "rule go coin", "budget 150")),
    (DUNGEON, "Eighty steps, trolls only: slay any troll that gets close.", ("rule attack ogre", "budget 80")),
    # playing the level, with its steps in brackets, or as a sentence of its own before them
    (DUNGEON, "Play the level as usual (lever, pit, altar) and slay anything that attacks you.",
     ("interact switch", "jump lava", "interact shrine", "rule attack enemy")),
    (DUNGEON, "the plan: just run the level normally. yank the lever, leap the pit, use the altar.", ("interact switch", "jump lava", "interact shrine")),
    # "round" for around, "that last one", a texter's "n" and "rigth"
    (PARK, "Walk all the way round stump 2, then all the way round stump 1.", ("circle stump_2", "circle stump_1")),
    (PARK, "Go to lamp 1. Then barrel 2. Walk around that last one.", ("go lamp_1", "circle barrel_2")),
    (PARK, "walk to pillar 2 n turn rigth", ("turn_right pillar_2",)),
    # "start with" a thing and what to do to it; entering; a thing "on" in a list
    (PARK, "Start with lamp 3: glance up at it. Then walk to stump 1.", ("look_up lamp_3", "go stump_1")),
    (DUNGEON, "Enter the gate once it's open. Yank the lever before that.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Lever on, gate, pit, altar.", ("interact switch", "go door", "jump lava", "interact shrine")),
    # a remark on what was done to "them" after a rule
    (DUNGEON, "If any orcs get close, slay them, they've been buggy all week.", ("rule attack goblin", "budget 150")),
    # waves 46 and 47: a step after "after doing", with more steps after it
    (DUNGEON, "Slay goblin 1 after yanking the lever, stand at the edge of the pit and leap over it.",
     ("interact switch", "attack goblin_1", "jump lava")),
    (DUNGEON, "See the altar? Use it, after yanking the lever and leaping the pit, of course.", ("interact switch", "jump lava", "interact shrine")),
    # the steps before getting there, and a step it takes to get there
    (DUNGEON, "Use the altar at the end. Before you get there, yank the lever and leap the pit.", ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "After yanking the lever, go to the altar. You will have to leap the pit to get there.", ("interact switch", "jump lava", "go shrine")),
    (DUNGEON, "Yank the lever and walk to the altar (leaping the pit of course).", ("interact switch", "jump lava", "go shrine")),
    # places listed, then "pick them all up in that order"; "the 2nd and the 3rd coin"
    (DUNGEON, "First coin 3, then coin 1. Pick them all up in that order.", ("go coin_3", "go coin_1")),
    (DUNGEON, "Grab the 2nd and the 3rd coin.", ("go coin_2", "go coin_3")),
    (DUNGEON, "Is needed that player yank the lever and when gate is open he go in the gate.", ("interact switch", "go door if door_open")),
    # "numbered 3", a standing order said as walking up to each, a look said again in brackets, "then left"
    (PARK, "There's a lamp numbered 3 by the path. Go to it. Glance up.", ("look_up lamp_3",)),
    (PARK, "For 20 seconds, keep walking up to stumps and looking down at each one.", ("rule look_down stump", "budget 175")),
    (PARK, "Have a look at the top of lamp 2 (look up), then walk to stump 1.", ("look_up lamp_2", "go stump_1")),
    (PARK, "Stand by the nearest pillar and turn right, then left.", ("turn_right pillar", "turn_left pillar")),
    # waves 48 and 49: what opens the door, said after the step that waits for it
    (DUNGEON, "Slay the troll once the gate is open (yank the lever to open it).", ("interact switch", "attack ogre if door_open")),
    (DUNGEON, "Slay the troll once the gate is open; the lever opens it.", ("interact switch", "attack ogre if door_open")),
    (DUNGEON, "Only walk through the gate after it has opened. Yank the lever to open it.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Go to the gate when it is open. For open it, the player need to use the lever before.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Walk to the pit and leap over it, the lever has to be pulled before though", ("interact switch", "jump lava")),
    (DUNGEON, "Use the altar. Of course you need to get there first: yank the lever and leap the pit.", ("interact switch", "jump lava", "interact shrine")),
    # a crossing as a list item, finishing at a thing with no article, each of a kind by its numbers
    (DUNGEON, "- yank the lever\n- through the gate\n- across the pit\n- use the altar", ("interact switch", "go door", "jump lava", "interact shrine")),
    (DUNGEON, "Yank the lever, leap the pit and finish at altar.", ("interact switch", "jump lava", "interact shrine")),
    (PARK, "Walk to each lamp in order: 4, 3, 2.", ("go lamp_4", "go lamp_3", "go lamp_2")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("text, plan, slips", [
    ("activaet the swtich, leap the pit, use the altar", ("interact switch", "jump lava", "interact shrine"),
     [("activaet", "activate"), ("swtich", "switch")]),
    ("grab coin 1 and pul the levr", ("go coin_1", "interact switch"), [("pul", "pull"), ("levr", "lever")]),
])
def test_a_slip_of_the_pen_is_read_as_the_word_and_named(text: str, plan: tuple[str, ...], slips: list, nlp) -> None:  # type: ignore[no-untyped-def]
    """A misspelt word of the game's, one slip from one word: read as that word, and named
    (``respelled``; :mod:`evo.plans.spelling`), never run without it (it was refused before)."""
    read = plan_from_text(text, DUNGEON, nlp=nlp)[0]
    assert plan_words(read) == plan and read.respelled == slips


def test_a_word_too_far_from_any_of_the_games_is_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="lvrrr"):
        plan_from_text("grab coin 1 and yank the lvrrr", DUNGEON, nlp=nlp)


def test_a_misspelt_word_a_step_took_up_is_read(nlp) -> None:  # type: ignore[no-untyped-def]
    """A slip the reader still understood is no reason to refuse; nor is an English word near a game's ("with")."""
    assert plan_words(plan_from_text("yank the swich, then leap the pit", DUNGEON, nlp=nlp)[0]) == ("interact switch", "jump lava")
    assert plan_words(plan_from_text("Slay the troll, then do the same with orc 2.", DUNGEON, nlp=nlp)[0]) == ("attack ogre", "attack goblin_2")
