"""Steps said after the steps they come before, put back in the order they are done.

Testers add a step after the fact: at the end of a sentence ("go through the door, you'll have to
flip the switch first"), in the next sentence ("Use the shrine. Kill the goblin first."), or as an
afterthought to all of it ("The lever has to be pulled before any of that.", "Oh, and pull the
lever first, of course."). Each pattern is over closed-class words ("first", "beforehand",
"before any of that", "to get there"); a step whose place in the order is not said ("Go to the
door. Jump the lava. Pull the lever first.") is kept where it is, for the reader to doubt.
"""

from __future__ import annotations

import re

DONE_FIRST = re.compile(r"^(?P<a>[^,;]+?)\s*[,;]\s*(?:and\s+)?(?:you(?:'ll|\s+will)\s+(?:have|need)\s+to\s+|make\s+sure\s+(?:you\s+)?)?"
                        r"(?P<b>(?![^,;]*\b(?:then|and\s+then)\b)[^,;]+?)\s+(?:first|beforehand|before\s+that|before\s+you\s+do|to\s+start)"
                        r"(?:\s+(?:obviously|of\s+course|though|please))?\s*(?P<end>[.!?]?)$", re.IGNORECASE)
"""A later clause of a sentence to be done before the one before it ("go through the door, you'll
have to flip the switch first"; "head through the door, flip the switch beforehand")."""
DO_THAT_FIRST = re.compile(r"^(?P<b>[^,;]+?)(?:\s+before\s+you\s+can\s+(?:get|go)\s+(?:there|to\s+it))?\s*[,;]\s*(?:and\s+|so\s+)?do\s+(?:that|this|it|those|these|them|both)\s+(?:first|beforehand|before(?:\s+that)?)\s*(?P<end>[.!?]?)$",
                           re.IGNORECASE)
""""press the switch, do that first": the sentence before the one before it."""
DO_THAT_AFTER = re.compile(r"^do\s+(?:this|that|it)\s+(?:only\s+)?after\s+(?:you(?:'ve|\s+have)?\s+)?(?P<g>[a-z]+ing)\s+(?P<b>[^,;.!?]+?)\s*[.!]?$", re.IGNORECASE)
""""Do this after grabbing coin 1.": the step before, after that one."""
MID_FIRST = re.compile(r"^(?P<a>[^,;]+?)\s*,\s*(?P<b>(?!(?:but|then|and|so)\b)[^,;]+?)\s+first(?:\s*,\s*(?:of\s+course|obviously|naturally))?\s*,?\s*(?P<c>(?:and|then)\b[^;]*?)\s*(?P<end>[.!?]?)$",
                       re.IGNORECASE)
""""Go through the door, press the switch first, and slay the skeleton" (a parenthesis read as a
clause): the middle step, then the one before it, then the rest."""


NUMBERED = r"(?:the\s+)?[a-z]+[\s_]*#?\d{1,2}"
"""A thing said with its number ("coin 2", "coin_2", "skeleton #1")."""
ONE_PLACE = re.compile(r"^\s*(?:go|walk|head|run|move)\s+(?:over\s+|up\s+)?to\s+(?:the\s+)?[a-z]+(?:\s+\d+)?\s+and\s+[a-z]+(?:\s+(?:up|down|on|at|with))?"
                       r"\s+(?:it|there)\s*[.!]?\s*$", re.IGNORECASE)
""""Go to the shrine and use it": one step, at one place."""


STATED_IT = re.compile(r"^the\s+(?P<x>[a-z]+)\s+(?:is|are|sits|stands|lies)\b(?:\s+(?:in|on|at|by|near|behind|past|next|inside|just)\b[^;,]*)?\s*[;,]\s*(?:so\s+|and\s+)?"
                       r"(?P<b>[a-z][^;,]*?\bit\b[^;,]*)$", re.IGNORECASE)
"""Where a thing is, then a step on "it": the step on that thing."""


NEEDED_TO_GET = re.compile(r"^(?:(?:you(?:'ll|\s+will)?|we(?:'ll|\s+will)?)\s+(?:have|need)\s+to\s+)?(?P<b>[a-z][^.;!?]*?)\s+(?:(?:in\s+order\s+)?to\s+(?:get|reach)\s+(?:there|it|to\s+it))"
                           r"\s*(?P<end>[.!?]?)$", re.IGNORECASE)
"""What a step needs, said after it: "You'll have to flip the switch and jump the pit to get there."."""


