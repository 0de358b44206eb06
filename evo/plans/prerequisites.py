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
_FORGET = r"(?:(?:but\s+|and\s+)?(?:don'?t|do\s+not)\s+forget\s+(?:about\s+)?)?"
"""Words before what comes first that ask not to forget it ("Don't forget the switch first.")."""
SENTENCE_FIRST = re.compile(rf"(?:^|(?<=[.!?;])\s+){_FORGET}(?:(?:oh\s*,?\s*)?and\s+)?(?:to\s+get\s+there\s*,\s*)?(?:prerequisites?(?:\s+in\s+order)?\s*:\s*(?P<pre>{_LIST})|(?P<list>{_LIST})\s+"
                            rf"(?:(?:(?:comes?|goes?|happens?|is|are)\s+)?(?:before\s+(?:all\s+(?:of\s+)?(?:that|this)|everything(?:\s+else)?|anything(?:\s+else)?)|at\s+the\s+(?:very\s+)?start)|(?:comes?|goes?|happens?)\s+first)){_POLITE}\s*(?:[.!](?=\s|$)|$)", I | re.M)
"""A sentence of things to do before all else: "Lever at the very start.", "Prerequisites in order: lever, then jump lava."."""
LAST_FIRST = re.compile(rf"(?<=[.!?])\s+{_FORGET}(?P<list>(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?\d{{1,2}})?(?:\s*(?:,|\band\b|&)\s*(?:the\s+)?[a-z]+(?:\s+(?:#\s*)?\d{{1,2}})?)*)"
                        rf"\s+first{_POLITE}\s*[.!]?\s*$", I)
"""Things alone, "first", as the text's last words: "get to the door. switch first ofc"."""
TO_GET_THERE = re.compile(rf"(?:^|(?<=[.!?])\s+)to\s+(?:get|reach)\s+(?:there|it|to\s+it|(?:the\s+)?[a-z]+(?:\s+\d{{1,2}})?)\s*,?\s*(?:you(?:'ll|\s+will)?\s+|we(?:'ll|\s+will)?\s+)?(?:need|have)\s+to\s+"
                          rf"(?P<steps>[^.!?]+?)\s+first{_POLITE}\s*(?:[.!](?=\s|$)|$)|\s*[-–—,;]?\s*(?:just\s+)?(?P<so>(?:pull|flip|use|hit|press|jump|open)\s[^.!?,;]+?)\s+first\s+"
                          rf"so\s+(?:that\s+)?you\s+can\s+(?:get|go)\s+(?:there|in|through)\s*(?=[.!]|$)", I | re.M)
"""The way to the step before, said after it: "To get there you'll need to pull the switch and go through the door first."."""


FIRST_THEN = re.compile(rf"(?:^|(?<=[.!?;]))\s*(?P<list>(?:the\s+)?(?!{_VERB}\b)[a-z]+(?:\s+(?:#\s*)?\d{{1,2}})?(?:\s+(?:jump|on))?)\s+(?:(?:comes?|goes?|is)\s+)?first{_POLITE}\s*,\s*(?:and\s+)?then\s+(?P<then>{_LIST}){_POLITE}\s*(?:[.!](?=\s|$)|$)", I | re.M)
"""A sentence after the steps of what comes first and next: "...; the switch comes first, then the lava jump."."""
BUT_BEFORE_MUST = re.compile(r",?\s*but\s+before\s*(?:that|this|it)?\s*,?\s*(?:you|we|he|she|it|the\s+(?:agent|player|bot))?\s*(?:must|needs?\s+to|need|ha(?:ve|s)\s+to|should)\s+", I)
""""Kill goblin 2, but before you must activate the switch": but first."""
BETWEEN = re.compile(r"(?P<a>[^.!?\n]*?),\s*(?:and\s+)?then\s+(?P<b>[^,;.!?()\n]+?)\s*\(\s*(?P<s>[a-z]+\s[^()]+?)\s+in\s+between\s*\)", I)
"""A step in brackets to do between the two before it: "Kill ogre #1, then ogre #2 (pull the lever in between)."."""


FIRST_SAID = re.compile(r"(?<!\bthe\s)(?<!\bvery\s)\b(?:first(?:\s+of\s+all)?|before\s+(?:that|it|this|all\s+(?:of\s+)?(?:that|this)|anything(?:\s+else)?)|"
                        r"to\s+get\s+(?:in\s+)?(?:there|in(?:side)?|through|the\s+door\s+open|past\s+the\s+door|to\s+it))\b", I)
"""What says a step comes before the others, in an aside ("first", "beforehand", "to get in there")."""
ASIDE = re.compile(r"\((?P<b>[^()]{3,})\)|(?<=\S)[ \t]+[-–—][ \t]+(?P<d>[^-–—()\n]+?)\s*(?=$|\n)|^[ \t]*pre-?(?:conditions?|requisites?)[ \t]*:[ \t]*(?P<p>[^\n]+?)\s*$"
                   r"|,[ \t]*(?P<c>(?:the\s+)?[a-z]+(?:\s+(?:and|&|\+)\s+(?:the\s+)?[a-z]+)?\s+first)[ \t]*[.!]?[ \t]*$", I | re.M)
