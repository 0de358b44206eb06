"""The families of phrasing set 6 missed, read in general: a verb of going before the step's
verb ("go pull the lever"), task and goal labels, purposes that only place a step ("to
begin"), steps ordered by "before/after you ...", a list item without a verb. Unit checks in
words of our own (none in a held-out set), and the second development sets (``dev/*_dev2.yaml``,
100 dungeon and 40 park texts written before the fixes), which ``test_text_families.py`` reads
by pattern with the first ones; ``benchmarks/text_plans.py --sets dungeon_dev2 park_dev2`` runs
them."""

from __future__ import annotations

import pytest

from evo.plans.markers import strip_marker
from evo.plans.text import read_steps
from tests.evo.plans.heldout.score import SETS, cases
from tests.evo.plans.test_text import ACTIONS, ACTOR_TYPES

@pytest.mark.parametrize("written, read", [
    ("Go open the crate.", "open the crate."), ("Now come open the crate", "Now open the crate"),
    ("Try to open the crate", "open the crate"), ("Go ahead and open the crate", "open the crate"),
    ("Make sure you open the crate", "open the crate"), ("Your third task: open the crate", "open the crate"),
    ("Objective - open the crate", "open the crate"), ("Open the crate to start.", "Open the crate."),
    ("Go to the crate", "Go to the crate"), ("Go get the crate", "Go get the crate"),
    ("Open the crate before you read the note.", "open the crate, then read the note."),
    ("After reading the note, open the crate.", "read the note, then open the crate."),
    ("Open the crate after you read the note", "read the note, then open the crate."),
    ("After the crate is open, read the note", "After the crate is open, read the note"),
    ("Open the crate and after that read the note", "Open the crate, then read the note"),
])
def test_a_verb_of_going_a_label_or_an_order_word_is_read_off_the_step(written: str, read: str) -> None:
    assert strip_marker(written) == read


def test_a_list_item_without_a_verb_takes_the_verb_before(nlp) -> None:  # type: ignore[no-untyped-def]
    steps = read_steps("- smash the bat\n- then the zombie\n- then to the altar", ACTIONS, ACTOR_TYPES, nlp)
    assert [(s.action, s.actor_type) for s in steps] == [("attack", "enemy"), ("attack", "enemy"), (None, "shrine")]


def test_the_second_development_sets_are_no_held_out_text() -> None:
    dev = {c.text for name in ("dungeon_dev2", "park_dev2") for c in cases(name)}
    held = {c.text for name in SETS for c in cases(name)}
    assert not dev & held, sorted(dev & held)
