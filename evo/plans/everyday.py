"""Everyday forms around the steps, in the words the reader reads (issue 55, waves 14-18).

Testers who are not writing a checklist wrap their steps in the talk of their trade, and the
reader took that talk for steps or refused it (``tests/evo/plans/dev/*_dev31.yaml`` to
``*_dev40.yaml``, each measured before it was read):

- a designer's prose: a remark in a relative clause (", which is the natural end of the level"),
  a reason after "since", "rather than ...", "keep an eye on ...", "the other monsters can be
  ignored", a statement before a colon ("The coins are a pacing device, so ignore them: ..."),
  deeds said as done ("Having flipped the switch, having gone through the door, ..."), "There is a
  goblin lurking near the entrance; walk up to it", "do nothing but", "leave it alone when you get
  there", "continue on to", "once you are beside it turn left";
- a lead tester's chat: "just want to see if ...", "and stop", "no route, just ...", "No jump.",
  "bump into", "deal with", "pop over to", "for the rest of the run", "let the agent loose";
- words of the park and the dungeon said another way: "look at it from all sides" (circle), "tilt
  the camera up, then back down", "its head", "object of interest", "any enemy in range", "something
  hostile", "clear the lava", "coin pickup" (the act), "pickups" (the things);
- the way there: "On your way to the shrine, grab the first coin", "Go to the shrine, but grab the
  first coin on the way there" (the coin, then the shrine).
- wave 18's (``*_dev39.yaml``, ``*_dev40.yaml``, written to the second blind set's brief): one
  deed at two kinds ("Attack goblins and skeletons on sight"), a deed at each thing listed ("Look up
  at each lamp in turn: lamp 1, lamp 2, lamp 3"), "the third one" for the kind named before it, a
  standing order said with "it" ("Visit every lamp you pass and circle it"), "the button that
  opens the gate", "the top of it".

Each is one pattern over closed-class words or the game's own names; a verb's form is WordNet's
(:mod:`evo.plans.lexicon`). :func:`evo.plans.second_language.plain` applies them in order.
"""

from __future__ import annotations

import re

from evo.plans.shorthand import SHORTHAND

I = re.IGNORECASE
DONE_TO = {"pulled": "pull", "flipped": "flip", "pressed": "press", "activated": "activate", "opened": "open", "used": "use",
           "thrown": "throw"}
"""A deed by its participle ("you need the lever pulled"); "dead" and "killed" are a kill."""
def _at_each(m: re.Match[str]) -> str:
    things = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group("list"))
    at = " at" if re.match(r"(?:look|turn)\b", m.group("d"), I) else ""
    return ", then ".join(f"{m.group('d')}{at} {t}" for t in things if t) + (m.group("end") or "")


