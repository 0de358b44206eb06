"""One thing or things of a kind: whether a step is done once, at one thing (a node), or to any
thing of a kind (a rule), from the words around its object, where the trained classifier reads
"a" as "any" and cannot see a checklist's missing article."""

from __future__ import annotations

from itertools import takewhile
from typing import Any

from evo.plans.clause_words import DETERMINERS, QUANTIFIERS
from evo.plans.clauses import Clause
from evo.plans.lexicon import _lemma


def kinds(clause: Clause) -> bool:
    """A clause whose object is a plural with no article ("grab coins", "kill enemies"): any of
    them, a rule, in a sentence of several steps too."""
    words = [w.strip(".,;:!?").lower() for w in clause.text.split()]
    actor = (clause.actor_word or "").lower().split()
    if clause.condition is not None or len(actor) != 1 or actor[0] not in words:
        return False
    at = words.index(actor[0])
    return at > 0 and words[at - 1] not in DETERMINERS | {"two", "three", "four", "both", "those", "these", "my", "your"} \
        and not words[at - 1].isdigit() and _lemma(actor[0], "n") != actor[0]


def one_thing(doc: Any, clause: Clause) -> bool:
    """A step at one thing: its actor follows "a"/"an" or is "it" (the thing before, "Walk up to
    the lever. Pull it."), and no quantifier or condition makes it a rule (the classifier reads
    "a" as "any")."""
    words = [t.text.lower() for t in doc]
    first = ((clause.actor_word or "").lower().split() or [""])[0]  # "a gold coin": its phrase's first word
    at = [k for k, w in enumerate(words) if w == first]
    return clause.condition is None and not QUANTIFIERS & set(words) and (
        (clause.actor_word or "").lower() in ("it", "there")  # "Pull it.": the one thing before
        or any(k > 0 and words[k - 1] in ("a", "an", "one", "single", "some") for k in at))  # "some gold": a bit of it


def bare_one(doc: Any, clause: Clause) -> bool:
    """A checklist's step at one thing: its actor a singular noun with no article ("Kill goblin",
    "Open door"), no quantifier or condition; a plural ("Grab coins") is things of a kind."""
    words = [t.text.lower() for t in doc]
    actor = (clause.actor_word or "").lower().split()  # "jump over lava pit": its phrase's first word and last
    if clause.condition is not None or QUANTIFIERS & set(words) or not actor or actor[0] not in words:
        return False
    at = words.index(actor[0])
    return at > 0 and words[at - 1] not in DETERMINERS and doc[at - 1].text.isalpha() and not doc[at - 1].is_punct \
        and _lemma(actor[-1], "n") == actor[-1] and not actor[-1].endswith("s")


def the_one(doc: Any, clause: Clause) -> bool:
    """A step at the one thing "the" names ("Jump over the lava", "cross the lava by means of a
    jump"): a singular noun after "the", no quantifier, no condition; a standing order needs one of
    those, or a plural ("the coins" is every coin)."""
    words = [t.text.lower() for t in doc]
    actor = (clause.actor_word or "").lower().split()
    if clause.condition is not None or QUANTIFIERS & set(words) or not actor or actor[-1] not in words:
        return False
    at = words.index(actor[-1]) - (len(actor) - 1)
    return at > 0 and words[at - 1] == "the" and all(_lemma(w, "n") == w and not w.endswith("s") for w in actor)


def any_one(doc: Any, clause: Clause) -> bool:
    """A step at any one thing of a kind, said in a row of steps or alone ("Kill the ogre, then the
    skeleton, then any goblin", "Just go to any stump"): "any" before a singular noun that ends the
    clause, with no condition or relative clause after it ("any goblin you see", "any goblin that
    comes near" are standing orders) and no other quantifier."""
    words = [w.strip(".,;:!?").lower() for w in clause.text.split()]
    words = [w for w in words if w]
    actor = (clause.actor_word or "").lower().split()
    if clause.condition is not None or len(actor) != 1 or actor[0] not in words or set(words) & {"every", "all", "each", "always", "whenever"}:
        return False
    at = words.index(actor[0])
    said = [t.text.lower() for t in doc]  # the sentence: "any coin on the way" goes on past the clause
    ends = [k for k, w in enumerate(said) if w == actor[0]]
    after = said[ends[-1] + 1:] if ends else []
    rest = list(takewhile(lambda w: w not in (",", ";", "then", "and", ".", "!", "?"), after))
    return at > 0 and words[at - 1] == "any" and _lemma(actor[0], "n") == actor[0] and not actor[0].endswith("s") \
        and all(w in ("first", "last", "too", "also", "next", "please") for w in [*words[at + 1:], *rest])
