"""What a player reported, said before (or after) the steps that reproduce it: no step of the plan.

A support agent turning players' reports into tests (issue 55, wave 16: ``dev/*_dev36.yaml``)
writes what was reported first and the steps after it: "A player reports that after pulling the
lever the door stayed shut. To reproduce: pull the lever, then walk through the door.", "Player
says the first pillar is stretched. Go to pillar 1 and circle it once.", "Reported by several
players: ...", "Ticket 5120: 'Killed a skeleton, my kills didn't go up.'", "Per the player, ...".
Read as steps, the report's verbs ("pulling", "jumped", "walked") gave steps the tester never
asked for, or refused the text. A sentence whose subject is the one who reported (a player, a
customer, someone) and whose verb is a verb of reporting, a sentence under a report's label, and a
quotation that is a whole sentence are taken out before anything else is read; the steps around
them are read as they are. One pattern over closed-class words (reporters, reporting verbs, labels).
"""

from __future__ import annotations

import re
from typing import Iterable

REPORTER = (r"(?:(?:a|the|one|several|some|many|two|three|multiple|another)\s+)?(?:(?:of\s+our\s+|beta\s+|new\s+)?players?|customers?|users?|"
            r"someone|somebody|people|testers?|streamers?|reviewers?|backers?|folks)")
VERB = (r"(?:reports?|reported|says?|said|claims?|claimed|complains?|complained|wrote(?:\s+in)?|writes?(?:\s+in)?|mentions?|mentioned|"
        r"notices?|noticed|thinks?|thought|saw|sees|swears?|insists?|believes?|tells\s+us|told\s+us|describes?|described|"
        r"(?:got|gets|getting)\s+stuck|experienced|experiences|ran\s+into|hit\s+a\s+bug|found|finds|keeps?\s+(?:getting|seeing))")
WHERE = r"(?:\s+(?:on|from|in)\s+(?:the\s+)?[\w-]+){0,2}"
"""Where the reporter wrote ("Someone on Discord says", "a player on the forum")."""
REPORT = re.compile(rf"^\s*(?:{REPORTER}{WHERE}\s+(?:(?:also|just|apparently|repeatedly|again|even)\s+)?{VERB}\b|per\s+the\s+(?:player|customer|user|report|ticket)\b|"
                    r"(?:they|he|she)\s+(?:say|says|said|report|reports|reported|claim|claims|claimed|wrote|told\s+us)\b|"
                    r"(?:forwarding|passing\s+on|relaying)\s+(?:a\s+|this\s+)?(?:report|ticket|complaint|bug)\b|"
                    r"(?:can(?:'|no)t|cannot|couldn't|could\s+not|were\s+unable\s+to|haven't\s+been\s+able\s+to)\s+reproduce\b)", re.IGNORECASE)
"""A sentence that tells what a player reported ("A player reports that ...", "Player says ...",
"Someone wrote in saying ...", "Per the player, ...", "Can't reproduce the coin bug yet.")."""
LABEL = re.compile(r"^\s*(?:reported(?:\s+by\s+[^:.!?]{1,40})?|report\s+from\s+[^:.!?]{1,40}|(?:player|customer|user)'s\s+(?:exact\s+)?words|(?:player|customer|user|forum)\s+(?:report|complaint|feedback|quote|"
                   r"summary|post)|report|complaint|feedback|ticket(?:\s*#?\s*\d+)?(?:\s*,\s*[^:.!?]{1,40})?|forwarded\s+from\s+[^:.!?]{1,40}|"
                   r"from\s+the\s+forum|player|customer|quote)\s*:", re.IGNORECASE)
"""A report's label before what was reported ("Reported: ...", "Player complaint: ...", "Ticket
5120, player-facing summary: ...", "Forwarded from the forum:")."""
QUOTED = re.compile(r"^\s*(?:['\"“‘])[^'\"“”‘’]{8,}(?:['\"”’])\s*$")
"""A quotation that is a whole sentence ("'I jumped over the lava and fell into it anyway.'")."""
ASKS = re.compile(r"^\W*(?:(?:ok(?:ay)?|so|well|hey|hi|right)\W+)*(?:(?:i|we)(?:'m|'d|\s+am|\s+would|\s+want|\s+need|\s+wanna)|could\s+you|can\s+you|"
                  r"would\s+you|(?:we|i)\s+(?:want|need|would\s+like)\s+to\s+(?:see|know|check|look))\b[^.!?]*[.!?]\s*$", re.IGNORECASE)
"""A sentence that says what the tester wants to learn ("ok so I want to look at the skeleton.",
"Could you check that the second coin can be picked up?"): "it" first in the next is its one thing."""
SENTENCES = re.compile(r"(?<=[.!?]['\"”’])\s+|(?<=[.!?])\s+")


def unreported(text: str, things: Iterable[str] = ()) -> str:
    """``text`` without what players reported (the module's families), line by line; a label's
    line keeps what follows the report's sentence. ``things``: the game's words for its things:
    "it" first in the sentence after a report that names one thing is that thing ("Player says the
    ogre one-shots you. Go fight it.")."""
    names = {t.lower() for t in things}
    lines = []
    for line in text.splitlines():
        kept: list[str] = []
        told: list[str] = []  # the things the last dropped report names
        for sentence in SENTENCES.split(line):
            label = LABEL.match(sentence)
            rest = sentence[label.end():] if label is not None else ""
            if REPORT.match(sentence) or QUOTED.match(sentence) or (label is not None and not _imperative(rest)):
                told = [w for w in re.findall(r"[a-z]+", sentence.lower()) if w in names]
                continue
            if ASKS.match(sentence):  # "Could you check that the second coin can be picked up? Just walk onto it."
                kept.append(sentence)
                told = [w for w in re.findall(r"[a-z]+", sentence.lower()) if w in names]
                ordinal = re.search(rf"\b(?:the\s+)?(?:first|second|third|fourth|fifth|last)\s+{told[0]}\b|\b{told[0]}\s+\d{{1,2}}\b", sentence, re.IGNORECASE) \
                    if len(set(told)) == 1 else None
                told = [ordinal.group(0).lower().removeprefix("the ")] if ordinal is not None else told
                continue
            it = re.search(r"(?<!\bhave\s)(?<!\blet\s)(?<!\bmake\s)(?<!\bget\s)\bit\b", sentence)  # "have it pick up": the agent
            if len(set(told)) == 1 and it is not None and not any(w in names for w in re.findall(r"[a-z]+", sentence[:it.start()].lower())):
                sentence = f"{sentence[:it.start()]}the {told[0]}{sentence[it.end():]}"
            told = []
            kept.append(sentence)
        lines.append(" ".join(kept))
    return "\n".join(lines)


def _imperative(rest: str) -> bool:
    """What follows a report's label is a step ("Player: go to the lamp"), not what was reported
    ("Reported: the skeleton can't be hit", "Report: lamp 3 looks pixelated"): a verb in its base
    form first, its object or particle after it."""
    words = re.findall(r"[a-z']+", rest.lower())
    if not words:
        return False
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    after = words[1] if len(words) > 1 else ""
    return is_verb(words[0]) and _lemma(words[0], "v") == words[0] and after in (
        "the", "a", "an", "to", "it", "them", "up", "down", "over", "through", "around", "round", "on", "at", "every", "any", "all", "")