EVERYDAY = (
    (re.compile(r"\b(?P<w>whenever|any\s+time|every\s+time)\s+(?:a|an|the|any)\s+[a-z]+\s+(?:is|are|comes?|gets?)\s+(?:in\s+view|in\s+sight|visible)"
                r"(?=\s+(?:look|turn|jump|circle|go|walk|run|attack|kill|grab|collect)\b)", I), r"\g<0>,"),  # "Whenever a lamp is in view look up at it"
    (re.compile(r"(?:^|(?<=[.!?]\s))at\s+(?P<list>[a-z]+\s+\d{1,2}(?:\s*,\s*[a-z]+\s+\d{1,2})*\s*,?\s+and\s+[a-z]+\s+\d{1,2})\s*,\s*"
                r"(?P<d>(?:look|turn)\s+(?:up|down|left|right)|jump)(?:\s*\(?\s*in\s+(?:that|this)\s+order\s*\)?)?(?P<end>[.!]?)", I | re.M), _at_each),  # "At lamp 1, lamp 2 and lamp 3, look up"
    (re.compile(r"\bshould\s+(?P<x>the\s+[a-z]+)\s+be\s+(?P<s>open|on|off|closed|shut)\b", I), r"if \g<x> is \g<s>"),  # "should the door be open, walk through"
    (re.compile(r"\bsee\s+(?P<x>(?:the\s+)?[a-z]+(?:\s*|_)(?:#\s*)?\d{1,2})\s*\?\s*(?P<v>[a-z]+(?:\s+up)?)\s+(?:it|him|her|them)\b(?:\s+(?P<p>down|out|off))?", I), lambda m: f"{m.group('v')} {m.group('p') or ''} {m.group('x')}".replace("  ", " ")),  # "See coin 2? Grab it."
    (re.compile(r"\s*[,;-]+\s*(?:and\s+)?(?:(?:that'?s|that\s+is)\s+(?:it|all|the\s+only\s+(?:step|thing)(?:\s+to\s+do)?)|nothing\s+else|whichever(?:\s+one)?)\s*(?=[.!]?\s*$)|(?<=\d)\s+(?:slowly|quickly|carefully|gently|calmly)\b", I | re.M), ""),  # "circle pillar 3 slowly, that's it"
    (re.compile(r"\b(?P<go>go|head|walk|run|make\s+your\s+way)\s+(?:over\s+)?to\s+(?P<x>the\s+[a-z]+(?:\s+\d{1,2})?)\s+(?:in\s+order\s+)?to\s+"
                r"(?P<v>(?!see\b|check\b|find\b)[a-z]+)\s+(?:it|them)\b", I), r"\g<go> to \g<x> and \g<v> it"),  # "head to the shrine to activate it"
    (re.compile(r"(?:^|(?<=[.!?]\s))(?P<steps>(?:(?:look|turn|glance)\s+(?:up|down|left|right)|jump|circle)(?:\s*,\s*(?:and\s+)?(?:then\s+)?(?:(?:look|turn)\s+(?:up|down|left|right)|jump|circle)){1,3})"
                r"\s*,\s*(?:at|by|near|next\s+to)\s+(?P<x>the\s+[a-z]+(?:\s+[a-z]+)?|[a-z]+\s+\d{1,2})\s*(?P<end>[.!]?)", I | re.M),
     r"Go to \g<x>, then \g<steps>\g<end>"),  # "Look up, then look down, at the nearest lamp."
    (re.compile(r"\b(?P<v>[a-z]+)\s+(?:them\s+both|both|them\s+all|all\s+of\s+them)(?:\s+(?P<x>[a-z]+?)s)?\s*,\s*the\s+(?P<o>first|1st)(?:\s+one\b)?", I),
     lambda m: f"{m.group('v')} the {m.group('o')} {m.group('x') or 'one'}"),
    # "Kill both goblins, the first one and then the second": the deed at each, in the order given
    (re.compile(r"\b(?:check|look\s+at|read|watch)\s+(?:that\s+)?(?:the\s+)?(?:kills?|kill\s+counter|kills\s+counter|counter|score|log|health|hp|hud|ui)\b[^.;!?\n]*", I), ""),
    (re.compile(r"\bkeep\s+an\s+eye\s+out\s+for\s+(?P<x>[a-z]+s)\s+and\s+(?P<v>grab|collect|pick\s+up|take|get|kill|attack)\s+them(?:\s+as\s+you\s+go)?\b", I),
     r"\g<v> any \g<x> you see"),
    (re.compile(r"\bpatrol(?:ling)?(?:\s+(?:for\s+a\s+while|around|about))?\s+and\s+", I), ""),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:[a-z]+\s+){0,2}ones?\s+(?:is|are)\s+(?:fine|ok(?:ay)?|good|enough)\s*[.!]", I | re.M), ""),  # "Nearest ones are fine."
    (re.compile(r"\b(?:if|when|whenever)\s+there(?:'s|\s+is|\s+are)\s+(?:a\s+|an\s+|any\s+|some\s+)?(?P<x>[a-z]+)\s+(?:nearby|around|close(?:\s+by)?|near)\s*,\s*"
                r"(?P<v>[a-z]+(?:\s+up)?)\s+(?:it|them)\b", I), r"whenever any \g<x> is near, \g<v> it"),  # "if there's gold nearby, take it"
    (re.compile(r"\s*,?\s*(?:and\s+)?otherwise\s*,?\s+(?:just\s+)?(?=(?:get|go|head|walk|run|make)\b)", I), ". "),  # "..., and otherwise just get to the shrine"
    (re.compile(r"\bkeep\s+going\s+(?=to\b)", I), "go "),  # "and then keep going to the shrine": on to it, no standing order
    (re.compile(r"(?:^|(?<=[.!?]\s))to\s+do\s+(?:so|that|this)\s*,\s*", I | re.M), ""),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:screenshots?|videos?|clips?|logs?)\s+(?:are\s+|is\s+)?(?:welcome|appreciated|optional|not\s+needed|please)\b[^.!?\n]*[.!]?", I | re.M), ""),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:i'm\s+|i\s+am\s+)?curious\s+(?:whether|if|what|how|to\s+see)\b[^.!?\n]*[.!?]?", I | re.M), ""),
    (re.compile(r"\b(?P<w>once|when|after|until)\s+it\s+(?:reports|shows|registers|reads)\s+(?:as\s+)?(?P<s>open|opened|on)\b", I), r"\g<w> it is \g<s>"),
    (re.compile(r"\s+or\s+(?:else\s+)?(?:the|it)\b[^.;!?\n,]*\b(?:won't|will\s+not|can't|cannot|doesn't|does\s+not|stays?)\b[^.;!?\n,]*", I), ""),  # "... first or the door won't open"
    (re.compile(r"(?:(?<=[.!?]\s)(?:oh\s*,?\s*)?|\boh\s*,?\s*)and\s+(?=(?:don't\s+forget\s+to\s+)?[a-z]+\s)(?!then\b)", I), ""),  # "Oh, and pull the switch first"
    (re.compile(r"(?:(?<=^)|(?<=[,:]\s)|(?<=\band\s))one\s+(?=[a-z]+\s*(?:,|[.!]|$|\s+and\b))", I | re.M), "a "),  # "Tour: one lamp, one stump"
    (re.compile(r"\bmake\s+(?P<x>it|the\s+[a-z]+)\s+on\b|\bget\s+(?P<y>it|the\s+[a-z]+)\s+on\b(?=\s*(?:[,.;!?]|$|(?:and|then|first)\b))", I | re.M),
     lambda m: f"turn {m.group('x') or m.group('y')} on"),  # "make it on", "Get the switch on, then ..."
    (re.compile(r"\bthe\s+same\s+(?=[a-z]+\s*(?:[.,;!?]|$|\s+(?:and|then|too|again)\b))(?!(?:way|thing|time|again|deal)\b)", I | re.M), "that "),  # "circle round the same barrel": the one just named
    (re.compile(r"\s+[-–—]+\s+but\s+", I), ", but "),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?P<v>[a-z]+(?:\s+(?:out|down|up))?)\s+(?:two|three|both|all|the)\s+[a-z]+s\s*:\s*(?=(?:the\s+)?[a-z]+(?:\s+\d{1,2})?\s+first\b)", I | re.M),
     lambda m: f"{m.group('v')} "),  # "Take out two enemies: the ogre first, then the skeleton."
    (re.compile(r"(?:^|(?<=[.!?]\s))(?P<v>[a-z]+(?:\s+(?:out|down|up))?)\s+(?:two|three|four|both|all|the)\s+(?P<x>[a-z]+)s\s*:\s*"
                r"(?=(?P=x)\s+\d{1,2}\s*(?:,|and|then)\s*(?:then\s+)?(?P=x)\s+\d{1,2}\b)", I | re.M),
     lambda m: f"{m.group('v')} "),  # "Kill two goblins: goblin 1 and goblin 2."
    (re.compile(r"\s+the\s+(?:whole|entire)\s+(?:time|run|way)(?=\s*(?:[.!;]|$))", I | re.M), " all the time"),  # "Keep swinging at trolls the whole time"
    (re.compile(r"\bthe\s+(?P<a>first|second|third)\s*,\s*(?P<b>second|third|fourth)(?:\s*,)?\s+and\s+(?:the\s+)?(?P<c>third|fourth|fifth)\s+(?P<x>[a-z]+?)s\b", I),
     r"the \g<a> \g<x>, the \g<b> \g<x> and the \g<c> \g<x>"),  # "the first, second and third barrels"
    (re.compile(r"\bthe\s+(?P<a>first|second|third|fourth|1st|2nd|3rd|4th)\s+and\s+(?:the\s+)?(?P<b>second|third|fourth|fifth|2nd|3rd|4th|5th)\s+(?P<x>[a-z]+?)s?\b", I),
     r"the \g<a> \g<x> and the \g<b> \g<x>"),
    (re.compile(r"\bthen\s+(?P<x>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)\s*,\s*(?:(?:the\s+)?same\s+(?:thing|deal|again)|likewise|ditto)\b", I),
     r"then do the same at \g<x>"),  # "Then stump 2, same thing."
    (re.compile(r"\b(?P<v>stop\s+at|go\s+to|visit|walk\s+to|head\s+to)\s+(?:each|all)\s+of\s+(?:these|the\s+following)(?:\s+in\s+(?:this\s+)?order)?\s*:\s*", I),
     r"\g<v> "),  # "Stop at each of these in order: barrel 1, pillar 1"
    (re.compile(r"\bcheck\s+out\s+(?=(?:a|an|the)\s)", I), "visit "),
    *SHORTHAND,
    (re.compile(r"\b(?:next\s+to|near|close\s+to|beside)\s+the\s+(?:player|agent|hero|character)\b", I), "near you"),
    (re.compile(r"(?P<a>\b(?:walk|go|run|head|circle|move)\s+(?:all\s+the\s+way\s+)?(?:a?round|circle)\s+[^,.;!?\n]+?)\s*,?\s+and\s+(?:look\s+at|check|inspect|view|see)\s+"
                r"(?:it|them)\s+from\s+(?:every|all|each)\s+(?:side|sides|angle|angles)\b", I), r"\g<a>"),  # one lap, said twice
    (re.compile(r",?\s*(?:and\s+)?(?:then\s+)?call\s+it\s+a\s+day\b", I), ""),
    (re.compile(r"\bonly\s+(?P<w>once|when|after)\s+(?P<c>[^,.;!?]+?)\s+should\s+you\s+", I), r"\g<w> \g<c>, "),  # "Only once the door has opened should you head ..."
    (re.compile(r"\s*,?\s*(?:because\s+)?otherwise\s+(?:the\s+[a-z]+|it|you)(?:'s|\s+(?:stays?|remains?|won't|will\s+not|doesn't|does\s+not|can't|cannot|is|keeps?))\b[^,.;!?\n]*"
                r"(?:\s+and\s+you\s+(?:won't|can't|cannot|will\s+not)\b[^,.;!?\n]*)?", I), ""),  # "Hit the switch, otherwise the door stays shut"
    (re.compile(r"\b(?:your|the|our)\s+(?:goal|target|objective|destination|aim)\s+is\s+(?P<x>the\s+[a-z]+)(?=\s*[.!])", I), r"\g<x> is the goal"),
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:(?:ok(?:ay)?\s+)?(?:so\s+)?quick\s+one|new\s+build|note\s+to\s+self|ugh|hmm+|sigh)\b[^.!?:\n-]*(?:[.!?]|\s+[-–—])\s*", I | re.M), ""),
    (re.compile(r"\bget\s+(?:over|across)\s+(?=the\s)", I), "cross "),  # "get over the lava": crossing it
    (re.compile(r"\b(?:check\s+out|swing\s+by|stop\s+by|drop\s+by|pop\s+(?:over\s+to|by))\s+(?=(?:the\s+)?[a-z]+\s+\d{1,2}\b|the\s)", I), "go to "),  # "go check out pillar 2"
    (re.compile(r"\bgo\s+(?:and\s+)?(?P<v>get|grab|hit|smack|fetch|collect)\s+(?=it\b|them\b|the\s|[a-z]+\s+\d)", I), r"\g<v> "),  # "go get it", "go hit goblin 2"
    (re.compile(r"^[ \t]*\[[ \t]?[xX✓✔]?[ \t]?\][ \t]*", re.M), "- "),  # a checklist's box ("[ ] pull switch"): a list item
    (re.compile(r"\b(?:go\s+(?:and\s+)?)?(?:look|have\s+a\s+look)\s+at\s+(?=(?:the\s+)?[a-z]+\s+\d{1,2}\b(?![^.;\n]*\b(?:up|down|above|below|upward|downward)\b))", I),
     "go to "),  # "Circle lamp 4, but first go look at barrel 1.": no way of looking said, a visit
    (re.compile(r"\b(?:run|dash|sprint|race|head|make\s+a\s+run)\s+for\s+(?=the\s|[a-z]+\s+\d)", I), "go to "),  # "run for the door"
    (re.compile(r"(?:^|(?<=[.!?]\s))(?P<lead>(?:first(?:ly)?|then|next|(?:oh\s*,?\s*)?(?:and\s+)?(?:of\s+course|obviously)\s*,?)\s*,?\s+)?the\s+(?P<x>[a-z]+)\s+"
                r"(?:must|should|has\s+to|needs\s+to)\s+be\s+(?P<v>[a-z]+)(?:\s+by\s+(?:the\s+)?player)?(?=\s*[.!;,]|\s*$|\s+(?:first|before|beforehand)\b)", I | re.M),
     lambda m: f"{m.group('lead') or ''}{_verb_base(m.group('v')) or m.group('v')} the {m.group('x')}"),  # "First the lever must be pulled."
    (re.compile(r"\b(?:i|we|you)(?:'ll|\s+will)?\s+(?:need|want)\s+(?P<t>the\s+[a-z]+(?:\s+\d{1,2})?)\s+(?P<p>dead|killed|pulled|flipped|pressed|"
                r"activated|opened|used|thrown)\b", I), lambda m: f"{DONE_TO.get(m.group('p').lower(), 'kill')} {m.group('t')}"),  # "I need the ogre dead"
    (re.compile(r"\b(?P<v>pull|flip|press|hit|use|open|throw|kill|grab|jump)\s+(?P<o>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?|it)\s+before(?=\s*[.!?)]|\s*$)", I | re.M),
     r"\g<v> \g<o> first"),  # "so pull the lever before.": beforehand
    (re.compile(r"(?:^|(?<=[.!?]\s))would\s+you\s+mind\s+(?:just\s+)?(?P<s>[a-z]+ing\b[^?\n]*)\?", I | re.M),
     lambda m: re.sub(r"(?:^|(?<=\bthen\s)|(?<=\band\s))(?P<g>[a-z]+ing)\b", lambda g: _verb_base(g.group("g")) or g.group("g"), m.group("s")) + "."),
    (re.compile(r"(?:^|(?<=[.!?]\s))after\s+(?:you|the\s+player)\s+(?:land|have\s+landed|are\s+(?:across|over)|get\s+across)\s*,\s*", I | re.M), ""),  # after the jump
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:and\s+)?(?:then\s+)?(?P<t>the\s+(?:door|gate))\s+should\s+(?:now\s+)?(?:open|unlock|swing\s+open|slide\s+open)(?:\s+up)?\s*[.!]\s+"
                r"(?P<next>[^.!?\n]*?)\bit\b", I | re.M), r"\g<next>\g<t>"),  # "Pull it. Then the door should open. Walk through it."
    (re.compile(r"(?:\s*,\s*|\s+and\s+)(?:do\s+)?nothing\s+(?:else|more)(?=\s*[.!;,]|\s*$)|(?:^|(?<=[.!?]\s))(?:nothing\s+else\s+matters\b[^.!?\n]*|(?:and\s+|then\s+)?(?:do\s+)?nothing\s+(?:else|more))(?:[.!]+[ \t]*|[ \t]*$)", I | re.M), ""),  # "Do this for 80 steps and nothing else."
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:can|could|does|will|is|would)\s+(?:the\s+(?:player|agent|bot|character|hero)|one)\b[^?\n]*\?\s+"
                r"(?=(?:please\s+)?[a-z]+\s+(?:the|a|an|it|to|over|up|down|around|through)\b)", I | re.M), ""),
    # "Can the player jump the lava right after the switch? Flip the switch and ...": what the test asks, no step
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:the\s+)?[a-z]+s?\s+(?:hit|hits|are|is|can|will|do|does|tend\s+to|seem\s+to|might|may)\s+[^,.;!?\n]{1,40}?,\s*so\s+(?=(?:please\s+)?[a-z]+\s)", I | re.M),
     ""),  # "Ogres hit hard, so attack any ogre that comes close": the reason, then the step
    (re.compile(r"\b(?P<a>(?:open|unlock)\s+(?:the\s+[a-z]+|it))\s*\(\s*(?:(?:use|with|via|by\s+using|using)\s+)?(?:the\s+)?(?P<b>switch|lever|button|key)(?:\s+for\s+(?:that|this|it))?\s*\)", I),
     r"use the \g<b> to \g<a>"),  # "Open the door (use the switch for that)": the switch is the step
    (re.compile(r"(?:^|(?<=\n)|(?<=[.;:]\s)|(?<=\bthen\s)|(?<=,\s)|(?<=>\s)|(?<=→\s))(?P<b>[ \t]*(?:\d+[.)]|[-*•])[ \t]+)?(?P<p>through|thru|into|past|up\s+to|back\s+to)\s+(?=the\s|[a-z]+\s+\d|door\b|gate\b)", I | re.M),
     r"\g<b>go \g<p> "),  # "2) through the door once it opens": going, its verb left out
    (re.compile(r"\b(?P<v>do|make|take|run)\s+(?:another|one\s+more)\s+(?P<n>lap|circle|loop|orbit)\b(?!\s+(?:around|round)\b)", I), r"\g<v> a \g<n> around it"),
    (re.compile(r"\bany\s+one\s+(?=[a-z]{3,})(?!of\b)", I), "a "),  # "Grab any one pickup": one, whichever
    (re.compile(r"\b(?:go|come)\s+to\s+(?=(?:kill|attack|fight|hit|slay|pull|flip|use|activate|collect|grab|pick)\b)", I), ""),  # "the agent go to kill the goblin": kill it
    (re.compile(r"\s+(?:when|once)\s+(?:you|they|it)\s+(?:get|gets|arrive|arrives|are|is)\s+there\b", I), ""),  # "Use the shrine when you get there"
    (re.compile(r"\b(?:don't|do\s+not)\s+(?:touch|do|press|use)\s+(?:anything|everything)(?:\s+else)?\s+(?=(?:until|till)\s)", I), "wait "),
    # "Do not touch anything else until the door is open.": a wait
    (re.compile(r"\b(?:don't|do\s+not|never)\s+(?P<v>(?!forget|fail)[a-z]+(?:\s+[a-z]+){0,4}?)\s+(?:until|till)\s+"
                r"(?P<c>(?:the\s+[a-z]+|it)\s+(?:is|has\s+been|has|gets|'s)\s+[a-z]+)\b(?=\s*(?:[.!]|$))", I | re.M), r"once \g<c>, \g<v>"),  # "Don't approach the door until the switch is on"
    (re.compile(r"(?:(?<=^)|(?<=[.!?]\s)|(?<=\n)|(?<=\d[.)]\s))(?:check|verify|confirm)\s+(?:that\s+|if\s+|whether\s+)?(?:the\s+[a-z]+|it)\s+"
                r"(?:has\s+|is\s+|was\s+)?(?:opened|open|unlocked|closed|shut|on)\b(?![^.;!?\n]*\b(?:and|then)\b)[^.;!?\n]*[.!]?", I | re.M), ""),  # "Check the door opened": what to see, no step
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:start|begin)\s+(?:off\s+)?(?:at|from)\s+(?:the\s+)?(?:spawn(?:\s+point)?|start(?:ing\s+(?:point|position))?|beginning)\s*[.!]\s*", I | re.M),
     ""),  # "Start at the spawn.": where every plan starts
    (re.compile(r"(?:\A|(?<=\n\n))\s*(?:start|begin)\s+(?:off\s+)?at\s+(?=the\s|[a-z]+\s+\d)", I), "Go to "),  # "Start at the second pillar and go round it"
    (re.compile(r"\blet\s+(?:it|the\s+agent|the\s+bot|him|her)\s+(?=(?:roam|wander|run|explore|play|go|walk)\b)", I), ""),
    (re.compile(r"\b(?P<w>any\s+time|anytime|whenever|every\s+time)\s+(?:it|the\s+agent|the\s+bot)(?:'s|\s+is|\s+gets|\s+comes)\s+"
                r"(?P<p>near|close\s+to|next\s+to|by|beside)\s+(?=(?:a|an|any|some)\s)", I), r"\g<w> you are \g<p> "),
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?:the\s+(?:player|agent)|she|he|they|you|(?:our|the)\s+(?:hero|heroine|character))\s+"
                r"(?:starts?|spawns?|begins?)\s+(?:off\s+)?(?:in|at|on|from)\s+the\s+(?:first\s+|starting\s+)?(?:room|area|spawn|start|entrance)\b[^.!?\n]*[.!]\s*", I | re.M), ""),
    (re.compile(r"(?:^|(?<=[.!?:]\s)|(?<=\n))(?:try\s+to\s+)?(?:stay|keep)\s+alive\s*(?:,\s*|\s+and\s+)(?=[a-z])", I | re.M), ""),  # "stay alive, attack any enemy"
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n)|(?<=\bthen\s))make\s+sure\s+(?:that\s+)?(?:the\s+(?:player|agent|tester|bot)|you|they)\s+(?P<v>[a-z]+)\b", I | re.M),
     lambda m: _verb_base(m.group("v")) or m.group(0)),  # "Make sure the player kills the skeleton"
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n)|(?<=\bthen\s))make\s+sure\s+(?:that\s+)?(?P<x>the\s+[a-z]+(?:\s+\d{1,2})?)\s+(?:is|has\s+been|gets|got)\s+(?P<p>[a-z]+(?:ed|en|t))\b", I | re.M),
     lambda m: f"{_verb_base(m.group('p'))} {m.group('x')}" if _verb_base(m.group("p")) else m.group(0)),  # "Make sure the lever is pulled"
    (re.compile(r"\s*,\s*(?:any|either)\s+(?:one|of\s+them)(?:\s+(?:will\s+do|is\s+fine))?\s*,", I), ","),  # "Pick up a coin, any one, then ..."
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?P<v>approach|visit|go\s+to|walk\s+to|head\s+to|run\s+to|reach)\s+any\s+(?=[a-z]+\s*(?:[.!]|$|,?\s*then\b))", I | re.M),
     r"\g<v> a "),  # "Approach any stump.": one, whichever (no standing order without "you see", "whenever")
    (re.compile(r"\b(?:make|do|perform|take|execute)\s+(?:a|one)\s+(?:quick\s+|single\s+)?(left|right)\s+turn\b", I), r"turn \1"),
    (re.compile(r"\b(?:tilt|pitch|point|angle)\s+it\s+(up|down)(?:wards?)?\b", I), r"look \1"),
    (re.compile(r"\blook\s+(?:at|toward|towards)\s+the\s+(?:ground|floor)\b", I), "look down"),
    (re.compile(r"\blook\s+(?:at|toward|towards)\s+the\s+(?:sky|ceiling)\b", I), "look up"),
    (re.compile(r"\bflick(?:ing)?\b", I), "flip"),
    (re.compile(r"(?:^|(?<=\n))(?P<b>\s*[-*•]\s*)\[[ xX✓]?\]\s*", I | re.M), r"\g<b>"),  # "- [ ] pillar 1: look up": a checklist's box
    (re.compile(r"(?<=\d)\s+(?:too|as\s+well)(?=\s*(?:[.!;]|$))", I | re.M), ""),  # "go round barrel 1 too"
    (re.compile(r"\bwhenever\s+you\s+(?:have|get|see)\s+(?:a|the)\s+chance\s*,\s*", I), "always "),
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?P<list>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?(?:\s+first)?(?:\s*(?:,|\bthen\b|\band\b)\s*(?:then\s+)?(?:the\s+)?[a-z]+(?:\s+\d{1,2})?){1,4})"
                r"\s*:\s*(?P<v>[a-z]+(?:\s+(?:with|at|up\s+at|down\s+at|around|over|to))?)\s+(?:both|each(?:\s+one)?|all\s+of\s+them|them(?:\s+all|\s+both)?|all\s+three)"
                r"\s*(?P<end>[.!]?)", I | re.M), lambda m: _each_of(m)),
    (re.compile(r"\b(?P<said>the\s+(?P<x>[a-z]+)(?:\s+(?:next\s+to|near|by|beside)\s+(?:it|the\s+[a-z]+))?\s+(?:should|will|must)\s+(?:now\s+)?"
                r"(?:(?P<open>open|be\s+open|unlock)|turn\s+on|switch\s+on|be\s+on)\b[^.;!?\n]*[.;]\s*)(?P<step>[^.;!?\n]*?\s+)?"
                r"(?P<c>when|once|after|as\s+soon\s+as)\s+it\s+(?:does|is|has|opens|has\s+opened)\b(?!\s+(?:open|on)\b)", I),
     lambda m: f"{m.group('said')}{m.group('step') or ''}{m.group('c')} the {m.group('x')} is {'open' if m.group('open') else 'on'}"),  # "The door should open; when it does, ..."
    (re.compile(r"\b(?P<said>the\s+(?P<x>[a-z]+)(?:\s+(?:next\s+to|near|by|beside)\s+(?:it|the\s+[a-z]+))?\s+(?:should|will|must)\s+(?:now\s+)?(?:swing\s+|slide\s+)?"
                r"(?:open|unlock|be\s+open)\b(?:[^.;!?\n]|\.(?=\d))*[.;]\s*)(?P<v>(?:go|walk|run|head|step|move|pass)\s+(?:through|into|in|inside|past)\s+)it\b", I),
     lambda m: f"{m.group('said')}{m.group('v')}the {m.group('x')}"),  # "The door should open (...). Go through it.": the door
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:and\s+)?(?:keep|carry\s+on|continue|go\s+on)\s+(?:doing\s+(?:that|this|so|it)|(?:that|this|it)\s+up|at\s+it|like\s+(?:that|this))"
                r"(?=\s+for\s+\d|\s*(?:[.!]|$))", I | re.M), "Do this"),  # "Keep doing that for 80 steps.": the budget of what was said
    (re.compile(r"\b(?:don't|do\s+not|never)\s+(?:bother|worry)\s+(?:with|about)\b[^.;!?\n]*?,\s*(?:just|only)\s+(?:the\s+)?[a-z]+(?:\s+\d+)?\s*[.!]?", I),
     ""),  # "Don't bother with coins or anything else, just the ogre.": the step said before, again
    (re.compile(r"(?:^|(?<=[.!?]\s))(?P<rule>(?!(?:if|when|whenever|once)\b)[^,.;!?\n]*?\b(?:any|every|all|each)\b[^,.;!?\n]*?)\s+while\s+you(?:'re|\s+are)?\s+"
                r"(?P<steps>(?!(?:doing|at\s+it)\b)[^.;!?\n]+?)(?P<end>[.!?]|$)",
                I | re.M), lambda m: m.group(0) if re.search(r"\b(?:any|every|all|each)\b|[a-z]{3,}s\s*(?:,|$)", m.group("steps"), I)
     else f"{m.group('steps')[0].upper()}{m.group('steps')[1:]}{m.group('end') or '.'} {m.group('rule')}."),  # "Slay any orc while you ...": the steps, and the standing order
    (re.compile(r"\b(?P<v>around|round|near|next\s+to|inside)\s+of\s+(?=the\b|it\b|[a-z]+\s+\d)", I), r"\g<v> "),  # "walk all around of the lamp 4"
    (re.compile(r"\bthe\s+(?P<x>[a-z]+)\s+(?:that\s+|which\s+)?(?:it|he|she|they)\s+(?:was|were|is|are)\s+[a-z]+ing(?:\s+(?:on|by|near|at|over|beside))?\s*,\s*(?P<n>(?P=x)\s+\d{1,2})\b", I),
     r"\g<n>"),  # "the coin it was guarding, coin 2": coin 2
    (re.compile(r"\bwait\s+(?:for|until|till)\s+the\s+(?P<x>[a-z]+)\s+(?:to\s+open|opens|is\s+open)\s*,?\s+(?:and\s+|then\s+)+"
                r"(?P<v>(?:walk|go|run|step|move|head)\s+(?:through|in|inside|into))(?:\s+it)?\b", I),
     lambda m: f"once the {m.group('x')} is open, {m.group('v')} the {m.group('x')}"),  # "wait for the door to open and walk through"
    (re.compile(r"\b(?:do|play|run|make)\s+(?:the|a|your|our)\s+(?:normal|standard|usual|regular|full|default|whole|main)\s+(?:run|route|path|playthrough|loop)\s*"
                r"\((?P<list>[^()]+)\)\s*(?:,?\s*(?:but|and)\s+(?:also\s+)?|(?=[.!;]|$))", I | re.M),
     lambda m: f"Route: {m.group('list').strip()}. "),  # "Do the normal run (switch, lava, shrine) but ...": the route in it
    (re.compile(r"\b(?P<v>take|knock|wipe|finish|cut|mow|gun|shoot|bring|rub|snuff|polish)\s+(?P<o>it|them|him|her)\s+(?P<p>out|down|off)\b", I),
     r"\g<v> \g<p> \g<o>"),  # "take it out too": its verb whole
    (re.compile(r"\b(?:carry|move|push|press|soldier)\s+on\s*(?:,\s*(?:and\s+)?|and\s+)(?=[a-z])", I), ""),  # "carry on and jump over the lava": go on
    (re.compile(r"\b(?:at|on|by|beside)\s+the\s+(?:last|final)\s+one\b(?=\s*(?:[.;!?]|$))", I | re.M), "there"),  # "..., and jump at the last one"
    (re.compile(r"\b(?P<v>look(?:s|ing)?|gaze|glance|stare|peer)\s+(?:at|to|towards?)\s+the\s+(?:very\s+)?(?:(?P<up>top|tip|crown)|bottom|base|foot)\s+of\s+"
                r"(?=(?:it|them|the\s+[a-z]+|[a-z]+\s+\d)\b)", I), lambda m: f"{m.group('v')} {'up' if m.group('up') else 'down'} at "),  # "look to the top of it"
    (re.compile(r"\b(?:the\s+)?(?:very\s+)?(?:top|base|bottom|foot|side|front)\s+of\s+(?=(?:it|them|the\s+[a-z]+|[a-z]+\s+\d)\b)", I), ""),
    (re.compile(r"(?<=[a-z])(?:\s*,)?\s+(?:that|which)\s+(?:opens|unlocks|controls|operates|powers|activates|raises|lowers)\s+(?:the|a)\s+[a-z]+\b(?!\s+(?:and|then)\b)", I), ""),
    (re.compile(r"\b(?:visit|go\s+to|walk\s+(?:up\s+)?to|head\s+to|approach|stop\s+at|pass\s+by)\s+(?P<q>every|each|any|all)\s+(?P<x>[a-z]+)\s+"
                r"(?P<rel>(?:that\s+)?you\s+(?:pass|see|find|meet|come\s+across|encounter|reach|spot)(?:\s+on\s+the\s+way)?)\s*,?\s*(?:and\s+)?(?:then\s+)?"
                r"(?P<v>(?!then\b)[a-z]+(?:\s+(?:up|down))?)\s+(?P<p>(?:at|around|round|to|over)\s+)?it\b", I),
     lambda m: f"{m.group('v')} {m.group('p') or ''}{m.group('q')} {m.group('x')} {m.group('rel')}"),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?P<q>any|every|each)\s+(?P<x>[a-z]+)\s+(?P<rel>(?:that\s+)?you\s+(?:pass|see|find|meet|come\s+across|encounter|reach|spot)"
                r"(?:\s+on\s+the\s+way)?)\s*,\s*(?P<v>[a-z]+(?:\s+(?:up|down))?)\s+(?P<p>(?:at|around|round|to|over)\s+)?(?:it|them)\b", I | re.M),
     lambda m: f"{m.group('v')} {m.group('p') or ''}{m.group('q')} {m.group('x')} {m.group('rel')}"),
    (re.compile(r"\b((?:when|once|as\s+soon\s+as)\s+(?:the\s+[a-z]+|it)\s+(?:opens|is\s+open|has\s+opened|is\s+on|turns\s+on|"
                r"comes\s+on|is\s+up|goes\s+up))\s+(?=[a-z])(?!(?:and|then|or|but)\b)", I), r"\1, "),
    (re.compile(r"\b(?:look\s+at|inspect|check(?:\s+out)?|examine|view|see)\s+(?P<x>it|them|the\s+(?:[a-z]+\s+)?[a-z]+(?:\s+\d{1,2})?|[a-z]+\s+\d{1,2})\s+"
                r"from\s+(?:all|every|each|all\s+four|both)\s+(?:sides?|angles?|directions?)\b", I), r"circle \g<x>"),
    (re.compile(r"\b(?:tilt|pitch|point|angle|aim|move)\s+(?:the\s+|your\s+)?(?:camera|view|head|gaze|eyes|mouse)\s+(up|down)(?:wards?)?\b"
                r"(?:(?P<back>,?\s*(?:and\s+)?then\s+back\s+(?:up|down)(?:wards?)?\b))?", I),
     lambda m: f"look {m.group(1)}" + (f", then look {'down' if m.group(1).lower() == 'up' else 'up'}" if m.group("back") else "")),
    (re.compile(r"\b(?:go|come|walk)\s+(?:and\s+|over\s+and\s+)?(?:look|have\s+a\s+look)\s+at\b(?=\s+(?:the|a|an)\s)", I), "go to"),
    (re.compile(r"\b(get|gets|come|comes|are|is|'re|'s)\s*(?<=\s|e|s)(?:with)?in\s+(?:(?:attack\s+|striking\s+|melee\s+)?range|reach)\b", I), r"\1 close"),
    (re.compile(r"\s+and\s+(?:then\s+)?(?:check|verify|confirm|make\s+sure|see)\s+(?:that\s+)?(?:the\s+[a-z]+|it)\s+(?:now\s+)?(?:says|shows|reads|displays|is|opens|"
                r"turns|goes|stays|has)\b[^.!?;\n]*", I), ""),
    (re.compile(r"\b(?P<v>find|go\s+to|walk\s+to|head\s+to|run\s+to|pick|choose|locate|approach|reach|spot)\s+any\s+(?=[a-z]+\s+and\s+(?:then\s+)?"
                r"[^,.;!?]*?\b(?:it|one)\b)", I), r"\g<v> a "),
    (re.compile(r"\b(?P<t>coins?|gold|items?|loot)\s+pick-?ups?\b", I), r"\g<t>"),
    (re.compile(r"\bpick-?ups?\s+(?=(?:regression|test|check|bug|issue|flow|counter|logic|sound|event|count|run|sweep|smoke)\b)", I), ""),
    (re.compile(r"\bbump\s+into\b", I), "go to"),
    (re.compile(r"\bdeal\s+with\b", I), "take out"),
    (re.compile(r"(?:[,;]\s*(?:and\s+)?|\s+)since\s+(?!you\b)(?:(?:the|it|this|that|they|we|i|its|their|our|a|an|most|some|nothing|"
                r"players?|[a-z]+s)\b)[^,.;!?\n]*|,\s*as\s+(?:i|we)\b[^,.;!?\n]*", I), ""),
    (re.compile(r"\s+rather\s+than\s+[^,.;!?\n]*", I), ""),
    (re.compile(r"(?:,?\s+and)?\s+keep\s+an\s+eye\s+on\b[^,.;!?\n]*", I), ""),
    (re.compile(r"\b(?:having\s+entered|on\s+entering|once\s+you\s+(?:have\s+)?enter(?:ed)?|when\s+you\s+enter)\s+the\s+(?:first|second|third|next|last|final)\s+room\s*,?\s*", I), ""),
    (re.compile(r"\s+in\s+the\s+(?:first|second|third|last|final|next|starting|start)\s+room\b", I), ""),
    (re.compile(r"\bstep(?P<s>ped|s|ping)?\s+(?P<p>through|into|onto)\b", I),
     lambda m: f"{dict(ped='went', s='goes', ping='going').get((m.group('s') or '').lower(), 'go')} {m.group('p')}"),
    (re.compile(r"\b(?:continue|carry\s+on|press\s+on|move\s+on|go\s+on)\s+(?:on\s+)?(?:to|towards)\b", I), "go to"),
    (re.compile(r"\bgather(ing|s|ed)?\s+up\b", I), r"gather\1"),
    (re.compile(r"\b(object|thing)s?\s+of\s+interest\b", I), "object"),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:[a-z]+\s+){0,3}?(?:the|this|that|these|those|it|its|there|our|my)\b[^:;.!?\n]*?\b(?:is|are|was|were)\b[^:;.!?\n]*:\s+(?=[a-z])"
                r"(?!(?:\S+\s+){0,3}(?:it|there|them)\b)", I | re.M), ""),
    (re.compile(r"(?<!\bturn\s)(?<!\bturns\s)\bright\s+(?=(?:where\s+you|at\s+the\s+start)\b)", I), ""),  # not "turn right where you stand"
    (re.compile(r"(?:^|(?<=[.!?;,]\s))no\s+(?:jump(?:ing|s)?|attack(?:ing|s)?|fighting|interaction|circling|turning|looking)\s*(?:[.!]|$)", I | re.M), ""),
    (re.compile(r"(?:,\s*|\s+)(?:and\s+|then\s+)*(?:simply\s+|just\s+)?stop(?:\s+there|\s+(?:at|by|next\s+to)\s+it)?\s*(?=[.;!]|$)", I | re.M), ""),
    (re.compile(r"(?:[,;]\s*|^|(?<=[.!?]\s))(?:i\s+|we\s+)?(?:just\s+|only\s+|really\s+)?wants?\s+(?:to\s+(?:see|check|know|confirm|find\s+out)|a\s+(?:screenshot|look|capture|clip))\b"
                r"(?:(?!,\s*(?:and\s+)?then\b)[^.;:!?\n)])*", I | re.M), ""),  # up to the step after it ("..., then go to the switch")
    (re.compile(r"^\s*no\s+(?:fixed\s+|set\s+|particular\s+)?(?:route|path|order)(?:\s+(?:this\s+time|today|needed))?\s*[,:;-]\s*(?:just\s+)?(?=[a-z])", I | re.M), ""),
    (re.compile(r",?\s*(?:whatever|whichever)\s+its\s+(?:type|kind)\b|,?\s*of\s+any\s+(?:type|kind)(?:\s+at\s+all)?\b", I), ""),
    (re.compile(r"\bglance\s+(up|down)\b", I), r"look \1"),
    (re.compile(r"\blook\s+back\s+(up|down)\b", I), r"look \1"),
    (re.compile(r",?\s*(?:all\s+)?without\s+moving(?:\s+(?:away|off))?(?:\s+from\s+(?:it|there|the\s+spot|that\s+spot|them))?\s*,?", I), " "),
    (re.compile(r"\b(?:at\s+)?its\s+(?:head|base|top|bottom|foot|crown|tip|peak)\b", I), "at it"),
    (re.compile(r"\b((?:once|when|as\s+soon\s+as)\s+you(?:'re|\s+are)\s+(?:right\s+)?(?:beside|next\s+to|near|at|by|close\s+to|in\s+front\s+of)\s+"
                r"(?:it|there|the\s+[a-z]+(?:\s+\d{1,2})?))\s+(?=[a-z])(?!(?:and|or|then|but)\b)", I), r"\1, "),
    (re.compile(r"\b(?:do|doing)\s+nothing\s+(?:but|except|else\s+but|other\s+than|apart\s+from)\s+", I), ""),
    (re.compile(r",?\s*(?:but\s+)?(?:leave|let)\s+(?:it|them|that)\s+(?:alone|be)\b(?:\s+(?:when|once)\s+you\s+get\s+there)?", I), ""),
    (re.compile(r",\s*which\s+(?!(?:you|they|the\s+player|the\s+agent|we)\b)(?:is|are|was|were|should|will|would|in|on|at|sits?|stands?|"
                r"makes?|gives?|lets?|together|has|have|also|just|only)\b[^,.;!?\n]*", I), ""),
    (re.compile(r"(?:^|(?<=[.;!?]\s))(?:the\s+)?(?:other\s+|remaining\s+)?[a-z]+\s+(?:can|may|should|could)\s+(?:all\s+)?be\s+"
                r"(?:ignored|skipped|left\s+alone|left\s+be)\b[^.;!?\n]*[.;!?]?", I | re.M), ""),
    (re.compile(r",?\s*\b(?:for|during|throughout)\s+the\s+(?:rest|remainder)\s+of\s+the\s+(?:run|test|walk|level|session|game|pass)\b\s*,?", I), " always "),
    (re.compile(r"\b(?P<q>any|every|each)\s+(?P<t>[a-z]+)\s+(?:it|he|she|the\s+agent)\s+(?P<v>pass|meet|see|find|reach|come\s+across|run\s+into|get\s+near)(?:es|s)?\b", I),
     r"\g<q> \g<t> you \g<v>"),
    (re.compile(r"\b(?:let|have|set)\s+(?:the\s+)?(?:agent|bot|player)\s+(?:loose|free|roam|wander)\b", I), "wander"),
    (re.compile(r"\b(?:let|have|make|get)\s+(?:it|the\s+agent|the\s+bot|him|her)\s*,?\s+(?:to\s+)?(?=[a-z])(?!(?:and|then|or)\b)", I), ""),
    (re.compile(r"\b(is|are|has|have)\s+(?:actually|really|fully)\s+", I), r"\1 "),
    (re.compile(r"\b(?:pop|nip|hop|swing)\s+(?:over|across|along|round|by)\s+to\b", I), "go to"),
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=,\s))(?:the\s+)?order\s+(?:doesn't|does\s+not|is\s+not|isn't)\s+(?:matter|important)\s*[.!]?", I | re.M), ""),
    (re.compile(r"(?:^|(?<=[.!?]\s)|(?<=,\s))(?:walk(?:ing)?\s+only\s*,?\s*)?no\s+(?:turning|jumping|circling|looking|fighting|attacking)(?:\s+(?:or|and|,)\s+\w+ing)*\s*[.!]?", I | re.M), ""),
    (re.compile(r"\bclear(?P<s>ed|ing|s)?\s+(?=the\s+(?:lava|pit|gap|chasm|ledge)\b)(?![^.;,]*\b(?:with\s+a\s+(?:jump|leap|hop)|by\s+(?:jumping|leaping|hopping))\b)", I), lambda m: f"jump{m.group('s') or ''} "),
    (re.compile(r"\b(?:make|have|let|get)\s+(?:the\s+)?(?:player|agent|bot|character)\s+(?:to\s+)?(?=[a-z])", I), ""),
    (re.compile(r"\b(?:walk|send|move|take|bring|steer|drive|run)\s+(?:the\s+)?(?:player|agent|bot|character)\s+(?:over\s+|up\s+|across\s+)?(?=to\b|towards?\b)", I),
     "go "),  # "walk the bot over to lamp 3"
    (re.compile(r"\b(?:do|run|make|give\s+me)\s+(?:a|one)\s+(?:quick\s+)?(?:pass|run|session|playthrough)\s+(?:where|in\s+which)\s+(?:you\s+)?(?:just\s+|only\s+)?", I), ""),
    (re.compile(r"^(?P<v>[a-z]+(?:\s+(?:up|out|down|off))?)\s+(?P<rest>(?:all|any|every)\b[^,.;!?]+),\s*and\s+(?:also\s+)?(?:the\s+|all\s+the\s+|any\s+)?"
                r"(?P<x>[a-z]+s)\s+(?:too|as\s+well|also)\b", I | re.M),
     lambda m: f"{m.group('v')} {m.group('rest')}, and {m.group('v')} all the {m.group('x')}"),
    (re.compile(r"\b(?P<q>nearest|closest)\s+(?P<t>[a-z]+)\s+to\s+(?:you|the\s+player|the\s+start|the\s+entrance|the\s+spawn)\b", I), r"\g<q> \g<t>"),
    (re.compile(r"\b(?:something|someone|anybody|somebody)\s+hostile\b", I), "an enemy"),
    (re.compile(r"\btry\s+(?=(?:interacting|using)\b)", I), ""),
    (re.compile(r"(?:^|(?<=[.!?]\s))(?:now\s+|then\s+)?(?:try|test)\s+it(?:\s+out)?\s*(?:[.!]\s*|$)", I | re.M), ""),
    (re.compile(r"\b(?P<pre>(?:door|switch|lever|gate)\s+and\s+(?:then\s+)?)(?:try|test)\s+it\b", I), r"\g<pre>interact with it"),
    (re.compile(r"\b(?:try|test)\s+(?P<x>the\s+(?:door|switch|lever|shrine|gate))(?=\s*(?:[.,;!?]|$|\s+(?:anyway|again|out)\b))", I),
     r"interact with \g<x>"),
    (re.compile(r"\b(?P<v>switch|turn|flip|toggle)\s+(?P<x>it|the\s+switch|the\s+lever)?\s*on\s+and\s+(?:then\s+)?(?:back\s+)?off(?:\s+again)?\b", I),
     lambda m: f"{m.group('v')} {m.group('x') or 'the switch'}, then {m.group('v')} it again"),
    (re.compile(r"^(?P<lead>\s*(?:step\s*\d+\s*[-:.)]\s*)?)switch\s+(?:on|it\s+on)\s*(?=[.!;,]|$)", I | re.M), r"\g<lead>turn the switch on"),
    (re.compile(r"\b(?P<x>loot|coins?|gold|items?)\s+(?:lying|left|sitting|scattered)\s+(?:around|about)\b", I), r"\g<x>"),
    (re.compile(r"\bthe\s+(?P<t>[a-z]+)\s+(?P<q>nearest|closest)\s+(?:to\s+)?(?:you|the\s+player|the\s+start)\b", I), r"the \g<q> \g<t>"),
    (re.compile(r"\b((?:whenever|when|every\s+time|each\s+time|if)\s+you\s+(?:get|come|go|are|walk|pass)\s+(?:near|close\s+to|by|next\s+to|up\s+to|past)\s+"
                r"(?:a|an|the|any)\s+[a-z]+(?:\s+\d{1,2})?)\s+(?=[a-z])(?!(?:and|or|then|but|that|which|you)\b)", I), r"\1, "),
)
"""The forms, each a pattern and what it is read as (after a second language's first forms)."""
THERE_IS = re.compile(r"(?:^|(?<=[.!?]\s))(?:then\s+)?(?:there(?:'s|\s+is|\s+are)|you(?:'ll|\s+will)\s+(?:see|find|spot|notice))\s+(?:(?:(?:a|an|the)\s+)?(?P<xn>[a-z]+(?:\s+|_)\d+)\b|(?:(?:a|an|one|some)\s+|the\s+(?P<o>first|second|third|fourth|fifth|last)\s+)?(?P<x>[a-z]+)\b)[^.!?;\n]*[.!?;]\s+"
                      r"(?P<next>[^.!?\n]*?)\b(?:it|one|him|her)\b", I)
