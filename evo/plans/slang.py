"""A texter's and a gamer's words for the steps, in the words the reader reads.

Testers of waves 50 and 51 wrote as they chat: "hey can u kill goblin 1 real quick", "yo can u
...", "can u do lever -> lava -> shrine 🙏", "yeet urself over the lava", "yoink coin 2", "smack
skelly #1", "farm coins for 250 steps", "Scoop up each coin", "wreck every enemy", "Mosey on
over to the door", "Kneel and pray at the shrine", "Last of all stump 4", "kil goblin 2, than pray
at the shrine", "Look for the lever. Pull it.". Each was refused on a word the reader does not
know; each is a common word of the game's said another way.
"""

from __future__ import annotations

import re

I = re.IGNORECASE
SLANG = ((re.compile(r"(?<![-\w'])u(?![-\w'])", I), "you"), (re.compile(r"\bur\b", I), "your"), (re.compile(r"\bur\s?self\b", I), "yourself"),
         (re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]+"), ""),  # "lever -> lava -> shrine 🙏"
         (re.compile(r"^(?P<s>[ \t]*)(?:hey|hi|yo|heya|hiya|oi)\b[ \t]*[,!]*[ \t]*(?=(?:can|could|would|will)\s+you\b)", I | re.M), r"\g<s>"),
         (re.compile(r"\byeet\s+(?:yourself\s+|your\s+character\s+)?(?=over|across|past)", I), "jump "),
         (re.compile(r"\bganks?\b", I), "kill"), (re.compile(r"\b(?:b-?line|beeline)\s+(?:it\s+)?(?:over\s+)?(?=to\b)", I), "run "),
         (re.compile(r"\bmake\s+(?:a\s+)?turn\s+(?:to\s+)?(?:the\s+)?(?=(?:left|right)\b)", I), "turn "),  # "make turn to left"
         (re.compile(r"\s*\(\s*(?P<c>(?:but\s+)?(?:only\s+)?(?:if|once|when|as\s+soon\s+as)\s+(?:it'?s|it\s+is|(?:the\s+)?[a-z]+(?:'s|\s+is|\s+has\s+been|\s+was|\s+is\s+still))"
                     r"\s+(?:(?:turned|switched|flipped|pulled)\s+)?(?:open|opened|on|unlocked))\s*\)", I), r" \g<c>"),  # "(only if it's open)", "(only when the switch has been turned on)"
         (re.compile(r"\btake\s+on\s+(?=(?:the|a|an|each|every|all|any|both)\s|[a-z]+[\s_]*#?\d)", I), "fight "),  # "take on ogre 1"
         (re.compile(r"\b(?:check\s+out|go\s+see)\s+(?=(?:every|each|all|any)\b)|(?:^|(?<=[.!?,]\s)|(?<=\bjust\s)|(?<=\bthen\s))see\s+(?=(?:every|each|all)\b)", I | re.M), "visit "),  # "check out every object"
         (re.compile(r"\byoink\b", I), "grab"), (re.compile(r"\bscoop\s+up\b", I), "pick up"), (re.compile(r"\bwreck\b", I), "attack"),
         (re.compile(r"\bfarm\s+(?=(?:the\s+|some\s+|all\s+the\s+)?(?:coins|gold|loot|items|collectables|pickups|gems)\b)", I), "collect "),
         (re.compile(r"\bgrab\s+(?=(?:the\s+|that\s+)?(?:lever|switch)\b)", I), "pull "),  # "grab the lever": pull it
         (re.compile(r"\bmosey\s+(?:on\s+)?(?:over\s+)?to\b", I), "walk to"), (re.compile(r"\bdip\s+(?:out\s+)?through\b", I), "go through"),
         (re.compile(r"\bskell(?:y|ie)s\b", I), "skeletons"), (re.compile(r"\bskell(?:y|ie)\b", I), "skeleton"),
         (re.compile(r"\bkneel\s+(?:down\s+)?(?P<at>(?:at|before|in\s+front\s+of)\s+(?:the\s+)?[a-z]+)\s+and\s+pray\b", I), r"pray \g<at>"),
         (re.compile(r"\bkneel\s+(?:down\s+)?(?:and\s+pray\s+)?(?=at\b|before\b|in\s+front\s+of\b)", I), "pray "),
         (re.compile(r"\bkneel\s+(?:down\s+)?and\s+pray\b", I), "pray"),
         (re.compile(r"\blast\s+of\s+all\b", I), "finally"),
         (re.compile(r"\b(?:the|that)\s+(?:moment|instant|second|minute)\s+(?=(?:the|it|that)\b)", I), "as soon as "),  # "The moment the door is open, ..."
         (re.compile(r"\bset\s+(?P<x>the\s+(?:switch|lever))\s+to\s+on\b|\bknock\s+(?P<y>the\s+(?:switch|lever))\s+on\b", I),
          lambda m: f"turn on {m.group('x') or m.group('y')}"),  # "Set the switch to on."
         (re.compile(r"\bfire\s+up\b", I), "activate"), (re.compile(r"\bpay\s+(?P<x>[^,.;!?]+?)\s+a\s+visit\b", I), r"visit \g<x>"),
         (re.compile(r"\bwatch\s+(?=(?:to\s+(?:the\s+)?)?(?:up|down)\b)", I), "look "),  # "to watch up"
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:the\s+)?(?:standard|usual|normal|default|main)\s+(?:route|run|path)(?:\s+please)?\s+[-–]\s*", I | re.M), ""),  # "Standard route please - switch, lava, shrine."
         (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\d\.\s))start\s+(?:from|with|on)\s+(?:a\s+)?(?:fresh|new|clean)\s+(?:save|level|game|state|start)\s*[.!]?", I | re.M), ""),
         (re.compile(r"\blmk\b[^.!?\n]*", I), ""),
         (re.compile(r"(?<!\bto\s)\b(?:has\s+|have\s+)?(?:swung|swings|slid|slides|stands)\s+open\b", I), "is open"),  # "Once the door has swung open"
         (re.compile(r"\bfinish\s+(?P<o>it|him|her|them)\s+off\b", I), r"kill \g<o>"), (re.compile(r"\bfinish\s+off\b", I), "kill"),  # "Finish it off"
         (re.compile(r"\b(?P<x>[a-z]+)\s+(?:nr\.?|with\s+(?:the\s+)?number)\s*(?=\d)", I), r"\g<x> "),  # "coin nr 3", "the skeleton with number 2"
         (re.compile(r"\s+(?:in|with)\s+(?:one|a\s+single)\s+(?:jump|leap|hop|bound)\b", I), ""),  # "Clear the lava pit in one jump."
         (re.compile(r"\b(?:don'?t|do\s+not)\s+(?P<v>(?:(?:go|walk|step|head|run|move)\s+(?:through|thru|into|in|inside|to|over|across|past)|jump|enter|pass)\b[^.,;!?]*?)\s+(?:until|till)\s+", I),
          r"\g<v> once "),  # "Don't go through the door until it's open."
         (re.compile(r"(?:^|(?<=[.!?:]\s))(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?do\s+(?:the\s+)?(?!(?:it|that|this|them|so|one|same|both|all|a|an|some|your|my|full|usual)\b)"
                     r"(?=[a-z]+(?:\s+\d{1,2})?\s*(?:,|->|=>|→))", I | re.M), ""),  # "can u do lever -> lava -> shrine", "Do the lever, lava and shrine"
         (re.compile(r"(?:^|(?<=[.!?]\s))[^.!?\n]*\bso\s+here\s+goes\s*[.!:]*", I | re.M), ""),  # "Coffee's finally kicking in so here goes."
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:i\s+|we\s+)?(?:just\s+)?want\s+to\s+(?:see|check|know|make\s+sure)\b[^.!?\n]*[.!?]?", I | re.M), ""),  # "Want to see it from every side."
         (re.compile(r"(?:^|(?<=[.!?]\s))no\s+[a-z]+(?:\s*(?:,|and)\s*no\s+[a-z]+)+\s*[.!]", I | re.M), ""),  # "No fighting, no coins."
         (re.compile(r"\bgimme\s+a\s+(?=look\b)", I), ""), (re.compile(r"\bleg\s+it\s+(?=to\b)", I), "run "), (re.compile(r"\bgoto\b", I), "go to"),
         (re.compile(r"\bgobbo(?:e?s|ies)\b", I), "goblins"), (re.compile(r"\bgobbo\b", I), "goblin"),
         (re.compile(r"\s+for\s+a\s+(?:bit|while|sec(?:ond)?|moment)\b", I), ""),  # "look up at it for a bit"
         (re.compile(r"\s+(?:completely|fully|entirely)(?=\s*(?:[,.;!)]|\bthen\b|\band\b|$))", I | re.M), ""),  # "Go round pillar 3 completely."
         (re.compile(r"\b(?:make|do|take)\s+(?:a\s+|one\s+)?(?:full\s+|complete\s+|whole\s+)?tour\s+(?=around\b|round\b)", I), "go all the way "),
         (re.compile(r"(?:(?<=\)\s)|(?<=\bplease\s)|(?<=\byou\s)|^)(?:run|do|play)\s*:\s*(?=[a-z])", I | re.M), ""),  # "please (...) run: switch, then ..."
         (re.compile(r"\s+(?:real|really|super)\s+(?:quick(?:ly)?|fast)\b|\s+rq\b", I), ""),  # "kill goblin 1 real quick"
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:after\s+that|then|and\s+then)?\s*,?\s*(?:you\s+can\s+|just\s+)?call\s+it\s+a\s+day\s*[.!]?\s*|"
                     r"(?:,?\s*(?:and|then)\s+)(?:you\s+can\s+)?call\s+it\s+a\s+day\b", I | re.M), ""),  # "After that you can call it a day."
         (re.compile(r"(?<=,)(?P<s>\s*)than\b", I), r"\g<s>then"))
