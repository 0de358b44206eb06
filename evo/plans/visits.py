"""A thing of the game named alone as a step: a runner's notes and a dictated list (issue 55, wave 7).

"barrel -> pillar -> lamp", "nearest lamp -> look up at it", "lamp_3 look up", "b1": a clause that
names a thing of the game and no verb before it is a visit, "go to" it, unless a verb earlier in
the text is gapped into it ("Attack the goblin, then the skeleton"). With the game's names and
verbs, a gamer's clipped name is the name ("gob", "skel"), one letter and a number is the thing
whose name begins with it ("b1", where one name begins with b), "coins one two and three" is each
coin in turn, and a step run into the next ("flip the switch leap across the lava") gets its comma.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

VISIT = re.compile(r"^(?P<lead>(?:and\s+)?then\s+|first\s+(?=the\s))?(?P<np>(?:the\s+)?(?:(?:nearest|closest|next|first|second|third|fourth|fifth|last|"
                   r"\d+(?:st|nd|rd|th))\s+)?(?P<noun>[a-z]+(?:\s+[a-z]+){%d})(?:\s+(?:number\s+)?\d{1,2})?)(?:\s+(?:first|last|next|too|again))?(?:\s+(?P<rest>[a-z].*?))?(?P<end>[.!]?)$",
                   re.IGNORECASE)
VISITS = (re.compile(VISIT.pattern % 0, re.IGNORECASE), re.compile(VISIT.pattern % 1, re.IGNORECASE))
"""A thing named alone as a step, or before its deed ("lamp 2", "the nearest enemy", "lamp 2 look up")."""
LABELLED = re.compile(r"^(?P<label>\s*(?:step\s+\w+\s*[:.)-]|\d{1,2}\s*[.):-]|[-*•]|\[\s?\])\s*)(?:the\s+)?[a-z]+(?:\s+\d{1,2})?\s*[.!]?\s*$", re.IGNORECASE)
"""A list item that is one thing alone ("Step 5: shrine."): that thing's own deed, whatever verb came before."""