""""There's a coin near the start. Go pick it up.", "There's barrel 1 by the path. Go to it.": the thing said
to be there is the step's."""
HAVING = re.compile(r"(?<!\bafter\s)\bhaving\s+(?P<p>(?!done\b|finished\b|completed\b)[a-z]+)\s+(?=(?:the|a|an|across|over|through|up|down|around|round|to|past|it|them|\w+\s+\d)\b)", I)
""""Having flipped the switch, having gone through the door and having leapt across the lava,
finish by using the shrine": each deed done, in order ("having done that" is the step before's)."""


def _having(m: re.Match[str]) -> str:
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    base = _lemma(m.group("p").lower(), "v")
    return f"{base} " if is_verb(base) and base != m.group("p").lower() else m.group(0)


WAY_THERE = re.compile(r"(?P<a>\b(?:go|walk|head|run|make\s+your\s+way)\s+(?:over\s+)?to\s+[^,.;]+?)\s*,?\s*(?:but|and)\s+"
                       r"(?P<b>(?:grab|get|collect|pick\s+up|take)\s+[^,.;]+?)\s+(?:on|along)\s+(?:your|the)\s+way(?:\s+there)?\b", I)
""""Go to the shrine, but grab the first coin on the way there": the coin, then the shrine."""
WAY_LEAD = re.compile(r"(?:^|(?<=[.!?]\s))on\s+(?:your|the)\s+way\s+(?:over\s+)?to\s+(?P<b>[^,;.!?]+?)\s*,\s*(?P<a>[^;.!?]+?)(?=\s*(?:[;.!?]|$))",
                      I | re.M)
