"""A test sent as a message, and a runner's notes: the frame around the steps, taken out first.

Two testers who read only the user docs (``tests/evo/plans/dev/*_dev17.yaml``, ``*_dev18.yaml``:
a speedrunner's route notes and a producer's e-mails to QA) framed nearly every text in words of a
message, and the reader refused 98% of the e-mails on their first word:

- **the opening and the sign-off**: "Hi QA,", "Good morning team," on a line or before the steps;
  "Best,\\nOscar", "Thanks so much, Dana", "Appreciate it. - Chris", "P.S. If any skeletons bother
  you, hit them." (the postscript is a step);
- **a request for a step**: "could you please pull the switch?", "could someone roam the park",
  "I'd like you to play the usual route", "I need you to go and fight", "I'd appreciate it if
  someone could": the step is the verb after it;
- **a lead into the steps** that names no step: "Here's the sequence I'd like covered:", "A short
  list for the park today:", "Quick one from me before I head into a meeting: ...", "For the
  physics team, could you ...";
- **the sender's words about the test**: "let me know what happens", "That's all I need this
  morning.", "We're chasing a race between the two.";
- **a runner's headings and shorthand**: "Splits:", "any% route:", "strat:", "Mid:", "Route notes
  v2" over the steps, the game's own instance names ("coin_3", "gob1": the third coin, goblin 1),
  "gg", "lol".

Each family is one pattern over the closed words of letters (greetings, valedictions, modal
requests, first person), not over any set's wording. A lead that names a thing of the game is
left to be read, and refused if it is no step (:mod:`evo.plans.doubts`).
"""

from __future__ import annotations

import re
from typing import Iterable

from evo.plans.spoken import SPOKEN, SPOKEN_TITLE
from evo.plans.visits import _named, _route, _visits

OPENING = re.compile(r"^\s*(?:hi|hello|hey|hiya|dear|greetings|good\s+(?:morning|afternoon|evening|day)|morning|afternoon|"
                     r"evening)\b(?:\s+(?!(?:please|could|can|would|just|quick)\b)[\w&'-]+){0,3}?\s*(?:[,!:.]+|\s*-+|(?=\n)|$)\s*",
                     re.IGNORECASE)
"""The opening of a message, at the text's start ("Hi QA,", "Good afternoon QA team,", "Morning all,")."""
VALEDICTION = re.compile(r"^\s*(?:(?:many|warm|kind|best|with)\s+)?(?:thanks|thank\s+you|thx|ta|cheers|best|regards|wishes|"
                         r"all\s+the\s+best|appreciated|much\s+appreciated|appreciate\s+it|sincerely|yours|cordially)\b"
                         r"[^.!?\n]{0,40}[,.!]?\s*$", re.IGNORECASE)
"""A line that closes a message ("Best,", "Thanks for your patience,", "Appreciated as always,")."""
NAME = re.compile(r"^\s*(?:-{1,2}|—)?\s*[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?\s*\.?\s*$")
"""A sender's name alone on the last line ("Oscar", "-- Jo")."""
SIGNED = re.compile(r"(?:(?<=[.!?])|(?<=[.!?]\s))\s*(?:(?:many|warm|kind|best|with)\s+)?(?:thanks|thank\s+you|thx|ta|cheers|best|"
                    r"regards|appreciate\s+it|much\s+appreciated)\b[^.!?\n]{0,30}[.!,]?\s*(?:-{1,2}\s*)?[A-Z][\w'-]*\.?\s*$|"
                    r"\s+(?:-{1,2}|—)\s*(?-i:[A-Z])[\w'-]*\.?\s*$", re.IGNORECASE)  # a name's capital: not "Step 4 - shrine"
