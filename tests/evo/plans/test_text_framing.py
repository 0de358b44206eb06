"""What testers write around and across their steps (issue 55), read in general: the forms of a
test case (:mod:`evo.plans.conventions`); greetings, headings, asides, steps not to take, the one
who plays named, remarks, labels, shorthand (:mod:`evo.plans.framing`); steps out of order or ordered by words the splitter does not join on
(:mod:`evo.plans.ordering`); budgets in more words (:mod:`evo.plans.budgets`); circling as a
standing order. Every text here is in words of our own, none from a development or held-out set
(the families came from ``dev/*_dev5.yaml`` to ``*_dev16.yaml``, written by twelve independent
testers from the user docs alone; ``test_dev_sets`` below reads those as measured)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.cli.main import main
from evo.plans.budgets import budget_steps
from evo.plans.conventions import conventions
from evo.plans.doubts import UnsureReading
from evo.plans.framing import aimless, unframed
from evo.plans.from_text import plan_from_text
from evo.plans.ordering import in_order
from games import GameFactory
from tests.evo.plans.heldout.score import cases, measured, plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


@pytest.mark.parametrize("text, plain", [
    ("Hello team, open the crate. Cheers!", "open the crate."),
    ("Verify crates open: open the crate.", "open the crate."),
    ("Open the crate, because the key is inside.", "Open the crate."),
    ("Go to the crate but don't open it.", "Go to the crate."),
    ("Don't forget to open the crate.", "open the crate."),
    ("The tester should open the crate.", "open the crate."),
    ("Every crate you find should be opened.", "open Every crate you find."),
    ("The crate looks odd. Open the chest.", "Open the chest."),
    ("I think the crate is odd. Open it.", "I think the crate is odd. Open it."),  # "it" points back: kept
    ("Crate: open it.\nChest: kick it open.", "open the crate.\nkick the chest open."),
    ("open crate -> read note", "open crate, then read note"),
    ("Every crate you find, open it.", "Whenever you find a crate, open it."),
    ("Kneel when you reach the third crate.", "Go to the third crate, then Kneel."),
    ("Open the crate. Nothing else.", "Open the crate."),
])
def test_words_around_the_steps_are_taken_out(text: str, plain: str) -> None:
    assert unframed(text) == plain


@pytest.mark.parametrize("text, plain", [
    ("Regression check: open the crate.", "open the crate."),
    ("TC-7 crate check\nOpen the crate.", "Open the crate."),
    ("Precondition: a fresh level.\nOpen the crate.\nExpected: no crash.", "Open the crate."),
    ("Repro (seen twice): open the crate.", "open the crate."),
    ("Regression: lid physics. Open the crate.", "Open the crate."),
    ("Steps to reproduce:\n1. Open the crate.\nExpected: a key.\nActual: nothing.", "\n1. Open the crate.\n"),
    ("Open the crate. The lid should fly off.", "Open the crate."),
    ("As a player, I want to open the crate, so that I get the key.", "open the crate."),
    ("Given a fresh level, when the player opens the crate, then a key appears.", "opens the crate."),
    ("Starting at the door, open the crate.", "open the crate."),
    ("Open any crate you find while you walk to the chest.", "walk to the chest. Open any crate you find."),
    ("Open the crate (no need to hurry).", "Open the crate."),
    ("Goal: loot the room.\n- Open the crate", "- Open the crate"),
    ("Open the chest, then keep opening crates.", "Open the chest, always open crates."),
])
def test_the_forms_of_a_test_case_are_taken_down_to_its_steps(text: str, plain: str) -> None:
    assert conventions(text) == plain


@pytest.mark.parametrize("text, ordered", [
    ("Read the note, but before that open the crate.", "open the crate, then read the note."),
    ("Read the note, but open the crate first.", "open the crate, then read the note."),
    ("Open the crate before reading the note.", "Open the crate, then read the note."),
    ("Open the crate before the chest.", "Open the crate, then the chest."),
    ("First open the crate, second read the note.", "First open the crate, then read the note."),
    ("Open the crate, after read the note.", "Open the crate, then read the note."),
    ("Kneel at the crate, at the chest pray.", "Kneel at the crate, pray at the chest."),
    ("Open the chest by turning the key.", "turn the key to open the chest."),
    ("Open the crate before anything else.", "Open the crate."),  # no gerund: first of all, and said first
])
def test_steps_out_of_order_are_put_in_order(text: str, ordered: str) -> None:
    assert in_order(text) == ordered


def test_aimless_exploring_is_no_step_under_a_budget() -> None:
    assert aimless("Wander the level and open crates.") == "open crates."
    assert aimless("Just run around opening crates.") == "opening crates."
    assert aimless("Walk around the crate.") == "Walk around the crate."  # circling it


@pytest.mark.parametrize("text, steps", [("Two hundred fifty steps is enough.", 250), ("During 12 s, open crates.", 105),
                                         ("Open crates for a hundred and twenty steps.", 120), ("Budget: 90 moves.", 90)])
def test_budgets_in_more_words(text: str, steps: int) -> None:
    assert budget_steps(text, 4 / 35) == steps


@pytest.mark.parametrize("game, text, plan", [
    (DUNGEON, "Hello team, pull the lever and hop over the lava. Cheers!", ("interact switch", "jump lava")),
    (DUNGEON, "TC-31 lever smoke\n1. Pull the lever.\n2. Walk to the altar.", ("interact switch", "go shrine")),
    (DUNGEON, "Confirm the altar works: go to the altar and pray there.", ("interact shrine",)),
    (DUNGEON, "Walk to the altar but please don't touch it yet.", ("go shrine",)),
    (DUNGEON, "Avoid the coins; just slay the troll.", ("attack ogre",)),
    (DUNGEON, "The tester should pull the lever, after which they should leap the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Any trolls you meet must be slain.", ("rule attack ogre", "budget 150")),
    (DUNGEON, "The pit glows red. Pull the lever.", ("interact switch",)),
    (DUNGEON, "Lever: yank it.\nGate: walk through.", ("interact switch", "go door")),
    (DUNGEON, "yank lever -> go thru gate -> pray at altar", ("interact switch", "go door", "interact shrine")),
    (DUNGEON, "Pray at the altar, but slay the troll first.", ("attack ogre", "interact shrine")),
    (DUNGEON, "First yank the lever, second leap the pit, third pray at the altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "at the pit make a jump, at the altar pray.", ("jump lava", "interact shrine")),
    (DUNGEON, "Open the gate by yanking the lever, then walk through.", ("interact switch", "go door")),
    (DUNGEON, "Yank the lever, and once it is on, walk to the gate.", ("interact switch", "go door if switch_on")),
    (DUNGEON, "Yank the lever and wait until the gate is open. Walk through.", ("interact switch", "go door if door_open")),
    (DUNGEON, "Grab a coin, then grab another coin.", ("go coin", "go coin")),
    (DUNGEON, "Wander the dungeon for 90 steps and slay any troll you meet.", ("rule attack ogre", "budget 90")),
    (DUNGEON, "Whenever there's a troll nearby, slay it.", ("rule attack ogre", "budget 150")),
    (DUNGEON, "Take all the coins. Ninety steps is enough.", ("rule go coin", "budget 90")),
    (DUNGEON, "Slay goblins and grab coins, then pray at the altar.", ("interact shrine", "rule attack goblin", "rule go coin")),
    (PARK, "Visit stump 2, then lamp 3.", ("go stump_2", "go lamp_3")),
    (PARK, "Look up when you reach the third lamp.", ("look_up lamp_3",)),
    (PARK, "Spend 20 s looking down at any stump.", ("rule look_down stump", "budget 175")),
    (PARK, "Orbit every stump you pass. Half a minute.", ("rule circle stump", "budget 262")),
    (DUNGEON, "Steps to reproduce:\n1. Yank the lever.\n2. Note the counter.\nActual: nothing happens.", ("interact switch",)),
    (DUNGEON, "As a player, I want to grab the coin and then pray at the altar, so that I win.", ("go coin", "interact shrine")),
    (DUNGEON, "Given a new level, when the player yanks the lever and walks through the gate, then the pit is in view.",
     ("interact switch", "go door")),
    (DUNGEON, "Slay any troll that comes near you while you walk to the altar.", ("go shrine", "rule attack ogre")),
    (PARK, "Head to the third stump; then, standing next to it, look up.", ("look_up stump_3",)),
    (PARK, "As a tester, I want every stump circled while I walk to the first pillar.", ("go pillar_1", "rule circle stump")),
    (DUNGEON, "Charter: explore troll combat. Walk up to the troll and slay it.", ("attack ogre",)),
    (DUNGEON, "Build 2.1, clean level.\nYank the lever, then hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Okay so first you want to yank the lever, and after that you want to pray at the altar.",
     ("interact switch", "interact shrine")),
    (DUNGEON, "Step one, yank the lever. Step two, hop the pit.", ("interact switch", "jump lava")),
    (DUNGEON, "Give it 60 steps: slay trolls as they show up.", ("rule attack ogre", "budget 60")),
    (DUNGEON, "Slay the second goblin before the first one.", ("attack goblin_2", "attack goblin_1")),
    (DUNGEON, "Yank the lever, then wait for the gate to open and walk through it.", ("interact switch", "go door if door_open")),
    (PARK, "Looking for blurry textures. Circle the third lamp.", ("circle lamp_3",)),
    (PARK, "Walk around the lamp closest to you.", ("circle lamp",)),
    (PARK, "Make sure you look up when you get to the second lamp.", ("look_up lamp_2",)),
    (PARK, "Two minutes of free play: circle every stump.", ("rule circle stump", "budget 1050")),
    (DUNGEON, "Player walks to the lever and yanks it. Player hops the pit, then prays at the altar.",
     ("interact switch", "jump lava", "interact shrine")),
    (DUNGEON, "Whenever a troll gets close, Player slays it.", ("rule attack ogre", "budget 150")),
    (DUNGEON, "Yank the lever, yet hop the pit beforehand.", ("jump lava", "interact switch")),  # wave 15: the later clause first
])
def test_the_families_read_as_meant(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


@pytest.mark.parametrize("text, why", [
    ("Yank the lever while hopping the pit.", "'pit' names 'lava', but no step of the plan goes to it"),
    ("Go to it and yank it.", "'it' stands for nothing named before it"),
    ("After you have slain it, grab the coin.", "'it' stands for nothing named before it"),
    ("Use everything.", "it names no thing to go to or act on"),  # "Slay everything": the enemies (dev9 meant so)
    ("Slap the coin.", "'attack' does nothing to a coin in this game"),
])
def test_a_step_lost_or_read_loosely_is_refused_not_guessed(text: str, why: str, nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnsureReading) as caught:
        plan_from_text(text, DUNGEON, nlp=nlp)
    assert caught.value.doubts[0].why.startswith(why)


def test_explain_prints_the_text_as_read(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    steps = tmp_path / "steps.txt"
    steps.write_text("Hi team, touch the altar, but before that hop over the pit. Thanks!")
    assert main(["plan", "from-text", str(steps), "--game", "dungeon", "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("read as: 'hop over the pit, then touch the altar.'\nclause 1: 'Hop over the pit'")


def test_explain_reads_the_text_in_the_games_words(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A thing named alone is read as the one deed the game does to it, and talk is out, in the
    "read as:" line as in the plan."""
    steps = tmp_path / "steps.txt"
    steps.write_text("Nothing fancy. Route: lever, pit, altar.")
    assert main(["plan", "from-text", str(steps), "--game", "dungeon", "--explain"]) == 0
    assert capsys.readouterr().out.startswith("read as: 'interact the lever, then jump the pit, then interact the altar.'\n")


