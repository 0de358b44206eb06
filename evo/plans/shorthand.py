"""A tester's chat shorthand and remarks around the steps, in the forms the reader reads (issue 55,
waves 36 and 37: ``tests/evo/plans/dev/*_dev75.yaml`` to ``*_dev78.yaml``).

- chat: "u" for you, "@qa", "usual stuff, ty", "just go nuts", "in no particular order";
- the means of a deed: "hit it with your weapon" (the deed alone);
- a standing order in other words: "clear out all enemies", "if a goblin gets within a few tiles";
- "switch on first" (the switch, turned on); "jump once at barrel 2" (one jump);
- remarks that are no steps: "Skip the others, they weren't touched.", "..., i want both angles",
  "..., we had a report that ...", "Seen 3/3 times.", "Should take well under a minute.", "how
  they look up close" (no look up), "look up at the top" (looking up);
- "the lamp at index 1" (lamp 1), "look up at it and also look down at it".

Each is one pattern over closed-class words; :data:`evo.plans.everyday.EVERYDAY` holds them in its
place among the rest.
"""

from __future__ import annotations

import re

I = re.IGNORECASE
SHORTHAND = (
    (re.compile(r"\s+with\s+(?:your|a|the|his|her)\s+(?:weapon|sword|fists?|axe|club|blade|dagger|hands?|bow|mace|hammer)\b", I), ""),  # "hit it with your weapon"
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:switch|lever)\s+on\b(?!\s+(?:the|a|an|it)\b)", I | re.M), "turn the switch on"),  # "switch on first, then ..."
    (re.compile(r"\bu\b(?!-)", I), "you"), (re.compile(r"(?:^|(?<=\s))@[\w-]+\s*,?\s*", I | re.M), ""),  # "@qa can u pull the lever"
    (re.compile(r"[,.;!?]?\s*(?:(?:the\s+)?usual\s+stuff|ty|thx|tia|cheers)\s*[,.!]*\s*(?:ty|thx|tia)?\s*[.!]*\s*$", I), "."),
    (re.compile(r"\bclear\s+out\s+(?=(?:all|every|each|the|any)\b)", I), "kill "),  # "clear out all enemies"
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:honestly\s*,?\s*)?(?:just\s+)?go\s+(?:nuts|wild|crazy)\s*[,.!]\s*", I | re.M), ""),
    (re.compile(r"\s*,?\s*(?:in\s+)?no\s+particular\s+order\b", I), ""),
    (re.compile(r"\b(?P<x>(?:a|an|any)\s+[a-z]+)\s+(?:gets|comes)\s+within\s+(?:a\s+few|\d+|one|two|three|some)\s+(?:tiles?|squares?|cells?|steps?)(?:\s+of\s+you)?", I),
     r"\g<x> comes near"),  # "If a goblin gets within a few tiles, attack it."
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:skip|ignore|leave)\s+(?:the\s+)?(?:others?|rest)\b[^.!?\n]*[.!?]?", I | re.M), ""),  # "Skip the others, they weren't touched."
    (re.compile(r"\s*[,;]\s*(?:i|we)\s+want\s+(?:both|all|every|each)\s+(?:angles?|views?|sides?|directions?)\b", I), ""),
    (re.compile(r"\s*[,;]\s*(?:we|i)\s+(?:had|got|have|received)\s+(?:a\s+|some\s+)?(?:reports?|complaints?|tickets?)\b[^.!?\n]*?(?=,?\s+so\b|\s*[.!?\n]|$)", I | re.M), ""),
    (re.compile(r"\b(?P<l>look(?:s|ed|ing)?)\s+up\s+close\b", I), r"\g<l> close"),  # "how they look up close": no look up
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:seen|happens|reproduced|reproduces|repro|occurs)\s+\d+\s*/\s*\d+(?:\s+times|\s+tries)?\s*[.!]?", I | re.M), ""),
    (re.compile(r"\b(?P<l>look(?:ing)?\s+(?:up|down))\s+(?:at|to(?:wards)?)\s+(?:the\s+)?(?:top|bottom|base|sky|ground|floor|ceiling|feet)\b", I), r"\g<l>"),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:it\s+|this\s+)?should\s+(?:only\s+)?take\s+(?:well|under|about|around|less\s+than|roughly|maybe)\b[^.!?\n]*[.!]?", I | re.M), ""),
    (re.compile(r"(?<=\band)\s+also\s+(?=[a-z]+\s+(?:up|down|left|right|at|to|the|it|around|round|over)\b)", I), " "),  # "look up at it and also look down at it"
    (re.compile(r"\b(?P<x>[a-z]+)\s+(?:at|with|of)\s+index\s+(?P<n>\d{1,2})\b", I), r"\g<x> \g<n>"),  # "the lamp at index 1"
    (re.compile(r"\b(?P<v>jump|hop)\s+once\b(?=\s+(?:at|by|near|next\s+to|beside|on\s+top\s+of)\s+(?:the\s|[a-z]+\s+\d))(?!\s+at\s+the\s+(?:start|beginning|spawn))", I), r"\g<v>"),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:then\s+)?(?:it\s+)?is\s+finish(?:ed)?\s*[.!]?", I | re.M), ""),  # "Then is finish."
    (re.compile(r"\b(?:just\s+)?go\s+for\s+the\s+(?P<x>[a-z]+s)\b", I), r"get the \g<x>"),  # "Otherwise just go for the coins."
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:the\s+)?(?:agent|player|bot)\s+(?:should|must|needs\s+to|has\s+to)\s+(?!be\s|not\s|never\s)(?=[a-z]+\s)", I | re.M), ""),  # "Agent should go to switch"  # "jump once at barrel 2": one jump
)
"""(pattern, replacement) pairs, applied in order."""


