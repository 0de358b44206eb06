"""A tester's slips of the keyboard, read as the game's words they were meant to be (issue 55).

Every fresh wave of testers' texts holds typos ("jmup over the lavva", "circel the barel 4",
"go to pilar 3 and cirlce it, then trun right"), about 2% of all texts in waves 54 to 57, and
each pass after this one keys on whole words. A word is read as a slip of one of the game's
words, or of the few words the reader keys on ("then", "turn", "the"), when:

- it is no English word: not a stop word, a chat word or a word of games, and WordNet knows
  it not at all, or only as one rare sense no text WordNet counts used ("pul", an Afghan
  coin; "pilar", hairy);
- one letter is dropped, added, changed, or two swapped (Damerau's edits), or two such edits
  in a word of six letters or more that starts with the same letter ("barell": barrel);
- and exactly one word is that close: a slip between two words ("tho": the, two) stays as
  written, and the reader refuses it where it matters.

The plan names each word it read so (``respelled``), as ``evo plan from-text`` prints it.
"""

from __future__ import annotations

from functools import lru_cache
import re
from typing import Iterable

KEYWORDS = frozenset({"the", "then", "and", "after", "before", "first", "second", "third", "fourth", "fifth", "last", "next",
                      "over", "around", "round", "across", "through", "into", "turn", "right", "left", "look", "down", "every", "each",
                      "whenever", "near", "nearest", "with", "until", "once", "finally", "three", "four", "five", "seven", "eight"})
"""Words the reader keys on besides the game's own, that testers misspell ("thn", "teh", "trun", "ovr")."""
CHAT = frozenset({"tho", "thx", "pls", "plz", "lol", "btw", "idk", "imo", "asap", "fyi", "okay", "kinda", "gonna", "wanna", "gotta",
                  "lemme", "dunno", "yeah", "yep", "nope", "yup", "hey", "hiya", "cya", "obvs", "ngl", "tbh", "smth", "sth", "pcs", "lmk",
                  "bc", "cuz", "coz", "rly", "pkg", "env", "repo", "qa", "npc", "npcs", "mob", "mobs", "boss", "bosses", "lvl", "xp", "hp",
                  "ofc", "obv", "obvi", "imho", "afaik", "iirc", "tbf", "atm", "irl", "afk", "brb", "nvm", "ikr", "omg", "wtf", "lmao", "rofl",
                  "smh", "ftw", "fwiw", "eta", "wip", "tbd", "tba", "kthx", "thnx", "thanx", "pls", "plx", "sry", "soz", "bout", "gotcha"})
"""Chat and gamer words no dictionary knows, none a slip ("tho" is though, not "the")."""

JARGON = frozenset({"stat", "stats", "repro", "respawn", "spawn", "spawns", "hitbox", "hitboxes", "aggro", "noclip", "softlock", "desync",
                    "minimap", "tooltip", "playtest", "speedrun", "cooldown", "hotkey", "keybind", "framerate", "texel", "sprite", "sprites"})
"""Words of games and testing WordNet does not know, none a slip of a game's word ("kills stat stuck": no statue)."""

def _edits(a: str, b: str, most: int) -> int:
    """Damerau's distance (optimal string alignment) between ``a`` and ``b``, or ``most + 1`` once it is past ``most``."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    before, row = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (ca != cb))
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return min(row[-1], most + 1)


@lru_cache(maxsize=4096)
def _english(word: str) -> bool:
    """A word of English: a stop word, chat, or a word WordNet knows in more than one rare sense."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from evo.plans.lexicon import _lemma, wordnet

    if word in STOP_WORDS or word in CHAT or word in JARGON:
        return True
    synsets = {s for form in {word, *(_lemma(word, pos) for pos in "nvar")} for s in wordnet().synsets(form)}
    if len(synsets) > 1:
        return True
    return any(lemma.count() > 0 for s in synsets for lemma in s.lemmas())