def visited(text: str, things: Iterable[str], verbs: Iterable[str] = (), deeds: Mapping[str, str] | None = None) -> str:
    """``text`` with each clause that names a thing of the game and no verb before it read as a
    visit, "go to" it ("barrel, then pillar", "nearest lamp, then look up at it", "the 1st lamp
    look up", "b1" for barrel 1 where one thing's name begins with b); ``things``: the game's
    names for its things and their synonyms; ``deeds``: a name -> the one action the game does to
    it, where it has one: a thing named alone with no deed after it is that deed, not a visit
    ("switch, lava, shrine" in the dungeon: pull, jump, use; testers of wave 25 meant that)."""
    names = {t.lower() for t in things}
    deeds = {w.lower(): d for w, d in (deeds or {}).items()}
    said = "|".join(["go to", "visit", *sorted({re.escape(d) for d in deeds.values()}, key=len, reverse=True)])
    if not names:
        return text
    text = re.sub(r"(?P<d>\b(?:turn\s+(?:left|right)|look\s+(?:up|down)|jump|circle\s+it)\s+there)\s*,\s*(?:and\s+)?then\s+(?:to\s+)?(?=(?:the\s+)?(?:(?:closest|nearest)\s+)?"
                  r"(?P<x>[a-z]+)(?:\s+\d{1,2})?\s*(?:[.;!]|$))", lambda m: f"{m.group('d')}, then go to " if m.group("x").lower() in names else m.group(0),
                  text, flags=re.IGNORECASE | re.MULTILINE)
    # "then stump 4 and turn left there, then lamp 2": the deed was the place's, the next place a visit
    text = _run_on(_enumerated(text), names, {v.lower() for v in verbs})
    text = NAMED_THEN_IT.sub(lambda m: f"{m.group('v')} {m.group('np')}" if any(_named(w, names) for w in m.group("np").split()) else m.group(0), text)
    seen = [False, False]  # a verb before, anywhere in the text: a bare thing after it is gapped ("Then the ogre"); and one done where it stood
    lines = []
    for line in text.splitlines():
        sentences: list[str] = []
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            all_of = ALL_OF.match(sentence)
            if all_of and sentences and re.fullmatch(r"(?:walk|go|head|run|visit|move)(?:\s+up)?", all_of.group("verb"), re.IGNORECASE) \
                    and len(re.findall(r"\bgo\s+to\s|\bthen\s+(?:to\s+)?(?:the\s+)?[a-z]+", sentences[-1], re.IGNORECASE)) > 1:
                continue  # "stump 1, then barrel 2. Just walk to each one.": the visits already
            if all_of and sentences and len(re.findall(rf"\b(?:{said})\s", sentences[-1])) > 1:  # "Skeleton first, then ogre. Kill both."
                sentences[-1] = re.sub(rf"\b(?:{said})\s", f"{all_of.group('verb')} ", sentences[-1])
                continue
            single = [k for k in range(len(sentences)) if ONE_VISIT.match(sentences[k])]
            tail = len(sentences) - next((n for n, k in enumerate(reversed(range(len(sentences)))) if k not in single), len(sentences))
            if all_of and len(sentences) - tail >= 2:  # "Go to stump 1. Then stump 2. Circle each one."
                for k in range(tail, len(sentences)):
                    sentences[k] = re.sub(rf"^(\s*(?:(?:and\s+)?then\s+)?)(?:(?:go|walk|head|run)\s+to\s+|visit\s+|(?:{said})\s+)?", rf"\g<1>{all_of.group('verb')} ", sentences[k],
                                          count=1, flags=re.IGNORECASE)
                continue
            listed = _route(ROUTE_LABEL.sub("", sentence), names)  # "Kill any enemy that comes near. Route: switch, door, lava.": no verb before carries into a list
            sentence = ROUTE_LABEL.sub("", sentence) if listed else sentence
            sentences.append(_visits(sentence, names, [False, False] if listed else seen, deeds, verbs if isinstance(verbs, Mapping) else {}))
            seen[0] = seen[0] or listed
        lines.append(" ".join(sentences))
    return "\n".join(lines)


EACH_NAMED = re.compile(r"\b(?:each|all|every\s+one)\s+(?:of\s+)?(?:the\s+)?(?:(?:two|three|four|five|six)\s+)?(?P<x>[a-z]+?)s(?:\s+in\s+(?:order|turn|sequence))?\s*"
                        r"(?:[,:]\s*(?P<list>(?P=x)\s+\d[^.;!?\n]*?)(?=\s+and\s+[a-z]+\s|[.;!?]|$)|\(\s*(?P<inner>(?P=x)\s+\d[^()\n]*?)\s*\))", re.IGNORECASE | re.MULTILINE)
"""Things of a kind, then each by its name ("each of the four stumps in order (stump 1, 2, 3, 4)"): those."""


EACH_NUMBERED = re.compile(r"\b(?:each|every)\s+(?P<x>[a-z]+)\s+in\s+(?:order|turn)\s*:\s*(?P<n>\d{1,2}(?:\s*(?:,|and|then|,\s*and|,\s*then)\s*\d{1,2})+)\b", re.IGNORECASE)
"""Each thing of a kind by its numbers ("each pillar in order: 1, 2, 3, 4"): those, in turn."""


def each_named(text: str, things: Iterable[str]) -> str:
    """``text`` with things of a kind said, then named one by one (:data:`EACH_NAMED`, :data:`EACH_NUMBERED`), as those named."""
    names = {t.lower() for t in things}
    text = EACH_NUMBERED.sub(lambda m: ", then ".join(f"{m.group('x')} {n}" for n in re.findall(r"\d+", m.group("n")))
                             if m.group("x").lower() in names else m.group(0), text)
    return EACH_NAMED.sub(lambda m: (m.group("list") or m.group("inner")) if m.group("x").lower() in names else m.group(0), text)