""""On your way to the shrine, grab the first coin": the coin, then the shrine."""


BOTH_KINDS = re.compile(r"(?P<v>(?:keep\s+(?:on\s+)?)?[a-z]+(?:\s+(?:down|off|out|up))?(?:\s+(?:next\s+to|near|beside|at|around|over))?)\s+(?P<d1>(?:the|all|every|each|any|all\s+the)\s+)?"
                        r"(?P<x>[a-z]+)\s+(?:and|&|or)\s+(?P<d2>(?:the|all|every|each|any|all\s+the)\s+)?(?P<y>[a-z]+)\b(?P<rest>[^.;!?,\n]*)", I | re.M)
"""One deed at two kinds of thing ("Attack goblins and skeletons on sight", "Kill every goblin and
skeleton you see"): the deed at each, with what follows (one step would take the second kind for a
verb, or give the standing order to the second alone). It starts a sentence, a clause or a step
after "and" or "then" (:data:`KIND_STARTS`)."""
KIND_STARTS = re.compile(r"[.!?;:,]\s|\n|\band\s|\bthen\s", I)


def both_kinds(text: str, names: set[str]) -> str:
    """``text`` with each :data:`BOTH_KINDS` said as two sentences, where both words are the game's
    things and the deed stands for any of them (a plural, "every", "on sight", "whenever")."""
    def thing(word: str) -> bool:
        word = word.lower()
        return word in names or (word.endswith("s") and (word[:-1] in names or word[:-2] in names))

    def split(m: re.Match[str]) -> str:
        v, x, y, rest = m.group("v"), m.group("x"), m.group("y"), m.group("rest")
        many = any(w.lower().endswith("s") and (w.lower()[:-1] in names or w.lower()[:-2] in names) for w in (x, y)) \
            or re.search(r"\b(?:every|each|any|all)\b", m.group("d1") or "", I)
        if not (thing(x) and thing(y)) or thing(v.split()[0]) or not many or re.search(r"\b(?:then|and)\b", rest, I):
            return m.group(0)
        d1, d2 = m.group("d1") or "", m.group("d2") or m.group("d1") or ""
        if not d1 and not d2:  # "Kill goblins and skeletons": each kind all of it, as the plural says
            d1 = d2 = "all "
        return f"{v} {d1}{x}{rest}. {v[0].upper()}{v[1:]} {d2}{y}{rest}"
    out, last = [], 0
    for start in [0, *(k.end() for k in KIND_STARTS.finditer(text))]:
        m = BOTH_KINDS.match(text, start) if start >= last else None
        if m is not None and split(m) != m.group(0):
            out += [text[last:start], split(m)]
            last = m.end()
    return "".join(out) + text[last:]


