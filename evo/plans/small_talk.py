"""Sentences of talk around a test, which name nothing of the game: left out before the steps are read.

Testers of waves 28 and 29 framed their steps with talk: "I'm writing up the smoke test for
tonight's build.", "Nothing fancy.", "So I was playing yesterday and ...", "Honestly, ...", "Could
you do a quick sanity run?". Read as steps, each was refused on a verb like none of the game's, and
the whole plan with it. Such a sentence is no step when it names none of the game's things and
deeds, asks for no repeat or budget ("Do the same.", "for 100 steps"), and is not an order: its
first word (after "please", "so", "just", ...) is no verb in its base form. An order in words the
game does not know ("Hug the wall.") is kept, so the reader refuses it rather than drop it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

SENTENCE = re.compile(r"(?:[^.!?\n]|\.(?=\w))+(?:[.!?]+|(?=\n)|$)")
"""A sentence: up to a stop that ends it ("v0.9.3" and "e.g." go on)."""
FILLER = re.compile(r"^\s*(?:(?:please|pls|just|so|now|and|but|also|ok(?:ay)?|oh|well|honestly|basically|anyway|then|next|first|finally|hey|hi)\b[\s,]*)*",
                    re.IGNORECASE)
REFERS = re.compile(r"\b(?:same|again|repeat\w*|redo|twice|thrice|\d+|times|steps?|seconds?|secs?|minutes?|mins?|turns?|ticks?|budget|"
                    r"until|till|whenever|keep|continue|stop|wait|stay|up|down|left|right|forward|backwards?|back|around|round|through|"
                    r"over|across|inside|into|let|everything|everyone|anything|nothing\s+else|rest|another|next|more|other|all\s+of\s+(?:it|them)|every|each|both|first|then|before|after|finally|last(?!\s+(?:week|night|time|sprint|build|year|month|release|patch|session|version|update|friday|monday))|between|meanwhile)\b|"
                    r"\byou(?:'ll|'d|\s+(?:will|would|should|must|need|have|can|could|might|may))\b|"
                    r"\b(?:on|off)\s*[.!?]*\s*$", re.IGNORECASE)
"""Words of a sentence that asks for steps said elsewhere, a budget or a move ("Do the same.",
"Keep it up for 100 steps.", "Let it roam."): kept for the reader."""
CHAT_VERBS = frozenset({"quick", "be", "thank", "thanks", "cheer", "cheers", "note", "feel", "enjoy", "hope", "ping", "shout", "bear", "sorry"})
"""Base-form verbs that start a sentence of talk, not a step ("Be patient with it.")."""
WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)


def _names_game(sentence: str, things: Iterable[str], verbs: Iterable[str]) -> bool:
    """Whether the sentence holds one of the game's words for its things or deeds, as written."""
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    low = sentence.lower()
    if any(re.search(rf"\b{re.escape(t.lower().replace('_', ' '))}s?\b", low) for t in things):
        return True
    said = {w.lower() for w in WORD.findall(sentence)}
    known = {v.lower() for v in verbs}
    return any(w in known or _lemma(w, "v") in known or _lemma(w, "n") in known for w in said)


def _like_a_thing(sentence: str, things: Iterable[str] | Mapping[str, str]) -> bool:
    """Whether a noun of the sentence is like one of the game's things as the reader matches them
    ("keg": the barrel, by WordNet)."""
    from evo.plans.lexicon import THRESHOLD, best_match, is_noun, wordnet

    wordnet()
    names: dict[str, list[str]] = {}
    for word in things:
        names.setdefault(things[word] if isinstance(things, Mapping) else word, []).append(word)
    return any(best_match(w, names, "n").score >= THRESHOLD for w in {w.lower() for w in WORD.findall(sentence)}
               if len(w) > 2 and w not in NOT_THINGS and is_noun(w))


NOT_THINGS = frozenset({"the", "and", "you", "for", "this", "that", "with", "not", "but", "was", "are", "can", "our", "its", "all", "any",
                        "one", "bit", "run", "way", "thing", "things", "stuff", "lot", "time", "today", "yesterday", "build", "level",
                        "game", "test", "team", "bug", "thanks", "please"})