ANY_OF_IT = r"(?:anything|everything)(?:\s+else)?|all\s+(?:of\s+)?(?:that|this|those|these|the\s+above)|any\s+of\s+(?:that|this|those|these)|(?:them\s+)?both|the\s+two"
"""What "before" puts a step ahead of, when it is all the steps said ("anything else", "all that")."""
BEFORE_ALL = re.compile(rf"^(?:(?:you(?:'ll|\s+will)?|we(?:'ll|\s+will)?)\s+(?:have|need)\s+to\s+)?(?P<b>(?![^;]*\bthen\b)[^;]+?)\s+(?:before\s+(?:{ANY_OF_IT}|both|them\s+all|all\s+of\s+them|the\s+rest)|first)"
                        r"(?:\s*,?\s*(?:obviously|of\s+course|though|please))?\s*(?P<end>[.!?]?)$", re.IGNORECASE)
"""A step said after the others to be done before all of them ("(Pull the switch before both.)",
"You'll need to pull the lever and jump the lava first."): in the development waves, a step said
"first" after others always came before all of them (dev54, dev84, dev92, dev101, dev125)."""
LEAD_FIRST = re.compile(rf"^\s*(?:oh\s*,?\s*)?(?:and\s+)?(?:before\s+(?:you\s+do\s+|doing\s+)?(?:{ANY_OF_IT})\s*,?|first\s+of\s+all\s*,?|(?:the\s+)?very\s+first\s+thing\s*[:,])\s*",
                        re.IGNORECASE)
"""A lead that puts its sentence first of all ("Before you do anything else, grab coin 2.")."""
ON_THE_WAY = re.compile(r"^(?:along|on)\s+the\s+way(?:\s+there)?\s*,?\s*(?:you(?:'ll|\s+will)?\s+(?:need|have)\s+to\s+)?(?P<b>[^;]+?)\s*(?P<end>[.!?]?)$", re.IGNORECASE)
"""What the step before needs on its way: "Get there and activate it. Along the way you'll need to
open the door with the switch and clear the lava with a jump."."""
FIRST_OF_ALL = re.compile(r"^(?:(?P<a>(?!oh\b).+?)\s*,\s*and\s+(?!then\b))?(?:oh\s*,?\s*)?(?:and\s+)?(?:(?:of\s+course|obviously|also)\s*,?\s*)?(?P<b>(?![^;]*\bthen\b)[^,;]+?)\s*,?\s+"
                          r"(?:before\s+(?:any|all)\s+(?:of\s+)?(?:that|this|it|those|these|the\s+rest)|before\s+(?:you\s+do\s+|doing\s+)?(?:anything|everything)(?:\s+else)?)"
                          r"(?:\s*,?\s*(?:of\s+course|obviously|naturally|though|please|too))?\s*(?P<end>[.!?]?)$", re.IGNORECASE)
"""A step said last to be done before all that was said: "The lever has to be pulled before any of
that.", "..., and you'll need to hit the lever before anything else"."""
AFTERTHOUGHT = re.compile(r"^(?:oh\s*,?\s*(?:and\s+)?|and\s+)?(?P<b>(?![^;,]*\bthen\b)[^;,]+?)\s+first\s*,?\s*(?:of\s+course|obviously|naturally)\s*(?P<end>[.!?]?)$|"
                          r"^oh\s*,?\s*(?:and\s+)?(?P<b2>(?![^;,]*\bthen\b)[^;,]+?)\s+first(?:\s*,?\s*(?:though|too))?\s*(?P<end2>[.!?]?)$", re.IGNORECASE)
"""An afterthought of a step to do first ("Oh, and pull the lever first, of course."): first of all."""


COND_FIRST = re.compile(r"^(?P<a>(?:if|when|once)\s+the\s+(?P<x>[a-z]+)\s+(?:is|are|has\s+been)\b[^,;]*,\s*[^,;]+?)\s*[;,]\s*(?:but\s+)?"
                        r"(?P<b>(?![^,;]*\bthen\b)[^,;]+?)\s+first(?:\s*,?\s*(?:though|please|of\s+course|obviously))?\s*(?P<end>[.!?]?)$", re.IGNORECASE)
"""A step on the thing a condition waits on, said after the step that waits ("If the lever is on, go
to the door; pull it first though."): that step first, "it" the condition's thing."""