EACH_LISTED = re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?P<v>[a-z][a-z ]*?)\s+(?:each|every|all(?:\s+the)?|the|these)\s+(?P<x>[a-z]+?)s?"
                         r"(?:\s+(?:in\s+turn|in\s+(?:this|that)\s+order|one\s+by\s+one|in\s+order|listed))?\s*:\s*"
                         r"(?P<list>[a-z]+[ _]?\d{1,2}(?:\s*(?:,\s*(?:and\s+|then\s+)?|\s+(?:and|then)\s+)[a-z]+[ _]?\d{1,2})+)\s*(?P<end>[.!]?)", I | re.M)
""""Look up at each lamp in turn: lamp 1, lamp 2, lamp 3": the deed at each one listed, in order."""


def each_listed(text: str) -> str:
    """``text`` with each :data:`EACH_LISTED` written as one step a thing, joined by "then"."""
    def steps(m: re.Match[str]) -> str:
        items = re.findall(r"([a-z]+)[ _]?(\d{1,2})", m.group("list"), I)
        if any(kind.lower().rstrip("s") != m.group("x").lower().rstrip("s") for kind, _ in items):
            return m.group(0)
        return ", then ".join(f"{m.group('v')} {kind} {n}" for kind, n in items) + (m.group("end") or ".")
    return EACH_LISTED.sub(steps, text)


