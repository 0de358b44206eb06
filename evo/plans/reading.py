"""A text as its steps are read: the passes that take a tester's words down to steps, in order.

Each pass is a module of families found in independent testers' texts (see each module); the
reader (:func:`evo.plans.text.read_steps`) splits and tags what they leave.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from evo.plans.conventions import conventions
from evo.plans.framing import renamed, unframed
from evo.plans.letters import unlettered
from evo.plans.ordering import in_order
from evo.plans.reports import unreported
from evo.plans.second_language import plain
from evo.plans.small_talk import talk_left_out
from evo.plans.tracker import untitled
from evo.plans.visits import back_to, visited


def as_read(text: str, things: Iterable[str] = (), verbs: Iterable[str] = (),
            categories: Mapping[str, Iterable[str]] | None = None, deeds: Mapping[str, str] | None = None) -> str:
    """``text`` as its steps are read (``--explain`` shows it): in plain English
    (:mod:`evo.plans.second_language`), without a tracker's title (:mod:`evo.plans.tracker`), the
    frame of a message (:mod:`evo.plans.letters`), the test case's forms and the words around the
    steps (:mod:`evo.plans.conventions`, :mod:`evo.plans.framing`), things named alone as visits
    (:mod:`evo.plans.visits`), the steps in order (:mod:`evo.plans.ordering`); ``things`` and
    ``verbs``: the game's words for its things and deeds, mapped to what each names where known
    (what players reported, :mod:`evo.plans.reports`, and talk that names none of them,
    :mod:`evo.plans.small_talk`, are out first);
    ``categories``: the game's categories and their types; ``deeds``: a word for a thing -> the one
    action the game does to it (:func:`evo.plans.visits.visited`)."""
    text = untitled(plain(unreported(renamed(back_to(talk_left_out(text, things, verbs), things)), things), things, verbs), things, verbs, categories)
    return in_order(visited(unframed(conventions(unlettered(text, things), things)), things, verbs, deeds))