def _ordered(sentence: str) -> bool:
    """Whether the sentence starts with a verb in its base form: an order, in any words."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    words = WORD.findall(FILLER.sub("", sentence))
    if not words:
        return False
    first = words[0].lower()
    return is_verb(first) and _lemma(first, "v") == first and first not in CHAT_VERBS \
        and first not in ("i", "we", "it", "this", "that", "there", "the", "a", "an", "my", "our", "your", "its", "as", "could", "can",
                          "would", "will", "should", "might", "may", "must", "is", "are", "was", "were", "do", "does", "did", "have", "has",
                          "had", "not", "no", "nothing", "something", "maybe", "yes", "ok", "okay", "if", "when", "once", "while", "in", "for",
                          "to", "of", "at", "on", "with", "from", "by", "about", "what", "why", "how", "who", "which", "where")


ERRAND = re.compile(r"^\s*(?:(?:hey|hi|ok(?:ay)?|so)\s*[,!]?\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:just\s+)?)?(?:(?:do|make|give\s+it|have|run)\s+(?:a|an|one|another|the|our|your)\s+"
                    r"(?:(?:quick|short|full|fresh|new|little|last|final|more|sanity|smoke|regression|usual|normal|standard|daily|nightly|basic)\s+)*(?:run|pass|go|try|test|check|look|playthrough|path|route|one|round)"
                    r"|(?:start|load|launch|boot(?:\s+up)?|begin|reset|restart)\s+(?:the\s+|a\s+(?:new\s+|fresh\s+)?)?(?:level|game|build|map|run|session|test|episode)"
                    r"|(?:run|try)\s+(?:it|this|that)(?:\s+(?:through|out))?(?:\s+anyway)?)"
                    r"(?:\s+(?:for\s+me|for\s+us|please|again|now|first|(?:real\s+)?quick(?:ly)?|on\s+(?:this|the|the\s+new|today's)\s+(?:build|dungeon|level|game|map|park)))*\s*[.!?:]*\s*$", re.IGNORECASE)
"""An errand with no step in it ("Could you do a quick run for me?", "Start the level."): the test
itself, no step of it."""

PLAN_ERRAND = re.compile(r"^\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:write|make|create|draft|put\s+together|set\s+up)\s+(?:up\s+)?(?:me\s+|us\s+)?(?:a|an|the)\s+"
                         r"(?:(?:quick|short|new|test|regression|smoke)\s+)*(?:plan|test|script|scenario)(?:\s+for\s+(?:the\s+|a\s+|this\s+)?"
                         r"(?:regression|repro|reproduction|bug|issue|ticket|fix|check)\b[^.!?]*)?\s*[.!?:]*\s*$", re.IGNORECASE)
"""Asking for the plan ("Can you write a plan for the regression of the door bug?"): no step, even
where it names the bug's thing."""


OPINION = re.compile(r"^\s*(?:(?:so|and|but|also|honestly|tbh)\s*,?\s+)*(?:i|we)\s*(?:'m|'ve\s+been|'d\s+guess|\s+(?:think|believe|guess|suspect|feel|reckon|"
                     r"suppose|noticed|saw|heard|was|were|am|had|have\s+been|wonder|doubt|changed|swapped|fixed|moved|added|removed|updated|tweaked|reworked|"
                     r"(?:mostly\s+|only\s+)?care|could(?:n't)?\s+(?:only\s+)?(?:reproduce|repro|trigger|see))\b)(?![^.;!?]*\b(?:you|should|must|needs?|have\s+to|has\s+to|want|like)\b)",
                     re.IGNORECASE)
"""A clause of what the tester thinks or did ("I think the lever is in the wrong spot", "So I was
playing yesterday"): talk, though it names a thing, where it asks nothing of the player."""


PLAY_THROUGH = re.compile(r"(?<!\byou\s)(?<!\bwe\s)(?<!\bi\s)\b(?:(?:just|simply)\s+)?(?:play|run|go\s+through|play\s+through|work\s+(?:your\s+way\s+)?through|do)\s+(?:the\s+)?(?:level|game|dungeon|map|usual\s+route)(?:\s+(?:normally|as\s+usual|as\s+normal|the\s+usual\s+way))?"
                          r"\s*(?:\((?P<inner>[^()\n]*)\)\s*|:\s*(?=[a-z])|[.!]\s*(?=\S)|[.!]?\s*$)", re.IGNORECASE | re.MULTILINE)
"""Playing the level, and its steps in brackets or after a colon ("Run the level normally (switch,
lava, shrine) and ...", "Go through the level: first the switch, ..."): the steps."""


