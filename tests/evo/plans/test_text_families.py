"""The families of phrasing set 5 missed, read in general: list markers of every kind, budgets
in any words, directions as particles and adverbs, idioms, conditions on an actor doing
something to the player, coordination. Unit checks in words of our own (none in a held-out
set), and the development sets (``dev/``, 126 dungeon and 60 park texts written before the
fixes) read by pattern, allowing the misses measured (docs/guides/text-plans.md lists them).
Plans are only read here, not run: ``benchmarks/text_plans.py --sets dungeon_dev park_dev``
runs them."""

from __future__ import annotations

import pytest

from evo.plans.budgets import budget_steps
from evo.plans.lexicon import best_match, direction
from evo.plans.markers import strip_marker
from evo.plans.text import read_steps, split_sentences
from tests.evo.plans.test_text import ACTIONS, ACTOR_TYPES
from tests.evo.plans.heldout.score import cases, score

DEV_MISSES = {("dungeon_dev", "phrasal"): 2, ("dungeon_dev", "synonyms"): 6, ("park_dev", "circle"): 1,
              ("dungeon_dev2", "take"): 2, ("dungeon_dev2", "synonyms"): 7, ("park_dev2", "synonyms"): 1,
              ("dungeon_dev3", "mass"): 5, ("dungeon_dev3", "chase"): 2,
              ("dungeon_dev4", "phrasal_pronoun"): 4, ("dungeon_dev4", "fillers"): 1,
              ("dungeon_dev4", "light_verbs"): 2, ("dungeon_dev4", "sequence"): 1, ("park_dev4", "circle"): 1,
              ("park_dev3", "directions"): 1}
"""(set, pattern) -> development texts that still miss the meant plan, as measured; none elsewhere
(``*_dev2``: the second development sets, of set 6's families, ``test_text_serial.py``; ``*_dev3``:
the third, of set 7's, ``test_text_adverbs_coordination_and_rule_words.py``; ``*_dev4``: the fourth, of set 8's,
``test_text_requests_hedges_and_idioms.py``). "Hurry over to the keg and hop twice." (``park_dev3``)
meant one jump; since wave 7 "twice" is the deed done twice, as the later testers meant it
(``evo.plans.letters``)."""
DEV_SIZES = {"dungeon_dev": 120, "park_dev": 60, "dungeon_dev2": 100, "park_dev2": 40, "dungeon_dev3": 104, "park_dev3": 40,
             "dungeon_dev4": 107, "park_dev4": 41}


@pytest.mark.parametrize("marked", ["3. Open the crate", "3) Open the crate", "(3) Open the crate", "#3 Open the crate",
                                    "c) Open the crate", "• Open the crate", "Step 3: Open the crate",
                                    "Step three - Open the crate", "Third step: Open the crate", "3rd: Open the crate",
                                    "Thirdly open the crate", "Last of all, open the crate", "To finish, open the crate",
                                    "iii) Open the crate", "Step C: Open the crate", "You should open the crate",
                                    "Make sure to open the crate", "Go and open the crate"])
def test_a_list_marker_or_step_label_is_no_part_of_the_step(marked: str) -> None:
    assert strip_marker(marked).lower() == "open the crate"


def test_markers_inside_a_line_split_it_and_a_label_alone_is_no_step() -> None:
    assert split_sentences("(1) Open the crate (2) Read the note") == ["Open the crate", "Read the note"]
    assert split_sentences("Step 1.\nOpen the crate.") == ["Open the crate."]


@pytest.mark.parametrize("text, steps", [("Open every crate; you have 45 steps.", 45), ("You get 30 moves: open crates.", 30),
                                         ("Play 70 turns.", 70), ("Open crates within 25 steps.", 25),
                                         ("Spend 8 seconds opening crates.", 70), ("End after 12 moves.", 12)])
def test_a_budget_is_any_count_of_steps_or_time(text: str, steps: int) -> None:
    assert budget_steps(text, 4 / 35) == steps


def test_a_direction_word_never_matches_the_opposite_name() -> None:
    names = {"look_up": [], "look_down": [], "turn_left": [], "turn_right": []}
    assert direction("peer upward") == "up" and direction("jump") is None
    assert best_match("peer upward", names, "v").name == "look_up"
    assert best_match("swivel to the right", names, "v").name == "turn_right"


@pytest.mark.parametrize("text, plan", [
    ("Should a bat show up, smash it. Then press the lever.", [("rule", "attack", "enemy"), ("node", "interact", "switch")]),
    ("If a zombie is in front of you, hit it.", [("rule", "attack", "enemy")]),
    ("Wait until the gate opens, then go through it.", [("node", None, "door")]),
    ("Head to the lever and give it a tug.", [("node", None, "switch"), ("node", "interact", None)]),
    ("Run to the ledge and do a jump twice.", [("node", None, "lava"), ("node", "jump", None), ("node", "jump", None)]),
    ("Walk to the altar. Once you get there, press it.", [("node", None, "shrine"), ("node", "interact", None)]),
])
def test_conditions_and_deeds_in_other_words(text: str, plan: list, nlp) -> None:  # type: ignore[type-arg, no-untyped-def]
    steps = read_steps(text, ACTIONS, ACTOR_TYPES, nlp)
    assert [(s.parsed.kind, s.action, s.actor_type or (s.condition_match.name if s.condition_match else None))
            for s in steps] == plan


@pytest.mark.parametrize("held", list(DEV_SIZES))
def test_the_development_sets_give_the_meant_plans(held: str, nlp, readings) -> None:  # type: ignore[no-untyped-def]
    outcomes = readings.get(held) or score(held, nlp, run=False)
    assert len(outcomes) >= DEV_SIZES[held]
    for pattern in {o.case.pattern for o in outcomes}:
        misses = [(o.case.text, o.got) for o in outcomes if o.case.pattern == pattern and not o.exact]
        assert len(misses) <= DEV_MISSES.get((held, pattern), 0), misses


def test_the_development_sets_are_no_held_out_text() -> None:
    dev = {c.text for name in ("dungeon_dev", "park_dev") for c in cases(name)}
    held = {c.text for name in ("dungeon", "dungeon_2", "dungeon_3", "dungeon_4", "dungeon_5",
                                "park", "park_2", "park_3", "park_4", "park_5") for c in cases(name)}
    assert not dev & held, sorted(dev & held)
