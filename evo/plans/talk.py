"""Talk or step: a sentence classifier trained on how testers write, for the talk no pass knows.

The reader's passes leave out the talk they know by its form (greetings, a player's report, the
expected result; :mod:`evo.plans.small_talk`, :mod:`evo.plans.states`, :mod:`evo.plans.reports`),
and a text with a sentence of talk in a form none knows is refused: "Coffee machine is broken
again", "Health drops by 6 per hit", "Stump 3 texture looks stretched" were read as steps whose
words are like none of the game's. Each new tester wrote talk in new forms (issue 55: twenty
waves of families, each closed once read, none closing the next), so this is learned instead:
spaCy's ``textcat`` on a blank English pipeline, trained on the sentences of every development
text the reader reads as meant, each labelled by what leaving it out does (``make_talk``):

- ``step``: the text read without it gives another plan, or none (it held a step, or the thing
  a step's "it" stands for), and every sentence of a one-sentence text;
- ``talk``: the text reads the same plan without it, and it alone reads as no step.

A sentence whose absence changes nothing but which alone reads as a step (a step said twice) is
left out of the data. The generated step sentences the tagger trains on
(:mod:`evo.plans.make_sentences`) are steps too.

It only ever acts on a text the reader refused (:func:`evo.plans.from_text.plan_from_text`): the
text is read again without the sentences the model calls talk with a probability of at least
:data:`LEAST`, and that reading is taken only if every clause of it is read with confidence; the
plan names the sentences it left out (``left_out``), so nothing goes silently.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

DATA = Path(__file__).with_name("data") / "talk.jsonl"
STEPS = Path(__file__).with_name("data") / "sentences.jsonl"
SHIPPED = Path(__file__).with_name("data") / "talk"
"""The classifier trained on :data:`DATA`, in a folder named by the data's hash (as the tagger's,
:data:`evo.plans.text.SHIPPED`): the same weights on every machine."""
LEAST = 0.9
"""The probability of talk at which a sentence is left out of a refused text."""
EPOCHS = 6
SEED = 0
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def units(text: str) -> list[tuple[int, int]]:
    """The character spans of a text's sentences: each line, split after a sentence's end."""
    out = []
    for line in re.finditer(r"[^\n]+", text):
        at = 0
        for part in _SENTENCE_END.split(line.group()):
            begin = line.group().index(part, at)
            at = begin + len(part)
            if any(c.isalpha() for c in part):
                out.append((line.start() + begin, line.start() + at))
    return out


def without(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the sentences at ``spans`` taken out, the lines and the rest as written."""
    for begin, end in sorted(spans, reverse=True):
        text = text[:begin] + text[end:]
    lines = (re.sub(r"[ \t]{2,}", " ", line).rstrip() for line in text.splitlines())
    return "\n".join(line for line in lines if line.strip()).strip()


@functools.lru_cache(maxsize=1)
def _data_hash() -> str:
    return hashlib.sha256(DATA.read_bytes() + STEPS.read_bytes()).hexdigest()[:16]


