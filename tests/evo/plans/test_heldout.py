"""Text to plan on texts it was not built on (``heldout/``: a set written after each of the
pipeline's three freezes, a fourth after the third by an independent tester, a fifth after a
later freeze by another independent tester, and a sixth after a later freeze by a third, fixed
against since, so a development set now): by pattern,
the plans they give are the plans a tester meant, and pass on the bug-free build. One test per
set and pattern, each allowing the misses measured (``benchmarks/text_plans.py`` prints them).
The park's texts are read, not run (the benchmark runs them, a ViZDoom episode each: CI has
little headroom)."""

from __future__ import annotations

import json
import re

import pytest

from evo.plans.markers import MARKER
from evo.plans.text import DATA, split_sentences
from tests.evo.plans.heldout.score import SETS, cases, score

DUNGEON = ("steps", "clauses", "go_and_do", "synonyms", "relative", "rules_only", "conditions")
PARK = ("steps", "clauses", "go_and_do", "synonyms", "instances")
THIRD = {"dungeon_3": (*DUNGEON, "budgets"), "park_3": (*PARK, "circle", "time")}
"""The third sets' patterns: the checklist's, with step budgets, circling and time budgets."""
FOURTH = {"dungeon_4": THIRD["dungeon_3"], "park_4": THIRD["park_3"]}
"""The fourth sets' patterns: the third's."""
FIFTH = {"dungeon_5": THIRD["dungeon_3"], "park_5": THIRD["park_3"]}
"""The fifth sets' patterns: the third's (eight dungeon texts each, five park texts each)."""
SIXTH = {"dungeon_6": THIRD["dungeon_3"], "park_6": THIRD["park_3"]}
"""The sixth sets' patterns: the third's (eight dungeon texts each, five park texts each)."""
SEVENTH = {"dungeon_7": THIRD["dungeon_3"], "park_7": THIRD["park_3"]}
"""The seventh sets' patterns: the third's (eight dungeon texts each, five park texts each),
written by a fourth independent tester after the final freeze at commit ca7edbd."""
EIGHTH = {"dungeon_8": THIRD["dungeon_3"], "park_8": THIRD["park_3"]}
"""The eighth sets' patterns: the third's (eight dungeon texts each, five park texts each),
written by a fifth independent tester after the final freeze at commit b0fe924."""
NINTH = {"dungeon_9": THIRD["dungeon_3"], "park_9": THIRD["park_3"]}
"""The ninth sets' patterns: the third's, written blind by a sixth independent tester after
commit 9d8ace9, while set 8's misses were fixed by another engineer who never saw them
(committed before any measurement, commit 13867ba; measured on the fixed pipeline)."""
MISSES = {("dungeon", "steps"): 2, ("dungeon", "clauses"): 1, ("dungeon", "synonyms"): 2,
          ("dungeon_2", "synonyms"): 1, ("park", "synonyms"): 1, ("dungeon_3", "synonyms"): 1,
          ("dungeon_5", "synonyms"): 5, ("dungeon_6", "steps"): 1, ("dungeon_6", "synonyms"): 1,
          ("dungeon_7", "synonyms"): 3, ("dungeon_9", "steps"): 2, ("dungeon_9", "synonyms"): 3,
          ("dungeon_9", "budgets"): 1, ("park_9", "steps"): 1}
"""(set, pattern) -> texts (of 2 to 10) that miss the meant plan or, where run, fail on the
bug-free build, as measured (docs/guides/text-plans.md lists them); none elsewhere. Sets 4 and 5
were fixed after they were measured, so neither is held out from this pipeline any more; set
5's misses left are the words WordNet does not relate to the game's (the guide lists them). Set 6,
written by a third independent tester after the freeze at commit 24c563e, scored 69% / 91% held
out; its families were then fixed (with ``dev/dungeon_dev2.yaml``, ``dev/park_dev2.yaml``), so it is a
development set now: the misses allowed are those left ("Find", "Stab", a budget over an
activity). Set 7, written by a fourth independent tester after the freeze at commit ca7edbd and
committed before it was measured (commit 1ccf5c5), scored 84% / 83% dungeon, 100% / 97% park held
out; its families were then fixed (with ``dev/*_dev3.yaml``), so it is a development set now: the
misses allowed are those left ("some money" read as the collectables, as set 1's tester meant
"the money"; two plans read right that walk to the locked door, the tester's plans). Set 8,
written by a fifth independent tester after the final freeze at commit b0fe924 and committed
before it was measured (commit 0617a05), scored 86% / 86% dungeon, 100% / 100% park held out; its
families were then fixed (with ``dev/*_dev4.yaml``, :mod:`evo.plans.phrasing`), so it is a
development set now, with no miss left (100% / 100% both games). The same fixes read one more
text of sets 2, 3 and 5 each ("trip the switch", "operate the button" in WordNet's rarer senses).
Set 9 is held out from this pipeline: its misses are allowed as measured (91% / 91% dungeon, 97% /
97% park)."""


RUN = {"dungeon_3", "dungeon_4", "dungeon_5", "dungeon_6", "dungeon_7"}
"""The sets of the third to seventh whose plans are run on the bug-free build in the suite: every
dungeon set; the park sets are read, not run (a ViZDoom episode a text: set 7's alone took 30 s
of CI's 35 minutes), and ``benchmarks/text_plans.py`` runs them all, every plan read right passing."""


READ_AS_TRAINED = {"hit the switch"}
"""Held-out sentences the pipeline reads as a training sentence, though the tester wrote other
words: set 7's "Hit the switch first." (the order adverb "first" belongs to no step and is
dropped since set 8's fixes)."""