"""An aside: in brackets, after a dash to the end of the line, a line of preconditions ("Precondition: activate the switch first."),
or things alone and "first" after a comma at the end ("Kill goblin 2 and goblin 3, switch first.")."""
MUST = re.compile(r"(?:^|(?<=[.!?])\s+)(?P<s>(?:(?:oh|wait|also|btw|and|but|ps|remember|note)\b\s*[,:]?\s*)*(?:(?:of\s+course|obviously|ofc)\s*,?\s*)?"
                  r"(?:you|we|they|the\s+(?:agent|player|bot))\s*(?:'ll|\s+will|\s+would)?\s+(?:need|have|must|gotta|got\s+to)\b[^.!?\n]*?)(?:[.!?]+|$)", I | re.M)
"""A sentence of what one must do, said after the steps ("Oh, you need to pull the switch before that of course.")."""
_CLEAN = (re.compile(r"^.*?\bso\b(?!\s+that)\s*:?\s*", I),  # "it's past the lava, so pull the switch and jump first": the reason out
          re.compile(r"^(?:(?:oh|wait|also|btw|and|but|ps|remember|note|of\s+course|obviously|ofc|obvs?)\b\s*[,:]?\s*)+", I),
          re.compile(r"^(?:you|we|they|the\s+(?:agent|player|bot)|it)?\s*(?:'ll|will|would)?\s*(?:need|needs|have|has|must|gotta|got)?\s*(?:to\s+)?(?=[a-z])", I),
          re.compile(r"\s*,?\s*\b(?:you\s+know\s+the\s+drill|as\s+usual|obviously|of\s+course|ofc|obvs?|pls|please|though|lol)\b", I),
          re.compile(r"\s*,?\s*\b(?:first(?:\s+of\s+all)?|beforehand|before\s+(?:that|it|this|all\s+(?:of\s+)?(?:that|this)|anything(?:\s+else)?)|at\s+the\s+(?:very\s+)?start)\b", I),
          re.compile(r"\s*,?\s*\b(?:so\s+(?:that\s+)?(?:you\s+)?can\s+)?to\s+get\s+(?:in\s+)?(?:there|in(?:side)?|through|the\s+door\s+open|past\s+the\s+door|to\s+it)\b", I),
          re.compile(r"^do\s+(?=(?:the\s+)?[a-z]+\s*$)", I))
"""What an aside's step is said with: its reason, fillers, who must do it, the words of its order."""