def _whenever(m: re.Match[str]) -> str:
    """"Every enemy you see: attack it." as "Whenever you see an enemy, attack it."; "Any skeleton
    that wanders close, swing at it." as "Whenever a skeleton wanders close, swing at it."."""
    x, rel = m.group("x"), re.sub(r"^(?:that|which|who)\s+", "", m.group("rel") or "is near", flags=I)
    a = f"{'an' if x[0].lower() in 'aeiou' else 'a'} {x}"
    return f"Whenever {rel} {a}, " if rel.lower().startswith("you ") else f"Whenever {a} {rel}, "


STANDING_IT = (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:every|any|each)\s+(?P<x>[a-z]+)(?:\s+(?P<rel>(?:(?:that|which|who)\s+)?(?:you\s+)?[a-z]+"
                          r"(?:\s+(?:into|across|upon|close|near|nearby|by|up|past|in\s+range|in\s+sight))?))?\s*[:,;–-]\s*"
                          r"(?=[a-z]+(?:\s+(?:at|to|up|down|on|over|around))*\s+(?:it|them)\b)", I | re.M), _whenever)
"""A standing order's thing said first, then done to as "it" ("Every barrel you see: walk to it.")."""
AFTER_THING = (re.compile(r"(?<=[.!?]\s)after\s+(?:the|that)\s+(?P<x>[a-z]+)\s*,\s*(?:it\s+should\s+|you\s+should\s+)?(?=[a-z])", I),
               lambda m: "Then " if re.search(rf"\b{m.group('x')}\b[^.!?]*[.!?]\s*$", m.string[:m.start()], I) else m.group(0))
"""A step after the thing of the sentence before ("Pull the lever. After the lever, jump the lava."): next."""
AFTER_IT = (re.compile(r"(?:^|(?<=[.!?]\s))(?:and\s+)?after\s+(?:it|that|this|him|them)\s*,\s*(?=(?:the\s+)?[a-z]+(?:\s+[a-z]+)?(?:\s+\d{1,2})?\s*[.!](?:\s|$))", I | re.M),
            "Then ")
