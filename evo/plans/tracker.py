"""A test case pasted from a bug tracker: its title line and its lines of context.

A QA engineer who writes test cases between builds (``tests/evo/plans/dev/*_dev25.yaml``, read
after it was measured) puts a title on the first line, with no full stop, and the steps under it:

    Coin sweep
    Pick up every coin on the map.

    Double jump over the pit
    1. jump the lava
    2. jump it again

and lines of context among the steps: "Env: nightly", "Pre: fresh level", "Build: 1.4.2". Read as
steps, the title was a step of its own (a coin visited twice) or refused ("Soak test, no script").

A first line is a title when it names nothing the steps under it do not name again (by a game's
name or synonym, read as the thing it names: "the pit" is the lava) and the lines under it are
written as steps are (a numbered or bulleted line, a full stop, a label) while it is not. A first
line that is a step names a thing the rest does not ("pull the lever\\nthen walk through the
door"), or is written like the rest (dictated lines with no full stops).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

CONTEXT_LINE = re.compile(r"^\s*(?:env(?:ironment)?|pre|preconds?|build|platform|config(?:uration)?|device|bugs?|flags?|"
                          r"browser|os|components?|severity|priority|area|owner|assignee|labels?|tags?|version)\s*[:=].*$",
                          re.IGNORECASE | re.MULTILINE)
"""A line of where the test runs or what it needs, not a step ("Env: nightly", "Pre: fresh level")."""
ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•]|step\s+\d+\s*[:.)])\s*", re.IGNORECASE)
"""A numbered or bulleted line."""
LABEL = re.compile(r"^\s*[A-Za-z][\w -]{0,30}:")
"""A line that starts with a label ("Steps:", "Expected: ...")."""
KIND = re.compile(r"^(?P<label>[ \t]*(?:[\w%'-]+[ \t,]+){0,5}?[\w%'-]+)[ \t]*:[ \t]+(?=\S)", re.MULTILINE)
"""A label before the steps on their line ("Rules-only, 12 s:", "Soak:", "Quick one between builds:")."""
NO_SCRIPT = re.compile(r"[,;]?[ \t]*\b(?:no[ \t]+script(?:ed)?|nothing[ \t]+scripted|unscripted|(?:the[ \t]+)?default[ \t]+budget|"
                       r"free[ \t-]?(?:run|roam))\b(?:[ \t]+this[ \t]+time\b)?[ \t]*|(?:(?<=second)|(?<=seconds)|(?<=minute)|(?<=minutes))[ \t]+(?:soak|smoke|sanity)(?:[ \t]+(?:test|run))?\b",
                       re.IGNORECASE)
"""A kind of run, not a step: "no script", "nothing scripted", "default budget", "free run",
"32 second soak"."""
IN_ORDER = re.compile(r"(?P<verb>\b[a-z]+(?:[ \t]+(?:to|at|around|round|by))?)[ \t]+(?:all[ \t]+|each[ \t]+of[ \t]+)?the[ \t]+(?:(?:two|three|four|five|six)[ \t]+)?(?P<kind>[a-z]+?)s[ \t]*"
                      r"(?:,?[ \t]*(?:in[ \t]+(?:this[ \t]+|that[ \t]+)?order|one[ \t]+by[ \t]+one|one[ \t]+after[ \t]+(?:another|the[ \t]+other))[ \t]*)?,?[ \t]*:?[ \t]*"
                      r"(?P<n>(?:first[ \t]+)?(?:number[ \t]+|#)?\d{1,2}(?:[ \t]*(?:,|,?[ \t]*(?:and|then|->))[ \t]*(?:then[ \t]+)?"
                      r"(?:number[ \t]+|#)?\d{1,2})+)\b", re.IGNORECASE)
"""A deed on things of a kind by their numbers ("Visit the stumps in order: 1, 2, 3, 4")."""


def title_shaped(text: str) -> tuple[str, str] | None:
    """The first line and the lines under it, when the first is written as a title (no full
    stop, not a list item) over lines written as steps are; None otherwise."""
    lines = [line for line in CONTEXT_LINE.sub("", text).splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    head = re.sub(r"\s*\([^)]*\)\s*$", "", lines[0]).strip()
    if not head or head[-1] in ".!?:;" or ITEM.match(head):
        return None
    if not any(ITEM.match(r) or r.rstrip()[-1:] in (".", "!", "?") or LABEL.match(r) for r in lines[1:]):
        return None
    return lines[0], "\n".join(lines[1:])


def title_in_doubt(text: str, things: Mapping[str, str], verbs: Mapping[str, str],
                   categories: Mapping[str, Iterable[str]] | None = None) -> str | None:
    """A first line written as a title that names a thing or deed the steps under it do not
    ("Enemy then loot then exit" over steps that end at the shrine): a title or steps of its
    own, which the reader cannot tell; None when there is none. ``categories``: the game's
    categories and their types; a title's category is named below by any of its types ("Level
    run w/ pickups" over "collect coins")."""
    shaped = title_shaped(text)
    if shaped is None:
        return None
    first, below = shaped
    named = _named(below, things)
    named |= {c for c, types in (categories or {}).items() if named & set(types)}
    if _named(first, things) <= named and _named(first, verbs) <= _named(below, verbs):
        return None
    return first.strip()


