"""A text's budget: how many steps a plan of rules may play, in the words testers write it.

"for 120 steps", "you have 80 steps", "within 70 steps", "Use 95 moves to ...", "300 steps is
enough", "Budget 200 steps", "In two hundred fifty steps"; or game time ("for two minutes", "stop
after 30 seconds", "during 12 seconds", "45 seconds is ok"), which the game's ``step_seconds``
turns into steps. The budget is taken out of the text, with the words it is written in, before
the steps are read.
"""

from __future__ import annotations

import re

from evo.run.config import ConfigError

NUMBERS = {w: n for n, w in enumerate(("zero one two three four five six seven eight nine ten eleven twelve "
                                       "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty").split())}
NUMBERS.update({"a": 1, "an": 1, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                "ninety": 90, "half a": 0.5})
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
HUNDREDS = (rf"(?:(?:{_UNITS}|a)\s+hundred(?:\s+(?:and\s+)?(?:(?:{_TENS})(?:[\s-](?:{_UNITS}))?|{_UNITS}|ten|eleven|twelve|"
            r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))?|(?:" + _TENS + r")[\s-](?:" + _UNITS + r"))")
"""A count in words past twenty ("two hundred fifty", "one hundred and twenty", "forty-five")."""
BUDGET_LEAD = ("during|give up|give it up|give it|allow|next|following|play|playing|run|running|keep|keeping|continue|continuing|go|going|"
               "carry|carrying|test|testing|stop|end|finish|quit|halt|spend|use|take|taking|you|your|have|has|get|the|budget|"
               "is|of|on|for|after|at|in|within|under|up|to|only|most|a|total|with|limit|over|about|may|can|are|allowed|"
               "given|until|have passed|pass")
"""Words of the phrase a budget is written in ("you have", "play on for", "within", "stop at",
"the budget is"), taken out with it."""
BUDGET = re.compile(r"(?<![\w-])(?:(?:" + BUDGET_LEAD + r")\s+)*"
                    r"(\d+(?:\.\d+)?|half an?|" + HUNDREDS + "|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")\s+"
                    r"(steps?|moves?|turns?|actions?|seconds?|secs?|s|minutes?|mins?)\b"
                    r"(?:\s+(?:at most|at the most|in total|total|or (?:less|fewer)|max(?:imum)?|to|budget|limit|"
                    r"(?:is|are|should be|will be)\s+(?:enough|ok|okay|fine|plenty|the limit|the budget))\b)?\.?", re.IGNORECASE)
"""A budget, taken out of the text: any count of steps, moves or turns ("Play 120 turns", "you
have 80 steps", "within 70 steps", "Use 95 moves to ...", "300 steps is enough") or of game time
("for two minutes", "stop after 30 seconds", "spend 8 seconds"), which the game's
``step_seconds`` turns into steps, with the words it is written in."""


def count(words: str) -> float:
    """A count in digits or words ("120", "half a", "two hundred fifty", "forty-five")."""
    words = words.lower()
    if words[0].isdigit():
        return float(words)
    if words.startswith("half"):
        return NUMBERS["half a"]
    total = 0.0
    for word in re.split(r"[\s-]+", words):
        if word == "hundred":
            total = max(total, 1) * 100
        elif word != "and":
            total += NUMBERS[word]
    return total


def budget_steps(text: str, step_seconds: float | None, label: str = "the game") -> int | None:
    """The steps a text's budget allows ("for 120 steps"; "for two minutes" at ``step_seconds``
    of game time a step), or None when it gives none.

    Raises:
        ConfigError: a time budget on a game whose steps stand for no game time (a turn-based
            game), rather than a guessed rate.
    """
    found = BUDGET.search(text)
    if found is None:
        return None
    number, unit = count(found.group(1)), found.group(2).lower()
    if unit.startswith(("step", "move", "turn", "action")):
        return max(int(number), 1)
    if not step_seconds:
        raise ConfigError(f"plan from text: {found.group(0).strip()!r} is a time, and {label}'s steps stand for "
                          "no game time (it declares no step_seconds); give a step budget ('for 120 steps')")
    seconds = number * (60 if unit.startswith("min") else 1)
    return max(int(round(seconds / step_seconds)), 1)
