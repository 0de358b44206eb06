"""Families of phrasing read in general: adverbs at a step's end ("as well"),
a verb read in the sense that fits its object ("kick the lever" works it), coordinated objects
and rules ("every bat and every zombie"), words that make a rule ("always", "keep X-ing"),
amounts ("a bit of"), nouns modified by nouns ("the wall lever"), purposes ("to open the gate"),
a budget over an activity, a passive state; and a circle that something blocks goes on closer
in. Unit checks in words of our own (none in a held-out set); the third development sets
(``dev/*_dev3.yaml``, 104 dungeon and 40 park texts written before the fixes) are read by
pattern in ``test_text_families.py``."""

from __future__ import annotations

import numpy as np
import pytest

from evo.plans.from_text import plan_from_text
from evo.plans.markers import strip_marker
from evo.plans.text import read_steps, split_sentences
from games.doom.park.navigation import CIRCLE_RADIUS, MIN_RADIUS, STALLED_STEPS, Circle
from tests.evo.plans.heldout.score import SETS, cases, plan_words
from tests.evo.plans.test_text import ACTIONS, ACTOR_TYPES
from tests.evo.plans.text_games import DUNGEON

TARGETS = {"attack": {"enemy"}, "interact": {"switch", "shrine", "door"}}
"""What the test vocabulary's actions act on (as a game's ``action_targets`` says)."""
TOUCHING = {**ACTIONS, "interact": (*ACTIONS["interact"], "touch")}
"""The test vocabulary with touching as operating a thing (as the dungeon lists it)."""


@pytest.mark.parametrize("written, read", [
    ("Open the crate as well.", "Open the crate."), ("Open the crate too, then read the note", "Open the crate, then read the note"),
    ("Open the crate right away.", "Open the crate."), ("Smash it back.", "Smash it."),
    ("Keep opening crates.", "always open crates."), ("Keep going for 20 steps", "going for 20 steps"),
    ("Open a bit of the crate.", "Open some the crate."),
    ("Kick the lever to open the gate, then walk through it.", "Kick the lever, then go to the gate."),
    ("Jump the pit to reach the gate.", "Jump the pit to reach the gate."),
    ("Open the crate so that the gate opens, then walk through it.", "Open the crate, then go to the gate."),
    ("Hop on the spot.", "Hop."), ("Gaze at the sky.", "Gaze up."), ("Stare at the floor", "Stare down"),
])
def test_tails_repeats_amounts_and_purposes_are_read_off_the_step(written: str, read: str) -> None:
    assert strip_marker(written) == read


def test_a_heading_alone_is_no_step() -> None:
    assert split_sentences("Test plan:\n1. Open the crate\nSteps:\n- Read the note") == ["Open the crate", "Read the note"]


@pytest.mark.parametrize("text, plan", [
    ("Kick the lever.", [("node", "interact", "switch")]),
    ("Kick the zombie.", [("node", "attack", "enemy")]),
    ("Walk up to the lever and kick it.", [("node", None, "switch"), ("node", "interact", None)]),
    ("Smash every bat and every zombie.", [("rule", "attack", "enemy"), ("rule", "attack", "enemy")]),
    ("Slay the bat, the zombie and the ogre.", [("node", "attack", "enemy")] * 3),
    ("Constantly smash the bats.", [("rule", "attack", "enemy")]),
    ("Keep smashing bats.", [("rule", "attack", "enemy")]),
    ("Pull the wall lever.", [("node", "interact", "switch")]),
])
def test_senses_coordination_rules_and_head_nouns(text: str, plan: list, nlp) -> None:  # type: ignore[type-arg, no-untyped-def]
    steps = read_steps(text, TOUCHING, ACTOR_TYPES, nlp, TARGETS)
    assert [(s.parsed.kind, s.action, s.actor_type) for s in steps] == plan


@pytest.mark.parametrize("text, plan", [
    ("Smash goblins and grab gold for 40 turns.", ("rule attack goblin", "rule go coin", "budget 40")),
    ("Spend 30 moves slaying ogres.", ("rule attack ogre", "budget 30")),
    ("Yank the lever. Once the lever has been yanked, go to the door.", ("interact switch", "go door if switch_on")),
    ("Pursue the ogre.", ("attack ogre",)),
])
def test_budgets_over_activities_passives_and_chasing_on_the_dungeon(text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, DUNGEON, nlp=nlp)[0]) == plan


def test_a_circle_that_something_blocks_goes_on_closer_in() -> None:
    circle = Circle((0.0, 0.0))
    for _ in range(STALLED_STEPS + 2):  # the player stays put, facing the object at the radius
        circle.step(np.array([CIRCLE_RADIUS, 0.0, 180.0]))
    assert MIN_RADIUS <= circle.radius < CIRCLE_RADIUS


def test_the_third_development_sets_are_no_held_out_text() -> None:
    dev = {c.text for name in ("dungeon_dev3", "park_dev3") for c in cases(name)}
    held = {c.text for name in SETS for c in cases(name) if not name.endswith("_7")}
    assert not dev & held, sorted(dev & held)
