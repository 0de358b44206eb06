"""What must come first, said as an aside: the steps it names, put before all the others.

Testers told to write plans the level can complete (waves 61 and 62) added what opens the way
as an aside, after the steps that need it: "kill goblin 2, skeleton 2 and ogre 2 in room B
(lever first)", "Jump the lava (switch first pls) and then ...", "Go to skeleton #2 (needs the
switch first obviously, so flip that before).", "Kill the third goblin. To get there you'll need
to pull the switch and jump the lava first.", "Use shrine. Prerequisites in order: lever, then
jump lava.", "The lever and the lava jump come before all that, of course." A thing named alone
takes the game's one deed for it (the lever's is pulling it, the lava's jumping it).
"""

from __future__ import annotations

import re
from typing import Mapping

I = re.IGNORECASE
_VERB = r"(?:jump|pull|flip|use|kill|attack|hit|press|activate|cross|open)"
_THING = rf"(?:{_VERB}\s+)?(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?\d{{1,2}})?(?:\s+(?:jump|on))?"
_LIST = rf"{_THING}(?:\s*(?:,|\band\b|\bthen\b|&|\+)\s*(?:then\s+)?{_THING})*"
_POLITE = r"(?:\s*,?\s*(?:obviously|obvs?|ofc|of\s+course|pls|please|tho(?:ugh)?|too|lol))*"
_GOES_FIRST = (r"(?:(?:has|have|needs?)\s+to\s+(?:be\s+[a-z]+ed\s+|go\s+|come\s+|happen\s+)?|needs?\s+[a-z]+ing\s+|(?:comes?|goes?)\s+)?"
               r"(?:first|before\s+(?:any|all)\s+(?:of\s+)?(?:that|this)|at\s+the\s+(?:very\s+)?start)")
IN_BRACKETS = re.compile(rf"\s*(?:\(\s*|\s[-–—]\s+)(?:(?:obviously|of\s+course)\s*,?\s*)?(?:(?:it\s+)?needs?\s+|you\s+need\s+)?(?P<list>{_LIST})\s+{_GOES_FIRST}{_POLITE}\s*[.!]?\s*(?:\)|$)", I | re.M)
"""A list of things to do first, in brackets: "(lever first)", "(switch first pls)" ("(flip the switch
beforehand)" is before the step it follows, not all: the reader's)."""
SO_FIRST = re.compile(rf"\s*\((?P<why>[^()]*?)[,;]?\s*\bso\s+(?P<step>[^()]+?)\s+(?:first|before(?:hand)?|before\s+that){_POLITE}\s*[.!]?\s*\)", I)
"""A reason, then the step to do first, in brackets: "(both behind the door, so turn the lever on first)"."""
SENTENCE_FIRST = re.compile(rf"(?:^|(?<=[.!?;])\s+)(?:(?:oh\s*,?\s*)?and\s+)?(?:to\s+get\s+there\s*,\s*)?(?:prerequisites?(?:\s+in\s+order)?\s*:\s*(?P<pre>{_LIST})|(?P<list>{_LIST})\s+"
                            rf"(?:(?:(?:comes?|goes?|happens?|is|are)\s+)?(?:before\s+(?:all\s+(?:of\s+)?(?:that|this)|everything(?:\s+else)?|anything(?:\s+else)?)|at\s+the\s+(?:very\s+)?start)|(?:comes?|goes?|happens?)\s+first)){_POLITE}\s*(?:[.!](?=\s|$)|$)", I | re.M)
"""A sentence of things to do before all else: "Lever at the very start.", "Prerequisites in order: lever, then jump lava."."""
LAST_FIRST = re.compile(rf"(?<=[.!?])\s+(?P<list>(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?\d{{1,2}})?(?:\s*(?:,|\band\b|&)\s*(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?\d{{1,2}})?)*)"
                        rf"\s+first{_POLITE}\s*[.!]?\s*$", I)
