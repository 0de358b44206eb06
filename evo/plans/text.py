"""Text to plan: test steps written for people, read into plan steps offline.

The explicit-plans article (agt-explicit-plans.txt, "Text to Plan") turns a QA engineer's
numbered steps into plan nodes with spaCy in three stages, done here with nothing downloaded:

1. sentence classification: is the sentence a node (do this once, at this thing) or a rule
   (do this whenever it applies)? spaCy's ``textcat`` on a blank English pipeline; a sentence
   of several steps is split into its clauses first, each with its condition (:mod:`evo.plans.clauses`);
2. token classification: the action keyword and the actor keyword (spaCy's ``ner`` with
   labels ``ACTION`` and ``ACTOR``);
3. matching the keywords to the names the game accepts (its actions and actor types, each
   with synonyms) by similarity in WordNet (:mod:`evo.plans.lexicon`), refusing a word like
   none of them (:func:`match_word`).

Both models train on CPU in well under a minute from ``evo/plans/data/sentences.jsonl``
(:mod:`evo.plans.make_sentences`), with a fixed seed; the trained pipeline ships in the package.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from evo.plans.clause_words import ALWAYS, DETERMINERS, LEADS, MOVEMENT, POSITIONS, PRONOUNS, PURSUIT, QUANTIFIERS
from evo.plans.clauses import Clause, clause_bounds, read_clause
from evo.plans.one_or_many import any_one, bare_one, kinds, one_thing, the_one
from evo.plans.lexicon import KIND_STEPS, THRESHOLD, WordMatch, _lemma, any_sense, best_match, compound
from evo.plans.reading import as_read, game_words
from evo.plans.small_talk import without_talk
from evo.plans.markers import HEADING, split_markers, strip_marker
from evo.plans.phrasing import numbered
from evo.run.config import ConfigError

DATA = Path(__file__).with_name("data") / "sentences.jsonl"
OPS = "numpy"
"""How the pipeline multiplies (thinc's ``NumpyOps`` without BLIS): part of its cache's name,
so that a pipeline trained another way is not read back."""
EPOCHS = 8
"""Passes over the sentence set: every held-out test sentence is read right from 6 on."""
SEED = 0
SHIPPED = Path(__file__).with_name("data") / "pipeline"
"""The pipeline trained on :data:`DATA`, shipped in a folder named by the data's hash: the same
weights on every machine. Training multiplies in floating point, and the same seed trained on an
AMD EPYC and on the machines before read a few development texts differently (wave 23, issue 55);
a text must read the same wherever the tests and the user run it."""
NO_ACTION = "move"
"""The action name of a step that only goes somewhere ("Go to the door.")."""


def _import_spacy():  # type: ignore[no-untyped-def]
    try:
        import spacy
        from thinc.api import NumpyOps, set_current_ops
    except ImportError as exc:
        raise ImportError("text to plan needs spaCy: pip install -e '.[plans]'") from exc
    # thinc multiplies with BLIS by default, whose kernels differ by processor (AVX2, AVX-512):
    # the same seed trained a pipeline that read 6 of the held-out texts differently on a
    # machine with AVX-512. numpy's matmul trains the one the tests and docs measured.
    set_current_ops(NumpyOps(use_blis=False))
    return spacy


@dataclass(frozen=True)
class ParsedStep:
    """One clause of a sentence read as a plan step, before it is matched to a game.

    Attributes:
        text: The clause as written.
        kind: ``"node"`` or ``"rule"``.
        action_word: The action keyword the clause holds, or None.
        actor_word: The actor keyword, a pronoun ("it"), or None.
        confidence: The classifier's probability of ``kind`` (1.0 when a condition decided it).
        clause: How the clause was split off and what condition it is under.
    """

    text: str
    kind: str
    action_word: str | None
    actor_word: str | None
    confidence: float
    clause: Clause | None = None


@dataclass(frozen=True)
class MatchedStep:
    """A parsed step with its keywords matched to a game's names (None: no keyword).

    ``action`` None means the step only goes to its target; ``actor_type`` None means the
    clause named no actor (or a pronoun: the actor before). Each match says which word of the
    game's vocabulary it went through, and how alike they are.
    """

    parsed: ParsedStep
    action: str | None
    actor_type: str | None
    action_match: WordMatch | None = None
    actor_match: WordMatch | None = None
    condition_match: WordMatch | None = None


def split_sentences(text: str, things: Iterable[str] = ()) -> list[str]:
    """Steps of a text: one per line, a line with several sentences split at their ends and
    at list markers inside it; list markers and step labels ("1.", "2)", "Step two:", "Last,")
    removed (:mod:`evo.plans.markers`)."""
    out = []
    for line in text.splitlines():
        if HEADING.match(line):  # "Steps:" alone heads the list
            continue
        for part in split_markers(numbered(line.strip(), things)):
            for sentence in re.split(r"(?<=[.!?])\s+", part.strip()):
                sentence = strip_marker(sentence).lstrip(",;:- ")
                if any(c.isalpha() for c in sentence):  # a budget taken out can leave "." alone
                    out.append(sentence[0].upper() + sentence[1:])
    return out


def ship(path: Path = DATA) -> Path:
    """Train the pipeline on ``path`` and write it where :func:`load_pipeline` reads it first,
    in place of any shipped before (``python -m evo.plans.make_sentences`` does this after it
    rewrites the sentences)."""
    import shutil

    out = SHIPPED / f"{_data_hash(path)}-{OPS}"
    for old in SHIPPED.glob("*-*"):
        shutil.rmtree(old)
    train(path).to_disk(out)
    return out


def _data_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _cache_dir(path: Path) -> Path:
    root = Path(os.environ.get("EVO_CACHE", Path.home() / ".cache" / "evo"))
    return root / "text_to_plan" / f"{_data_hash(path)}-{OPS}"


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
    return fit(nlp, examples, epochs, seed, size=16, drop=0.2)


def fit(nlp, examples: list, epochs: int, seed: int, size: int, drop: float):  # type: ignore[no-untyped-def]
    """``nlp`` trained on ``examples``: ``epochs`` passes in batches of ``size``, shuffled with ``seed``."""
    spacy = _import_spacy()
    optimizer = nlp.initialize(lambda: examples)
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(examples)
        for batch in spacy.util.minibatch(examples, size=size):
            nlp.update(batch, sgd=optimizer, drop=drop)
    return nlp


def load_pipeline(path: Path = DATA):  # type: ignore[no-untyped-def]
    """The trained pipeline for the sentence set at ``path``: the one shipped with the package
    (:data:`SHIPPED`), else from the cache, or trained and cached now."""
    spacy = _import_spacy()
    shipped = SHIPPED / f"{_data_hash(path)}-{OPS}"
    if (shipped / "meta.json").exists():
        return spacy.load(shipped)
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
    """Each clause of each sentence as a node or a rule, with its keywords and condition,
    in the order written (:mod:`evo.plans.clauses`)."""
    nlp = nlp if nlp is not None else load_pipeline()
    out = []
    verb = None  # the step before's verb, for a step that leaves it out ("..., then the skeleton")
    for doc in nlp.pipe(sentences):
        bounds = clause_bounds(doc)
        clauses = [read_clause(doc, begin, end) for begin, end in bounds]
        for k, clause in enumerate(clauses):
            after = clauses[k + 1] if k + 1 < len(clauses) else None
            topic = after is not None and after.action_word is not None and after.condition is None \
                and (after.actor_word or "it").lower() in PRONOUNS and not (k > 0 and clauses[k - 1].action_word and after.actor_word is None
                                                                         and re.match(r"\W*then\b", doc[bounds[k + 1][0]:bounds[k + 1][1]].text, re.IGNORECASE))
            # "the lever, pull it", "the barrel: jump"; not "Circle lamp 4, then stump 4, then look up" (circle both)
            inherited = clause.action_word is None and clause.actor_word is not None and verb is not None \
                and (k > 0 or _verbless(doc)) and not topic \
                and not (after is not None and SAME.match(after.text))  # a list item "- then the skeleton": the verb before's
            # ("..., then lamp 4 and do the same": the deed is the "same"'s, the lamp only a place)
            if inherited:
                clause = replace(clause, action_word=verb)
            verb = clause.action_word
            if clause.trigger or ALWAYS.search(clause.text):  # "whenever you see one", "always": a rule
                kind, confidence = "rule", 1.0
            elif inherited and k > 0 and clause.condition is None:  # "Kill all goblins and all skeletons"
                words = set(clause.text.lower().split())  # "hunt down skeletons and ogres": as the step it shares a verb with
                bare = out and out[-1].kind == "rule" and not words & DETERMINERS
                kind, confidence = ("rule" if (QUANTIFIERS & words and not any_one(doc, clause)) or kinds(clause) or bare else "node"), 1.0
            elif clause.condition_state is not None:  # "once the switch is on": a node's precondition
                kind, confidence = "node", 1.0
            elif len(bounds) == 1 or QUANTIFIERS & set(clause.text.lower().split()):
                cats = doc.cats if len(bounds) == 1 else nlp(clause.text).cats
                kind = max(cats, key=cats.get)
                confidence = float(cats[kind])
                if kind == "rule" and (len(bounds) == 1 and (one_thing(doc, clause) or bare_one(doc, clause) or the_one(doc, clause))
                                       or any_one(doc, clause) and (inherited or re.match(r"(?:go|walk|head|run|move|visit|approach)\b", verb or "", re.IGNORECASE))):
                    kind, confidence = "node", 1.0 - confidence  # "Walk to a pillar.", "Kill goblin", "then any goblin"
            elif kinds(clause):  # "Grab coins and kill enemies": things of a kind, as one sentence each reads
                kind, confidence = "rule", 1.0
            else:  # "..., then pull it": a step of a sentence of steps
                kind, confidence = "node", 1.0
            out.append(ParsedStep(clause.text, kind, clause.action_word, clause.actor_word, confidence, clause))
    return out


def _verbless(doc) -> bool:  # type: ignore[no-untyped-def]
    """A sentence that is only a thing after its lead words ("Then the ogre."), no verb and no
    path ("Then to the door." goes there)."""
    words = [t.text.lower() for t in doc if not t.is_punct and t.text.lower() not in LEADS]
    return bool(words) and words[0] in DETERMINERS


def match_word(word: str | None, names: Mapping[str, Iterable[str]], pos: str, what: str,
               sentence: str = "") -> WordMatch | None:
    """The game's name for a keyword by similarity (:mod:`evo.plans.lexicon`); None for no
    keyword or a pronoun.

    Raises:
        ConfigError: the keyword is like no name well enough: one line naming it, the nearest
            name and the score, rather than a guess.
    """
    if not word or word.lower() in PRONOUNS:
        return None
    found = best_match(word, names, pos)
    if found.score < THRESHOLD:
        near = f"nearest {found.name} via {found.via!r} at {found.score:.2f}" if found.name else "none near"
        raise ConfigError(f"plan from text: {what} {word!r} in {sentence!r} is like none of the game's "
                          f"{what}s ({near}, least {THRESHOLD})")
    return found


def match_actor(word: str | None, names: Mapping[str, Iterable[str]], sentence: str = "") -> WordMatch | None:
    """An actor phrase's name: of its nouns ("wall switch", "gold piece"), the one most like a
    name of the game, the last (the head) when two are as like; refused as :func:`match_word`."""
    words = (word or "").split()
    if len(words) > 1 and not (len(words) == 2 and compound(*words)):
        word = max(reversed(words), key=lambda w: best_match(w, names, "n").score)  # max keeps the first best
    return match_word(word, names, "n", "actor", sentence)


def match_name(word: str | None, names: Mapping[str, Iterable[str]], pos: str = "n") -> str | None:
    """The name a keyword matches, or None when it matches none well enough."""
    if not word:
        return None
    found = best_match(word, names, pos)
    return found.name if found.score >= THRESHOLD else None


def _towards(word: str | None) -> bool:
    """A verb of a motion to a place ("hurry to", "dash over to"): a move when moving is about as
    like it as the best action is, counting a manner of a manner of moving ("dash" is a way to
    rush, a way to travel)."""
    words = (word or "").lower().split()
    return bool(words) and words[-1] in ("to", "towards", "toward", "into") and not POSITIONS & set(words)


def _fitting(step: ParsedStep, action: WordMatch | None, actor: str | None, actions: Mapping[str, Iterable[str]],
             targets: Mapping[str, Iterable[str]], own: bool = False) -> WordMatch | None:
    """The verb's sense that fits its object: when the action matched does nothing to the kind
    of thing named ("hit the switch": attacking a switch), the action that does, if the verb is
    like it in any of its senses a few steps up WordNet ("hit" is a way to touch, and touching is
    operating a switch); else, for a thing named in the clause itself (``own``), going there when
    the verb is a way of going ("cross the door"); else the action matched."""
    if action is None or actor is None or action.name not in targets or actor in targets[action.name]:
        return action
    fits = {name: actions[name] for name, on in targets.items() if actor in on and name in actions}
    other = best_match(step.action_word or "", fits, "v", steps=KIND_STEPS) if fits else None
    if (other is None or other.score < THRESHOLD) and own and NO_ACTION in actions \
            and action.word.lower().split()[0] != action.name:  # "cross the door": going through it; "interact with" is meant
        other = best_match(step.action_word or "", {NO_ACTION: actions[NO_ACTION]}, "v", steps=KIND_STEPS)
    return other if other is not None and other.score >= THRESHOLD else action


def _action(step: ParsedStep, actions: Mapping[str, Iterable[str]], actor_types: Mapping[str, Iterable[str]],
            targets: Mapping[str, Iterable[str]]) -> WordMatch | None:
    """The step's action; a verb like none in its common senses is read in a rarer one that acts
    on its object ("engage the lever": a lever is operated, and "engage" is a way to touch), else
    refused (:func:`match_word`)."""
    try:
        return match_word(step.action_word, actions, "v", "action", step.text)
    except ConfigError:
        try:
            actor = match_actor(step.actor_word, actor_types, step.text)
        except ConfigError:
            actor = None
        fits = {name: actions[name] for name, on in targets.items() if actor is not None and actor.name in on
                and name in actions}
        found = any_sense(step.action_word or "", fits) if fits else None
        if found is None:
            raise
        return found


SAME = re.compile(r"^\s*(?:then\s+|and\s+)?(?:do|repeat)\s+(?:the\s+same|that|this|it)(?:\s+again)?(?:\s+(?:with|to|at|for|around|on)\b|"
                  r"\s*(?:there|here|too)?\s*[.!]?\s*$)", re.IGNORECASE)
"""The step before's deed on another thing ("then do the same with the second skeleton")."""


def read_steps(text: str, actions: Mapping[str, Iterable[str]], actor_types: Mapping[str, Iterable[str]],
               nlp=None, targets: Mapping[str, Iterable[str]] | None = None,
               categories: Mapping[str, Iterable[str]] | None = None) -> list[MatchedStep]:  # type: ignore[no-untyped-def]
    """Text -> plan steps matched to a game's vocabulary (the article's pipeline, stages 1-3).

    Args:
        text: The steps, one per line or sentence, several to a sentence if joined.
        actions: The game's action names -> synonyms; ``move`` (:data:`NO_ACTION`) is the
            step that only goes somewhere.
        actor_types: The game's actor types -> synonyms.
        targets: Actions -> the actor types (and categories) they act on, where a game says so:
            a verb is read in the sense that fits its object (:func:`_fitting`).
        categories: The game's categories -> their actor types (a title's "pickups" is named
            by steps on coins).

    Raises:
        ConfigError: a keyword matches none of the game's names (:func:`match_word`).
    """
    out: list[MatchedStep] = []
    things, verbs, deeds = game_words(actions, actor_types, targets)
    read = as_read(text, things, verbs, categories, deeds)
    for step in without_talk(list(parse(split_sentences(read, things), nlp)), read, things, verbs):
        moving = step.action_word is not None and MOVEMENT.match(step.action_word) is not None
        to = best_match(step.action_word or "", {NO_ACTION: actions.get(NO_ACTION, ())}, "v", steps=2) \
            if not moving and _towards(step.action_word) else None  # "Hurry to the pit", "Dash to the lamp"
        same = next((o.action_match for o in reversed(out) if o.action), None) if SAME.match(step.text) else None
        place = max((k for k, o in enumerate(out) if o.actor_type is not None), default=0)
        deeds = [o.action_match for o in out[place:] if o.action] if same is not None else []  # "look up, then look down. Do the same at lamp 4."
        same = deeds[0] if len(deeds) > 1 else same
        if same is not None:
            action: WordMatch | None = same  # "then do the same with the second skeleton"
        elif to is not None and to.score >= THRESHOLD and to.score >= best_match(step.action_word or "", actions, "v").score - 0.05:
            action = to
        else:
            action = None if moving else _action(step, actions, actor_types, targets or {})
        if step.actor_word is None and step.action_word is not None:  # "slay orcs whenever ...": a game's word the tagger missed
            said = step.text.replace(step.clause.condition or "", " ") if step.clause and step.clause.condition else step.text
            found = next((w for w in re.findall(r"[a-z]+", said.lower()) if w in {t.lower() for t in things}
                          and w not in step.action_word.lower().split()), None)
            step = replace(step, actor_word=found) if found else step
        word = step.actor_word
        if same and (word or "").lower() in ("same", "that", "this", "it"):  # "do the same at the third lamp": the lamp
            named = re.search(r"\b(?:with|to|at|for|around|on)\s+(?:the\s+)?(?:\w+\s+)?(\w+)\W*$", step.text)
            word = named.group(1) if named and (named.group(1).lower() in things or _lemma(named.group(1), "n") in things) else None
            if word and out and out[-1].parsed.kind == "rule" and (_lemma(word, "n") != word.lower() or word.lower()[:-1] in things):
                step = replace(step, kind="rule", confidence=1.0)  # "Any skeleton that comes close, attack it. Do the same with goblins."
        actor = match_actor(word, actor_types, step.text) if word else None
        clause = step.clause
        cond = match_word(clause.condition_actor, actor_types, "n", "actor", step.text) if clause else None
        before = out[-1].actor_type if out else None  # "Walk to the switch and smack it": the switch
        thing = actor.name if actor else (cond.name if cond else (before if step.actor_word else None))
        action = _fitting(step, action, thing, actions, targets or {}, own=actor is not None)
        name = action.name if action is not None else None
        if out and name is not None and out[-1].action == name and out[-1].actor_type is not None \
                and PURSUIT.match(out[-1].parsed.action_word or "") and not PURSUIT.match(step.action_word or "") \
                and (step.actor_word or "").lower() in PRONOUNS:
            out[-1] = replace(out[-1], action=None)  # "Go after the goblin and take it down": one attack
        out.append(MatchedStep(step, None if name == NO_ACTION else name, actor.name if actor else None,
                               action, actor, cond))
        out.extend(MatchedStep(step, deed.name, None, deed, None, None) for deed in deeds[1:])
    return out