NAMED_THEN_IT = re.compile(r"(?:^|(?<=[.!?]\s))(?P<np>(?:the\s+)?(?:(?:first|second|third|fourth|fifth|last|nearest|closest)\s+)?[a-z]+(?:\s+\d{1,2})?)\s*[.!]\s+"
                           r"(?P<v>(?:go|walk|head|run)\s+to|[a-z]+(?:\s+(?:up|down)\s+at|\s+at|\s+around|\s+over|\s+across)?)\s+it\b", re.IGNORECASE | re.MULTILINE)
"""A thing named in a sentence of its own, then done to as "it" ("The skeleton. Kill it."): one step."""
MOTIONS = frozenset({"go", "walk", "head", "run", "move", "visit", "reach", "approach", "return", "come", "proceed", "travel", "stop"})
"""Verbs of going somewhere: a thing after one, then a deed, is a visit of its own."""
ALL_OF = re.compile(r"^\s*(?:just\s+|simply\s+)?(?P<verb>[a-z]+(?:\s+(?:up|down|around|over))?)\s+(?:at\s+|around\s+|to\s+)?(?:both|each(?:\s+one)?|all(?:\s+of\s+them)?|"
                    r"them\s+all|all\s+(?:two|three|four))(?:\s+up)?(?:\s+in\s+(?:that|this|the\s+same|the\s+given)\s+order|\s+one\s+by\s+one)?\s*(?:,\s*nothing\s+(?:fancy|else|more))?\s*[.!]?$", re.IGNORECASE)
"""A deed said in its own sentence after a list of places ("Kill both.")."""
ONE_VISIT = re.compile(r"^\s*(?:(?:and\s+)?then\s+)?(?:(?:go|walk|head|run)\s+to\s+[^,;.!?]+|visit\s+[^,;.!?]+|(?:the\s+)?[a-z]+\s+\d{1,2})[.!]?\s*$",
                       re.IGNORECASE)
"""A sentence that is one visit ("Then go to stump 2.")."""


