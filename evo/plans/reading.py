"""A text as its steps are read: the passes that take a tester's words down to steps, in order.

Each pass is a module of families found in independent testers' texts (see each module); the
reader (:func:`evo.plans.text.read_steps`) splits and tags what they leave.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from evo.plans.conventions import conventions
from evo.plans.framing import renamed, unframed
from evo.plans.items import itemized
from evo.plans.letters import unlettered
from evo.plans.ordering import in_order, opener_first
from evo.plans.reports import described, unreported
from evo.plans.restated import restated
from evo.plans.second_language import plain
from evo.plans.small_talk import talk_left_out
from evo.plans.states import stated_left_out
from evo.plans.tracker import untitled
from evo.plans.visits import back_to, each_named, visited


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
    text = talk_left_out(stated_left_out(described(each_named(text, things), things, verbs), things, verbs), things, verbs)
    text = unreported(renamed(back_to(text, things)), things)
    if isinstance(things, Mapping) and isinstance(verbs, Mapping):
        text = itemized(text, things, verbs, deeds or {})
    text = untitled(plain(text, things, verbs), things, verbs, categories)
    return restated(in_order(visited(unframed(opener_first(conventions(unlettered(text, things), things))), things, verbs, deeds)))


DIRECTED = frozenset({"north", "south", "east", "west", "forward", "backward", "left", "right", "wait"})
"""Actions whose words are directions ("up", "left"), no verb that starts a step."""


def game_words(actions: Mapping[str, Iterable[str]], actor_types: Mapping[str, Iterable[str]],
               targets: Mapping[str, Iterable[str]] | None) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The game's words as the passes before the reader take them (:func:`evo.plans.reading.as_read`):
    a word for a thing -> its type, a verb -> its action, a word for a thing -> the one action done to it."""
    things = {word: name for name, synonyms in actor_types.items() for word in (name, *synonyms)}
    verbs = {word.split()[0]: name for name, synonyms in actions.items() for word in (name, *synonyms)
             if name not in DIRECTED and word.split()[0].isalpha()}
    acting = {name: [a for a, on in (targets or {}).items() if name in set(on)] for name in set(things.values())}
    return things, verbs, {word: acting[name][0] for word, name in things.items() if len(acting[name]) == 1}  # "the lever" alone: pull it
