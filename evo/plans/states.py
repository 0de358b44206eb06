"""Sentences that report how the game is, not what to do: left out before the steps are read.

Testers of waves 48 and 49 opened with what they saw or changed: "Lamp 4 looks weird from below,
can you walk over to it and look up?", "The designers swapped the switch and the shrine sprites
in the last build", "Half of the objects are supposed to be bugged", "Switch doesn't open the
door!!". Each names the game's things, so it is no talk of :mod:`evo.plans.small_talk`, and read as
a step it was refused on a verb like none of the game's. Such a sentence starts with its subject
and a verb of being, seeming or having ("is", "looks", "has", "doesn't") or a deed done before
("swapped"); it asks nothing of the player (no "you", "please" or "must"), says nothing of order
or time ("first", "then", "for 100 steps") and does none of the game's deeds ("The lever opens
the door" is kept: what opens what is read by :mod:`evo.plans.ordering`; "The altar is the goal."
by :mod:`evo.plans.framing`). "it" in the sentence after it is the one thing it names ("... looks
stretched, I think it's pillar 2. Could you walk to it": pillar 2); where it names more than one,
"it" stands for nothing, and the reader refuses it rather than guess.
"""

from __future__ import annotations

import re
from typing import Iterable

from evo.plans.framing import GOAL_IS
from evo.plans.small_talk import SENTENCE

I = re.IGNORECASE
STATE = re.compile(r"^\W*(?:(?:hey|hi|so|and|but|also|ok(?:ay)?|well|honestly|btw|fyi|update|note)\b[\s,!:-]*)*"
                   r"(?:not\s+sure\s+(?:if|whether)\b[^,]*,\s*(?:but\s+)?)?"
                   r"(?P<subject>(?:the|this|that|these|those|our|my|its|their|some|half|one|most|none|nobody|everything|something|it|"
                   r"(?!(?:there|here|it|that|what|let|who|where|he|she)'s)[a-z]+_?\d*'s)\b[^,;:.!?]{0,60}?|[a-z]+[ _#]?\d+|(?!(?:i|we|you|they|he|she|there)\b)[a-z]+)\s+"
                   r"(?:(?:still|now|sometimes|just|really|also|apparently|clearly|definitely|probably)\s+)?"
                   r"(?:is|are|was|were|isn't|aren't|wasn't|weren't|looks|looked|seems|seemed|has|had|hasn't|haven't|doesn't|don't|didn't|"
                   r"won't|can't|cannot|keeps|stays|stayed|appears|appeared|shows|showed|crashed|crashes|broke|swapped|changed|got|gets|"
                   r"remembers|knows|wants|sits|flickers|clips|renders|glitches|look|seem|(?![a-z]*eed\b)[a-z]{3,}ed)\b", I)
"""A sentence that starts with its subject and a verb of being, seeming or having, or a deed done
before ("The artists recoloured ...")."""
ASKS = re.compile(r"\b(?:you|your|please|pls|let'?s|must|should|shall|need|needs|has\s+to|have\s+to|got\s+to|gotta|ought|"
                  r"first|then|before|after|next|finally|again|same|repeat\w*|until|till|whenever|every|each|always|"
                  r"\d+\s*(?:steps?|seconds?|secs?|s|minutes?|mins?|turns?))\b", I)
"""Words of a sentence that asks for a step, an order or a budget: no report."""
REQUEST = re.compile(r"(,\s*(?:and\s+|but\s+|so\s+)?)(?=(?:can|could|would|will)\s+you\b|please\b|pls\b)", I)
"""Where a request starts after a report in one sentence ("..., can you walk over to it")."""
BINDS = re.compile(r"\b(?:to|at|on|near|by|around|round|over|past|towards?|with|of|from|up|down|reach|use|hit|kill|attack|circle|"
                   r"grab|pull|flip|activate|touch|jump|approach|visit|check|inspect)\s+$", I)
"""Words before an "it" that stands for a thing of the game ("walk over to it", "pull it")."""
NEGATED = re.compile(r"\b(?:doesn't|don't|didn't|won't|can't|cannot|not|never)\s+$", I)
DETERMINED = re.compile(r"(?:\b(?:the|a|an|this|that|its|my|our|your|each|every|first|last|any)|'s)\s+$", I)
TURNED = re.compile(r"\b(?:look|turn|glance|peer|gaze|face)(?:s|ed|ing)?\s+(?:up|down|left|right|upwards?|downwards?)\b", I)
"""A deed named by a verb and a direction ("looks down", "turns left")."""
LINKING = re.compile(r"^look(?:s|ed)?$", I)
DIRECTIONS = re.compile(r"^\s+(?:up|down|at|around|round|left|right|over|to|towards?|into|back|behind)\b", I)