def _visits(sentence: str, names: set[str], seen: list[bool], deeds: Mapping[str, str] | None = None,
            acts: Mapping[str, str] | None = None) -> str:
    deeds, acts = deeds or {}, {w.lower(): a for w, a in (acts or {}).items()}
    item = LABELLED.match(sentence)
    label, sentence = (item.group("label"), sentence[item.end("label"):]) if item is not None else ("", sentence)
    sentence = re.sub(r"\b(?P<letter>[a-z])(?P<n>\d)\b", lambda m: _initial(m, names), sentence, flags=re.IGNORECASE)
    sentence = re.sub(r"\b[a-z]{3,}\b", lambda m: _unclipped(m.group(0), names), sentence, flags=re.IGNORECASE)
    parts = re.split(r"(,\s*(?:and\s+)?(?:then\s+)?|;\s*(?:then\s+)?|\s+then\s+|\s+and\s+(?=(?:the\s+)?[a-z]+(?:\s+\d{1,2})?\s*[.!]?$))", sentence)
    parts = [re.sub(r"^(\s*(?:[-*•]\s*)?(?:then\s+)?)(?:over|across)\s+(?=(?:the\s+)?(?P<x>[a-z]+)(?:\s+\d{1,2})?\s*[.!]?$)",
                    lambda m: f"{m.group(1)}{deeds[m.group('x').lower()]} " if m.group("x").lower() in deeds else m.group(1), p, flags=re.IGNORECASE) if k % 2 == 0 else p
             for k, p in enumerate(parts)]  # "lever, then coin 1, then over the lava": the lava's own deed
    verb_seen, said_parts = seen[0], list(parts)
    acts_here = {**acts, **{w: w for w in HERE}}
    for k in range(0, len(parts), 2):
        if verb_seen and ((k == 0 and len(seen) > 1 and seen[1]) or (k >= 2 and _placeless(said_parts[k - 2], names, acts_here))):
            verb_seen = False  # "go to pillar 4 and look up, then barrel 2": a deed done where it stood is no verb to gap
        m = next((m for m in (v.match(parts[k].strip()) for v in VISITS) if m is not None
                  and not _grammar(m.group("noun").split()[0])
                  and (any(_named(w, names) for w in m.group("noun").split()) or (" " not in m.group("noun") and _like(m.group("noun"), names))) and not (m.group("rest") and not _deed(m.group("rest")))
                  and not (" " in m.group("noun") and not _two_word_name(m.group("noun"), names))),
                 None)
        after = parts[k + 2].strip() if k + 2 < len(parts) else ""
        before = said_parts[k - 2].strip().lower().split() if k >= 2 else []
        if m is not None and not m.group("rest") and before and before[0] not in MOTIONS and len(before) > 1 and _base_verb(before[0]) and not _named(before[0], names) \
                and re.match(r"[,;]?\s*(?:and\s+)?then\s", parts[k - 1]) and not (m.group("lead") or "").strip() \
                and (k + 1 >= len(parts) or re.match(r"[,;]?\s*(?:and\s+)?then\s", parts[k + 1])) \
                and not (_misfit(m.group("noun"), said_parts[:k:2], deeds, acts) and not _verb_next(after, acts)):
            continue  # "Circle lamp 4 then stump 4, then look up": circle both (the verb before is gapped)
        bare = re.match(r"^(?:then\s+)?(?:just\s+)?[a-z]+(?:\s+(?:up|down|left|right|around|over|it|them|there))?[.!]?$", after, re.IGNORECASE)
        if m is not None and verb_seen and not m.group("rest") and _misfit(m.group("noun"), said_parts[:k:2], deeds, acts) \
                and not _verb_next(after, acts):
            verb_seen = False  # "then jump the lava, then the shrine": the shrine's own deed, no jump
        labelled = k == 0 and bool(label) and m is not None and not m.group("rest") and any(_named(w, names) for w in m.group("noun").split())
        if m is None or (verb_seen and not labelled and not m.group("rest") and not re.match(r"^(?:then\s+)?(?:[a-z]+\s+){0,3}(?:it|them|there)\b", after, re.IGNORECASE)
                         and not (bare and _deed(re.sub(r"^(?:then|just)\s+", "", after, flags=re.IGNORECASE)))):
            verb_seen = verb_seen or (m is None and bool(parts[k].strip()))  # "attack the goblin, then the skeleton": gapped
            continue
        np = m.group("np") if re.match(r"the\s", m.group("np"), re.IGNORECASE) or re.search(r"\d$", m.group("np")) \
            else f"the {m.group('np')}"
        np = re.sub(r"^(?:the\s+)?(?:first|next|last|then)\s+(?=[a-z]+(?:\s+[a-z]+)?\s+(?:number\s+)?\d)", "", np, flags=re.IGNORECASE)  # "First barrel 3": an order
        head = m.group("noun").split()[-1].lower()
        deed = deeds.get(head, deeds.get(head[:-1], "")) if head not in deeds and head.endswith("s") else deeds.get(head, "")
        deed = "" if m.group("rest") or re.match(r"^(?:then\s+)?(?:[a-z]+\s+){0,5}(?:it|them|there)\b", after, re.IGNORECASE) \
            or (bare and _deed(re.sub(r"^(?:then|just)\s+", "", after, flags=re.IGNORECASE))) else deed
        visit = (m.group("lead") or "") + f"{deed or 'go to'} {np}"
        parts[k] = f"{visit}, then {m.group('rest')}{m.group('end')}" if m.group("rest") else f"{visit}{m.group('end')}"
    seen[0] = verb_seen or any(parts[k].strip() for k in range(0, len(parts), 2))
    if len(seen) > 1:
        last = next((said_parts[k] for k in reversed(range(0, len(said_parts), 2)) if said_parts[k].strip()), "")
        seen[1] = _placeless(last, names, acts_here)
    return label + "".join(parts)