def _meant(word: str, words: frozenset[str]) -> str | None:
    """The one word of ``words`` that ``word`` is a slip of, or None."""
    low = word.lower()
    if len(low) < 3 or low in words or _english(low):
        return None
    ends = [len(w) - len(low) for w in words if w.startswith(low)]
    if ends and min(ends) >= 2:
        return None  # a gamer's clipped name ("skel", "gob"): :mod:`evo.plans.visits` reads those ("ogr" is ogre)
    scored = [(d, w) for w in words if len(w) >= 3 for d in (_edits(low, w, 2),)
              if d == 1 or (d == 2 and len(low) >= 6 and len(w) >= 6 and w[0] == low[0])]
    if not scored:  # "lvr", "shrn": the word's consonants, its vowels left out
        skeleton = [w for w in words if len(w) >= 4 and re.sub(r"(?<=.)[aeiou]", "", w) == low and len(low) >= 3]
        return skeleton[0] if len(skeleton) == 1 else None
    best = min(d for d, _ in scored)
    close = [w for d, w in scored if d == best]
    if len(close) > 1:  # "lmap": lamp (its letters swapped), not leap; "thn": then (a letter dropped), not the
        close = [w for w in close if sorted(w) == sorted(low)] or [w for w in close if _dropped(low, w)]
    return close[0] if len(close) == 1 else None


def _dropped(word: str, meant: str) -> bool:
    """``word`` is ``meant`` with letters left out ("thn": then)."""
    letters = iter(meant)
    return len(word) < len(meant) and all(c in letters for c in word)


def respelled(text: str, words: Iterable[str]) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with each slip of ``words`` (the game's words; :data:`KEYWORDS` are added) read as
    the word meant, and the slips it read, as (written, meant) in order."""
    vocabulary = frozenset({w.lower() for w in words if w.isalpha()} | KEYWORDS)
    slips: list[tuple[str, str]] = []

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        meant = _meant(word, vocabulary)
        if meant is None or word[0].isupper() and not (sorted(meant) == sorted(word.lower()) or _dropped(word.lower(), meant)):
            return word  # "Gabe" signing off is no gate: a capital's slip only of letters swapped or dropped ("Jmup", "Pul")
        meant = meant.capitalize() if word[0].isupper() else meant
        slips.append((word, meant))
        return meant
    text = re.sub(r"\bw/(?=\s)", "with", CLIPPED.sub(lambda m: _clipped(m, vocabulary, slips), text))
    text = re.sub(r"\b(?P<v>look|glance|gaze)\s+(?:upp|uo|uup|pu|yp)\b", lambda m: slips.append((m.group(0), f"{m.group('v')} up")) or f"{m.group('v')} up",
                  text, flags=re.IGNORECASE)  # "look upp": "up" is too short for the slips above
    text = re.sub(r"(?<![\w'@#/-])[A-Za-z]{3,}(?![\w'-])", fix, text)
    return HOMOPHONES.sub(lambda m: _homophone(m, slips), text), slips


CLIPPED = re.compile(r"(?<![\w'@#/-])(?P<w>atk|int|intr|inter)\.?(?=\s+(?:w/|with\s+)?(?:the\s+)?[a-z])", re.IGNORECASE)
"""A tester's clipped deed before its thing ("atk gob2", "int. switch", "inter w/ the lever"):
the game's word it clips, where the game has it."""
CLIPS = {"atk": "attack", "int": "interact", "intr": "interact", "inter": "interact"}


def _clipped(m: re.Match[str], vocabulary: frozenset[str], slips: list[tuple[str, str]]) -> str:
    meant = CLIPS[m.group("w").lower()]
    if meant not in vocabulary:
        return m.group(0)
    slips.append((m.group(0), meant))
    return meant


HOMOPHONES = re.compile(r"\b(?:the|a)\s+(?P<w>forth)\b", re.IGNORECASE)
"""An English word written for its homophone where only the other fits ("the forth lamp": the fourth)."""


def _homophone(m: re.Match[str], slips: list[tuple[str, str]]) -> str:
    word = m.group("w")
    meant = {"forth": "fourth"}[word.lower()]
    slips.append((word, meant))
    return m.group(0)[:m.start("w") - m.start()] + meant