def _written(text: str) -> list[str]:
    """A text's sentences as written, labels included ("Then press the switch."): two sets share a
    sentence only when a tester wrote the same words (the pipeline takes labels off)."""
    lines = [MARKER.sub("", line) for line in text.splitlines()]  # "1." alone is no sentence
    return [s for line in lines for s in re.split(r"(?<=[.!?])\s+", line.strip()) if s.strip()]


def _norm(sentence: str) -> str:
    return " ".join(sentence.lower().strip(" .!?").split())


def test_the_held_out_sets_share_no_sentence_with_the_training_set() -> None:
    trained = {_norm(json.loads(line)["text"]) for line in DATA.read_text().splitlines() if line.strip()}
    held = {_norm(s) for name in SETS for c in cases(name) for s in split_sentences(c.text)}
    assert not held & trained - READ_AS_TRAINED, sorted(held & trained)
    for game in ("dungeon", "park"):
        first, second, third = ({_norm(s) for c in cases(name) for s in _written(c.text)}
                                for name in (game, f"{game}_2", f"{game}_3"))
        assert not third & (first | second), sorted(third & (first | second))
        fourth = {_norm(s) for c in cases(f"{game}_4") for s in _written(c.text)}
        assert not fourth & (first | second | third), sorted(fourth & (first | second | third))
        fifth = {_norm(s) for c in cases(f"{game}_5") for s in _written(c.text)}
        assert not fifth & (first | second | third | fourth), sorted(fifth & (first | second | third | fourth))
        sixth = {_norm(s) for c in cases(f"{game}_6") for s in _written(c.text)}
        earlier = first | second | third | fourth | fifth
        assert not sixth & earlier, sorted(sixth & earlier)
        seventh = {_norm(s) for c in cases(f"{game}_7") for s in _written(c.text)}
        assert not seventh & (earlier | sixth), sorted(seventh & (earlier | sixth))
        eighth = {_norm(s) for c in cases(f"{game}_8") for s in _written(c.text)}
        assert not eighth & (earlier | sixth | seventh), sorted(eighth & (earlier | sixth | seventh))
        ninth = {_norm(s) for c in cases(f"{game}_9") for s in _written(c.text)}
        assert not ninth & (earlier | sixth | seventh | eighth), sorted(ninth & (earlier | sixth | seventh | eighth))
    assert {c.text for c in cases("dungeon_2")}.isdisjoint(c.text for c in cases("dungeon"))


def test_the_held_out_sets_are_large_enough() -> None:
    assert len(cases("dungeon")) + len(cases("dungeon_2")) >= 60 and len(cases("park")) + len(cases("park_2")) >= 30
    assert {c.pattern for c in cases("dungeon")} == {c.pattern for c in cases("dungeon_2")} == set(DUNGEON)
    assert {c.pattern for c in cases("park")} == {c.pattern for c in cases("park_2")} == set(PARK)
    assert len(cases("dungeon_3")) >= 30 and len(cases("park_3")) >= 15
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in THIRD.items())
    assert len(cases("dungeon_4")) >= 25 and len(cases("park_4")) >= 10
    assert len(cases("dungeon_3")) + len(cases("dungeon_4")) >= 60 and len(cases("park_3")) + len(cases("park_4")) >= 30
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in FOURTH.items())
    assert len(cases("dungeon_5")) >= 60 and len(cases("park_5")) >= 30  # set 5 alone
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in FIFTH.items())
    assert len(cases("dungeon_6")) >= 60 and len(cases("park_6")) >= 30  # set 6 alone
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in SIXTH.items())
    assert len(cases("dungeon_7")) >= 60 and len(cases("park_7")) >= 30  # set 7 alone
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in SEVENTH.items())
    assert len(cases("dungeon_8")) >= 60 and len(cases("park_8")) >= 30  # set 8 alone
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in EIGHTH.items())
    assert len(cases("dungeon_9")) >= 60 and len(cases("park_9")) >= 30  # set 9 alone
    assert all({c.pattern for c in cases(name)} == set(patterns) for name, patterns in NINTH.items())


@pytest.mark.parametrize("held, pattern", [(h, p) for h in ("dungeon", "dungeon_2") for p in DUNGEON]
                         + [(h, p) for sets in (THIRD, FOURTH, FIFTH, SIXTH, SEVENTH) for h, patterns in sets.items() for p in patterns
                            if h in RUN]
                         + [(h, p) for h in ("dungeon_8", "dungeon_9") for p in EIGHTH["dungeon_8"]])
def test_texts_give_the_meant_plan_and_pass(held: str, pattern: str, nlp) -> None:  # type: ignore[no-untyped-def]
    outcomes = score(held, nlp, only=[c for c in cases(held) if c.pattern == pattern])
    misses = [(o.case.text, o.got) for o in outcomes if not (o.exact and o.passed)]
    assert len(misses) <= MISSES.get((held, pattern), 0), misses


@pytest.mark.parametrize("held, pattern", [(h, p) for h in ("park", "park_2") for p in PARK]
                         + [(h, p) for h in ("park_3", "park_4", "park_5", "park_6", "park_8", "park_9")
                            for p in THIRD["park_3"] if p in {c.pattern for c in cases(h)}])
def test_park_texts_give_the_meant_plan(held: str, pattern: str, nlp) -> None:  # type: ignore[no-untyped-def]
    outcomes = score(held, nlp, run=False, only=[c for c in cases(held) if c.pattern == pattern])
    misses = [(o.case.text, o.got) for o in outcomes if not o.exact]
    assert len(misses) <= MISSES.get((held, pattern), 0), misses
