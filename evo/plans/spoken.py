"""A test dictated into a speech-to-text tool (issue 55, wave 8: ``tests/evo/plans/dev/*_dev19.yaml``).

Spoken punctuation ("flip the switch period"), fillers ("um", "okay so", "oh yeah"), words the tool
mishears ("go too the shrine", "than go", "your there"), self-corrections ("go to the lamp no wait
the barrel", "jump no I mean attack it", "... no wait other way round ..."), "the first step is", a
condition run into the step before ("... and if any skeletons show up kill them"), and a dictated
title ("test number four", "end of test"). Each is one pattern over the closed words of speech.
"""

from __future__ import annotations

import re

SPOKEN_TITLE = re.compile(r"^\s*(?:(?:[a-z]+\s+)?test(?:\s+(?:number|no\.?|#)\s*\w+)?|end\s+of\s+(?:the\s+)?test|note\s+to\s+self\b.*)\s*[.:]?\s*$",
                          re.IGNORECASE)
"""A dictated test's title or end ("test number four", "park test", "end of test")."""
SPOKEN = ((re.compile(r"\s+(?:period|full\s+stop)\b", re.IGNORECASE), "."), (re.compile(r"\s+comma\b", re.IGNORECASE), ","),
          (re.compile(r"\s*\b(?:new|next)\s+line\b\s*", re.IGNORECASE), "\n"),
          (re.compile(r"\b(?:um+|uh+|uhm|erm?|hmm+)\b[,.]?\s*", re.IGNORECASE), ""),
          (re.compile(r"(?:^|(?<=[.!?]\s))(?:(?:so|well|basically|alright|okay|ok|anyway|oh\s+wait|wait|hold\s+on|oops)\s*,\s*)+", re.IGNORECASE | re.M), ""),
          (re.compile(r"(?<=\w)\s+n\s+(?=(?:then|turn|go|jump|look|circle|use|kill|grab|walk|run|press|pull|flip)\b)", re.IGNORECASE), " and "),
          (re.compile(r"\bteh\b", re.IGNORECASE), "the"), (re.compile(r"\s@\s*(?=[a-z])", re.IGNORECASE), " at "),
          (re.compile(r",\s*(?:like|basically|you\s+know)\s*,", re.IGNORECASE), ","),
          (re.compile(r"\b(?:okay|ok)\s+so\b,?\s*|\boh(?:\s+yeah)?\b,?\s*|\bobviously\b\s*|,?\s*\bi\s+mean\s*(?=[.!?]?$)", re.IGNORECASE), ""),
          (re.compile(r"\btoo\s+(?=the\b)", re.IGNORECASE), "to "), (re.compile(r"\bthan\s+(?=(?:go|head|walk|run|jump|use|pull|kill)\b)", re.IGNORECASE), "then "),
          (re.compile(r"\byour\s+(?=there\b)", re.IGNORECASE), "you're "), (re.compile(r"\bthats\b", re.IGNORECASE), "that's"),
          (re.compile(r"\bits\s+(?=(?:open|on|off|closed)\b)", re.IGNORECASE), "it's "), (re.compile(r"(?<=\w)\s+em\b", re.IGNORECASE), " them"),
          (re.compile(r"(?P<old>\bthe\s+(?:[a-z]+\s+)?[a-z]+|\b[a-z]+\s+(?:one|two|three|four|five|\d))\s+(?:no\s+wait|no\s+i\s+mean|i\s+mean|"
                      r"no\s+actually|no|sorry|wait)\s*,?\s+(?P<new>the\s+(?:[a-z]+\s+)?[a-z]+|[a-z]+\s+(?:one|two|three|four|five|\d))\b(?:\s+sorry\b)?",
                      re.IGNORECASE), lambda m: _corrected(m.group("old"), m.group("new"))),
          (re.compile(r"\b[a-z]+(?:\s+(?:left|right|up|down))?\s+(?:no\s+wait|no\s+i\s+mean|i\s+mean)\s+(?=[a-z]+)", re.IGNORECASE), ""),
          (re.compile(r"^.*\b(?:other\s+way\s+round|other\s+way\s+around|scratch\s+that|start\s+over)\b\s*", re.IGNORECASE), ""),
          (re.compile(r"(?:^|(?<=\n))\s*(?:so\s+)?(?:the\s+)?(?:first|second|third|fourth|fifth|next|last|final)\s+(?:step|thing)\s+(?:is\s+)?(?:to\s+)?",
                      re.IGNORECASE), ""),
          (re.compile(r"\s+and\s+(?=(?:if|when|whenever|once)\s+(?:any|a|an|the|you|it)\b)", re.IGNORECASE), ". "))
"""A dictated test: spoken punctuation ("period"), fillers ("um", "okay so"), words a dictation
tool mishears ("too the", "than go"), a self-correction ("the lamp no wait the barrel", "jump no I
mean attack it"), "the first step is", a condition run into the step before ("... and if any
skeletons show up kill them")."""
def _corrected(old: str, new: str) -> str:
    """"the first goblin no the second one": the new words, "one" the old words' thing."""
    thing = old.split()[-1] if not old.split()[-1].isdigit() and old.split()[-1].lower() not in ("one", "two", "three", "four", "five") \
        else old.split()[0]
    return re.sub(r"\bone$", thing, new) if new.split()[-1].lower() == "one" and len(new.split()) > 1 else new
