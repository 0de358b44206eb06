"""A step said again in other words, right after it was said: done once.

Testers of waves 48 and 49 said the last step of a route once more, to say why or when: "Can you do
the usual: pull the lever, jump the lava, then use the shrine? Use the shrine at the end so we know
the level completes."; "Before you use the shrine, pick up coin 3. End by using the shrine.";
"After that walk to lamp 3 and look up at it. The lamps are tall, so you need to look up to see the
top.". Read as written, the shrine was used twice and the lamp looked up at twice. A step said
twice with nothing else ("Turn right. Turn right.") is done twice: only a step said again with
words of when or why ("at the end", "so we know ...", "so you need to ...") is the same step.
"""

from __future__ import annotations

import re

I = re.IGNORECASE
JOINS = re.compile(r",\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+)?then\s+|\s+and\s+|:\s*", I)
"""Words that join the steps of a sentence: its last step is after the last of them."""
AGAIN = re.compile(r"^\s*(?:(?:and|then|finally|so)\s+)*(?P<step>.+?)\s+(?:at\s+the\s+(?:very\s+)?end|last|to\s+finish(?:\s+(?:up|off))?|"
                   r"(?:so|to)\s+(?:that\s+)?(?:(?:we|i|you)\s+(?:can\s+)?)?(?:know|see|check|confirm|make\s+sure)\b.*)\s*[.!?]*\s*$", I)
"""A step said with when or why it is done ("Use the shrine at the end so we know the level completes")."""
REASON = re.compile(r"^[^,]+,\s*so\s+(?:you(?:'ll)?\s+(?:will\s+)?(?:need|have)\s+to|you\s+must)\s+(?P<step>[a-z]+(?:\s+(?:up|down|left|right|around|over))?)"
                    r"\s+(?:to|so)\s+(?:see|check|make\s+sure)\b[^.!?]*[.!?]*\s*$", I)
"""A remark with the step it explains ("The lamps are tall, so you need to look up to see the top.")."""
BEFORE = re.compile(r"^\s*before\s+you\s+(?P<step>[^,]+?)\s*,\s*", I)
"""A lead that names the step after it ("Before you use the shrine, pick up coin 3.")."""
ENDS_BY = re.compile(r"^\s*(?:and\s+)?(?:then\s+)?(?:(?:end|finish)\s+(?:up\s+)?(?:by|with)\s+)?(?P<step>.+?)\s*[.!?]*\s*$", I)
"""The step the lead named, said after it ("End by using the shrine.")."""


def _words(step: str) -> tuple[str, ...]:
    """A step's words, each verb in its base form ("using the shrine": use the shrine)."""
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    words = re.findall(r"[a-z]+|\d+", step.lower())
    return tuple(_lemma(w, "v") if w.endswith("ing") else w for w in words if w not in ("the", "a", "an", "it"))


def restated(text: str) -> str:
    """``text`` without a step said again right after it (the module's families)."""
    out: list[str] = []
    for part in re.split(r"(?<=[.!?\n])", text):
        at = next((k for k in range(len(out) - 1, -1, -1) if out[k].strip()), None)  # the sentence before
        if at is None or not part.strip():
            out.append(part)
            continue
        before, said = JOINS.split(out[at].strip().rstrip(".!?"))[-1], AGAIN.match(part) or REASON.match(part.strip())
        if said is not None and _words(said.group("step")) and _words(said.group("step")) == _words(before)[:len(_words(said.group("step")))]:
            continue  # "..., then use the shrine. Use the shrine at the end so we know the level completes."
        lead, ends = BEFORE.match(out[at].lstrip()), ENDS_BY.match(part)
        if lead is not None and ends is not None and _words(lead.group("step")) == _words(ends.group("step")):
            kept = out[at].replace(lead.group(0).strip(), "", 1).lstrip()
            out[at] = kept[:1].upper() + kept[1:]  # "Before you use the shrine, pick up coin 3. End by using the shrine."
        out.append(part)
    return "".join(out)