"""(pattern, the reader's words), in order."""
LOOK_FOR = re.compile(r"\blook\s+for\s+(?=(?:the|a|an)\s+(?P<x>[a-z]+)\b)", I)
"""Looking for one thing ("Look for the lever."): finding it; "look for barrels" is left to
:func:`evo.plans.second_language.plain` (every one)."""


DEED_AFTER = re.compile(r"(?:^|(?<=[,;:>]))(?P<s>[ \t]*(?:\d{1,2}[.)][ \t]*|[-*•][ \t]+)?(?:(?:and[ \t]+)?then[ \t]+)?)(?P<t>(?:the[ \t]+)?[a-z]+(?:[ \t]+#?[ \t]*\d{1,2})?)[ \t]*"
                        r"(?:\((?P<v>[a-z]+(?:[ \t]+(?:up|down|left|right|around|over))?)(?:[ \t]+(?:with[ \t]+)?it)?\)|:[ \t]*(?P<v2>[a-z]+(?:[ \t]+(?:up|down|left|right|around|over))?))"
                        r"(?=[ \t]*(?:[,;.]|$))", I | re.M)
"""A thing and its deed after it, in brackets or after a colon ("skeleton 1 (kill)", "shrine: use"):
the deed done to it."""


_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)"
SAID_OVER = re.compile(rf"\b(?P<t1>[a-z]+)\s*(?:#|number\s+|no\.\s*)?(?P<n1>{_NUMBER})\s*(?:,|\s?-{{1,2}}|\s?[–—]|\.{{2,}}|…)\s*"
                       r"(?:no\s*,?\s*wait|no\s*,?\s*sorry|sorry\s*,?\s*i\s+mean(?:t)?|i\s+mean(?:t)?|sorry|oops|wait|no)\s*,?\s*"
                       rf"(?:the\s+)?(?:(?P<t2>[a-z]+)\s*(?:#|number\s+|no\.\s*)?)?(?P<n2>{_NUMBER})\b(?:\s*[-–—](?=\s))?", I)