def ordinal_one(text: str, names: set[str]) -> str:
    """"the third one", or "the third" alone, for the kind of thing named last before it ("Go to the
    first coin, then to the third one"; "Before walking to the second lamp, circle the first one")."""
    def kind(m: re.Match[str]) -> str:
        before = [w for w in re.findall(r"[a-z]+", text[:m.start()].lower()) if w in names]
        if not before:
            return m.group(0)
        kind_ = before[-1][:-1] if before[-1].endswith("s") and before[-1][:-1] in names else before[-1]  # "goblins": goblin
        return f"{m.group('o')} {kind_}"
    return re.sub(r"(?<=\bthe\s)(?P<o>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)(?:\s+one\b|(?=\s*(?:[.,;!?]|$|\s+(?:and|then)\b)))", kind, text, flags=I | re.M)



def _each_of(m: re.Match[str]) -> str:
    """"The ogre first, then the skeleton: attack both", "switch, door, shrine: interact with each":
    the deed at each thing listed, in order."""
    items = [i.strip() for i in re.split(r"\s*(?:,|\bthen\b|\band\b)\s*", re.sub(r"\s+first\b", "", m.group("list"), flags=I)) if i.strip()]
    named = [i if re.match(r"the\s|[a-z]+\s+\d", i, I) else f"the {i}" for i in items]
    return ", then ".join(f"{m.group('v')} {i}" for i in named) + (m.group("end") or ".")


def _verb_base(word: str) -> str | None:
    """A verb's base form from its third person or participle ("kills", "pulled": kill, pull), by
    WordNet; None when the word is no form of a verb."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    base = _lemma(word.lower(), "v")
    return base if is_verb(base) and base != word.lower() else None