NEXT_LABEL = re.compile(r"^[^\n]*?[.!?][ \t]+(?=(?:repro(?:duction)?|steps[ \t]+to[ \t]+reproduce|to[ \t]+reproduce)[ \t]*:)",
                        re.IGNORECASE | re.MULTILINE)
"""A label of the steps after what the bug is, on the same line ("Jumping does nothing from the edge.
Repro: ..."): the steps alone, the bug's words no step."""


BUG_SUMMARY = re.compile(r"^(?P<label>[ \t]*(?:bug|issue|defect|ticket|problem|report)(?:[ \t]*#?[ \t]*\d+)?[ \t]*[:\-–][ \t]*)"
                         r"(?P<said>[^\n]*?[.!?]+)[ \t]+(?=\S)", re.IGNORECASE | re.MULTILINE)
"""A bug's summary after its label, steps after it on the line ("Bug #219: the player takes no
damage from ogres?? Open the door ..."): what the bug is, no step; a summary that is a step
("Bug: pull the lever. Then ...", a verb first and nothing denied) stays."""


def _summary(m: re.Match[str]) -> str:
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    first = re.match(r"[A-Za-z']+", m.group("said"))
    word = first.group(0).lower() if first else ""
    told = not word or not is_verb(word) or _lemma(word, "v") != word or word in ("the", "a", "an", "player", "it", "my", "our") \
        or re.search(r"n't\b|\b(?:not|no|never|nothing|doesn|won|can)\b", m.group("said"), re.IGNORECASE) is not None
    return "" if told else m.group(0)


def unlabelled(text: str, things: Iterable[str] = (), verbs: Iterable[str] = ()) -> str:
    """``text`` without its lines of context, the labels of its kind of test and the words of its
    kind of run (:data:`CONTEXT_LINE`, :data:`KIND`, :data:`NO_SCRIPT`): read before its budget
    is taken out, as a label may hold the budget ("Rules-only, 12 s: ...")."""
    text = BUG_SUMMARY.sub(_summary, NEXT_LABEL.sub("", text))
    text = KIND.sub(lambda m: "" if _kind(m.group("label"), things, verbs) else m.group(0), CONTEXT_LINE.sub("", text))
    return NO_SCRIPT.sub(" ", text)


def untitled(text: str, things: Iterable[str] = (), verbs: Iterable[str] = (),
             categories: Mapping[str, Iterable[str]] | None = None) -> str:
    """``text`` without its lines of context and its title line (the module's families);
    ``things`` and ``verbs``: the game's words for its things and deeds, as mappings to the
    thing or action each names where known (:func:`_named`); ``categories``: the game's
    categories and their types (:func:`title_in_doubt`)."""
    text = IN_ORDER.sub(_in_order, unlabelled(text, things, verbs))
    text = re.sub(r"[ \t]+-[ \t]+(?=[a-z]+[ \t]+(?:to[ \t]+)?(?:each|all|both|every)\b)|,?[ \t]*\bin[ \t]+(?:that|this)[ \t]+order\b",
                  lambda m: ", " if "-" in m.group(0) else "", text, flags=re.IGNORECASE)  # "lamp 1 - walk to each, in that order"
    shaped = title_shaped(text)
    if shaped is None:
        return text
    first, below = shaped
    named = _named(below, things)
    named |= {c for c, types in (categories or {}).items() if named & set(types)}
    if not (_named(first, things) <= named and _named(first, verbs) <= _named(below, verbs)):
        return text  # the first line names a thing or a deed the rest does not: a step, or in doubt
    lines = text.splitlines()
    at = next(k for k, line in enumerate(lines) if line.strip())
    return "\n".join(lines[:at] + lines[at + 1:])


def _named(words: str, things: Iterable[str]) -> set[str]:
    """The things (or deeds) ``words`` name: each word (or its singular) that is one of
    ``things``, as the thing it names when ``things`` maps words to things."""
    names = {t.lower(): (things[t] if isinstance(things, Mapping) else t).lower() for t in things}
    found = set()
    low = words.lower()
    for word, thing in names.items():
        if re.search(rf"\b{re.escape(word)}(?:e?s)?\b", low):
            found.add(thing)
    return found


def _in_order(m: re.Match[str]) -> str:
    """"Visit the stumps in order: 1, 2, 3": the deed at each by its number, in order."""
    numbers = re.findall(r"\d{1,2}", m.group("n"))
    return ", then ".join(f"{m.group('verb')} {m.group('kind')} {n}" for n in numbers)


def _kind(label: str, things: Iterable[str], verbs: Iterable[str]) -> bool:
    """A label that names the kind of test, not a step's thing or deed ("Rules-only, 12 s",
    "Soak", "Bug bash"): it names none of the game's things or deeds, and is no result line."""
    from evo.plans.conventions import CHARTER, GOAL_LINE, HEADING, RESULT_LINE, TITLE

    line, label = label + ":", label.replace("_", " ")  # "stump_4: jump": a thing's name
    return not (_named(label, things) or _named(label, verbs) or any(p.match(line) for p in (RESULT_LINE, HEADING, TITLE,
                                                                                              GOAL_LINE, CHARTER))
                or re.match(r"\s*(?:(?:part|section|phase|stage|room|chapter|area|stop|leg|step)\s*\d|note|nb|tip|important|caution|"
                            r"warning|always|never|then|also|finally|first|next|after|before|when|whenever|if|once)\b", label, re.IGNORECASE))