"""A thing's number said over at once (waves 54 and 55): "attack goblin 1, no wait, goblin 2", "look
up at lamp 3, sorry, lamp 1", "Pick up coin 1, sorry I mean coin 3" each did both; the second is meant."""


BARE_STATE = re.compile(r"\b(?P<c>if|once|when|until|till|as\s+soon\s+as)\s+(?:the\s+)?(?P<x>[a-z]+)\s+(?P<s>open|opened|on)\b(?!\s+(?:the|a|an)\b)", I)
"""A state said without its verb ("if door open go thru it", "once switch on"): the thing is so."""


def unslanged(text: str, names: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """``text`` with the module's words in the reader's; ``names``: the game's words for its things
    (a thing's deed after it, :data:`DEED_AFTER`; a thing's number said over, :data:`SAID_OVER`)."""
    text = SAID_OVER.sub(lambda m: f"{m.group('t2') or m.group('t1')} {m.group('n2')}"
                         if m.group("t1").lower() in names and (m.group("t2") or m.group("t1")).lower() in names else m.group(0), text)
    text = BARE_STATE.sub(lambda m: f"{m.group('c')} the {m.group('x')} is {m.group('s')}" if m.group("x").lower() in names else m.group(0), text)
    for pattern, said in SLANG:
        text = pattern.sub(said, text)
    text = DEED_AFTER.sub(lambda m: f"{m.group('s')}{m.group('v') or m.group('v2')} {m.group('t')}"
                          if m.group("t").split()[-1 if not m.group("t")[-1].isdigit() else -2].lower() in names else m.group(0), text)
    return LOOK_FOR.sub(lambda m: m.group(0) if m.group("x").lower().endswith("s") else "find ", text)