def unknown_word(sentence: str) -> bool:
    """A sentence that is one lower-case word no dictionary knows ("lever\nlava\nzorble"): a step
    the reader cannot read, to refuse, not talk to leave out (a capitalised one is a name signing off)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from evo.plans.lexicon import _lemma, wordnet
    from evo.plans.spelling import CHAT, JARGON

    words = WORD.findall(sentence)
    if len(words) != 1 or not words[0].islower() or len(words[0]) < 3:
        return False
    low = words[0]
    return low not in STOP_WORDS and low not in CHAT and low not in JARGON \
        and not any(wordnet().synsets(form) for form in {low, *(_lemma(low, pos) for pos in "nvar")})


def is_talk(sentence: str, things: Iterable[str], verbs: Iterable[str]) -> bool:
    """Whether ``sentence`` (or a clause) is talk: it names none of the game's things and deeds and
    asks for no repeat or budget, and it is no order or an errand (:data:`ERRAND`); or it is an
    opinion (:data:`OPINION`)."""
    if not re.search(r"[a-z]", sentence, re.IGNORECASE) or unknown_word(sentence):
        return False
    if (OPINION.match(sentence) and not REFERS.search(sentence)) or PLAN_ERRAND.match(FILLER.sub("", sentence)):
        return True
    if _names_game(sentence, things, ()):
        return False
    if ERRAND.match(FILLER.sub("", sentence)) or (WORD.findall(FILLER.sub("", sentence)) or [""])[0].lower() in CHAT_VERBS:
        return True  # "Could you do a quick run?"; "Hope the move went ok!" ("move" no deed here)
    return not (_names_game(sentence, (), verbs) or REFERS.search(sentence) or _ordered(sentence)
                or re.match(r"^\s*(?:[-*•]|\d+\s*[.):]|[a-h]\)|step\b)", sentence, re.IGNORECASE) or re.search(r":\s*$", sentence)
                or _like_a_thing(sentence, things))


def talk_left_out(text: str, things: Iterable[str] = (), verbs: Iterable[str] = ()) -> str:
    """``text`` without its sentences of talk (the module's families); as written where the game's
    words are not given (nothing could be told from a step)."""
    things, verbs = list(things), list(verbs)
    if not things or not verbs:
        return text

    text = PLAY_THROUGH.sub(lambda m: f"{m.group('inner')}. " if m.group("inner") else "", text)

    def kept(m: re.Match[str]) -> str:
        talked = is_talk(m.group(0), things, verbs) and not _names_game(m.group(0), things, ())  # "it" after may be a thing it names
        return "" if talked else m.group(0)
    lines = [(line, SENTENCE.sub(kept, line)) for line in text.split("\n")]
    return "\n".join(new.strip() if new != line else line for line, new in lines)



def _whole(clause: str, read: str) -> bool:
    """Whether the clause is all of its part of the text as read, up to a stop or a joining word:
    no purpose cut off it ("is necessary" of "is necessary to kill the ogre" is not talk)."""
    at = read.lower().find(clause.lower().strip())
    rest = read[at + len(clause.strip()):] if at >= 0 else ""
    return at >= 0 and (len(clause.split()) == 1 or re.match(r"\s*(?:[,.;:!?)\n]|$|(?:and|then|but|so|or)\b)", rest, re.IGNORECASE) is not None)


def without_talk(steps: Sequence[Any], read: str, things: Iterable[str] | Mapping[str, str], verbs: Iterable[str]) -> list[Any]:
    """Parsed clauses (:class:`evo.plans.text.ParsedStep`) of ``read`` without those of talk, each
    with its condition if it has one. A clause of talk that names one thing ("I think the lever is
    in the wrong spot") is what "it" in the clause after it stands for ("Can you go pull it"):
    that clause is on the thing."""
    steps = list(steps)
    out: list[Any] = []
    for k in range(len(steps)):
        step = steps[k]
        condition = step.clause.condition if step.clause is not None else None
        if not is_talk(step.text, things, verbs) or (condition and not is_talk(condition, things, verbs)) or not _whole(step.text, read):
            out.append(step)
            continue
        named = {t for t in things if re.search(rf"\b{re.escape(t.lower().replace('_', ' '))}s?\b", step.text.lower())}
        at = next((j for j in range(k + 1, len(steps)) if steps[j].actor_word), None)  # "Can you go and pray at it": past "go"
        if named and at is not None and (steps[at].actor_word or "").lower() in ("it", "them", "one"):
            if len(named) > 1:
                out.append(step)  # which thing "it" is, not said: left for the reader to doubt
                continue
            steps[at] = replace(steps[at], actor_word=named.pop())
    return out
