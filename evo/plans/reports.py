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

Testers also tell what is wrong in their own words, around the steps that show it (waves 32 to 35,
``dev/*_dev67.yaml`` to ``*_dev74.yaml``): "Lamp 3 looks stretched sideways.", "Ogres hit way too
hard in this build.", "I pulled the lever three times yesterday and the door stayed shut."
:func:`described` leaves such a sentence out of the reading, unless it names a thing the rest of
the text does not: then it may be a step, and the reader refuses it rather than drop it.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from evo.plans.framing import GOAL_IS, _refers_back

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
                told = [w for w in re.findall(r"[a-z]+(?:_\d+)?", sentence.lower()) if w.split("_")[0] in names]  # "ogre_1": that one
                continue
            if ASKS.match(sentence):  # "Could you check that the second coin can be picked up? Just walk onto it."
                kept.append(sentence)
                told = [w for w in re.findall(r"[a-z]+(?:_\d+)?", sentence.lower()) if w.split("_")[0] in names]
                ordinal = re.search(rf"\b(?:the\s+)?(?:first|second|third|fourth|fifth|last|\d(?:st|nd|rd|th))\s+{told[0]}\b|\b{told[0]}\s+\d{{1,2}}\b", sentence, re.IGNORECASE) \
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


LINKING = (r"(?:is|are|was|were|does|did|do|has|have|had|seems?|seemed|looks?|looked|appears?|appeared|feels?|felt|keeps?|kept|"
           r"stays?|stayed|gets?|got|goes|went|shows?|showed|still|never|always|randomly|sometimes|renders|flickers|glitches|clips|stutters|"
           r"freezes|crashes|breaks|disappears|vanishes|triggers|fires|fails|spawns|grows|shrinks|took|fell|broke|gave|stuck|"
           r"(?:is|are|was|were|does|did|do|has|have|had|"
           r"wo|ca|could|would)n't|cannot)")
DESCRIBED = re.compile(rf"^\W*(?:(?:bug(?:\s+report)?|issue|problem|symptom|summary|observed|actual(?:\s+result)?)\s*:\s*)?(?:(?:so|and|but|also|btw|fyi|plus|hmm+|ugh|oh|again|apparently)\W+)*(?P<subject>(?:(?:the|this|that|these|those|my|our|some|"
                       rf"half|most|both|none|all)\s+(?:of\s+(?:the|these|those|our)\s+)?)?(?:[a-z][\w-]*\s+){{0,7}}?[a-z][\w-]*)\s+(?:\d+\s+)?"
                       rf"(?P<verb>{LINKING}|[a-z]+ed)\b(?P<rest>[^.!?]*)[.!?]*\s*$", re.IGNORECASE)
"""A sentence of what is wrong, in the tester's own words: a subject, then a verb of how it is or
was ("Lamp 3 looks stretched sideways.", "Ogres seem way too strong.", "Switch doesn't open the
door anymore??", "Jumping from the edge of the pit doesn't move the player.")."""
NOT_SUBJECT = frozenset({"and", "or", "but", "so", "you", "i", "we", "it", "there", "they", "he", "she", "player", "agent", "bot", "character", "hero", "tester",
                         "please", "then", "first", "next", "after", "afterwards", "before", "once", "when", "whenever", "if", "while",
                         "until", "as", "each", "every", "any", "just", "now", "finally", "last", "also", "only", "what", "who", "how", "why"})
"""Words of no subject of a description: the one who plays, a step's order or condition."""
ASKED = re.compile(r"\b(?:you|then|first|next|finally|before|after|once|whenever|until|should|must|need|needs|have\s+to|has\s+to|want|"
                   r"wants|please|make\s+sure|try|steps?|times?|turns?|seconds?|minutes?)\b", re.IGNORECASE)
"""Words that ask for a step, an order or a budget: a sentence with one is read."""
WHEN_YOU = re.compile(r"\s+(?:when|if)\s+you\s+[a-z][^,.;!?]*[.!?]*\s*$", re.IGNORECASE)
"""When what is wrong shows, at a description's end ("... flickers when you jump next to it.")."""


KIND_DOES = re.compile(r"^\W*(?:(?:so|and|but|also|btw|fyi|plus)\W+)*(?P<t>[a-z]+s)\s+(?:(?:always|still|now|sometimes|often|really|just|seem\s+to|tend\s+to)\s+)?"
                       r"(?P<v>[a-z]+)\b[^.!?]*[.!?]*\s*$", re.IGNORECASE)
"""A sentence of what a kind of thing does ("Ogres hit way too hard in this build."): its subject
the kind, in the plural, before its verb."""


def _kind_does(sentence: str, things: set[str]) -> bool:
    m = KIND_DOES.match(sentence)
    if m is None or ASKED.search(sentence) or m.group("t").lower()[:-1] not in things:
        return False
    from evo.plans.lexicon import is_verb, wordnet

    wordnet()
    return is_verb(m.group("v").lower()) and m.group("v").lower() not in ("and", "or", "then", "first", "last", "only")


def _describes(sentence: str, things: set[str], verbs: set[str]) -> bool:
    """Whether ``sentence`` says what is wrong (:data:`DESCRIBED`): no order in it, no word that
    asks for a step (:data:`ASKED`), and no deed of the game said as done to its subject ("The
    lever is pulled" is a step in the passive)."""
    m = DESCRIBED.match(sentence)
    if m is None or ASKED.search(WHEN_YOU.sub("", sentence)):  # "Lamp 4 flickers when you jump next to it.": when it is wrong
        return False
    subject = [w.lower() for w in m.group("subject").split()]
    if NOT_SUBJECT & set(subject) or _imperative(m.group("subject") + " " + m.group("verb")):
        return False
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    negated = re.search(r"n't|\bnot\b|\bnever\b|\bcannot\b|\bno\s+longer\b", sentence, re.IGNORECASE) is not None
    said = [m.group("verb"), *re.findall(r"[a-z]+", m.group("rest").lower())]
    deed = any(_lemma(w, "v") in verbs for w in said[:3] if w.endswith(("ed", "en")) or w == said[0])
    return not deed or negated


NARRATED = re.compile(r"^\W*(?:(?:so|ok(?:ay)?|and|but|also|btw|plus|yesterday|earlier|today|again|here's\s+the\s+thing|for\s+this\s+(?:test|run|pass|one))\W+)*"
                      r"(?:(?:i|we)\s+(?:(?:also|just|already|even|then|first|only|mostly|really)\s+)?"
                      r"(?:[a-z]+ed|saw|went|got|ran|hit|took|made|found|fell|did|had|was|were|kept|lost|tried|thought|knew|heard|think|believe|suspect|"
                      r"keep\s+(?:seeing|getting|noticing|hitting)|"
                      r"guess|reckon|feel|wonder|bet|care)|(?:i|we)(?:'re|'m|\s+are|\s+am)\s+(?:only\s+|just\s+|mostly\s+)?(?:testing|checking|chasing|"
                      r"interested\s+in|looking\s+(?:at|into)))\b"
                      r"(?![^.!?]*\b(?:you|please|should|must|need|want|let)\b)[^.!?]*[.!?]*\s*$", re.IGNORECASE)
"""A sentence of what the tester did or saw, in the past, or thinks ("I pulled the lever three
times yesterday and the door stayed shut.", "I think the lever is broken.")."""
DOES_NOTHING = re.compile(r"^\W*(?:[a-z]+-\d+\s*:\s*)?[a-z][^.!?:]{0,60}?\s+(?:does\s+nothing|(?:doesn't|does\s+not)\s+(?:work|do\s+anything)|is\s+broken)\b"
                          r"[^.!?]*[.!?]*\s*$", re.IGNORECASE)
"""A deed said not to work ("BUG-112: jump over lava does nothing when ..."): what is wrong, no step."""
THING = re.compile(r"[a-z]+(?:(?:[ \t]+(?:number[ \t]+)?|_)\d{1,2})?", re.IGNORECASE)


def described(text: str, things: Iterable[str] | Mapping[str, str] = (), verbs: Iterable[str] = ()) -> str:
    """``text`` without its sentences of what is wrong (:func:`_describes`) or what the tester did
    (:data:`NARRATED`), said before or after the steps ("Lamp 3 looks stretched sideways. Go to
    lamp 3 and look up."); as written where the game's words are not given. Such a sentence is
    kept where the next one points back into it ("it"), or where it names a thing (one by its
    number, "barrel 4") the rest of the text does not: that may be a step in the guise of a remark
    ("The shrine is the goal."), for the reader to refuse rather than drop."""
    kinds = {t.lower(): (things[t] if isinstance(things, Mapping) else t).lower() for t in things}
    deeds = {v.lower() for v in verbs}
    if not kinds or not deeds:
        return text
    lines = [SENTENCES.split(line) for line in text.splitlines()]
    told = []
    for k, line in enumerate(lines):
        for j, s in enumerate(line):
            goal = GOAL_IS.search(s) is not None  # "The shrine is the goal. Get there and activate it.": only so
            if not (_describes(s, set(kinds), deeds) or _kind_does(s, set(kinds)) or NARRATED.match(s) or DOES_NOTHING.match(s) or goal):
                continue
            named = set(_named(s, kinds))
            if _points_back(line[j + 1:j + 2]):
                if len(named) != 1 or line[j + 1].rstrip().endswith("?"):  # "Can you go fight it? Kill the ogre, ...": the same deed twice
                    continue
                kind, n = named.pop()  # "Coin 2 looks off. Go grab it": coin 2
                line[j + 1] = re.sub(r"\b(?:it|them|there)\b", lambda m: ("to " if m.group(0).lower() == "there" else "") + (f"{kind} {n}" if n else f"the {kind}"),
                                     line[j + 1], count=1, flags=re.IGNORECASE)
            elif goal:
                continue
            told.append((k, j))
    dropped = set(told)
    rest = [s for k, line in enumerate(lines) for j, s in enumerate(line) if (k, j) not in dropped]
    elsewhere = {n for s in rest for n in _named(s, kinds)}
    out = []
    for k, line in enumerate(lines):
        kept = [s for j, s in enumerate(line) if (k, j) not in dropped
                or not all((kind, n) in elsewhere or not n and any(o == kind for o, _ in elsewhere) for kind, n in _named(s, kinds))]
        out.append(" ".join(kept) if len(kept) < len(line) else text.splitlines()[k])
    return "\n".join(out)


def _named(sentence: str, kinds: Mapping[str, str]) -> list[tuple[str, str]]:
    """The things a sentence names: (kind, number or "")."""
    out = []
    for m in THING.finditer(sentence):
        word, _, n = m.group(0).lower().replace("_", " ").partition(" ")  # "barrel_1": the game's own name
        kind = kinds.get(word) or (kinds.get(word[:-1]) if word.endswith("s") else None)
        if kind is not None:
            out.append((kind, n.split()[-1] if n else ""))
    return out


def _points_back(after: list[str]) -> bool:
    """The next sentence says "it" of something before it names a thing of its own
    (:func:`evo.plans.framing._refers_back`), and not of the problem ("To see it, ...")."""
    return bool(after) and _refers_back([re.sub(r"\b(?:see|reproduce|repro|check|verify|confirm|trigger|test)\s+(?:it|this|that)\b", "",
                                                after[0], flags=re.IGNORECASE)])