HERE = ("look", "turn", "jump", "circle", "crouch", "spin", "wait")
"""Verbs of a deed done where the player stands ("look up", "turn left", "jump")."""


def _placeless(part: str, names: set[str], acts: Mapping[str, str]) -> bool:
    """The clause ends in a deed with no thing of its own ("... and look up", "turn left", "jump"):
    done where the step before stood, so no verb to gap into a thing named after it."""
    tail = re.split(r"\s+and\s+(?:then\s+)?", part.strip())[-1]
    m = re.fullmatch(r"(?:then\s+)?(?:just\s+)?(?P<v>[a-z]+)(?:\s+(?:up|down|left|right|around|once|twice|again|there))?\s*[.!]?", tail.strip(), re.IGNORECASE)
    return m is not None and m.group("v").lower() not in names and m.group("v").lower() in acts


ROUTE_LABEL = re.compile(r"^\s*(?:(?:the|my|our|your|main|usual|normal|full)\s+)*(?:route|path|order|run|plan)\s*:\s*", re.IGNORECASE)
"""A route's label before its things ("route: switch, door, lava, shrine.")."""


def _route(sentence: str, names: set[str]) -> bool:
    """The sentence is a list of things alone, two or more, not going on from the one before ("then ..."): a route."""
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", sentence.strip().rstrip(".!"))
    return len(parts) >= 2 and not re.match(r"\s*(?:and|then|also)\b", sentence, re.IGNORECASE) \
        and all(re.fullmatch(r"(?:the\s+)?([a-z]+)(?:\s+\d{1,2})?", p.strip(), re.IGNORECASE) and _named(p.split()[-1 if not p.strip()[-1].isdigit() else -2], names)
                for p in parts)


def _verb_next(after: str, acts: Mapping[str, str]) -> bool:
    """The next clause starts with a verb of the game's: the thing is that verb's ("the shrine, activate")."""
    first = re.match(r"\s*(?:then\s+)?([a-z]+)", after, re.IGNORECASE)
    return first is not None and first.group(1).lower() in acts


def _misfit(noun: str, before: list[str], deeds: Mapping[str, str], acts: Mapping[str, str]) -> bool:
    """The verb last said before a bare thing is not what the game does to it, and the thing has a
    deed of its own: that deed, not the verb gapped."""
    head = noun.split()[-1].lower()
    deed = deeds.get(head) or deeds.get(head[:-1]) if head.endswith("s") else deeds.get(head)
    word = next((w for p in reversed(before) for w in re.sub(r"^(?:and\s+)?then\s+", "", p.strip().lower()).split()[:1] if w in acts), None)
    verb = acts[word] if word is not None else None
    return bool(deed) and verb is not None and (verb not in (deed, "move") or word in COLLECTING)


COLLECTING = frozenset({"get", "grab", "pick", "collect", "take", "gather", "fetch", "loot", "snag", "pocket", "obtain"})
"""Verbs of picking up: no verb for a thing that is not picked up ("get coin 3, then the shrine": the shrine's own deed)."""


BACK_IT = re.compile(r"\b(?:come|go|head|walk|run)\s+back(?:\s+(?:here|there))?\s*,?\s+and\s+[a-z]+(?:\s+(?:up|down|on|at))?\s+(?P<it>it)\b", re.IGNORECASE)
"""A deed on "it" after coming back ("Kill the skeleton first, then come back and pull it"): on the
thing come back to, the one named before the last."""


def back_to(text: str, things: Iterable[str]) -> str:
    """``text`` with "it" after coming back (:data:`BACK_IT`) the thing come back to."""
    names = {t.lower() for t in things}

    def it(m: re.Match[str]) -> str:
        named = [t.lower() for t in re.findall(r"\b([a-z]+)\b", text[:m.start()], re.IGNORECASE) if t.lower() in names]
        before = [t for t in named if t != named[-1]] if named else []
        return f"{m.group(0)[:m.start('it') - m.start()]}the {before[-1]}" if before else m.group(0)
    return BACK_IT.sub(it, text)


NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|\\d"
ENUMERATED = re.compile(rf"\b(?P<thing>[a-z]{{3,}}?)s\s+(?P<first>{NUMBER_WORDS})(?P<more>(?:\s*,?\s+(?:and\s+)?(?:{NUMBER_WORDS}))+)\b",
                        re.IGNORECASE)
"""Several of a kind by number ("coins one two and three"): each by its number, in order."""


def _enumerated(text: str) -> str:
    def each(m: re.Match[str]) -> str:
        numbers = [m.group("first"), *re.findall(NUMBER_WORDS, m.group("more"), re.IGNORECASE)]
        return ", then ".join(f"{m.group('thing')} {n}" for n in numbers)

    def span(m: re.Match[str]) -> str:
        a, b = int(m.group("a")), int(m.group("b"))
        return ", then ".join(f"{m.group('thing')} {n}" for n in range(a, b + 1)) if 0 < b - a <= 5 else m.group(0)
    def span_each(m: re.Match[str]) -> str:
        a, b = int(m.group("a")), int(m.group("b"))
        if not 0 < b - a <= 5:
            return m.group(0)
        return ", then ".join(f"{m.group('deed')} {m.group('prep') or ''}{m.group('thing')} {n}" for n in range(a, b + 1))
    return DEED_EACH.sub(_deed_each, RANGE.sub(span, RANGE_EACH.sub(span_each, ENUMERATED.sub(each, text))))


RANGE_EACH = re.compile(r"\b(?:(?:go|walk|head|move|run|stroll|jog|wander|travel)\s+(?:up\s+|over\s+)?to\s+|visit\s+)?(?:each|every)\s+(?P<thing>[a-z]{3,}?)\s*(?:in\s+(?:turn|order)\s*)?,?\s*(?:from\s+)?(?P<a>\d)\s*(?:to|-|through|thru)\s*(?P<b>\d)\s*,?\s+"
                        r"and\s+(?:then\s+)?(?P<deed>(?!(?:go|walk|head|visit|move)\b)[a-z]+(?:\s+(?:up|down|left|right|around|over))?)\s+(?P<prep>(?:at|on|around|to|over)\s+)?(?:it|them|each)\b",
                        re.IGNORECASE)
"""Each thing of a kind by a range of numbers, and a deed at "it" ("walk to each lamp in turn, 1 to 4,
and look up at it"): the deed at each, in turn."""


_ITEM = r"(?:the\s+)?[a-z]+\s+\d{1,2}"
DEED_EACH = re.compile(rf"(?P<lead>\b(?:go\s+to|walk\s+to|head\s+to|visit|move\s+to)\s+)?(?P<list>{_ITEM}(?:(?:\s*,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+){_ITEM}){{1,7}})"
                       r"(?:\s*,?\s+in\s+(?:that|this|the\s+same)\s+order)?\s*(?:[,;.–—-]\s*)?(?:and\s+)?(?:then\s+)?"
                       r"(?P<deed>(?!(?:go|walk|head|visit|move)\b)[a-z]+(?:\s+(?:up|down|left|right|around|over))?)\s+(?P<prep>(?:at|on|around|to|over)\s+)?each(?:\s+(?:one\s+)?of\s+them|\s+one)?\b",
                       re.IGNORECASE)
"""Things listed, then one deed at each ("lamp 1, then lamp 2, then lamp 3 - look up at each"): the deed at each, in turn."""


def _deed_each(m: re.Match[str]) -> str:
    before = re.search(r"([a-z]+)\W*$", m.string[:m.start()].split(".")[-1], re.IGNORECASE)
    if not m.group("lead") and before is not None and before.group(1).lower() not in ("then", "and", "please", "just", "first", "also", "so", "ok", "okay"):
        return m.group(0)  # "Circle pillar 1 and pillar 2, then look down at each": a deed of its own before the things
    items = re.findall(_ITEM, m.group("list"), re.IGNORECASE)
    return ", then ".join(f"{m.group('deed')} {m.group('prep') or ''}{item}" for item in items)