"""A thing alone after "After it," ("Attack the first ogre. After it, the second skeleton."): the verb before, gapped."""
UNLESS_SHUT = (re.compile(r",?\s*unless\s+(?P<x>it|the\s+[a-z]+)\s+(?:is|'s)\s+(?:still\s+)?(?:closed|shut|locked)\b", I), r" if \g<x> is open")
"""A step unless a thing is still shut ("Go to the door, unless it is still closed."): if it is open."""
FIRST_THOUGH = (re.compile(r"\b(?P<f>first)\s+(?:though|tho|mind\s+you)\s*(?=[.!?,]|$)", I | re.M), r"\g<f>")
"""An order word with a remark after it ("Pull the switch first though."): the order word."""
CHATTER = ((re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:yo+|oi|sup)\b\s*[,!]?\s*(?:so\s+)?", I | re.M), ""),  # "yo smash that lever"
           (re.compile(r"(?<=\w)\s+&\s+(?=\w)"), " and "),  # "kill goblin 3 & skeleton 2"
           (re.compile(r"\bsend\s+(?:the\s+|our\s+)?(?:tester|agent|bot|player|walker|character|runner|hero)\s+(?:over\s+)?to\b", I), "go to"),
           (re.compile(r"\b(?P<and>and\s+)?have\s+(?:it|him|her|them|the\s+(?:agent|bot|tester|player))\s+(?=(?:look|turn|circle|jump|pull|use|attack|kill)\b)", I),
            lambda m: m.group("and") or ""),
           (re.compile(r"\b(?P<v>use|activate|pull|press|touch|attack|kill|fight|hit|flip)\s+there\b", I), r"\g<v> it"),  # "walk to the altar and pray there"
           (re.compile(r"\bpray\s+there\b", I), "pray at it"),
           (re.compile(r"\b(?:perform|do|make|complete|run)s?\s+(?:a\s+|one\s+)?(?:full\s+|complete\s+|whole\s+)?(?:circle|lap|loop)\s+(?=a?round\b)", I), "circle "))
"""A texter's hello ("yo"), "&", a step through whom does it ("send the tester to lamp 2 and have it look
up"), and a lap said as a noun ("performs a full circle around it")."""
SHORTHAND = (*SHORTHAND, STANDING_IT, AFTER_THING, AFTER_IT, UNLESS_SHUT, FIRST_THOUGH, *CHATTER)


def every_one(text: str, names: set[str]) -> str:
    """"every one you meet" for the kind named last before it in its sentence ("Spend 100 steps
    hunting skeletons: attack every one you meet": every skeleton); "each one" at a sentence's end
    only after a kind in the plural ("Look for barrels and walk up to each one"), never after
    instances ("lamps 1 and 2 ... each one": those two)."""
    def kind(m: re.Match[str]) -> str:
        start = max(text.rfind(end, 0, m.start()) for end in (". ", "! ", "? ", "\n"))
        said = text[start + 1:m.start()]
        hits = [w for w in re.finditer(r"[a-z]+", said.lower()) if w.group(0) in names]
        if not hits or re.match(r"\s+(?:\d|and\s+\d|number\b)", said[hits[-1].end():]):
            return m.group(0)
        word = hits[-1].group(0)
        plural = word.endswith("s") and word[:-1] in names or re.search(rf"\b(?:every|any|all|each)\s+{word}\b", said.lower()) is not None
        if re.match(r"\s*(?:[.!;]|$)", text[m.end():]) and not plural:
            return m.group(0)
        return f"{m.group('q')} {word[:-1] if plural else word}"
    return re.sub(r"\b(?P<q>every|each|any)\s+(?:single\s+)?one\b(?=\s+(?:you|that|which|who|in\s+sight|nearby|near|close)\b|\s*[.!;]|\s*$)",
                  kind, text, flags=I | re.M)