"""A sign-off on the line of the steps ("... Thanks, Dana", "Thanks! Jules", "Appreciate it. - Chris")."""
REQUEST = re.compile(r"\b(?:(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?|please\s+)?set\s+up\s+an?\s+(?:[\w-]+\s+)?(?:run|pass|test|session|playthrough)\s+"
                     r"(?:where|in\s+which|that)(?:\s+(?:you|the\s+(?:player|agent|bot)|it))?|what\s+(?:i|we)(?:'d|\s+would)\s+(?:like|love|want)\s+is\s+(?:for\s+(?:the\s+(?:agent|player|bot)|you|it)\s+)?to|"
                     r"(?:could|can|would|will)\s+(?:you|someone|somebody|anyone|one\s+of\s+you|the\s+(?:agent|bot|player))(?:\s+all)?|"
                     r"(?:i|we)(?:'d|\s+would)\s+(?:like|love|appreciate\s+it\s+if)\s+(?:for\s+)?(?:you|someone|somebody|"
                     r"one\s+of\s+you|a\s+tester|the\s+agent|us)(?:\s+(?:to|could|would))?|"
                     r"(?:i|we)\s+(?:just\s+|really\s+|only\s+)?(?:need|want)\s+(?:you|someone|somebody|the\s+(?:agent|bot|player|ai))\s+to|"
                     r"(?:all\s+|the\s+(?:only\s+)?thing\s+|what\s+)?i\s+need\s+is\s+for\s+(?:you|someone|somebody)\s+to|"
                     r"if\s+(?:you|someone)\s+could|please\s+could\s+you|"
                     r"(?:i|we)(?:'d|\s+would)?\s+(?:expect|want|need|like|love)\s+(?:the\s+player|players|them|the\s+agent|the\s+tester|"
                     r"a\s+player(?:\s+who\s+[^,]+?)?)\s+to|(?:^|(?<=[.!?;:]\s))expect\s+(?:the\s+player|players|them)\s+to|"
                     r"(?:i|we)(?:'d|\s+would)\s+like\s+an?\s+(?:[\w-]+\s+)?(?:run|pass|playthrough|test|session)\s+(?:where|in\s+which)\s+(?:you|the\s+(?:player|agent|bot)))"
                     r"(?:\s+(?:please|kindly|just|simply|also|then|first))*\s+(?:(?:go|come)\s+and\s+)?(?=[a-z])", re.IGNORECASE)
"""A request for a step ("could you please", "I'd like you to", "I need you to go and"): the step
is the verb after it."""
ASKED = re.compile(r"\?(?=\s|$)")
LEAD = re.compile(r"(?:^|(?<=\n)|(?<=[.!?]\s))(?!\s*(?:the\s+)?(?:very\s+)?first\s+thing\s*:)[^\n:.!?]{0,120}?\b(?:i|i'm|i'd|i'll|me|my|we|we're|we'd|our|us|here's|here\s+is|today|"
                  r"today's|list|checklist|sequence|request|things?|was|were|took|pb)\b[^\n:.!?]{0,80}:\s*", re.IGNORECASE)
"""A lead into the steps, before its colon, in the sender's words ("Here's the order for the park
pass:", "For today I only need one thing:")."""
PURPOSE = re.compile(r"^\s*for\s+(?:the|a|an|this|today's|tonight's|our|your)\s+(?!(?:next|first|second|third|last)\b)(?![^,.;:\d]*\b(?:like|want|need)\s+(?:you|someone)\b)"
                     r"[^,.;:\d]{1,40}?(?:,\s*|\s+(?=please\b|could\b|can\b|would\b))", re.IGNORECASE | re.MULTILINE)
