"""A test written as a form's fields, or under a name of its own: what each field holds, put back
as the step it is.

Testers writing blind set 2 filled a form ("Target: skeleton_1. Action: attack.") and named a
routine before its steps ("Do the \"lever run\": pull the lever, then jump the lava."). Read word
by word, the first gave the attack three times (the target read as a visit, the action on it,
then again); the second read the name as one more pull of the lever. A tester of wave 61 numbered
the steps and listed them out of order ("Step 3: use the shrine.\nStep 1: pull the lever."): the
numbers say the order.
"""

from __future__ import annotations

import re

TARGET = r"(?:target|object|thing|subject|location|place|where)"
ACTION = r"(?:action|actions|do|verb|operation|what\s+to\s+do|task)"
_VALUE = r"[^.;:\n]+?"
PAIR = re.compile(rf"(?:^|(?<=[.;!?]\s)|(?<=[.;!?]))(?P<lead>[ \t]*)(?:(?P<t1>{TARGET})\s*[:=]\s*(?P<x1>{_VALUE})\s*[.;]?[ \t]*(?:\n[ \t]*|[ \t]+)"
                  rf"(?P<a1>{ACTION})\s*[:=]\s*(?P<v1>{_VALUE})|(?P<a2>{ACTION})\s*[:=]\s*(?P<v2>{_VALUE})\s*[.;]?[ \t]*(?:\n[ \t]*|[ \t]+)"
                  rf"(?P<t2>{TARGET})\s*[:=]\s*(?P<x2>{_VALUE}))[ \t]*(?=[.;!?\n]|$)", re.IGNORECASE | re.MULTILINE)
"""A thing's field and an action's field side by side, in either order ("Target: skeleton_1. Action: attack.")."""
ROUTINE = re.compile(r"(?:\b(?:do|run|try|perform|execute|start|test|case|scenario)\s+)?(?:(?:the|a|an|this|our|my)\s+)?[\"“][^\"”\n]{1,40}[\"”]"
                     r"[ \t]*(?:(?:test|run|check|routine|combo|sequence|drill)[ \t]*)?:[ \t]*", re.IGNORECASE)
"""A name in quotes over the steps it stands for ("Do the \"lever run\": ...")."""
ANY_THEN_DEED = re.compile(r"(?:^|(?<=[.!?]\s))(?P<q>any|every|each)\s+(?P<x>[a-z]+)(?P<r>\s+(?:within\s+reach|in\s+range|nearby|you\s+see|close\s+by))?"
                           r"\s*(?::|->|=>|→)\s*(?P<v>[a-z]+(?:\s+(?:up|down|left|right))?)(?:\s+(?:it|them)(?P<p>\s+(?:up|down))?)?\s*(?P<end>[.!]?)(?=\s|$)", re.IGNORECASE | re.MULTILINE)
"""A standing order as a field: "Any goblin within reach: attack it.", "any coin -> grab."."""
GOING = frozenset({"go", "walk", "move", "run", "head", "travel", "navigate", "proceed"})
LOOKING = re.compile(r"\b(?:up|down)$", re.IGNORECASE)


def _step(action: str, thing: str) -> str:
    """The step a form's two fields say: "attack skeleton_1", "go to lamp 2", "look up at lamp 3"."""
    action, thing = action.strip(), thing.strip()
    if action.lower() in GOING:
        return f"{action} to {thing}"
    return f"{action} at {thing}" if LOOKING.search(action) else f"{action} {thing}"


NUMBERED = re.compile(r"^[ \t]*(?:step[ \t]*)?(?P<n>\d{1,2})[ \t]*[:.)-][ \t]*\S", re.IGNORECASE)
"""A line that is a numbered step ("Step 3: use the shrine.", "2) jump the lava")."""


def _by_number(text: str) -> str:
    """``text`` with each run of numbered lines in the order of their numbers, where they count
    1, 2, 3 ... out of order."""
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        run = []
        while k < len(lines) and NUMBERED.match(lines[k]):
            run.append(lines[k])
            k += 1
        numbers = [int(NUMBERED.match(line).group("n")) for line in run]  # type: ignore[union-attr]
        if len(run) > 1 and sorted(numbers) == list(range(1, len(run) + 1)):
            run = [line for _, line in sorted(zip(numbers, run))]
        out += run
        if k < len(lines) and not run or k < len(lines) and not NUMBERED.match(lines[k]):
            out.append(lines[k])
            k += 1
    return "\n".join(out)


ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
ORDINAL_LABEL = re.compile(r"^\s*(?P<o>first|second|third|fourth|fifth|sixth)\s*:\s*\S", re.IGNORECASE)


def _by_ordinal(text: str) -> str:
    """Sentences each labelled "Third:", "First:", ... out of order, put in the order of their labels."""
    pieces = [x for x in re.split(r"(?<=[.!?])\s+", text.strip()) if x]
    labels = [ORDINAL_LABEL.match(x) for x in pieces]
    if len(pieces) < 2 or not all(labels):
        return text
    numbers = [ORDINALS[m.group("o").lower()] for m in labels]  # type: ignore[union-attr]
    if sorted(numbers) != list(range(1, len(pieces) + 1)) or numbers == sorted(numbers):
        return text
    return " ".join(x for _, x in sorted(zip(numbers, pieces)))


INLINE_LABEL = re.compile(r"(?:(?<=[\s:;,])|^)\(\s*(?P<l>i{1,3}|iv|vi{0,3})\s*\)(?=\s+[a-z])", re.IGNORECASE | re.MULTILINE)
"""Steps labelled in roman numerals inside a line ("(i) activate the switch, (ii) jump the lava
pit"): numbered as "(1)", "(2)"."""
ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8}


BARE_LABEL = re.compile(r"(?:(?<=[\s:;,.])|^)(?P<n>\d)\)(?=\s+[a-z])", re.IGNORECASE)
"""Steps labelled "1)", "2)" inside one line that starts with the first ("1) grab coin 2 2) use the
switch"): a line each."""


def _numbered(text: str) -> str:
    text = "\n".join(BARE_LABEL.sub(r"\n\g<n>)", line).lstrip("\n") if line.lstrip().startswith("1)") and [int(m.group("n")) for m in BARE_LABEL.finditer(line)] == list(range(1, len(BARE_LABEL.findall(line)) + 1))
                     and len(BARE_LABEL.findall(line)) >= 2 else line for line in text.split("\n"))
    labels = [m.group("l").lower() for m in INLINE_LABEL.finditer(text)]
    for kind in (ROMAN,):  # letters are read as labels already ("(a) go to lamp 2 (b) turn left")
        if len(labels) >= 2 and [kind.get(x) for x in labels] == list(range(1, len(labels) + 1)):
            return INLINE_LABEL.sub(lambda m: f"({kind[m.group('l').lower()]})", text)
    return text


def fields(text: str) -> str:
    """``text`` with a form's target and action fields as one step each, a quoted routine's name
    over its steps left out, and numbered steps listed out of order put in order."""
    text = _by_ordinal(_by_number(_numbered(text)))
    text = PAIR.sub(lambda m: m.group("lead") + _step(m.group("v1") or m.group("v2"), m.group("x1") or m.group("x2")), text)
    text = ANY_THEN_DEED.sub(lambda m: f"{m.group('v')}{m.group('p') or ''} {m.group('q')} {m.group('x')}{m.group('r') or ''}{m.group('end') or '.'}", text)
    return ROUTINE.sub("", text)