def _does(sentence: str, verbs: Iterable[str]) -> bool:
    """Whether the sentence does one of the game's deeds: a word of them as a verb (not after "the",
    "doesn't"; "looks" only towards somewhere: "looks weird" is how a thing seems)."""
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    turned = TURNED.search(sentence)
    if turned is not None and not NEGATED.search(sentence[:turned.start()]):
        return True  # "Player looks down at the barrel.": a deed in two words
    known = {v.lower() for v in verbs}
    for word in re.finditer(r"[a-z]+(?:'[a-z]+)?", sentence, I):
        low = word.group(0).lower()
        if low not in known and _lemma(low, "v") not in known:
            continue
        before, after = sentence[:word.start()], sentence[word.end():]
        if DETERMINED.search(before) or NEGATED.search(before) or LINKING.match(low) and not DIRECTIONS.match(after):
            continue
        return True
    return False


def _named(sentence: str, things: Iterable[str]) -> set[str]:
    """The things the sentence names one of: "pillar 2" (by its number), "the lever"; not "the pillars"."""
    words = sorted({t.lower().replace("_", " ") for t in things}, key=len, reverse=True)
    found: set[str] = set()
    for word in words:
        for m in re.finditer(rf"\b{re.escape(word)}(?:[ _#]*(?P<n>\d+))?(?!\w)", sentence, I):
            found.add(f"{word} {m.group('n')}" if m.group("n") else f"the {word}")
    numbered = {f.split()[0] for f in found if f[-1].isdigit()}
    return {f for f in found if f[-1].isdigit() or f.split()[-1] not in numbered}


def stated_left_out(text: str, things: Iterable[str] = (), verbs: Iterable[str] = ()) -> str:
    """``text`` without its sentences that report how the game is (the module's family); as
    written where the game's words are not given."""
    things, verbs = list(things), list(verbs)
    if not things or not verbs:
        return text
    edits: list[tuple[int, int, str]] = []  # (start, end, written instead), in the text as given
    for m in SENTENCE.finditer(text):
        asked = REQUEST.search(m.group(0))  # "lamp 4 looks weird, can you walk over to it": the report before the request
        end = m.start() + asked.start() if asked is not None else m.end()
        sentence = text[m.start():end]
        if not sentence.strip() or not STATE.match(sentence) or ASKS.search(sentence) or GOAL_IS.search(sentence) or _does(sentence, verbs):
            continue
        named = _named(sentence, things)
        if not named and not any(re.search(rf"\b{re.escape(t.lower().replace('_', ' '))}s\b", sentence, I) for t in things):
            continue  # names nothing of the game: talk (evo.plans.small_talk)
        rest = text[end:]
        other = re.search(r"\b(?:one|ones|them|they|those|these|both)\b", rest, I)  # "There are two goblins. Kill them both."
        if other is not None and not any(re.search(rf"\b{re.escape(t.lower().replace('_', ' '))}s?\b", rest[:other.start()], I) for t in things):
            continue
        it = re.search(r"(?<!\brun\s)(?<!\bdo\s)(?<!\btry\s)(?<!\btest\s)(?<!\bplay\s)(?<!\bthat's\s)(?<!\bthat\sis\s)\bit\b", rest, I)  # not the test ("run it through")
        if it is not None and not any(re.search(rf"\b{re.escape(t.lower().replace('_', ' '))}s?\b", rest[:it.start()], I) for t in things):
            if not BINDS.search(rest[:it.start()]):
                continue  # "it" is no thing ("give it a route"): kept as written
            if len(named) == 1:
                edits.append((end + it.start(), end + it.end(), named.pop()))
            # two things named, then "it": the report out all the same, and "it" left for the reader to refuse
        edits.append((m.start(), end + (len(asked.group(1)) if asked is not None else 0), ""))
    if not edits:
        return text
    for start, end, written in sorted(edits, reverse=True):
        text = text[:start] + written + text[end:]
    return re.sub(r"^[ \t]+|[ \t]+$", "", text, flags=re.M).strip()