"""Whom or what the test is for ("For the physics team, could you", "For a quick exploratory
pass, please"): no step (a budget in it, "for a 20-second free-roam", is read before)."""
ABOUT = re.compile(r"[,;]?\s*(?:and\s+)?let\s+(?:me|us)\s+know\b[^,.;\n]*", re.IGNORECASE)
"""Asking to be told ("and let me know what happens")."""
CONTEXT = re.compile(r"^\s*(?:that(?:'s|\s+is)\s+(?:it|all|everything|the\s+whole\s+(?:test|thing|request)|all\s+(?:i|we)\s+need)|"
                     r"(?:i|we)(?:'d|\s+would)\s+(?:like|love)\s+to\s+(?!have\s+(?:you|someone))|(?:i|we)\s+(?:am\s+|are\s+)?expect(?:ing)?\s+that\b|"
                     r"(?:i|we)\s+(?:want|need|changed|moved|added|"
                     r"had|saw|got|received|made|only\s+want|just\s+want)\b(?!\s+(?:you|someone|somebody)\b)|"
                     r"(?:just\s+)?(?:checking|testing|verifying)\b|(?:i|we)\s+(?:am|are)\s+(?:just\s+)?(?:checking|testing|timing|measuring|verifying|"
                     r"looking\s+at|watching)\b|(?:i|we)\s+only\s+need\b|no\s+(?:fixed\s+|set\s+|particular\s+)?(?:route|path|order)\b|"
                     r"there(?:'s|\s+is)\s+no\b|feel\s+free\b|(?:just\s+)?(?:a\s+)?heads[\s-]up\b|fyi\b|"
                     r"(?:please\s+)?(?:just\s+)?(?:flag|report|log|file|drop\s+a|send|post|screenshot)\b|"
                     r"if\s+(?:anything|something|you\s+(?:spot|see|notice|find)\s+(?:anything|something))\b|"
                     r"(?:please\s+)?take\s+your\s+time\b|(?:i\s+)?(?:really\s+)?(?:thanks|thank\s+you|appreciate)\b|"
                     r"(?:these|those)\s+(?!(?:are|is)\s+the\s+steps)|nothing\s+else\b|"
                     r"[a-z]+s\s+(?:don't|do\s+not|doesn't|does\s+not|aren't|are\s+not|won't|can't)\s+(?!(?:forget|need)\b)|"
                     r"(?:i|we)(?:'re|\s+are|'ve|\s+have|'ll|\s+will|\s+know|\s+hope|\s+suspect|\s+think)\b|"
                     r"(?:just\s+)?so\s+you\s+know|as\s+you\s+(?:might|may)\s+know|there\s+(?:has|have)\s+been|"
                     r"this\s+is\s+(?:just|only|a|an|what)|since\s|as\s+(?:we|i)(?:'re|\s+are)\s|"
                     r"(?:the\s+|its\s+|their\s+)?(?:[\w-]+\s+){0,3}(?:got|was|were|has\s+been|have\s+been|just\s+got)\s+(?:just\s+)?(?:re[a-z]+ed|"
                     r"redone|changed|moved|updated|replaced|fixed|patched|tweaked|added|removed|rebuilt|swapped|adjusted|touched)\b)",
                     re.IGNORECASE)
"""The sender's words about the test ("That's all I need this morning.", "We're checking the
sprite rotation.", "Since the ogre tuning is on the agenda, ..."): dropped up to a request in the
same sentence ("..., so could someone please find the first skeleton"), else whole."""
HEADING = re.compile(r"(?:^|(?<=\n)|(?<=[.!?]\s))(?!\s*pass\s*:)\s*(?:[\w%'-]+\s+){0,4}?(?:route|splits?|strats?|strategy|opening|mid|end(?:ing)?|"
                     r"rules?|orders?|run|tour|check|list|category|timer|cap|path|line|flow|pacing|pass|sequence)(?:\s+(?:v?\d+|for\s+\w+|through\s+the\s+\w+|itself))?(?:\s+(?:is|are))?(?:\s+(?:just|simply))?"
                     r"(?:\s+please)?(?:\s*\([^)]*\))?\s*[:=]\s*",
                     re.IGNORECASE)
"""A runner's heading before the steps ("Splits:", "any% route:", "Mid:", "loot rule:")."""
TEST_TITLE = re.compile(r"^\s*(?!(?:test|check|repro|regression)\s*:)(?:[\w'-]+[ \t,]+){0,5}?(?<!\byou\s)(?<!\bthey\s)(?<!\bwe\s)(?<!\bi\s)(?:check|test|sweep|pass|playthrough|repro|regression|fix|attempt|path|review|inspection|audit|"
                        r"instructions|orders)(?:\s+(?:on|of|for)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+){0,4})?(?:,\s*\d+\s+steps)?\s*(?:[.:]\s*|$)",
                        re.IGNORECASE)
"""A test's title as its first sentence ("Ogre damage check.", "Soak test.", "Full playthrough,
happy path.", "Repro for the jump issue reported last week.", "Standing instructions"); a label
("Test: ogre balance.") is :data:`evo.plans.conventions.TITLE`'s, which keeps the steps after one."""
TITLE_LINE = re.compile(r"^\s*(?:part|section|phase|stage|room|chapter|area|stop|leg)\s*[\w.]{0,4}\s*[:.-]\s*(?:[\w'-]+\s*){1,4}$",
                        re.IGNORECASE)