RANGE = re.compile(r"\b(?:(?:each|every|all(?:\s+(?:of\s+)?the)?)\s+)?(?P<thing>[a-z]{3,}?)s?(?:\s+|\s*,\s*(?:from\s+)?(?=\d\s*(?:to|-|through|thru)\s*\d\s*(?:,|$|\.|\s+in\b)))(?P<a>\d)\s*(?:to|-|through|thru)\s*(?P<b>\d)\b"
                   r"(?!\s*(?:steps?|s|secs?|seconds?|mins?|minutes?|times?)\b)", re.IGNORECASE)
"""Things of a kind by a range of numbers ("coins 1 to 3"): each, in order."""


CONDITION_SAID = re.compile(r"\b(?:if|when|whenever|once|every\s+time|each\s+time|any\s+time|as\s+soon\s+as)\s+(?:you\s+[a-z]+|"
                            r"(?:any|a|an|the|some)\s+[a-z]+\s+(?:shows?\s+up|appears?|comes?\s+[a-z]+|gets?\s+[a-z]+|is\s+[a-z]+|are\s+[a-z]+)|"
                            r"(?:it|the\s+[a-z]+)(?:'s|\s+is)\s+[a-z]+)", re.IGNORECASE)
"""A condition that has its own verb already ("whenever you pass a barrel", "if any skeletons show
up"): the next verb of the game's begins the step it conditions."""


def _run_on(text: str, names: set[str], verbs: set[str]) -> str:
    """A comma where a dictated or hurried step runs into the next ("flip the switch leap across
    the lava", "go to coin one go to coin two"): before a verb of the game's, after a thing's name,
    a number or "it"; before any verb of "it" or of a direction there ("go to the switch flip it",
    "go to pillar 3 turn right")."""
    if not verbs:
        return text

    def comma(m: re.Match[str]) -> str:
        prev, verb = m.group("prev").lower(), m.group("verb").lower()
        clause = re.split(r"[,.;:!?\n]", text[:m.start()])[-1]
        number = re.fullmatch(NUMBER_WORDS, prev) is not None
        said = CONDITION_SAID.search(clause + m.group("prev"))  # "whenever you walk by a barrel circle it", "whenever an ogre is nearby attack it"
        after = (prev in names and not (prev.endswith("s") and prev[:-1] in names and not said)) or prev in ("it", "them", "there") \
            or (prev in ("up", "down", "left", "right") and verb in verbs and re.search(r"\b(?:look|turn|glance|face)\s*$", clause, re.IGNORECASE) is not None) \
            or (said is not None and prev in ("way", "up", "open", "on", "near", "nearby", "close", "by", "around", "sight", "range")) or (number and re.search(r"[A-Za-z]\s*$", clause) is not None)
        told = re.search(r"\b(?:if|when|whenever|once|should|until|till|as\s+soon\s+as|every\s+time|any\s+time|before|after|"
                         r"although|though|while|with)\b|^\s*(?:at|by|near|"
                         r"beside|next\s+to)\s+the\b", clause, re.IGNORECASE)  # "if an ogre approach(es)", "at the shrine pray"
        told = told if said is None or re.search(r"\b(?:before|after|although|though|while|with)\b", clause, re.IGNORECASE) or re.match(r"^\s*(?:at|by|near|beside|next\s+to)\s+the\b", clause, re.IGNORECASE) else None
        named = re.search(r"\b([a-z]+)\s+(?:number\s+|#)?$", clause, re.IGNORECASE)  # "pillar 3": the thing before the number
        thing = (prev in names and not prev.endswith("s")) or (prev.isdigit() and named is not None and named.group(1).lower() in names)
        known = verb in verbs or (m.group("obj") is not None and thing and _deed(f"{verb} {m.group('obj').strip()}"))  # "the switch flip it", "pillar 3 turn right"
        return f"{m.group('prev')}," if after and not told and known and verb not in names else m.group(0)
    return re.sub(r"\b(?P<prev>[A-Za-z0-9]+)(?=[ \t]+(?P<verb>[A-Za-z]+)\b(?P<obj>[ \t]+(?:it|them|left|right|up|down|around)\b)?)", comma, text)


