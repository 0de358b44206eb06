"""Text to plan: test steps written for people, read into plan steps offline.

The explicit-plans article (Automated Game Testing, agt-explicit-plans.txt, "Text to Plan")
turns a QA engineer's numbered steps into plan nodes with spaCy in three stages, done here
the same way with nothing downloaded:

1. sentence classification: is the sentence a node (do this once, at this thing) or a rule
   (do this whenever it applies)? spaCy's ``textcat`` on a blank English pipeline;
2. token classification: the action keyword and the actor keyword (spaCy's ``ner`` with
   labels ``ACTION`` and ``ACTOR``);
3. matching the keywords to the names the game accepts (its actions and actor types, each
   with synonyms) by string similarity (:func:`match_name`).

Both models train here, on CPU in well under a minute, from the annotated sentences shipped
in ``evo/plans/data/sentences.jsonl`` (:mod:`evo.plans.make_sentences`), with a fixed seed;
the trained pipeline is kept under ``~/.cache/evo/text_to_plan/<hash of the data>`` (or
``$EVO_CACHE``) and reloaded from there, so it trains once per machine and data set.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Iterable, Mapping, Sequence

DATA = Path(__file__).with_name("data") / "sentences.jsonl"
EPOCHS = 8
"""Passes over the sentence set: every held-out test sentence is read right from 6 on."""
SEED = 0
MATCH_THRESHOLD = 0.75
"""Least similarity (difflib's ratio, 0..1) for a keyword to count as a name or synonym:
"activates" matches "activate" (0.94), "gate" does not match "goblin" (0.2)."""
NO_ACTION = "move"
"""The action name of a step that only goes somewhere ("Go to the door.")."""


def _import_spacy():  # type: ignore[no-untyped-def]
    try:
        import spacy
    except ImportError as exc:
        raise ImportError("text to plan needs spaCy: pip install -e '.[plans]'") from exc
    return spacy


@dataclass(frozen=True)
class ParsedStep:
    """One sentence read as a plan step, before it is matched to a game.

    Attributes:
        text: The sentence as written.
        kind: ``"node"`` or ``"rule"``.
        action_word: The action keyword the sentence holds, or None.
        actor_word: The actor keyword, or None.
        confidence: The classifier's probability of ``kind``.
    """

    text: str
    kind: str
    action_word: str | None
    actor_word: str | None
    confidence: float


@dataclass(frozen=True)
class MatchedStep:
    """A parsed step with its keywords matched to a game's names (None: no match).

    ``action`` None means the keyword matched no action (the step only goes to its target);
    ``actor_type`` None means no actor type matched (the step falls back to a location).
    """

    parsed: ParsedStep
    action: str | None
    actor_type: str | None


def split_sentences(text: str) -> list[str]:
    """Steps of a text: one per line, a line with several sentences split at their ends;
    list markers ("1.", "2)", "-", "*", "Step 3:") removed."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*]|\d+[.)]|step\s+\d+\s*:)\s*", "", line, flags=re.IGNORECASE)
        for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
            if sentence.strip():
                out.append(sentence.strip())
    return out


def _data_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _cache_dir(path: Path) -> Path:
    root = Path(os.environ.get("EVO_CACHE", Path.home() / ".cache" / "evo"))
    return root / "text_to_plan" / _data_hash(path)


def train(path: Path = DATA, epochs: int = EPOCHS, seed: int = SEED):  # type: ignore[no-untyped-def]
    """A blank English spaCy pipeline with ``textcat`` and ``ner`` trained on ``path``."""
    spacy = _import_spacy()
    from spacy.training import Example

    spacy.util.fix_random_seed(seed)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    nlp = spacy.blank("en")
    textcat = nlp.add_pipe("textcat")
    for label in ("node", "rule"):
        textcat.add_label(label)
    ner = nlp.add_pipe("ner")
    for label in ("ACTION", "ACTOR"):
        ner.add_label(label)
    examples = []
    for row in rows:
        doc = nlp.make_doc(row["text"])
        cats = {"node": float(row["kind"] == "node"), "rule": float(row["kind"] == "rule")}
        ents = [tuple(e) for e in row["entities"]]
        examples.append(Example.from_dict(doc, {"cats": cats, "entities": ents}))
    optimizer = nlp.initialize(lambda: examples)
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(examples)
        for batch in spacy.util.minibatch(examples, size=16):
            nlp.update(batch, sgd=optimizer, drop=0.2)
    return nlp


def load_pipeline(path: Path = DATA):  # type: ignore[no-untyped-def]
    """The trained pipeline for the sentence set at ``path``: from the cache, or trained and
    cached now."""
    spacy = _import_spacy()
    cached = _cache_dir(path)
    if (cached / "meta.json").exists():
        return spacy.load(cached)
    nlp = train(path)
    tmp = cached.with_name(cached.name + f".tmp{os.getpid()}")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(tmp)
    try:
        tmp.rename(cached)
    except OSError:  # another process cached it first
        pass
    return nlp


def parse(sentences: Sequence[str], nlp=None) -> list[ParsedStep]:  # type: ignore[no-untyped-def]
    """Each sentence as a node or a rule, with its action and actor keywords."""
    nlp = nlp if nlp is not None else load_pipeline()
    out = []
    for doc in nlp.pipe(sentences):
        kind = max(doc.cats, key=doc.cats.get)
        action = next((e.text for e in doc.ents if e.label_ == "ACTION"), None)
        actor = next((e.text for e in doc.ents if e.label_ == "ACTOR"), None)
        out.append(ParsedStep(doc.text, kind, action, actor, float(doc.cats[kind])))
    return out


def _forms(word: str) -> set[str]:
    """A keyword and its singular guesses, lower case ("enemies" -> enemy, enemie, enemies)."""
    w = word.lower().strip()
    forms = {w, w.split()[0]} if w else {w}
    if w.endswith("ies"):
        forms.add(w[:-3] + "y")
    if w.endswith("es"):
        forms.add(w[:-2])
    if w.endswith("s"):
        forms.add(w[:-1])
    return forms


def match_name(word: str | None, names: Mapping[str, Iterable[str]]) -> str | None:
    """The name whose own spelling or a synonym is most like ``word``, if like enough.

    Args:
        word: A keyword from a sentence ("Activate", "enemies", "jump over").
        names: Valid name -> its synonyms (the game's actions or actor types).
    """
    if not word:
        return None
    best, best_score = None, 0.0
    for form in _forms(word):
        for name, synonyms in names.items():
            for candidate in (name, *synonyms):
                score = SequenceMatcher(None, form, candidate.lower()).ratio()
                if score > best_score:
                    best, best_score = name, score
    return best if best_score >= MATCH_THRESHOLD else None


def read_steps(text: str, actions: Mapping[str, Iterable[str]], actor_types: Mapping[str, Iterable[str]],
               nlp=None) -> list[MatchedStep]:  # type: ignore[no-untyped-def]
    """Text -> plan steps matched to a game's vocabulary (the article's pipeline, stages 1-3).

    Args:
        text: The steps, one per line or sentence.
        actions: The game's action names -> synonyms; ``move`` (:data:`NO_ACTION`) is the
            step that only goes somewhere.
        actor_types: The game's actor types -> synonyms.
    """
    steps = parse(split_sentences(text), nlp)
    out = []
    for step in steps:
        action = match_name(step.action_word, actions)
        out.append(MatchedStep(step, None if action == NO_ACTION else action,
                               match_name(step.actor_word, actor_types)))
    return out