"""A line that titles the part of a test after it ("Part 2: The Door")."""
ROUTE_LABEL = re.compile(r"\b(?:route|path|itinerary|tour|line|stops)(?:\s+is)?\s*[:=]", re.IGNORECASE)
HEADING_NOUNS = re.compile(r"\b(?:route|notes?|plan|splits?|strats?|run|tour|checklist|walk-?through)\b", re.IGNORECASE)
INSTANCE = re.compile(r"\b(?P<thing>[a-z]{2,})_?(?P<n>\d{1,2})\b(?!\s*(?:steps?|s|sec|seconds?|min|minutes?|%))", re.IGNORECASE)
"""The game's own instance names ("coin_3", "gob1"): the thing and its number ("coin 3")."""
TALK = ((re.compile(r"\b(they|we|you)'ll\b", re.IGNORECASE), r"\1 will"),
        (re.compile(r"\bwith\s+the\s+(?P<t>[a-z]+)\s+(?P<s>on|open|off|closed)\b,?", re.IGNORECASE), r"once the \g<t> is \g<s>,"),
        (re.compile(r"\b(?:finish|end|start|begin)(?:es)?\s+(?:off\s+|up\s+)?by\s+(?P<v>[a-z]+)ing\b(?P<mid>[^.;!?,]*?\band\s+(?:then\s+)?)(?P<v2>[a-z]{2,})ing\b",
                    re.IGNORECASE), lambda m: f"{_first(m)}{_base(m.group('v'))}{m.group('mid')}{_base(m.group('v2'))}"),  # "start by walking ... and turning it on"
        (re.compile(r"\b(?:finish|end|start|begin)(?:es)?\s+(?:off\s+|up\s+)?by\s+(?P<v>[a-z]+)ing\b", re.IGNORECASE), lambda m: _first(m) + _base(m.group("v"))),
        (re.compile(r"\b(after\s+that|then)\s+to\s+(?!(?:the|a|an|it|them|there|where)\b)", re.IGNORECASE), r"\1 "),
        (re.compile(r"\bonce\s+(?:(?:you|they)(?:'re|\s+are)\s+)?there\b,?\s*(?=(?:they|you)\b)", re.IGNORECASE), ""),
        (re.compile(r"\b(?:go|come)\s+(?:over|up|back)\s+and\s+(?=[a-z])", re.IGNORECASE), ""),
        (re.compile(r"\b(they|you|he|she|the\s+player)\s+will\s+then\b", re.IGNORECASE), r"then \1 will"),
        (re.compile(r"\bonly\s+then\b", re.IGNORECASE), "then"),
        (re.compile(r"\b(?:swings|slides|creaks|pops|springs)\s+open\b", re.IGNORECASE), "opens"),
        (re.compile(r"\b(?P<c>whenever|when|once|if|any\s+time|every\s+time|each\s+time|as\s+soon\s+as)\s+(?:they|the\s+player|players)\b",
                    re.IGNORECASE), r"\g<c> you"),
        (re.compile(r"(?<=[.!?])[ \t]*(?:->|=>|→)[^\n]*"), ""),  # "1. Flip the switch. -> door_1 opens": what to expect
        (re.compile(r"\s*(?:->|=>|→|>>|(?<=\w)\s>\s(?=\w))\s*"), ", then "),
        (re.compile(r"[,;]\s*that(?:'s|\s+is)\s+(?:it|all|everything)\b[^.!?\n]*", re.IGNORECASE), ""),
        (re.compile(r"(?:^|(?<=[.!?]\s))(?:while|as)\s+you(?:'re|\s+are)\s+(?:doing|at)\s+(?:that|this|it)\s*,\s*", re.IGNORECASE), ""),
        (re.compile(r"(?:^|(?<=[.!?]\s))with\s+that\s+(?:in\s+mind|done|said|out\s+of\s+the\s+way)\s*,\s*", re.IGNORECASE), ""),
        (re.compile(r"[,;]\s*(?:as|since)\s+(?:the\s+[\w-]+(?:\s+[\w-]+)?|it|they|this|that|those|these|we|i)\s+(?:is|are|was|were|has|"
                    r"have|had|seems?|looks?|feels?|got|gets|'re|'ve|suspect|think|want|need)\b[^,.;!?\n]*", re.IGNORECASE), ""),
        (re.compile(r",\s*which\s+(?:is\s+why|means\s+(?!i\s+need)|should|will|would)\b[^,.;!?\n]*", re.IGNORECASE), ""),
        (re.compile(r"^\s*should\s+(?=(?:any|an?|the|some)\b[^,]+,)", re.IGNORECASE | re.MULTILINE), "If "),
        (re.compile(r"\bat\s+any\s+(?:point|time|stage)\b", re.IGNORECASE), ""),
        (re.compile(r"\s+until\s+(?:it|they|he|she)(?:'s|\s+is|\s+are)?\s+(?:goes|go|falls?|drops?|dies|die|dead|down|defeated|gone)"
                    r"(?:\s+(?:down|over))?\b", re.IGNORECASE), ""),
        (re.compile(r"\b(lap|circuit|loop)\s+of\b", re.IGNORECASE), r"\1 around"),
        (re.compile(r"(?:^|(?<=[\s,;]))lap\s+(?=(?:it|them|the|a|each|every|any)\b|[a-z]+\s+\d)", re.IGNORECASE), "do a lap around "),
        (re.compile(r",\s*just\s+(?:visit|touch|go)(?:\s+(?:them|it|there|each|all))?\s*(?=[.!]?$)", re.IGNORECASE), ""),
        (re.compile(r"^\s*(?:from\s+)?(?:spawn|start)\s*,\s*then\s+", re.IGNORECASE), ""),
        (re.compile(r"\b(?:hold|pause|stand\s+by)\s+(?=until\b)", re.IGNORECASE), "wait "),
        (re.compile(r"\bwait\s+for\s+the\s+(?P<t>[\w-]+)\s+to\s+be\s+(?=open|opened|on\b)", re.IGNORECASE), r"wait until the \g<t> is "),
        (re.compile(r"\b(?P<t>[a-z]+)_(?P<s>on|off|open|closed)\b(?:\s+(?:reads|is|==?|becomes|goes\s+to)\s+(?:1|true|set)\b|"
                    r"\s+is\s+set\b)?", re.IGNORECASE), r"the \g<t> is \g<s>"),
        (re.compile(r"\s+from\s+where\s+(?:you|they)\s+(?:are|stand|finish|end\s+up|ended\s+up|stop|spawn)\b", re.IGNORECASE), ""),
        (re.compile(r"\bspend\s+(?:it|them|the\s+time|your\s+time|the\s+session)\s+|\bdoing\s+nothing\s+but\s+", re.IGNORECASE), ""),
        (re.compile(r"(?:^|(?<=[.!?]\s))(?:in\s+which|where)\s+you\s+", re.IGNORECASE), ""),
        (re.compile(r"\b(?:play|do|run)\s+the\s+(?:usual|standard|normal|main|critical|regular)\s+(?:route|path|run|run-through|playthrough)"
                    r"\s*(?:,\s*(?:meaning|i\.e\.|that\s+is|namely)|:)\s*", re.IGNORECASE), ""),
        (re.compile(r",?\s*before\s+(?:touching|doing|trying|using)\s+anything(?:\s+else)?", re.IGNORECASE), ""),
        (re.compile(r"(?:(?<=\w)'s|\s+is|\s+has\s+been)?\s+(?:shows?|shown|registers?|registered|reads?|displays?|displayed|comes?\s+up|"
                    r"counts?|counted)\s+as\s+(?=(?:on|off|open|closed)\b)", re.IGNORECASE), " is "),
        (re.compile(r"\s+(?:in|on|at)\s+the\s+(?:first|second|third|next|last|final|other|far|near)\s+(?:room|area|corridor|hall|section|"
                    r"part|side|end)\b(?:\s+of\s+(?:it|the\s+[\w-]+))?", re.IGNORECASE), ""),
        (re.compile(r"\b(?:only|actually|really|fully)\s+(?=once\b|when\b|is\b)", re.IGNORECASE), ""),
        (re.compile(r"\b(?:reads|shows|says)\s+(?=(?:on|off|open|closed)\b)", re.IGNORECASE), "is "),
        (re.compile(r"\bon\s+arrival\s*,?\s*", re.IGNORECASE), ""),
        (re.compile(r"\bwhile\s+(?:you|they)(?:'re|\s+are)\s+there\b,?", re.IGNORECASE), "then"),
        (re.compile(r"\s+so\s+(?:that\s+)?(?:we|i)\s+(?:can\s+)?(?!please\b)[a-z]+\b[^,.;!?\n]*", re.IGNORECASE), ""),
        (re.compile(r"(?<![\w-])(?<!\bthe\s)(?=\d+(?:st|nd|rd|th)\s+[a-z])", re.IGNORECASE), "the "),
        (re.compile(r"\s+\+\s+"), " and "),
        (re.compile(r",\s*which\s+(?:you|they|the\s+player)\s+(?:should|must|will|need\s+to|have\s+to|can)\s+(?P<verb>[a-z]+)\b(?!\s+(?:it|them))",
                    re.IGNORECASE), r", then \g<verb> it"),
        (re.compile(r"\b(?:go|come|try)\s+and\s+(?=(?!(?:then|the|a|an)\b)[a-z]+\b)", re.IGNORECASE), ""))