def train(epochs: int = EPOCHS, seed: int = SEED, rows: list[dict] | None = None, model: dict | None = None):  # type: ignore[no-untyped-def]
    """A blank English spaCy pipeline with a ``textcat`` of ``talk`` and ``step``, trained on
    :data:`DATA` (or ``rows``) and the generated step sentences. ``model``: the textcat's
    architecture, spaCy's default (a bag of words and a CNN over the words' shapes and affixes,
    ensembled) where None: on the sentences of waves 50 to 53, held out from its data, it let 24
    of their 158 refused texts read as meant where a bag of words alone let 16, with the same one
    wrong (at :data:`LEAST`)."""
    from evo.plans.text import _import_spacy, fit

    spacy = _import_spacy()
    from spacy.training import Example

    spacy.util.fix_random_seed(seed)
    rows = rows if rows is not None else [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    steps = [{"text": json.loads(line)["text"], "label": "step"} for line in STEPS.read_text().splitlines() if line.strip()]
    nlp = spacy.blank("en")
    textcat = nlp.add_pipe("textcat", config={"model": model} if model is not None else {})
    for label in ("talk", "step"):
        textcat.add_label(label)
    examples = [Example.from_dict(nlp.make_doc(row["text"]), {"cats": {"talk": float(row["label"] == "talk"),
                                                                        "step": float(row["label"] == "step")}})
                for row in [*rows, *steps]]
    return fit(nlp, examples, epochs, seed, size=32, drop=0.1)


def ship() -> Path:
    """Train on :data:`DATA` and write the model where :func:`load` reads it, in place of any before."""
    import shutil

    _data_hash.cache_clear()  # the data was just rewritten
    out = SHIPPED / f"{_data_hash()}-numpy"
    for old in SHIPPED.glob("*-*"):
        shutil.rmtree(old)
    SHIPPED.mkdir(parents=True, exist_ok=True)
    train().to_disk(out)
    return out


_LOADED: dict[str, Any] = {}


def load():  # type: ignore[no-untyped-def]
    """The shipped classifier (trained now, once a process, where a change to the data left none)."""
    key = _data_hash()
    if key not in _LOADED:
        from evo.plans.text import _import_spacy

        shipped = SHIPPED / f"{key}-numpy"
        _LOADED[key] = _import_spacy().load(shipped) if (shipped / "meta.json").exists() else train()
    return _LOADED[key]


def talk_in(text: str, model: Any = None, least: float = LEAST) -> list[tuple[tuple[int, int], float]]:
    """The spans of ``text``'s sentences the model calls talk with probability ``least`` or more,
    each with that probability; none where every sentence would go (a text of talk alone)."""
    spans = units(text)
    model = model if model is not None else load()
    found = [(span, doc.cats["talk"]) for span, doc in zip(spans, model.pipe(text[b:e] for b, e in spans))]
    talk = [(span, p) for span, p in found if p >= least]
    return talk if len(talk) < len(spans) else []



UNDONE_OK = frozenset({"move", "north", "south", "east", "west", "forward", "backward", "left", "right", "wait"})
"""Actions whose words are too common in talk to hold a step ("walk", "on the left")."""


def still_a_step(sentence: str, plan: Any, actions: Mapping[str, Sequence[str]], actors: Mapping[str, Sequence[str]],
                 categories: Mapping[str, Sequence[str]]) -> str | None:
    """What in a sentence left out as talk the plan does not account for, else None: a bidding
    verb ("Hug the wall."), a thing the plan neither goes to nor acts on ("Zorble the altar.",
    "Barrel 4 seems fine."), a deed it never does ("the player should look down first"), a budget
    ("let it run the default 150") or a correction ("Actually no, get the second one"). That
    sentence may have held a step, so the text stays refused."""
    from evo.plans.budgets import without_budget
    from evo.plans.dropped import CORRECTION

    from evo.plans.small_talk import unknown_word

    bidding = _bidding(sentence)
    if bidding is not None:
        return bidding
    if unknown_word(sentence):  # "Pull the lever. zorble.": a step the reader cannot read
        return sentence.strip(" .!?")
    places = {n.target for n in plan.nodes if n.target}
    for name, words in actors.items():  # "Barrel 4 seems fine. Circle barrel 1.": barrel 4 is no place of the plan
        for word in (name, *words):
            for found in re.finditer(rf"(?<![a-z]){re.escape(word)}\s*(?:_|#|no\.\s*|number\s+)?\s*(?P<n>\d+)\b", sentence, re.IGNORECASE):
                if f"{name}_{found.group('n')}" not in places:
                    return found.group()
    visited = {re.sub(r"_\d+$", "", n.target) for n in plan.nodes if n.target}
    visited |= {r.when[0].near for r in plan.rules if r.when and r.when[0].near}
    visited |= {kind for name in list(visited) for kind in categories.get(name, ())}  # "any enemy": each enemy
    done = {n.action or "move" for n in plan.nodes} | {r.action or "move" for r in plan.rules}
    plain = sentence.replace("_", " ")
    for name, words in actors.items():
        found = _found(plain, (name, *words))
        if found and name not in visited and not set(categories.get(name, ())) & visited:
            return found
    for name, words in actions.items():
        found = _found(plain, (name.replace("_", " "), *words))
        if found and name not in done and name not in UNDONE_OK:
            return found
    if without_budget(sentence) is not None:
        return "a budget"
    correction = CORRECTION.search("x. " + sentence)
    return correction.group("said") if correction else None


TALK_VERBS = frozenset({"let", "note", "tell", "ping", "feel", "enjoy", "have", "hope", "see", "keep", "attach", "send", "report",
                        "file", "log", "load", "verify", "confirm", "check", "make", "expect", "remember", "ask", "mind", "ignore",
                        "start", "tip", "compare", "follow", "record", "capture", "screenshot", "repeat", "run", "test"})
"""Verbs a sentence of talk starts with ("Let me know", "Attach the log", "Load the dungeon"), no step of a game."""


def _bidding(sentence: str) -> str | None:
    """The verb a sentence bids with ("Hug the wall."), where it is no verb of talk: a step in
    words the game may not know, so kept."""
    from evo.plans.lexicon import _lemma, is_verb

    words = re.findall(r"[A-Za-z']+", sentence.lower())
    while words and words[0] in ("please", "pls", "just", "then", "now", "also", "and", "so", "next", "finally"):
        words = words[1:]
    if len(words) >= 2 and words[0] not in TALK_VERBS and is_verb(words[0]) and _lemma(words[0], "v") == words[0] \
            and words[1] in ("the", "a", "an", "it", "them", "that", "this", "all", "every", "each", "any", "to", "over", "around", "up", "down"):
        return words[0]
    return None


def _found(text: str, words: Sequence[str]) -> str | None:
    for word in words:
        found = re.search(rf"(?<![a-z]){re.escape(word)}(?:e?s)?(?![a-z])", text, re.IGNORECASE)
        if found:
            return found.group()
    return None
