"""Steps a tester takes back and says again (issue 55, waves 54 to 57).

"Go to the shrine. Actually no, pull the lever first, and only then use the shrine.", "Jump the
lava... sorry, I mean pull the switch first, then jump the lava.", "Attack the ogre. Actually,
attack the skeleton instead.", "go to coin 1, then coin 2, actually skip coin 2 and go to the
door". The reader refuses a text that corrects itself where it cannot tell which steps are meant
(:data:`evo.plans.dropped.CORRECTION`); these are the forms where it can:

- a sentence that starts over ("actually no", "wait no", "sorry", "scratch that", "I mean",
  "other way round") and names again every thing of the sentence before it: that sentence is
  taken back, the new one is meant;
- "actually ... instead" after a sentence of one step: that step is taken back;
- "actually skip X" right after the step at X: that step is taken back.

The plan names what was taken back (``taken_back``).
"""

from __future__ import annotations

import re
from typing import Iterable

I = re.IGNORECASE
RESTART = re.compile(r"^(?:(?:actually|oh)\s*,?\s*no|no\s*,?\s*wait|wait\s*,?\s*no|(?:(?:wait|no|ok(?:ay)?|actually|oh)\s*,?\s*)?scratch\s+that|sorry|oops|correction|on\s+second\s+thoughts?|i\s+mean(?:t)?)\b"
                     r"\s*[,:;.!–-]*\s*(?:(?:sorry\s*,?\s*)?i\s+mean(?:t)?\b\s*[,:]?\s*)?(?:(?:the\s+)?other\s+way\s+a?round\b\s*[,:;.!–-]*\s*)?", I)
"""A sentence that starts over."""
INSTEAD = re.compile(r"^(?:actually|no\s*,?\s*wait|wait\s*,?\s*no|sorry|oops)\s*,?\s*(?P<rest>.*\binstead\b.*)$", I | re.S)
"""A sentence that puts another step in the place of the one before ("Actually, attack the skeleton instead.")."""
ONE_STEP = re.compile(r"^[^,;]*$")
MAKE_THAT = re.compile(r"^(?:(?:actually|sorry|no|wait|oops)?\s*,?\s*(?:make\s+(?:that|it)|i\s+meant?)|(?:actually|oh|wait|sorry)\s*,?\s*no\s*,?|no\s*,?\s*wait\s*,?)\s*(?P<x>(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?\d{1,2}|\s+[a-z]+)?)\s*[.!]?$", I)
"""A thing said over in the next sentence ("Actually, make that ogre 2.")."""
NEVER_MIND = re.compile(r"(?:^|(?<=[.!?]\s))(?P<said>(?:never\s*mind|forget(?:\s+about)?|ignore|skip|don'?t\s+bother\s+with)\s+(?:the\s+|any\s+)?[a-z]+s"
                        r"(?:\s*[,;:]\s*|\s*[.!]\s*$))(?:just\s+)?", I | re.M)
"""Things of a kind waved away before the steps ("Never mind the coins, just attack goblin 2.")."""
INSTEAD_OF = re.compile(r"^(?:(?:actually|sorry|no|wait|oops|oh)\s*,?\s*)*(?:make\s+(?:that|it)\s+|i\s+mean(?:t)?\s+)?(?P<x>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)\s+"
                        r"instead\s+of\s+(?P<y>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)\s*[.!]?$", I)
"""A thing put in the place of one said before ("Actually make that coin 1 instead of coin 2.")."""
NOT_THAT = re.compile(r",?\s*(?:and\s+)?not\s+(?:the\s+)?[a-z]+(?:\s+\d{1,2})?(?=\s*[.!?,;]|\s*$)", I)
"""The thing taken back, said again ("I meant the skeleton, not the ogre")."""
SENTENCE = re.compile(r"[^.!?…\n]+(?:[.!?…]+|$)")


def _named(text: str, names: set[str]) -> set[str]:
    """The things ``text`` names, with their numbers ("coin 2")."""
    return {f"{m.group(1).lower()} {m.group(2) or ''}".strip() for m in re.finditer(r"\b([a-z]+)(?:\s+(\d{1,2}|one|two|three|four|five|six|seven|eight))?\b", text, I)
            if m.group(1).lower() in names}


