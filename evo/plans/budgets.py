"""A text's budget: how many steps a plan of rules may play, in the words testers write it.

"for 120 steps", "you have 80 steps", "within 70 steps", "Use 95 moves to ...", "300 steps is
enough", "Budget 200 steps", "In two hundred fifty steps"; or game time ("for two minutes", "stop
after 30 seconds", "during 12 seconds", "45 seconds is ok"; a tick is a step: "run for 250 ticks"), which the game's ``step_seconds``
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
HUNDREDS = (rf"(?:(?:{_UNITS})\s+(?:{_TENS})(?=\s+(?:steps?|moves?|turns?|actions?))|(?:{_UNITS}|a)\s+hundred(?:\s+(?:and\s+)?(?:(?:{_TENS})(?:[\s-](?:{_UNITS}))?|{_UNITS}|ten|eleven|twelve|"
            r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))?|(?:" + _TENS + r")[\s-](?:" + _UNITS + r"))")
"""A count in words past twenty ("two hundred fifty", "one hundred and twenty", "forty-five")."""
BUDGET_LEAD = ("time|time limit|duration|length|during|give up|give it up|give it|allow|next|following|play|playing|run|running|keep|keeping|continue|continuing|go|going|"
               "carry|carrying|test|testing|stop|end|finish|quit|halt|spend|use|take|taking|you have|you get|you've got|you've|your|have|has|"
               "get|the|budget|roughly|approximately|exactly|precisely|maybe|some|"
               "is|of|on|for|after|at|in|within|under|up|to|only|most|a|total|with|limit|over|about|may|can|are|allowed|"
               "given|until|maximum|max|play it|leave it running|leave it on|keep it running|a period of|period of|a budget of|budget of|a duration of|have passed|pass|run this|run that|run it|let it run|let that run|let this run|keep it to|cap it at|limit it to|cap the (?:session|run) at|cap|capped at|set up|set")
"""Words of the phrase a budget is written in ("you have", "play on for", "within", "stop at",
"the budget is"), taken out with it."""
BUDGET = re.compile(r"(?<![\w-])(?:(?:" + BUDGET_LEAD + r")\s+|(?:budget|limit|max|maximum|cap|total)[ \t]*[:=][ \t]*)*"
                    r"(\d+(?:\.\d+)?|half an?|" + HUNDREDS + "|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
                    r"(?:[ \t]*-[ \t]*|[ \t]+|(?<=\d))(?:(?:full|whole|good|solid)[ \t]+)?"
                    r"(steps?|moves?|turns?|actions?|ticks?|seconds?|secs?|s|minutes?|mins?)\b(?![ \t]*(?:\d|[a-h][:.)]))(?<!turn(?=[ \t]+(?:left|right|around|round|back)\b))"
                    r"(?:\s+(?:at most|at the most|in total|total|or (?:less|fewer)|max(?:imum)?|to|budget|limit|cap|timer|of|long|"
                    r"(?:(?:stress|soak|test|long|short)\s+)?(?:run|session|capture|test|pass|free-roam)|"
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
    spoken = re.fullmatch(rf"({_UNITS})\s+({_TENS})", words)
    if spoken:  # "two fifty steps", said aloud: 250
        return NUMBERS[spoken.group(1)] * 100 + NUMBERS[spoken.group(2)]
    total = 0.0
    for word in re.split(r"[\s-]+", words):
        if word == "hundred":
            total = max(total, 1) * 100
        elif word != "and":
            total += NUMBERS[word]
    return total


CLOCK = re.compile(r"\b(?P<m>\d{1,2}):(?P<s>[0-5]\d)\b(?=\s*(?:cap|timer|limit|max|budget|of|minutes?|mins?)\b)", re.IGNORECASE)
"""A time on a clock's face ("0:20 cap", "1:30 timer"): minutes and seconds."""
EXPECTED = re.compile(r"\b(?:expect(?:s|ed|ing)?\s+that|(?:should|will|must)\s+(?:open|close|happen|appear|spawn|unlock|fire)|"
                      r"(?:the|a|an|it)\s+(?:\w+\s+)?(?:opens|closes|happens|appears|spawns|unlocks|fires))\b[^.!?;\n]*$",
                      re.IGNORECASE)
"""Words before a count that say what to expect ("I am expecting that the door opens in one or two
steps", "The door should open within 2 steps"), no budget."""
PAST = re.compile(r"\b(?:was|were|took|takes|record|pb|wr|last\s+time)\b[^.!?\n:]*$", re.IGNORECASE)
"""Words before a count that tell of a past run ("PB was 34 steps on this"), no budget."""