DEV_SETS = {"dungeon_dev5": (70, 0), "park_dev5": (37, 0), "dungeon_dev6": (64, 0), "park_dev6": (37, 0),
            "dungeon_dev7": (62, 0), "park_dev7": (35, 0), "dungeon_dev8": (63, 1), "park_dev8": (37, 0),
            "dungeon_dev9": (68, 0), "park_dev9": (38, 0), "dungeon_dev10": (66, 2), "park_dev10": (34, 0),
            "dungeon_dev11": (69, 0), "park_dev11": (36, 0), "dungeon_dev12": (76, 0), "park_dev12": (37, 0),
            "dungeon_dev13": (68, 0), "park_dev13": (36, 0), "dungeon_dev14": (67, 0), "park_dev14": (36, 0),
            "dungeon_dev15": (65, 0), "park_dev15": (36, 0), "dungeon_dev16": (57, 1), "park_dev16": (34, 0)}
"""Development set -> (texts read as meant, texts read as a wrong plan), as measured: the rest are
refused with their closest reading. Written by twelve independent testers from the user docs
alone (a pair of sets each: terse checklists, prose protocols, a lead QA's mixed styles, a designer
writing in a second language, an informal playtester, study protocols, acceptance criteria, bug
reports, exploratory charters, a chatty student, present-tense QA flows, tutorial walkthroughs),
before the fixes they led to; dungeon_dev14 as the shipped pipeline reads it (wave 23: the one trained on
the machine before read one more text as meant)."""


@pytest.mark.parametrize("held", sorted(DEV_SETS))
def test_dev_sets(held: str, nlp, readings) -> None:  # type: ignore[no-untyped-def]
    right, wrong = measured(held, nlp, readings)
    least, most = DEV_SETS[held]
    assert right >= least and len(wrong) <= most, (right, wrong)
    assert len(cases(held)) >= (60 if held.startswith("dungeon") else 30)