SCRATCHED = re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?P<said>[^.!?\n,;]+?)\s*(?:-{1,2}|[–—,;])\s*(?:(?:actually|wait|no|ok(?:ay)?)\s*,?\s*)?"
                       r"(?:scratch\s+that|no\s*,?\s*wait|wait\s*,?\s*no|actually\s*,?\s*no|(?:sorry|oops)\s*,?\s*i\s+mean(?:t)?)\s*[,:;.!–-]*\s*(?P<new>[^.!?\n]+)", I | re.M)
"""One step said over inside its sentence ("Attack skeleton 1 - actually scratch that, attack ogre 1
instead."; "Look up at lamp 3 - scratch that, look down at it."): the second, "it" the first's thing."""


def _scratched(m: re.Match[str], names: set[str], gone: list[str]) -> str:
    said, new = m.group("said"), re.sub(r"\s*\binstead\b", "", m.group("new"), flags=I)
    new = re.sub(r"\s*[-–—]{1,2}\s+(?=(?:and\s+)?then\b)", ", ", new, flags=I)  # "go to coin 2 instead - and then ..."
    named = [x for x in re.finditer(r"\b([a-z]+)(?:\s+(\d{1,2}))?\b", said, I) if x.group(1).lower() in names]
    if not named:  # "Wait, scratch that: ...": the sentences before, taken back below
        return m.group(0)
    thing = re.match(r"\s*(?P<x>(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?(?:\d{1,2}|one|two|three|four|five|six|seven|eight))?)\s*(?P<rest>,\s*(?:and\s+)?then\b.*)?$", new, I)
    if thing is not None and _named(thing.group("x"), names):
        gone.append(named[-1].group(0))  # "look up at lamp 4, no wait, lamp 2": the deed on the thing said last
        return said[:named[-1].start()] + thing.group("x") + said[named[-1].end():] + (thing.group("rest") or "")
    if re.search(r"\bit\b", new, I) and not _named(new, names):
        new = re.sub(r"\bit\b", named[-1].group(0), new, count=1, flags=I)
    gone.append(said.strip())
    return new[:1].upper() + new[1:] if said[:1].isupper() else new


IN_BRACKETS = re.compile(r"\b(?P<t1>[a-z]+)\s+(?P<n1>\d{1,2})\s*\(\s*(?:sorry|no|oops|wait)(?:\s*,?\s*(?:sorry|no|oops|wait))?\s*,?\s*(?:i\s+mean(?:t)?\s*,?\s*)?(?:(?P<t2>[a-z]+)\s+)?(?P<n2>\d{1,2})\s*\)", I)
"""A thing's number said over in brackets ("Go to barrel 2 (sorry, barrel 4) and look down at it")."""


