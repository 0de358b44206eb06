"""List markers and step labels that testers write in front of their steps.

A tester numbers steps in many ways ("1.", "2)", "(3)", "#4", "1 -", "a)", "-", "*", "•",
"Step 1:", "Step two -", "First step:", "1st:") and labels them with ordinal adverbs
("Second, ...", "Firstly ...", "Last of all, ...", "To start, ...", "Start by pulling ...").
None of it is a step: read as one, "Step two" is the action ``two`` and "Last," the action
``Last``. They are taken off each sentence before the sentence is parsed, so every kind of
marker is read the same way, not each one the tagger happened to see in training.
"""

from __future__ import annotations

import re

_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten"
_ORDINAL_WORDS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|next|final|last"
MARKER = re.compile(
    r"^\s*(?:[-*•‣◦+>]+|\(?\d+[.):]?\)?(?:\s*[-–:.])?|#\d+[.):]?|\(?[a-h][.)]|\(?(?:i{1,3}|iv|v|vi{1,3})[.)]|"
    rf"\d+(?:st|nd|rd|th)\s*[:.)-]|step\s+(?:\d+|[a-h]|{_NUMBER_WORDS})\s*[:.)\-–]?|"
    rf"(?:{_ORDINAL_WORDS})\s+step\s*[:.)\-–]?)(?:\s+|$)", re.IGNORECASE)
"""A list marker or a step label at the start of a sentence ("2)", "Step two:", "1st:")."""
LABEL = re.compile(
    rf"^\s*(?:(?:{_ORDINAL_WORDS}|then|after that|last of all|first of all|to (?:start|begin|finish|end)|"
    r"in the end|at the end|at last|lastly|firstly|secondly|thirdly|finally)\s*[,:]|"
    r"(?:firstly|secondly|thirdly|lastly)\b|(?:start|begin|finish|end) (?:off )?by|"
    r"(?:keep on|keep|continue|carry on|go on)(?=\s+\w+ing\b)|"
    r"(?:you|we|the player|the tester)\s+(?:should|must|need to|have to|has to|will|are to|is to)\b|"
    r"(?:make sure|be sure|try|remember|don't forget|do not forget|be certain)\s+to\b|go and\b)\s*", re.IGNORECASE)
"""An ordinal adverb labelling a step ("Second,", "Last of all,", "Firstly", "Start by"), or
a verb of going on before the step's verb ("Keep hitting goblins"), or who must do it ("You
should press ...", "Make sure to ...", "Go and ...")."""
INLINE = re.compile(r"\s+(?=\(\d+\)\s|\(?[a-h]\)\s|#\d+\s|step\s+(?:\d+|" + _NUMBER_WORDS + r")\s*[:\-–]\s)",
                    re.IGNORECASE)
"""A marker in the middle of a line ("(1) Hit the goblin (2) Flip the switch"): a new step."""


def strip_marker(sentence: str) -> str:
    """``sentence`` without its list marker and step label ("Step two: pull the lever":
    "pull the lever"; "Start by pulling the lever": "pulling the lever")."""
    before = None
    while before != sentence:
        before = sentence
        sentence = LABEL.sub("", MARKER.sub("", sentence))
    return sentence.strip()


def split_markers(line: str) -> list[str]:
    """A line cut at every list marker inside it ("(1) ... (2) ...")."""
    return [part for part in INLINE.split(line) if part.strip()]
