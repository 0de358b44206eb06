"""What a player reported, around the steps that reproduce it (:mod:`evo.plans.reports`), and a
designer's prose around the intended route: remarks, reasons and relative clauses that are no
steps, deeds said as done ("Having flipped the switch, ..."), order nested in a sentence (issue 55,
wave 16). Every text here is in words of our own; the families came from ``dev/*_dev35.yaml`` and
``*_dev36.yaml``, which ``test_text_letters.test_dev_sets`` reads as measured."""

from __future__ import annotations

import pytest

from evo.run.config import ConfigError
from evo.plans.from_text import plan_from_text
from evo.plans.reports import unreported
from games import GameFactory
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("text, left", [
    ("A player reports that the gate stayed shut after the lever. To reproduce: yank the lever.", "To reproduce: yank the lever."),
    ("Someone on the forum says the altar glows twice. Pray at the altar.", "Pray at the altar."),
    ("Hop the pit. Customer claims it burns them anyway.", "Hop the pit."),
    ("Reported: the troll can't be hit. Slay the troll.", "Slay the troll."),
    ("Player: slay the troll.", "Player: slay the troll."),
    ("Ticket 12, player summary: 'the orc never dies.' Slay the orc.", "Slay the orc."),
])
def test_what_was_reported_is_no_step(text: str, left: str) -> None:
    assert unreported(text) == left


@pytest.mark.parametrize("game, text, plan", [
    (DUNGEON, "A player reports that after yanking the lever the gate stayed shut. Repro: yank the lever, then walk through the gate.",
     ("interact switch", "go door")),
    (DUNGEON, "Player says the troll hits too hard. Go fight it.", ("attack ogre",)),
    (DUNGEON, "Reported by two players: praying twice gives double gold. Pray at the altar twice.",
     ("interact shrine", "interact shrine")),
    (DUNGEON, "Someone wrote in saying coins vanish. Let the agent loose and have it grab every coin it finds.",
     ("rule go coin", "budget 150")),
    (DUNGEON, "Yank the lever, then once the gate is actually open, walk through it.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Yank the lever, and once it's open, grab a coin.", ("interact switch", "go coin if door_open")),
    (DUNGEON, "Having yanked the lever and having hopped the pit, pray at the altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Visit the altar, which is the end of the level, and pray there.", ("interact shrine",)),
    (DUNGEON, "Hop the pit, since the landing is the hard part, then pray at the altar.", ("jump lava", "interact shrine")),
    (DUNGEON, "Pray at the altar, but first hop the pit, and before even that, yank the lever.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "For 90 steps, do nothing but hunt skeletons whenever one is near; the goblins can be ignored.",
     ("rule attack skeleton", "budget 90")),
    (DUNGEON, "Make your way to the altar but leave it alone when you get there.", ("go shrine",)),
    (DUNGEON, "Slay the orc and then, for the rest of the run, grab any gold nearby.", ("attack goblin", "rule go coin")),
    (DUNGEON, "The gold is a pacing device, so ignore it entirely: yank the lever and then pray at the altar.",
     ("interact switch", "interact shrine")),
    (DUNGEON, "walk up to the pit but don't hop, just want to see the prompt", ("go lava",)),
    (PARK, "Just walk to barrel 3 and stop. Want a screenshot of it.", ("go barrel_3",)),
    (PARK, "no route, just circle every stump you meet", ("rule circle stump", "budget 150")),
    (PARK, "Walk to barrel 2, and once you are beside it turn right.", ("turn_right barrel_2",)),
    (PARK, "Go to lamp 2 and look up at its top, then, without moving, look back down at its base.",
     ("look_up lamp_2", "look_down lamp_2")),
    (PARK, "Circle every object of interest you come upon, whatever its type, for 8 seconds.", ("rule circle object", "budget 70")),
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_a_report_alone_is_no_plan(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="no sentence reads as a step"):
        plan_from_text("A player says he yanked the lever and walked through the gate.", DUNGEON, nlp=nlp)


def test_steps_said_only_in_the_report_are_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="'Do the same'"):
        plan_from_text("Per the player: walked to the third pillar and looked up. Please do the same.", PARK, nlp=nlp)