def _aside(body: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str | None:
    """The steps an aside says to do first, in words; None where it says none."""
    if not FIRST_SAID.search(body) or re.search(r"\b(?:after|once|when|if|until|don't|do\s+not|not)\b", _CLEAN[0].sub("", body, count=1) if re.search(r"\bso\b(?!\s+that)", body, I) else body, I):
        return None
    reason = re.match(r"^(?P<why>.*?)\bso\b(?!\s+that)", body, I)
    if reason is not None and re.search(r"\b(?:need|needs|have\s+to|has\s+to|must)\b", reason.group("why"), I):
        return None  # "You'll need to jump the lava to get to it, and ..., so flip the switch first": more than one step, the reader's
    body = _CLEAN[0].sub("", body, count=1) if reason is not None else body
    parts = [p for p in re.split(r"\s*,\s*", body) if p.strip()]
    if len(parts) > 1 and FIRST_SAID.search(parts[-1]) and not FIRST_SAID.search(", ".join(parts[:-1])):
        body = parts[-1]  # "door's locked, do the switch first": the reason before the comma out
    for pattern in _CLEAN[1:]:
        body = pattern.sub("", body.strip()).strip(" ,;:.!")
    if not body or re.search(r"\b(?:there|it|them|that|this)\b|[:;]", body, I):
        return None  # "you need to get there first: ...": what "there" is, the reader's
    listed = _steps(body, things, deeds)
    if listed is not None:
        return listed
    words = [w for w in re.findall(r"[a-z]+", body.lower())]
    if re.search(r"\b(?:open|opened|closed|shut|unlocked|locked|off)\s*$", body, I):
        return None  # "(you need the gate open first)": a state, not which step makes it
    return body if words and words[0] not in things and any(w in things for w in words) else None


STATE = re.compile(r"\b(?:if|once|when|whenever|after|until|as\s+soon\s+as)\s+(?:the\s+)?[a-z]+\s+(?:is|are|has\s+been|was|gets)\s+[a-z]+", I)
"""A state a step waits for ("If the switch is on, ..."): no step on its thing."""


def _already(ahead: str, rest: str, things: Mapping[str, str]) -> bool:
    """The rest of the text starts with the thing the aside's step is on ("flip the switch and jump
    (the switch has to come first obviously)"): said in its place already."""
    named = lambda t: [things[w] for w in re.findall(r"[a-z]+", t.lower()) if w in things]  # noqa: E731
    first, there = named(ahead), named(STATE.sub("", rest))
    return bool(first) and there[:len(first)] == first


def _asides_first(text: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str:
    """``text`` with each aside after a step that says what to do first (in brackets, after a dash, or
    a sentence of what one must do) taken out, and its steps put before all the others."""
    ahead: list[str] = []

    def take(m: re.Match[str]) -> str:
        body = next(g for g in m.groups() if g is not None)
        if (not text[:m.start()].strip() or not re.search(r"[a-z]", text[:m.start()], I)) and m.groupdict().get("p") is None:
            return m.group(0)  # an aside before any step: in its place
        if m.re is MUST and not re.search(r"(?<!\bthe\s)\bfirst\b", body, I):
            said = [x for x in re.split(r"(?<=[.!?;])\s+", text[:m.start()].strip()) if x.strip()]
            if re.search(r",|\band\b|\bthen\b|;", re.sub(r"^(?:and\s+)?then\b\s*,?", "", said[-1].strip(), flags=I).rstrip(".!?;"), I) or _aside(body, things, deeds) is None:
                return m.group(0)  # "before that" after two steps: which one, the reader's doubt
            before.append((said[-1], _aside(body, things, deeds)))  # "... kill ogre 2 for me? you'll need to ... to get in there": before that step
            return ""
        steps = _aside(body, things, deeds)
        if steps is None:
            return m.group(0)
        ahead.append(steps)
        return " " if m.re is ASIDE else ""

    before: list[tuple[str, str | None]] = []
    text = MUST.sub(take, ASIDE.sub(take, text))
    for step, needed in before:
        at = text.rfind(step)
        if at >= 0 and needed and not _already(needed, text[at:], things):
            text = f"{text[:at]}{needed[0].upper()}{needed[1:]}. {text[at:]}"
    rest = re.sub(r"\s+([.,;!?])", r"\1", text).strip()
    ahead = [a for a in ahead if not _already(a, rest, things)]
    return _before(ahead, rest, things, deeds) if ahead else rest


def _steps(listed: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str | None:
    """``listed`` things as steps in words, each with the deed said beside it ("lava jump") or the
    game's one deed for it, else a visit; None where a piece is no thing of the game."""
    out = []
    for piece in re.split(r"\s*(?:,|\band\b|\bthen\b|&|\+)\s*", listed.strip(), flags=I):
        piece = re.sub(r"^(?:then\s+)?", "", piece.strip(), flags=I)
        if not piece:
            continue
        alone = [w for w, d in deeds.items() if d == "jump"]
        if piece.lower() in ("jump", "cross") and len({things[w] for w in alone if w in things}) == 1:
            out.append(f"jump the {things[alone[0]]}")  # "switch + jump": the one thing jumped
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
        step = _that(m.group("step").strip(), m.group("why"), things)
        ahead.append(_steps(step, things, deeds) or step)
        return ""

    def then_listed(m: re.Match[str]) -> str:
        steps = [_steps(m.group(g), things, deeds) for g in ("list", "then")]
        if None in steps or not text[:m.start()].strip():
            return m.group(0)
        ahead.extend(steps)  # type: ignore[arg-type]
        return ""

    def there(m: re.Match[str]) -> str:
        ahead.append((m.group("steps") or m.group("so")).strip())
        return ""

    text = BUT_BEFORE_MUST.sub(", but first ", text)
    text = BETWEEN.sub(lambda m: f"{m.group('a')}, then {m.group('s')}, then {m.group('b')}", text)
    text = IN_BRACKETS.sub(listed, text)
    text = SO_FIRST.sub(so, text)
    text = SENTENCE_FIRST.sub(listed, text)
    text = LAST_FIRST.sub(listed, text)
    text = TO_GET_THERE.sub(there, FIRST_THEN.sub(then_listed, text))
    if not ahead:
        return _asides_first(text, things, deeds) if FIRST_SAID.search(text) else text
    ahead = [a for a in ahead if not _already(a, text, things)]
    if not ahead:
        return text.strip()
    return _before(ahead, text, things, deeds)


def _before(ahead: list[str], rest: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str:
    """The steps ``ahead``, then ``rest``; a thing that ``rest`` starts with alone ("coin 6 pls") takes
    its deed (else a visit), not the deed of the step put before it."""
    first, rest = ", then ".join(ahead), rest.strip()
    bare = re.fullmatch(r"(?:the\s+)?(?P<x>[a-z]+)(?:\s+(?:#\s*)?\d{1,2})?(?:\s*,?\s*(?:please|pls|plz|thanks|thx))*\s*[.!]?", rest, I)
    if bare is not None and bare.group("x").lower() in things:
        rest = f"{deeds.get(bare.group('x').lower(), 'go to')} {rest}"
    return f"{first[0].upper()}{first[1:]}. {rest}"