def done_first(sentences: list[str]) -> list[str]:
    """:data:`DONE_FIRST` and :data:`DO_THAT_FIRST` written in the order done."""
    out: list[str] = []
    for sentence in sentences:
        led = LEAD_FIRST.sub("", sentence)  # "Before you do anything else, grab coin 2.", "Oh and first of all flip the switch.": first of all
        if led != sentence and out:
            out.insert(0, led[0].upper() + led[1:] + ("" if led.rstrip()[-1:] in ".!?" else "."))
            continue
        sentence = led
        ahead = BEFORE_ALL.match(sentence.strip())
        if ahead is not None and out and not re.search(r"\b(?:it|them|one|ones|those|these|that|this|any|every|each|whenever|should|if|when|once)\b",
                                                       ahead.group("b"), re.IGNORECASE) \
                and re.sub(r"^(?:the|a|an)\s+", "", ahead.group("b").strip().lower()) not in " ".join(out).lower():  # "... and skeleton 2. skeleton 2 first.": which order, the reader's doubt
            b = ahead.group("b").strip()
            out.insert(0, f"{b[0].upper()}{b[1:]}{ahead.group('end') or '.'}")  # "Pick up coin 7 and coin 8. You'll need to ... first."
            continue
        front = FIRST_OF_ALL.match(sentence.strip()) or AFTERTHOUGHT.match(sentence.strip())
        if front is not None and (out or front.groupdict().get("a") or front.re is FIRST_OF_ALL):  # said first: first anyway
            b, end = (front.group("b") or front.group("b2")).strip(), front.group("end") or front.groupdict().get("end2") or "."
            out.insert(0, f"{b[0].upper()}{b[1:]}{end}")
            if not front.groupdict().get("a"):
                continue
            sentence = f"{front.group('a').strip()}{end}"
        waits = COND_FIRST.match(sentence.strip())
        if waits is not None:
            b = re.sub(r"\bit\b", f"the {waits.group('x')}", waits.group("b").strip(), count=1)
            out.append(f"{b[0].upper()}{b[1:]}.")
            sentence = f"{waits.group('a').strip()}{waits.group('end') or '.'}"
        told = STATED_IT.match(sentence.strip())
        if told is not None:  # "The lever is in the first room; pull it first.": the step, on the lever
            b = re.sub(r"\bit\b", f"the {told.group('x')}", told.group("b"), count=1)
            sentence = f"{b[0].upper()}{b[1:]}"
        on_the_way = ON_THE_WAY.match(sentence.strip())
        if on_the_way is not None and out and not re.search(r"\b(?:then|first)\b", out[-1], re.IGNORECASE):
            b = on_the_way.group("b").strip()  # "Get there and activate it. Along the way you'll need to ...": that first
            out.insert(len(out) - 1, f"{b[0].upper()}{b[1:]}.")
            continue
        needed = NEEDED_TO_GET.match(sentence.strip())
        if needed is not None and out and not re.search(r"\b(?:then|first)\b", out[-1], re.IGNORECASE):
            b = needed.group("b").strip()  # "Reach the shrine and use it. You'll have to jump the pit to get there.": that first
            out.insert(len(out) - 1, f"{b[0].upper()}{b[1:]}.")
            continue
        after = DO_THAT_AFTER.match(sentence.strip())
        if after is not None and out:  # "If the door is open, walk through it. Do this after grabbing coin 1.": that first
            from evo.plans.lexicon import _lemma

            out.insert(len(out) - 1, f"{_lemma(after.group('g'), 'v').capitalize()} {after.group('b')}.")
            continue
        first = DO_THAT_FIRST.match(sentence.strip())
        if first is not None and out and not re.search(r"\b(?:then|first|second)\b", first.group("b"), re.IGNORECASE):
            out.insert(len(out) - 1, first.group("b").strip() + ".")
            continue
        started = re.match(r"^(?:please\s+)?first(?:\s+of\s+all)?\s*,\s*(?P<rest>[^;]+?)(?P<end>[.!?]?)$", sentence.strip(), re.IGNORECASE)
        if started is not None and out and not re.search(r"\b(?:it|them|there|that)\b", started.group("rest"), re.IGNORECASE):
            out.insert(0, f"{started.group('rest')}{started.group('end') or '.'}")
            continue  # "Kill the skeleton once the door is open. Start by pulling the lever.": that first
        alone = re.match(r"^(?P<b>[^,;]+?)\s+(?:first|beforehand|before\s+that|for\s+that|for\s+this|to\s+do\s+that)(?:\s*,\s*though)?(?P<why>\s+(?:in\s+order\s+)?to\s+[a-z]+\s+(?:the|a|an)\s+[a-z]+)?\s*(?P<end>[.!?]?)$",
                         sentence.strip(), re.IGNORECASE)
        if alone is not None and len(out) == 1 and (not re.search(r",|\bthen\b|\band\b", out[0], re.IGNORECASE) or ONE_PLACE.match(out[0])
                                                     or re.match(r"^\s*(?:only\s+)?(?:if|when|once)\s+[^,]+,[^,]+$", out[0], re.IGNORECASE)
                                                     and not re.search(r"\b(?:then|and)\b", out[0], re.IGNORECASE)):
            b = alone.group("b").strip()
            waits = re.search(r"\b(?:if|when|once)\s+the\s+(?P<x>[a-z]+)\s+(?:is|are)\b", out[0], re.IGNORECASE)
            if waits is not None:  # "If the switch is on, jump the lava. Flip it first.": it is the switch
                b = re.sub(r"\bit\b", f"the {waits.group('x')}", b, count=1)
            out.insert(0, b + (alone.group("why") or "") + (alone.group("end") or "."))  # "Use the shrine. Kill the goblin first (to open the door)."
            continue
        if out:  # a step to be done before others, which one not said: kept for the reader to doubt
            sentence = re.sub(r"\s+first(?=\s*[.!?]?\s*$)", " beforehand", sentence, flags=re.IGNORECASE)
        mid = MID_FIRST.match(sentence.strip())
        if mid is not None and not re.search(r"\b(?:then|first)\b", mid.group("a"), re.IGNORECASE) \
                and not re.search(r"\b(?:it|them|there|one)\b", mid.group("b"), re.IGNORECASE):
            b, a = mid.group("b").strip(), mid.group("a").strip()
            if re.search(NUMBERED + r"$", a, re.IGNORECASE) and re.fullmatch(rf"(?:(?:and\s+)?{NUMBERED}(?:\s*,\s*|\s+and\s+)?)+", b, re.IGNORECASE):
                out.append(f"{a}, {b}, {mid.group('c').strip()}{mid.group('end') or '.'}")  # "Coin 1, coin 2 and coin 3 first, then ...": the list first
                continue
            out.append(f"{b[0].upper()}{b[1:]}, then {a[0].lower()}{a[1:]}, {mid.group('c').strip()}{mid.group('end') or '.'}")
            continue
        m = DONE_FIRST.match(sentence.strip())
        if m is not None and not re.match(r"\s*(?:but|then)\b", m.group("b"), re.IGNORECASE) \
                and not re.search(r"\b(?:then|first)\b", m.group("a"), re.IGNORECASE):
            b, a = re.sub(r"^(?:yet|so|and|but)\s+", "", m.group("b").strip(), flags=re.IGNORECASE), m.group("a").strip()
            sentence = f"{b[0].upper()}{b[1:]}, then {a[0].lower()}{a[1:]}{m.group('end') or '.'}"
        out.append(sentence)
    return out


