"""Steps that are standing orders in disguise: an activity under a budget ("Grab coins for 130
steps"), and a step on "the" things of a kind said again as an order for all of them ("Kill the
goblins. All of them.")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from evo.plans.lexicon import _lemma
from evo.plans.text import MatchedStep

ARTICLES = frozenset({"the", "a", "an", "this", "that", "these", "those", "one", "single", "my", "your", "its", "their",
                      "first", "second", "third", "fourth", "fifth", "sixth", "two", "three", "both", "some"})
"""Words before a noun that make it certain things, not things of a kind ("the goblins")."""


def repeated(step: MatchedStep) -> MatchedStep:
    """A step under a budget is a rule when it is an activity, not one deed: its object a plural
    or mass noun with no article ("Grab coins and gold for 130 steps") or a plural after "the"
    ("collect the items for 100 steps"), or its verb a gerund ("Spend 140 steps picking up loot");
    "for 60 steps, kill the ogre" stays one step."""
    parsed, clause = step.parsed, step.parsed.clause
    if parsed.kind == "rule" or clause is None or clause.condition is not None or not parsed.actor_word:
        return step
    words = [w.strip(".,;:!?").lower() for w in parsed.text.split()]
    actor = parsed.actor_word.lower().split()[-1]
    at = words.index(actor) if actor in words else -1
    bare = at > 0 and actor not in ("it", "them", "one", "there", "him", "her") and (words[at - 1] not in ARTICLES  # "coins", "gold": things of a kind
                       or (words[at - 1] == "the" and _plural(actor)))  # "collect the items": all of them
    gerund = bool(parsed.action_word) and parsed.action_word.split()[0].lower().endswith("ing") \
        and _lemma(parsed.action_word.split()[0], "v") != parsed.action_word.split()[0].lower()
    return replace(step, parsed=replace(parsed, kind="rule", confidence=1.0)) if bare or gerund else step


def _the_plural(parsed: Any) -> bool:
    """The step's thing is a plural after "the" ("kill the goblins")."""
    words = [w.strip(".,;:!?").lower() for w in parsed.text.split()]
    actor = (parsed.actor_word or "-").lower().split()[-1]
    at = words.index(actor) if actor in words else -1
    return at > 0 and words[at - 1] == "the" and _plural(actor)


def _plural(word: str) -> bool:
    """A noun in the plural: WordNet's lemma differs, or it ends in one "s" ("barrels" is a lemma of
    WordNet's too, "a great amount")."""
    return _lemma(word, "n") != word or word.endswith("s") and not word.endswith("ss")


def all_of_them(steps: Sequence[MatchedStep]) -> list[MatchedStep]:
    """A step on "the" things of a kind, then a standing order to do the same to all of them ("Kill
    the goblins. All of them.", "Kill the goblins, every one you see."): the standing order alone;
    steps on "the" things of a kind beside standing orders, and no other step: standing orders too."""
    out: list[MatchedStep] = []
    for step in steps:
        before = out[-1] if out else None
        if before is not None and before.parsed.kind == "rule" and step.parsed.kind == "rule" and before.action == step.action \
                and step.actor_type is None and step.condition_match is None and (step.parsed.actor_word or "").lower() in ("one", "ones", "it", "them"):
            continue  # "coins only. grab every one you can. 300 steps.": the standing order before
        if before is not None and before.parsed.kind != "rule" and step.parsed.kind == "rule" and before.action == step.action \
                and before.parsed.clause is not None and before.parsed.clause.condition is None and _the_plural(before.parsed) \
                and step.actor_type in (None, before.actor_type):
            out[-1] = replace(before, parsed=replace(before.parsed, kind="rule", confidence=1.0))
            if step.actor_type is None:
                continue  # "All of them.": the kind before
        if before is not None and before.parsed.kind == "rule" and step.parsed.kind != "rule" and step.action == before.action \
                and step.actor_type is None and (step.parsed.actor_word or "").lower() == "them":
            continue  # "Check out the stumps for 5 seconds, just walk to them.": the standing order's
        out.append(step)
    nodes = [k for k, step in enumerate(out) if step.parsed.kind != "rule"]
    if len(nodes) < len(out) and nodes and all(out[k].parsed.clause is not None and out[k].parsed.clause.condition is None
                                                and _the_plural(out[k].parsed) for k in nodes):
        out = [replace(step, parsed=replace(step.parsed, kind="rule", confidence=1.0)) for step in out]  # "kill any goblin that comes near, and take the coins also"
    return out