"""Talk around the steps: "..., that's all for today", "While you're doing that,", "With that in
mind,", a reason after "as" or "since" (", as the door is scripted open"), "before touching
anything else"; "once it shows as on" (is on), "only once"; "kill 1st skeleton" (the 1st); "+"."""
EACH = re.compile(r"^(?P<label>[^,.;:]{1,40}:\s*)?(?:first\s+)?(?P<items>[^,.;:]{1,30}(?:(?:,\s*|\s+)(?:then|and|and\s+then)\s+[^,.;:]{1,30}|,\s*[^,.;:]{1,30})+)(?:[,;]\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?)\s*"
                  r"(?P<verb>(?:[a-z]+\s+){0,2}?[a-z]+)(?:\s+(?:at|around|on|to|over))?\s+(?:both|each(?:\s+(?:one|of\s+them))?|"
                  r"all(?:\s+(?:two|three|four|five|of\s+them))?|them\s+(?:all|both)|both\s+of\s+them|every\s+one)(?P<more>,\s*(?:and\s+)?then\s+[^.;!?]+)?\s*(?P<end>[.!]?)$", re.IGNORECASE)
"""A deed said once after the things it is done to ("lamp 1 then lamp 2, look up at each",
"gob1 -> gob2 -> ogre, kill all three", "go to lamp 1, lamp 2 and lamp 3 and look up at each
one", "stump 1, then stump 2, circling each"): the deed at each thing, in order."""
VISIT = re.compile(r"^(?:(?:please|just|now|so)\s+)*(?:(?:go|walk|head|run|move|make\s+your\s+way)\s+(?:over\s+|up\s+)?to|visit)\s+(?=\S)", re.IGNORECASE)
"""The going said before the things of :data:`EACH` ("go to lamp 1, ..."): the deed goes there."""
PASSING = re.compile(r"^(?P<go>(?:run|walk|go|jog|wander|head|stroll|move)\s+(?:past|by)\s+)(?:the\s+|all\s+(?:the\s+)?)(?P<things>[a-z]+s)"
                     r"(?:,\s*|\s+)and\s+(?P<verb>(?:[a-z]+\s+){0,2}?[a-z]+)(?:\s+(?P<at>at|around|on|over))?\s+(?:each|every)(?:\s+one|\s+of\s+them)?"
                     r"(?P<rest>[^.!?]*)(?P<end>[.!?]?)$", re.IGNORECASE)
