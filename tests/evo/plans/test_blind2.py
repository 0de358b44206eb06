"""The second blind set (``blind2/dungeon.yaml``, ``blind2/park.yaml``), scored once and kept as a
test that allows exactly the misses measured (issue 55).

An independent tester wrote it from the user docs alone (never the reader's code, data, tests,
measurements or earlier sets); it was committed unread (ce35875) and scored once, on commit
14b85bc, after two fresh development waves in a row had read at least 85% right and at most 3%
wrong unread (wave 59: 90.0% / 2.8%, wave 60: 86.7% / 2.4%). Of its 122 texts, 94 read as meant
(77.0%), 21 were refused with their closest reading (17.2%) and 7 gave a wrong plan (5.7%): the
dungeon 59 of 80 (5 wrong), the park 35 of 42 (2 wrong). 72 of the 94 passed on the bug-free
build then, 77 since a plan's step takes the jump its text left out (session 28); the other 17
are plans the level cannot complete as the tester wrote them ("attack goblin 2" behind the shut
door). docs/guides/text-plans.md gives the table by pattern. A text read as meant then must stay so; a text missed then may be read as meant
later, never wrong anew."""

from __future__ import annotations

import pytest

from tests.evo.plans.heldout.score import blind_misses

MISSED = {"dungeon": {3, 23, 26, 29, 33, 40, 47, 50, 51, 54, 55, 56, 57, 58, 59, 60, 62, 67, 71, 77, 79},
          "park": {19, 23, 25, 31, 37, 38, 40}}
"""The texts (by their place in the file) not read as meant at the one scoring."""
WRONG = {"dungeon": {3, 54, 55, 59, 79}, "park": {25, 40}}
"""Of those, the texts read as a wrong plan: the others were refused."""


@pytest.mark.parametrize("game, texts", [("dungeon", 80), ("park", 42)])
def test_the_second_blind_set_reads_at_least_as_scored(game: str, texts: int, nlp) -> None:  # type: ignore[no-untyped-def]
    rows, missed, wrong = blind_misses("blind2", game, nlp)
    assert len(rows) == texts
    assert missed <= MISSED[game], [rows[k]["text"] for k in sorted(missed - MISSED[game])]
    assert wrong <= WRONG[game], [rows[k]["text"] for k in sorted(wrong - WRONG[game])]