MID_FIRST_OF_ALL = re.compile(rf"(?P<a>(?:^|(?<=[.!?]\s))[^.;!?]+?)\s*,\s*(?:and|but)\s+before\s+(?:{ANY_OF_IT})\s*,\s*"
                              r"(?P<b>(?![^.;!?]*\b(?:then|it|them|there)\b)[^.;!?,]+)(?P<end>[.!?]?)", re.IGNORECASE)
"""A step put ahead of all the others in the middle of a sentence ("Before that you'll need to jump
the lava, and before anything else, pull the lever.")."""


def first_of_all(line: str) -> str:
    """``line`` with each :data:`MID_FIRST_OF_ALL` step written first of all."""
    ahead: list[str] = []

    def cut(m: re.Match[str]) -> str:
        b = m.group("b").strip()
        ahead.append(f"{b[0].upper()}{b[1:]}.")
        return f"{m.group('a').strip()}{m.group('end') or '.'}"
    rest = MID_FIRST_OF_ALL.sub(cut, line)
    return " ".join([*ahead, rest]) if ahead else line


BEFORE_LINK = re.compile(r"\s*[,;.]?\s*(?:but\s+|and\s+)?before\s+(?:that|this)\s*,?\s*(?:(?:obviously|of\s+course|naturally|clearly)\s*,?\s*)?"
                         r"(?:you(?:'ll|\s+will)?\s+(?:need|have)\s+to\s+|you\s+must\s+)?", re.IGNORECASE)
"""A link of a chain of steps, each done before the one said before it."""


def before_chain(line: str) -> str:
    """A chain of steps each said before the one before it, in the order they are done ("Use the
    shrine at the very end, but before that jump the lava, and before that, obviously, hit the
    switch.": the switch, the lava, the shrine); a chain of one link is left to
    :func:`evo.plans.ordering._before_that`, and one whose links hold more than a step as written."""
    parts = BEFORE_LINK.split(line)
    if len(parts) < 3:
        return line
    head, _, first = parts[0].rpartition(". ") if ". " in parts[0] else ("", "", parts[0])
    last, end, tail = re.split(r"([.!?])", parts[-1], maxsplit=1) + ["", ""] if re.search(r"[.!?]", parts[-1]) is None \
        else re.split(r"([.!?])", parts[-1], maxsplit=1)
    steps = [first, *parts[1:-1], last]
    if any(not p.strip() or re.search(r"[,;]|\b(?:then|and|after|once|when|until|first)\b", p, re.IGNORECASE) for p in steps):
        return line
    steps = [re.sub(r"\s+at\s+the\s+(?:very\s+)?end\b|\s+(?:last|in\s+the\s+end)\b", "", p.strip()) for p in reversed(steps)]
    done = ", then ".join(f"{p[0].lower()}{p[1:]}" for p in steps)
    return f"{head + '. ' if head else ''}{done[0].upper()}{done[1:]}{end or '.'}{tail}"
