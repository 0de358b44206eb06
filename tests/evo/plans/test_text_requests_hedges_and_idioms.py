"""Families of phrasing read in general (:mod:`evo.plans.phrasing`): requests
and hedges, discourse fillers and order adverbs that belong to no step, "when done" and "after
which" as "then", stressed conditions ("only after", "not until"), motion idioms, light verbs
with the deed as a noun, a pronoun inside a phrasal verb, a way through a place, instances
numbered after their noun; and a verb read in a rarer WordNet sense that acts on its object.
Unit checks in words of our own (none in a held-out or development set); the fourth development
sets (``dev/*_dev4.yaml``, 107 dungeon and 41 park texts written before the fixes) are read by
pattern in ``test_text_families.py``."""

from __future__ import annotations

import pytest

from evo.plans.lexicon import any_sense
from evo.plans.phrasing import numbered, plain
from evo.plans.text import read_steps, split_sentences
from tests.evo.plans.heldout.score import SETS, cases
from tests.evo.plans.test_text import ACTOR_TYPES
from tests.evo.plans.test_text_adverbs_coordination_and_rule_words import TARGETS, TOUCHING


@pytest.mark.parametrize("written, read", [
    ("Would you open the crate?", "open the crate."), ("I'd like you to open the crate.", "open the crate."),
    ("Let us open the crate.", "open the crate."), ("Kindly try to open the crate.", "open the crate."),
    ("In the meantime, open the crate.", "open the crate."), ("Open the crate first.", "Open the crate."),
    ("Open the crate if possible, then read the note.", "Open the crate, then read the note."),
    ("Once you're finished, open the crate.", "open the crate."),
    ("Open the crate, after which read the note.", "Open the crate, then read the note."),
    ("Only after the gate opens, open the crate.", "after the gate opens, open the crate."),
    ("Wend your way to the crate.", "go to the crate."), ("Give the crate a kick.", "kick the crate."),
    ("Take a leap over the crate.", "leap over the crate."), ("Make a dash for the crate.", "dash to the crate."),
    ("Knock it over.", "Knock over it."), ("Walk out of the gate.", "go to the gate."),
])
def test_words_that_belong_to_no_step_or_say_it_roundabout_are_read_plainly(written: str, read: str) -> None:
    assert plain(written) == read


def test_an_instance_numbered_after_its_noun_is_an_ordinal_and_a_budget_is_no_instance() -> None:
    assert numbered("Open crate number 2 and chest #3.") == "Open the second crate and the third chest."
    assert numbered("Walk to crate 4 for 20 steps.") == "Walk to the fourth crate for 20 steps."
    assert split_sentences("Open crate no. 5. Read the note.") == ["Open the fifth crate.", "Read the note."]


def test_a_verb_like_no_action_is_read_in_a_rarer_sense_that_acts_on_its_object(nlp) -> None:  # type: ignore[no-untyped-def]
    assert any_sense("engage", {"interact": TOUCHING["interact"]}).name == "interact"
    steps = read_steps("Engage the button, then give the goblin a kick.", TOUCHING, ACTOR_TYPES, nlp, targets=TARGETS)
    assert [(s.action, s.actor_type) for s in steps] == [("interact", "switch"), ("attack", "enemy")]
    with pytest.raises(Exception, match="like none of the game's actions"):  # no object that a rare sense fits
        read_steps("Engage.", TOUCHING, ACTOR_TYPES, nlp, targets=TARGETS)


def test_the_fourth_development_sets_are_no_held_out_text() -> None:
    dev = {c.text for name in ("dungeon_dev4", "park_dev4") for c in cases(name)}
    held = {c.text for name in SETS for c in cases(name) if not name.endswith("_8")}
    assert not dev & held, sorted(dev & held)
