"""A state asked for with the deed that brings it about: the deed alone.

Testers told to write plans the level can complete named what opens the way as well as the way
("Open the door (pull the switch), walk through it"; "Obviously the door has to be open, so use
the switch beforehand."). Read word by word, each asked the agent to work the door as well: a
step this game has no action for.
"""

from __future__ import annotations

import re

I = re.IGNORECASE
OPENER = r"(?:the\s+)?(?:switch|lever|button)"
IN_BRACKETS = re.compile(r"\b(?:open|unlock)\s+(?P<d>(?:the\s+)?(?:door|gate))\s*\((?P<m>(?:pull|flip|use|hit|press|throw|activate|toggle|yank|"
                         rf"interact\s+with)\s+{OPENER})\s*\)", I)
"""The state, then the deed in brackets: "open the door (pull the switch)"."""
SO = re.compile(r"(?:^|(?<=[.!?]\s))(?:(?:obviously|of\s+course)\s*,?\s*)?(?:the\s+(?:door|gate)\s+(?:has|needs|must)\s+(?:to\s+)?be\s+(?:open|opened|unlocked)"
                rf"|open\s+the\s+(?:door|gate))\s*,\s*so\s+(?=[a-z]+\s+{OPENER}\b)", I | re.M)
"""The state as a reason, then "so" and the deed: "the door has to be open, so use the switch"."""


def by_means(text: str) -> str:
    """``text`` with a state asked for beside the deed that brings it about read as that deed."""
    return SO.sub("", IN_BRACKETS.sub(r"\g<m> to open \g<d>", text))