def _unclipped(word: str, names: set[str]) -> str:
    """"gob", "skel", "skels": a gamer's clipped name of a thing, where the word is rare in English
    (WordNet counts it less than twice) and begins exactly one of the game's names."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from evo.plans.lexicon import _lemma, wordnet

    low = word.lower()
    stem, plural = (low[:-1], "s") if low.endswith("s") and len(low) > 3 else (low, "")
    if low in names or stem in names or low in STOP_WORDS:
        return word
    fits = {n for n in names if " " not in n and n.startswith(stem) and len(n) >= len(stem) + 2}
    fits = {n for n in fits if not (n.endswith("s") and n[:-1] in fits)}  # "skeletons": the plural of one
    base = {low, *(_lemma(low, pos) for pos in ("n", "v"))}
    used = sum(lemma.count() for s in wordnet().synsets(low) for lemma in s.lemmas() if lemma.name().lower() in base)
    return f"{fits.pop()}{plural}" if len(fits) == 1 and used < 2 else word


def _initial(m: re.Match[str], names: set[str]) -> str:
    """"b1": barrel 1, where exactly one of the game's names begins with the letter."""
    fits = {n for n in names if n.startswith(m.group("letter").lower()) and " " not in n}
    return f"{fits.pop()} {m.group('n')}" if len(fits) == 1 else m.group(0)


def _named(noun: str, names: set[str]) -> bool:
    """A word that is a name of the game's things, or its plural."""
    noun = noun.lower()
    return noun in names or (noun.endswith("s") and noun[:-1] in names)


def _grammar(word: str) -> bool:
    """A word of the grammar ("any", "both", "will"), never the start of a thing's name."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return word.lower() in STOP_WORDS


def _like(word: str, names: set[str]) -> bool:
    """A word WordNet reads as one of the game's things, or a kind of one ("keg": a barrel)."""
    from evo.plans.lexicon import THRESHOLD, best_match

    found = best_match(word, {n: () for n in names}, "n")
    return found.score >= THRESHOLD and found.how in ("same", "synonym", "kind")


def _two_word_name(words: str, names: set[str]) -> bool:
    """Two words that name one thing ("lava gap", "gold coin", "tree stump"): the first a name of
    the game's or an adjective, or the two a compound WordNet knows; not "pull lever", "farm mobs"."""
    from evo.plans.lexicon import compound, wordnet

    first, second = words.lower().split()
    if second in ("is", "are", "was", "were", "be", "has", "have", "seems", "looks"):
        return False  # "shrine is last": a statement about it, no name
    adjective = not first.endswith("ing") and bool(wordnet().synsets(first, "a") or wordnet().synsets(first, "s"))
    return not _deed(words) and (_named(first, names) or adjective
                                 or compound(first, second) is not None)


def _base_verb(word: str) -> bool:
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    return is_verb(word) and _lemma(word, "v") == word and word not in ("is", "are", "be", "has", "was", "the", "a", "an")


def _deed(rest: str) -> bool:
    """The words after a thing begin a deed: a verb in its base form, used more as a verb than as
    anything else ("look up", "jump"; not "gap"), or any verb before "it" or a particle."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    words = [w.rstrip(".!") for w in rest.lower().split()]  # "kill." too
    if not words or not words[0] or not (is_verb(words[0]) and _lemma(words[0], "v") == words[0]) or words[0] in ("is", "are", "be", "has", "was"):
        return False

    def used(pos: str) -> int:
        return sum(lemma.count() for s in wordnet().synsets(words[0], pos) for lemma in s.lemmas() if lemma.name().lower() == words[0])

    return used("v") >= max(used("n"), used("r"), 1) or (len(words) > 1 and words[1] in ("it", "them", "up", "down", "around", "over"))