def taken_back(text: str, things: Iterable[str]) -> tuple[str, list[str]]:
    """``text`` without the steps it takes back (:mod:`evo.plans.taken_back`), and those steps as written."""
    names = {t.lower() for t in things}
    gone: list[str] = []
    text = IN_BRACKETS.sub(lambda m: gone.append(f"{m.group('t1')} {m.group('n1')}") or f"{m.group('t2') or m.group('t1')} {m.group('n2')}"
                           if (m.group("t2") or m.group("t1")).lower() == m.group("t1").lower() and m.group("t1").lower() in names else m.group(0), text)
    text = SCRATCHED.sub(lambda m: _scratched(m, names, gone), text)
    text = SKIP_AFTER.sub(lambda m: _skip(m, gone), text)
    text = DEED_OVER.sub(lambda m: gone.append(m.group("a")) or m.group("b"), text)
    text = NEVER_MIND.sub(lambda m: gone.append(m.group("said").strip(" ,;:")) or "", text)
    while True:
        spans = [(m.start(), m.end()) for m in SENTENCE.finditer(text) if m.group(0).strip()]
        for (b0, e0), (b1, e1) in zip(spans, spans[1:]):
            before, sentence = text[b0:e0].strip(), text[b1:e1].strip()
            restart, instead = RESTART.match(sentence), INSTEAD.match(sentence)
            said = _named(before, names)
            if restart and len(said) == 1 and not _named(sentence[restart.end():], names) and re.search(r"\bit\b", sentence[restart.end():], I):
                sentence = sentence[:restart.end()] + re.sub(r"\bit\b", f"the {next(iter(said))}", sentence[restart.end():], count=1, flags=I)
                # "Go to lamp 3 and circle it. Actually no, just look up at it.": at lamp 3
            swap = INSTEAD_OF.match(sentence)
            if swap and _named(swap.group("y"), names) and re.search(rf"\b{re.escape(swap.group('y'))}\b", before, I) and _named(swap.group("x"), names):
                new = re.sub(rf"\b{re.escape(swap.group('y'))}\b", swap.group("x"), before, count=1, flags=I)  # "Actually make that coin 1 instead of coin 2."
            elif restart and restart.end() < len(sentence) and said and said <= _named(sentence[restart.end():] + text[e1:], names) \
                    and not re.match(r"(?:before|after)\b", sentence[restart.end():], I):  # "Actually no, before the ogre, ...": one more
                new = NOT_THAT.sub("", sentence[restart.end():])  # "Sorry, I meant the skeleton, not the ogre."
                bare = re.fullmatch(r"\s*(?P<x>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)\s*[.!]?\s*", new, I)
                if bare is not None and len(said) == 1 and ONE_STEP.match(before.rstrip(".!?…")) and _named(bare.group("x"), names):
                    new = re.sub(r"\b(?:the\s+)?[a-z]+(?:\s+\d{1,2})?(?=[.!?…]*\s*$)", bare.group("x"), before.strip(), count=1, flags=I)
            elif instead and said and ONE_STEP.match(before.rstrip(".!?…")):
                new = re.sub(r"\s*\binstead\b", "", instead.group("rest"), flags=I)
            elif MAKE_THAT.match(sentence) and len(said) == 1 and ONE_STEP.match(before.rstrip(".!?…")):  # "Attack ogre 1. Actually, make that ogre 2."
                thing = MAKE_THAT.match(sentence).group("x").rstrip(".!")
                new = re.sub(r"\b(?:the\s+)?(?:(?:first|second|third|fourth|fifth|\d(?:st|nd|rd|th))\s+)?[a-z]+(?:\s+(?:#\s*)?\d{1,2}|\s+(?:one|two|three|four|five|six|seven|eight))?(?=[.!?…]*\s*$)",
                             thing, before.strip(), count=1, flags=I)
            else:
                continue
            new = re.sub(r"^(?:skip|drop|forget)\s+(?:the\s+)?[a-z]+(?:\s+\d{1,2})?\s*(?:,\s*|\s+and\s+)", "", new, flags=I)
            gone.append(before)
            lead = text[b0:e0][:len(text[b0:e0]) - len(text[b0:e0].lstrip())]
            text = text[:b0] + lead + new[:1].upper() + new[1:] + text[e1:]
            break
        else:
            return text, gone


SKIP_AFTER = re.compile(r"(?P<step>(?:,\s*|\s+)(?:and\s+)?(?:then\s+)?(?:[a-z]+\s+){0,3}?(?:the\s+)?(?P<x>[a-z]+\s+\d{1,2}))\s*[,;]?\s*"
                        r"(?:actually|no\s+wait|wait\s+no)\s*,?\s*(?:just\s+)?(?:skip|drop|forget)\s+(?:the\s+)?(?P<y>[a-z]+\s+\d{1,2})(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*)", I)
"""A step, then "actually skip" its thing ("go to coin 1, then coin 2, actually skip coin 2 and go to the door")."""


DEED_OVER = re.compile(r"\b(?P<a>(?:look|turn)\s+(?:up|down|left|right))\s*[,.–-]+\s*(?:no\s*,?\s*)?(?:sorry|wait|oops|i\s+mean(?:t)?|no)\s*[,.–-]*\s*"
                       r"(?:i\s+mean(?:t)?\s*,?\s*)?(?P<b>(?:look|turn)\s+(?:up|down|left|right))\b", I)
"""A way of looking or turning said over at once ("look up, sorry, look down"): the second."""


def _skip(m: re.Match[str], gone: list[str]) -> str:
    if m.group("x").lower().split() != m.group("y").lower().split():
        return m.group(0)
    gone.append(m.group("step").strip(" ,"))
    return ", then "
