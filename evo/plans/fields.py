"""A test written as a form's fields, or under a name of its own: what each field holds, put back
as the step it is.

Testers writing blind set 2 filled a form ("Target: skeleton_1. Action: attack.") and named a
routine before its steps ("Do the \"lever run\": pull the lever, then jump the lava."). Read word
by word, the first gave the attack three times (the target read as a visit, the action on it,
then again); the second read the name as one more pull of the lever.
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
GOING = frozenset({"go", "walk", "move", "run", "head", "travel", "navigate", "proceed"})
LOOKING = re.compile(r"\b(?:up|down)$", re.IGNORECASE)


def _step(action: str, thing: str) -> str:
    """The step a form's two fields say: "attack skeleton_1", "go to lamp 2", "look up at lamp 3"."""
    action, thing = action.strip(), thing.strip()
    if action.lower() in GOING:
        return f"{action} to {thing}"
    return f"{action} at {thing}" if LOOKING.search(action) else f"{action} {thing}"


def fields(text: str) -> str:
    """``text`` with a form's target and action fields as one step each, and a quoted routine's
    name over its steps left out."""
    text = PAIR.sub(lambda m: m.group("lead") + _step(m.group("v1") or m.group("v2"), m.group("x1") or m.group("x2")), text)
    return ROUTINE.sub("", text)