"""A deed at each of the things passed ("Run past the lamps and look up at each one"): a standing
order at every one of them."""
TWICE = re.compile(r"^(?P<deed>.*?[a-z].*?)\s+(?P<n>twice|thrice|(?:two|three|four|five|[2-5])\s+times|x\s?[2-5]|[2-5]\s?x)\b"
                   r"(?!\s+(?:over|more|as|per|each|every)\b)(?P<rest>[^,;]*)$", re.IGNORECASE)
"""A deed done twice or a few times ("turn left twice", "attack the ogre x2", "hit it three
times"): the deed, then the deed, as often as said."""
COUNTS = {"twice": 2, "thrice": 3, "two": 2, "three": 3, "four": 4, "five": 5}
CHAT = re.compile(r"(?:^|\s+|(?<=[,.;]))(?:gg|lol|lmao|obv|btw|fyi|imo|tbh|ez|ofc|thx|ty|cheers|pls|plz|ta(?=\s*[.!]?\s*$))\b", re.IGNORECASE)


def unlettered(text: str, things: Iterable[str] = ()) -> str:
    """``text`` without the frame of a message or a runner's notes (the module's families);
    ``things``: the game's names for its things and their synonyms: words about the test that
    name one, or "it", are kept to be read (or refused), never dropped unseen."""
    names = {t.lower() for t in things}
    text = OPENING.sub("", text.strip(), count=1)
    ps = re.search(r"\n\s*p\.?\s*s\.?\s*[:,-]?\s+(?P<after>.*)$", text, re.IGNORECASE | re.DOTALL)
    text = _signed_off(text[:ps.start()] if ps else text) + (f"\n{ps.group('after')}" if ps else "")
    lines = text.splitlines()
    if len(lines) > 2 and not lines[1].strip() and HEADING_NOUNS.search(lines[0]) and len(lines[0].split()) <= 6 \
            and not re.search(r"[.!?;,:]\s*\S", lines[0].split("(")[0]):
        lines = lines[2:]  # "Route notes v2" over the steps
    out = []
    for line in lines:
        for pattern, plain in SPOKEN:
            line = pattern.sub(plain, line)
        if TITLE_LINE.match(line) or SPOKEN_TITLE.match(line):
            continue  # "Part 2: The Door" over its steps
        if not out or not any(o.strip() for o in out):
            line = TEST_TITLE.sub("", line, count=1) if not _starts_with_verb(line) else line
        if ROUTE_LABEL.search(line) and names:  # "Your route: the coin first, then the lever": places to visit
            line = " ".join((HEADING.sub("", s) if _route(HEADING.sub("", s), names) else _visits(HEADING.sub("", s), names, [False]))
                            if ROUTE_LABEL.search(s) else s  # a list of things alone: each its own deed (evo.plans.visits.visited)
                            for s in re.split(r"(?<=[.!?])\s+", line))
        line = PURPOSE.sub("", HEADING.sub("", LEAD.sub("", line)))
        sentences = [_asked(s, names) for s in re.split(r"(?<=[.!?;])\s+", ABOUT.sub("", line))]
        line = " ".join(s for s in sentences if s)
        for pattern, plain in TALK:
            line = pattern.sub(plain, line)
        line = " ".join(_each(s) for s in re.split(r"(?<=[.!?])\s+", line))
        out.append(INSTANCE.sub(lambda m: f"{m.group('thing')} {m.group('n')}", CHAT.sub("", line)))
    return "\n".join(out)