"""Things alone, "first", as the text's last words: "get to the door. switch first ofc"."""
TO_GET_THERE = re.compile(rf"(?:^|(?<=[.!?])\s+)to\s+(?:get|reach)\s+(?:there|it|to\s+it|(?:the\s+)?[a-z]+(?:\s+\d{{1,2}})?)\s*,?\s*(?:you(?:'ll|\s+will)?\s+|we(?:'ll|\s+will)?\s+)?(?:need|have)\s+to\s+"
                          rf"(?P<steps>[^.!?]+?)\s+first{_POLITE}\s*(?:[.!](?=\s|$)|$)|\s*[-–—,;]?\s*(?:just\s+)?(?P<so>(?:pull|flip|use|hit|press|jump|open)\s[^.!?,;]+?)\s+first\s+"
                          rf"so\s+(?:that\s+)?you\s+can\s+(?:get|go)\s+(?:there|in|through)\s*(?=[.!]|$)", I | re.M)
"""The way to the step before, said after it: "To get there you'll need to pull the switch and go through the door first."."""


BETWEEN = re.compile(r"(?P<a>[^.!?\n]*?),\s*(?:and\s+)?then\s+(?P<b>[^,;.!?()\n]+?)\s*\(\s*(?P<s>[a-z]+\s[^()]+?)\s+in\s+between\s*\)", I)
"""A step in brackets to do between the two before it: "Kill ogre #1, then ogre #2 (pull the lever in between)."."""


def _steps(listed: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str | None:
    """``listed`` things as steps in words, each with the deed said beside it ("lava jump") or the
    game's one deed for it, else a visit; None where a piece is no thing of the game."""
    out = []
    for piece in re.split(r"\s*(?:,|\band\b|\bthen\b|&|\+)\s*", listed.strip(), flags=I):
        piece = re.sub(r"^(?:then\s+)?", "", piece.strip(), flags=I)
        if not piece:
            continue
        m = re.fullmatch(rf"(?:(?P<v>{_VERB})\s+)?(?:the\s+)?(?P<x>[a-z]+)(?P<n>\s+(?:#\s*)?\d{{1,2}})?(?:\s+(?P<d>jump|on))?", piece, I)
        if m is None or m.group("x").lower() not in things:
            return None
        said = m.group("v") or (m.group("d") if m.group("d") and m.group("d").lower() == "jump" else None)
        deed = said or deeds.get(m.group("x").lower()) or "go to"
        out.append(f"{deed} the {m.group('x')}{(m.group('n') or '').replace('#', '')}")
    return ", then ".join(out) if out else None


def _that(step: str, why: str, things: Mapping[str, str]) -> str:
    """"flip that", "turn it on": the thing the reason names."""
    named = [w for w in re.findall(r"[a-z]+", why.lower()) if w in things]
    return re.sub(r"\b(?:that|it)\b", f"the {named[0]}", step, count=1, flags=I) if named else step


def needed_first(text: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str:
    """``text`` with the steps an aside says come first (the module's forms) written before all
    the others; ``things``: a word -> the thing it names; ``deeds``: a word for a thing -> the
    one action the game does to it."""
    things = {w.lower(): t for w, t in things.items()}
    deeds = {w.lower(): d for w, d in deeds.items()}
    ahead: list[str] = []

    def listed(m: re.Match[str]) -> str:
        steps = _steps(m.group("list") if "list" in m.groupdict() and m.group("list") else m.group("pre"), things, deeds)
        if steps is None:
            return m.group(0)
        ahead.append(steps)
        return ""

    def so(m: re.Match[str]) -> str:
        ahead.append(_that(m.group("step").strip(), m.group("why"), things))
        return ""

    def there(m: re.Match[str]) -> str:
        ahead.append((m.group("steps") or m.group("so")).strip())
        return ""

    text = BETWEEN.sub(lambda m: f"{m.group('a')}, then {m.group('s')}, then {m.group('b')}", text)
    text = IN_BRACKETS.sub(listed, text)
    text = SO_FIRST.sub(so, text)
    text = SENTENCE_FIRST.sub(listed, text)
    text = LAST_FIRST.sub(listed, text)
    text = TO_GET_THERE.sub(there, text)
    if not ahead:
        return text
    first = ", then ".join(ahead)
    return f"{first[0].upper()}{first[1:]}. {text.strip()}"