def clocked(text: str) -> str:
    """``text`` with a clock's time in seconds ("0:20 cap": "20 seconds cap"), a budget's label
    before its bare count in steps ("Step budget: 300", "Step count: 250": "300 steps"), a unit's ("Steps: 200": "200
    steps"), a last step ("until step 200") and a time's label ("Run time: 20 seconds": "for 20
    seconds")."""
    text = re.sub(r"\b(?:a|one)\s+(?P<u>minute|second)\s+and\s+a\s+half\b", r"1.5 \g<u>s", text, flags=re.IGNORECASE)  # "a minute and a half"
    text = re.sub(r"\b(?P<m>\d+)\s*(?:minutes?|mins?)\s*,?\s*(?:and\s+)?(?P<s>\d+)\s*(?:seconds?|secs?|s)\b",
                  lambda m: f"{int(m.group('m')) * 60 + int(m.group('s'))} seconds", text, flags=re.IGNORECASE)  # "1 minute 20 seconds"
    text = re.sub(r"\b(?P<q>(?:a|one)\s+quarter|three\s+quarters)\s+of\s+a\s+minute\b",
                  lambda m: "45 seconds" if m.group("q").lower().startswith("three") else "15 seconds", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:run[\s-]?time|time[\s-]?limit|time[\s-]?box|duration|length|time)\s*[:=]\s*(?=(?:\d|half|a\s|an\s|one|two|"
                  r"three|four|five|ten|twenty|thirty|forty|fifty|sixty))", "for ", text, flags=re.IGNORECASE)  # "Run time: 20 seconds"
    text = re.sub(r"\b(?:(?:steps?\s+)?budget|step\s+count|number\s+of\s+steps)\s*[:=]?\s*(\d+)\b(?!\s*(?:steps?|moves?|turns?|ticks?|seconds?|secs?|s|minutes?|mins?)\b)",
                  r"\1 steps", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:max(?:imum)?\s+)?(?P<unit>steps?|moves?|turns?|ticks?|seconds?|secs?|minutes?|mins?)(?:[ \t]+(?:limit|cap|max))?[ \t]*[:=][ \t]*(?P<n>[1-9]\d+)\b(?!\))"
                  r"(?!\s*(?:steps?|moves?|turns?|ticks?|seconds?|secs?|s|minutes?|mins?)\b|[.:]\d)",
                  lambda m: f"{m.group('n')} {m.group('unit')}", text, flags=re.IGNORECASE)  # "Steps: 200"
    text = re.sub(r"\b(?:until|till|up[ \t]+to)[ \t]+(?:step|tick|turn|move)[ \t]+(?:(?:number|no\.?|#)[ \t]*)?(?P<n>\d+)\b",
                  lambda m: f"for {m.group('n')} steps", text, flags=re.IGNORECASE)  # "until step 200"
    text = re.sub(r"\b(?P<unit>steps?|moves?|turns?|ticks?|seconds?|minutes?)[ \t]*\([ \t]*(?:say|about|around|roughly|approx\.?|maybe|like|~|e\.g\.,?)?[ \t]*"
                  r"(?P<n>\d+)[ \t]*(?:(?P=unit)|s)?[ \t]*\)", lambda m: f"{m.group('unit')}, {m.group('n')} {m.group('unit')}", text, flags=re.IGNORECASE)  # "run out of steps (say 250)"
    return CLOCK.sub(lambda m: f"{int(m.group('m')) * 60 + int(m.group('s'))} seconds", text)


def budget_found(text: str) -> re.Match[str] | None:
    """The first budget in ``text`` that is not a past run's count."""
    for found in BUDGET.finditer(text):
        if not PAST.search(text[:found.start()]) and not EXPECTED.search(text[:found.start()]) and not _ordinal(found, text) \
                and not _instance(found, text):
            return found
    return None


def without_budget(text: str) -> str | None:
    """``text`` with its budgets taken out, in the words they are written in; None when it has none."""
    text = clocked(text)
    if budget_found(text) is None:
        return None
    out = BUDGET.sub(lambda m: m.group(0) if PAST.search(text[:m.start()]) or EXPECTED.search(text[:m.start()])
                     or _ordinal(m, text) or _instance(m, text) else "", text)
    before, after = text.split("\n"), out.split("\n")
    if len(before) != len(after):
        return out
    return "\n".join(re.sub(r"[ \t]*,[ \t]*$", ".", new) if new != old and old.rstrip().endswith((".", "!")) else new
                     for old, new in zip(before, after))  # "..., 200 steps budget.": the line still ends its sentence


def _instance(found: re.Match[str], text: str) -> bool:
    """"barrel 1 second": a thing's number before an order word, no one-second budget."""
    return found.group(0).strip().startswith("1 ") and found.group(2).lower() in ("second", "sec", "s", "step", "move", "turn") \
        and re.search(r"[a-z]\s+$", text[:found.start()], re.IGNORECASE) is not None


def _ordinal(found: re.Match[str], text: str) -> bool:
    """"a second ogre", "a second time": "second" as an ordinal, no time."""
    return found.group(1).lower() in ("a", "an") and found.group(2).lower() in ("second", "sec", "s", "step", "move", "turn", "tick") and re.match(r"\s+(?!(?:and|or|of|then|to|more|at|in)\b)[a-z]",
                                                             text[found.end():], re.IGNORECASE) is not None


def budget_steps(text: str, step_seconds: float | None, label: str = "the game") -> int | None:
    """The steps a text's budget allows ("for 120 steps"; "for two minutes" at ``step_seconds``
    of game time a step), or None when it gives none.

    Raises:
        ConfigError: a time budget on a game whose steps stand for no game time (a turn-based
            game), rather than a guessed rate.
    """
    found = budget_found(clocked(text))
    if found is None:
        return None
    number, unit = count(found.group(1)), found.group(2).lower()
    if unit.startswith(("step", "move", "turn", "action", "tick")):
        return max(int(number), 1)
    if not step_seconds:
        raise ConfigError(f"plan from text: {found.group(0).strip()!r} is a time, and {label}'s steps stand for "
                          "no game time (it declares no step_seconds); give a step budget ('for 120 steps')")
    seconds = number * (60 if unit.startswith("min") else 1)
    return max(int(round(seconds / step_seconds)), 1)