def _starts_with_verb(line: str) -> bool:
    """A line that begins with a verb in its base form ("Check stump 3 from all sides"): a step."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    words = re.findall(r"[a-z]+", line.lower())
    wordnet()
    return bool(words) and is_verb(words[0]) and _lemma(words[0], "v") == words[0] and words[0] not in ("test", "check") \
        or bool(words) and words[0] == "check" and len(words) > 1 and words[1] in ("the", "that", "whether", "if", "each", "every", "all")


def _first(m: re.Match[str]) -> str:
    """"First, " for "start by ...", so that a step said to start the test after others is done first
    (:mod:`evo.plans.ordering`); nothing for "finish by ..."."""
    if not m.group(0).lower().startswith(("start", "begin")):
        return ""
    return "first, " if re.search(r"\w\s*$", m.string[:m.start()]) else "First, "


def _base(word: str) -> str:
    """A gerund's stem's verb ("us" of "using": use), by WordNet."""
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    return _lemma(word + "ing", "v")


def _each(sentence: str) -> str:
    """A deed said once after its things (:data:`EACH`), and a deed done twice (:data:`TWICE`),
    written out as steps."""
    passing = PASSING.match(sentence.strip())
    if passing is not None:
        from evo.plans.lexicon import _lemma, wordnet

        wordnet()
        at = f" {passing.group('at')}" if passing.group("at") else ""
        sentence = f"{passing.group('verb')}{at} every {_lemma(passing.group('things').lower(), 'n')} you pass" \
                   f"{passing.group('rest')}{passing.group('end') or '.'}"
    m = EACH.match(sentence.strip())
    if m is not None:
        items = [i for i in re.split(r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+then|then|and)\s+)", m.group("items")) if i.strip()]
        items[0] = VISIT.sub("", items[0])
        items[-1] = re.sub(r"\s+in\s+turn$", "", items[-1], flags=re.IGNORECASE)
        verb = m.group("verb")
        if verb.split()[0].lower().endswith("ing") and len(verb.split()[0]) > 5:  # "..., circling each"
            verb = " ".join([_base(verb.split()[0][:-3]), *verb.split()[1:]])
        at = re.search(r"\s+(at|around|on|to|over)\s+(?:both|each|all|them|every)", m.group(0), re.IGNORECASE)
        sentence = (m.group("label") or "") + ", then ".join(f"{verb}{' ' + at.group(1) if at else ''} {i.strip()}" for i in items) + (m.group("more") or "") + (m.group("end") or ".")
    parts = re.split(r"(,\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+then|then|and)\s+)", sentence)
    for k in range(0, len(parts), 2):
        twice = TWICE.match(parts[k])
        if twice is not None:
            deed = twice.group("deed").strip()
            rest = twice.group("rest")
            stop = rest[len(rest.rstrip(".!?")):]
            said = re.search(r"twice|thrice|two|three|four|five|\d", twice.group("n").lower()).group(0)
            n = COUNTS.get(said) or int(said)
            parts[k] = f"{deed}{rest.rstrip('.!?')}" + f", then {deed}" * (n - 1) + stop
    return "".join(parts)


def _asked(sentence: str, names: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """A sentence as a step: a request's words out ("could you please"), the sender's words about
    the test out (:data:`CONTEXT`), up to the request when one follows them ("..., so please")."""
    asked = REQUEST.search(sentence)
    please = re.search(r"\bplease\b", sentence, re.IGNORECASE)
    cut = asked if asked is not None else please
    if CONTEXT.match(sentence):
        if cut is None or cut.start() == 0 or (cut is please and not re.search(r"\bso\s+please\b", sentence, re.IGNORECASE)):
            return "" if not _names(sentence, names) else sentence
        if not _names(sentence[:cut.start()], names):
            sentence = sentence[cut.start():]
    elif cut is not None and cut.start() > 0 and re.fullmatch(r"\s*(?:(?:for\s+)?this\s+(?:one|test|run|case|pass|build|time)|today|for\s+now|"
                                                             r"ok(?:ay)?|so|alright|now)(?:\s*,\s*|\s+)", sentence[:cut.start()], re.IGNORECASE):
        sentence = sentence[cut.start():]  # "For this one I'd like you to ..."
    elif cut is not None and cut.start() > 0 and _told(sentence[:cut.start()]) and not _names(sentence[:cut.start()], names) \
            and (cut is asked or re.search(r"\bso\s+(?:[^,]{0,40},\s*)?$", sentence[:cut.start()], re.IGNORECASE)):
        sentence = sentence[cut.start():]
    sentence = re.sub(r"^\s*(?:is\s+)?(?:the\s+)?(?P<t>[a-z]+)\s+(?P<s>open|on|off|closed)\s*\?\s*",
                      lambda m: f"once the {m.group('t')} is {m.group('s')}, ", sentence, flags=re.IGNORECASE)  # "door open? go thru"
    if asked is not None and re.search(r"some|any|one\s+of", asked.group(0), re.IGNORECASE):
        sentence = re.sub(r"\bthey\b(?!'re|\s+are\b|\s+show\b|\s+come\b|\s+get\b|\s+appear)", "you",
                          re.sub(r"\btheir\b", "your", sentence))  # "any barrel they spot"; not "whenever they're in range"
    return ASKED.sub(".", REQUEST.sub("", sentence)).strip()


def _names(words: str, names: set[str]) -> bool:
    """Words told of the one who plays that name a thing of the game or point at one ("They'll
    flip it, and then we expect them to ..."): a step in a designer's words, not to be dropped."""
    found = re.findall(r"[a-z]+", words.lower())
    if re.search(r"\b(?:to\s+know|to\s+find\s+out|to\s+check)\s+(?:whether|if)\b", words, re.IGNORECASE):
        return False  # "would like to know whether the first pickup a player sees is counted": what they ask, no step
    return bool({"they", "player", "players", "he", "she"} & set(found)) \
        and any(_named(w, names) or w in ("it", "them") for w in found)


def _told(before: str) -> bool:
    """The words before a request tell rather than ask: they hold a subject of their own (a
    pronoun or "the ... team") or a reason ("so", "since", "as"), not a step's verb first."""
    return re.search(r"\b(?:i|we|they|he|she|there|the\s+\w+(?:\s+\w+)?\s+(?:has|have|had|is|are|was|were|"
                     r"moved|added|changed|replaced|redone|reported|wants?|asked)|so|since|as|because)\b", before,
                     re.IGNORECASE) is not None


def _signed_off(text: str) -> str:
    """The text without its sign-off: a name on the last line under a valediction ("Best,\\nOscar"),
    the valediction alone, or both on the line of the steps ("... Thanks, Dana")."""
    lines = text.rstrip().splitlines()
    if len(lines) >= 2 and NAME.match(lines[-1]):
        before = [k for k, ln in enumerate(lines[:-1]) if ln.strip()]
        if before and (VALEDICTION.match(lines[before[-1]]) or lines[before[-1]].rstrip().endswith(",")):
            lines = lines[:before[-1]]
        elif lines[-1].lstrip().startswith(("-", "—")):
            lines = lines[:-1]
    while lines and (not lines[-1].strip() or VALEDICTION.match(lines[-1])):
        lines = lines[:-1]
    if lines:
        lines[-1] = SIGNED.sub("", lines[-1])
    return "\n".join(lines)
