"""English written as a second language, and a tester's button words, in the forms the reader reads.

A tester whose first language is not English (``tests/evo/plans/dev/*_dev26.yaml``, read after it
was measured) writes clear steps in forms a native speaker would not, each a literal translation:

- "please to go", "you must to activate": the infinitive's "to" after a request or a modal;
- the present continuous for a step or a habit: "you are going to the switch", "every enemy which
  is coming close", "all the coins you are finding";
- the subject said before each step: "you take the coin, then you activate the switch";
- a preposition of another language: "wait the door to open", "near of you", "arrive to stump 3",
  "go at lamp 1", "walk until the door", "turn on the left";
- a deed as a noun: "make an interaction with the shrine", "give him a hit"; a purpose after
  going: "go to pray at the shrine";
- order words: "Firstly", "at last", "in the end", "and after it", "After, go"; "not" for
  "don't": "go to the lava, not jump it"; "kill first goblin" (no article); "the coin which is
  the second one"; "Every enemy near you: attack.";
- words around the steps: "stop there", "no shrine this time", "one time", "of play", "walk in
  the park and", "if on the way";
- a wish about the player: "I need that the player stands by the switch".

A tracker's testers name a game's button for its deed ("hit interact", "press jump"), write
"whichever enemy is nearest", "then the first", "anything hostile", "confirm the door is open and
step in", "wait for the door", "try to open it".

Each is one pattern over closed-class words (prepositions, pronouns, modals, "make", "give"); a
word is a verb, and a noun's verb, by WordNet (:mod:`evo.plans.lexicon`).
"""

from __future__ import annotations

import re
from typing import Iterable

from evo.plans.everyday import EVERYDAY, HAVING, THERE_IS, WAY_LEAD, WAY_THERE, _having, both_kinds, each_listed, ordinal_one
from evo.plans.means import by_means
from evo.plans.shorthand import every_one
from evo.plans.slang import unslanged

I = re.IGNORECASE
FORMS = ((re.compile(r"\b(?:have|take)\s+a\s+go\s+at\b", I), "attack"),
         (re.compile(r"\bplease\s+to\s+", I), "please "),
         (re.compile(r"\b(must|should|can|could|will|would)\s+to\s+(?=[a-z])", I), r"\1 "),
         (re.compile(r"\bwait(ing)?\s+(?=(?:the|a|an)\s+[\w-]+\s+to\s+[a-z]+)", I), r"wait\1 for "),
         (re.compile(r"\b(near|close)\s+of\b", I), r"\1 to"),
         (re.compile(r"\barrive\s+(?:to|at|in)\b", I), "go to"),
         (re.compile(r"\bcome\s+back\s+to\b", I), "go back to"),
         (re.compile(r"\b(go|walk|run|come)\s+(?:at|until)\s+(?=the\b|[a-z]+\s+\d)", I), r"\1 to "),
         (re.compile(r"\b(?:go|walk|come)\s+in\s+(?=the\s+door\b)", I), "go through "),
         (re.compile(r"\bpass(?:\s+through)?\s+(?=the\s+(?:door|gate|doorway)\b)", I), "go through "),
         (re.compile(r"\bturn\s+(?:on|to|towards|at)\s+(?:the\s+)?(left|right)\b", I), r"turn \1"),
         (re.compile(r"(?<=[a-z])\s+for\s+(?=(?:push|pull|press|use|activate|open|kill|touch|jump|attack|flip|hit|interact\s+with)\s+(?:it|them)\b)", I), " and "),
         (re.compile(r"(?<=[a-z])\s+for\s+(?=(?:finish|end|complete)(?:\s+(?:the\s+)?(?:level|game|run)\b|\s*(?:[.!,;]|$)))", I | re.M), " to "),
         # "go to the switch for push it": a purpose, in another language's preposition
         (re.compile(r"\b(?P<x>[a-z]+s)\s+what\s+(?=(?:come|comes|is|are|get|gets|go|goes|walk|walks)\b)", I), r"\g<x> that "),  # "the goblins what come near"
         (re.compile(r"\blook\s+(?:at|to)\s+(?:the\s+)?(?=(?:up|down)\b)", I), "look "), (re.compile(r"\bmake\s+(?=look\s+(?:(?:at|to)\s+(?:the\s+)?)?(?:up|down)\b)", I), ""),
         # "look at up", "make look to up", "make look down"
         (re.compile(r"\bactive\s+(?=it\b|them\b|the\s)", I), "activate "),  # "Go at the lever, active it."
         (re.compile(r"(?:,\s*|\s+)(?:and\s+)?at\s+end\s*,?\s+(?=[a-z])", I), ", then "),  # "and at end take the coin two"
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:it\s+)?is\s+need(?:ed)?\s+to\s+[^:.!?\n]{1,40}:\s*", I | re.M), ""),  # "Is need to open door: go to lever"
         (re.compile(r"(?P<pre>\b(?:door|gate)\s+(?:is|was|has\s+been|gets)\s+open(?:ed)?\b[^.!?\n]*?\b(?:go|walk|step|head))\s+(?:inside|in)\b"
                     r"(?!\s+(?:the|a|an|it|to|through)\b)(?=\s+and\b|\s*[,.;!?]|\s*$)", I | re.M), r"\g<pre> through it"),
         # "when door is opened you go inside": through the door
         *EVERYDAY,
         (re.compile(r"\bfirstly\b", I), "first"),
         (re.compile(r"\balways\s+when\b", I), "whenever"),
         (re.compile(r"(?:,\s*|\s+)(?:and\s+)?(?:at\s+last|in\s+the\s+end)\s*,?\s+(?=[a-z])(?!but\b)|\s+and\s+at\s+the\s+end\s*,?\s+(?=you\s)", I), ", then "),
         (re.compile(r"(?:,\s*|\s+)and\s+after\s+(?:it|that|this)\s*,?\s+|,\s*after\s+(?:that|this)\s*,?\s+(?=you\s)", I), ", then "),
         (re.compile(r"\bare\s+going\s+to\s+(?=(?:the|a|an)\b)", I), "go to "),
         (re.compile(r"\b(?:hit|press|use|do|spam)\s+(?:the\s+)?[\"']?(interact|jump|attack)[\"']?(?:\s+(?:button|key|action|input))?(?![\w-])", I),
          r"\1"),
         (re.compile(r"^\s*in\s+the\s+(?:first|second|third|next|last|other)\s+(?:room|area|hall|corridor)\s*,?\s*", I | re.M), ""),
         (re.compile(r"\bduring\s+(?:all\s+the\s+way|the\s+whole\s+way|all\s+the\s+time)\s*,?\s*", I), "always "),
         (re.compile(r"\bduring\s+(?=\d+\s+(?:seconds?|steps?|minutes?))", I), "for "),
         (re.compile(r"\bhalf\s+minute\b", I), "half a minute"),
         (re.compile(r"\b(?P<a>an?\s+(?P<t>[a-z]+)),\s*any\s+(?P=t)\s*(?P<e>[,.;!?\n]|$)", I), r"\g<a>\g<e>"),  # "Kill an enemy, any enemy."
         (re.compile(r"\b(?P<a>(?P<n>two|three|four|five|[2-5])\s+[a-z]+s),\s*any\s+(?P=n)\s*(?P<e>[,.;!?\n]|$)", I), r"\g<a>\g<e>"),  # "three coins, any three"
         (re.compile(r"\bwh(?:ich|at)ever\s+(?P<t>[a-z]+)\s+is\s+(?P<q>nearest|closest)\b(?:\s+(?:to\s+)?(?:the\s+(?:start|spawn|player)|you))?", I), r"the \g<q> \g<t>"),
         (re.compile(r"(?<=\bthen\s)the\s+(?P<o>first|second|third|fourth|fifth|last)\s*(?=[.,;!?]|$)", I | re.M), r"the \g<o> one"),
         (re.compile(r"\b(?:anything|everything|anyone)\s+hostile\b|\bany\s+hostiles?\b", I), "any enemy"),
         (re.compile(r"\b(?:anything|everything|whatever)\s+(?:that\s+)?(?:can|you\s+can)\s+(?:be\s+)?(?:picked\s+up|pick\s+up|collected|collect|grabbed|grab)\b", I), "any item"),
         (re.compile(r"\b(?:confirm|verify|check|ensure|make\s+sure)\s+(?:that\s+)?the\s+(?P<t>[a-z]+)\s+is\s+(?P<s>open|on)\s+and\s+", I),
          r"once the \g<t> is \g<s>, "),
         (re.compile(r"\bwait\s+for\s+the\s+(?P<d>door|gate)(?:\s+to\s+(?:swing\s+|slide\s+|finish\s+)?open(?:ing)?)?\s*(?=[,;.]|\s+(?:and|then)\b)", I),
          r"wait until the \g<d> is open"),
         (re.compile(r"\b(?P<w>when|once|after)\s+(?:it\s+is\s+)?(?:open|opened|unlocked)\b(?!\s+(?:the|a|it)\b)", I), r"\g<w> it is open"),  # "through door when open"
         (re.compile(r"\s*[,;(-]?\s*(?:any|whichever)\s+(?:one|[a-z]+)\s+(?:is|will\s+do|works|would\s+do)(?:\s+(?:fine|ok(?:ay)?|good|enough))?\s*\)?(?=\s*[.!]?\s*$)", I | re.M), ""),
         (re.compile(r"\btry\s+to\s+(?=[a-z]+\s)", I), ""),
         (re.compile(r"\bhoover\s+up\b(?!\s+(?:everything|anything|(?:all\s+(?:the\s+)?)?(?:stuff|loot|goodies|items?))\b)", I), "collect"),  # "Hoover up every coin"
         (re.compile(r"\b(i|we|they)'(m|re)\b", I), lambda m: f"{m.group(1)} {'am' if m.group(2).lower() == 'm' else 'are'}"),
         (re.compile(r"\bin\s+the\s+event\s+that\b", I), "if"),
         (re.compile(r"\b(?:get|make)\s+(?P<d>the\s+(?:door|gate)|it)\s+(?:open(?:ed)?|unlocked)\s+(?=(?:with|using|via|by)\s)", I), r"open \g<d> "),  # "get the door open with the lever"
         (re.compile(r"\b(?:go|get|cross|make\s+it)\s+(?:over|across)\s+(?P<x>the\s+[a-z]+(?:\s+pit)?)\s+(?:with|by)\s+(?:a\s+)?(?:jump|leap|hop)(?:ing)?\b", I),
          r"jump over \g<x>"),  # "go over the lava with a jump"
         (re.compile(r"\bto\s+(?:get|have)\s+(?P<d>the\s+(?:door|gate))\s+(?:open(?:ed)?|unlocked)\b", I), r"to open \g<d>"),  # "pull the switch to get the door open"
         (re.compile(r"\b(?:open|unlock)(?P<ing>ing)?\s+(?P<d>it|(?:the\s+)?(?:door|gate))\s+(?:with|using|via|through|by\s+(?:using|pulling|flipping|pressing|hitting|"
                     r"throwing|toggling|activating|yanking))\s+(?:the\s+)?(?P<s>switch|lever|button)\b", I),
          lambda m: f"{'using' if m.group('ing') else 'use'} the {m.group('s')} to open "
                    f"{'the door' if m.group('d').lower() == 'it' else 'the ' + m.group('d').split()[-1]}"),  # "after opening the door with the lever"
         (re.compile(r"(?:^|(?<=[.!?]\s))using\s+(?P<s>the\s+(?:switch|lever|button))\s*,\s*(?:open|unlock)\s+(?P<d>the\s+(?:door|gate))\b",
                     I | re.M), r"use \g<s> to open \g<d>"),
         (re.compile(r"\b(?P<v>[a-z]+(?:\s+up)?)\s+(?:a|an|one)\s+(?P<t>[a-z]+)\s*,?\s*(?:and\s+)?then\s+(?=another\s+(?P=t)\b)", I),
          r"\g<v> a \g<t>, then \g<v> "),
         (re.compile(r"\b(?P<v>collect|grab|get|pick\s+up|gather|take|pocket|fetch|kill|attack|hit|visit|slay|defeat)\s+(?P<n>two|three|four|five|[2-5])\s+"
                     r"(?!(?:step|second|minute|turn|time|hit|lap|move)s\b)(?P<t>[a-z]+?)e?s\b", I),
          lambda m: ", then ".join([f"{m.group('v')} a {m.group('t')}"] + [f"{m.group('v')} another {m.group('t')}"]
                                   * (({"two": 2, "three": 3, "four": 4, "five": 5}.get(m.group("n").lower()) or int(m.group("n"))) - 1))),
         (re.compile(r"[,;]\s*(?:and\s+)?(?:keep|carry\s+on)\s+(?:at\s+it|doing\s+(?:that|this|so|it)|going|(?:it|this|that)\s+up)\b", I), ""),
         (re.compile(r"\b(?:finish|end)(?:\s+up)?\s+at\s+(?P<x>the\s+[a-z]+(?:\s+\d{1,2})?)\s+by\s+(?P<g>[a-z]+ing)\s+(?:with\s+|at\s+|on\s+)?"
                     r"(?:it|them)\b", I), lambda m: f"{_verb(m.group('g')) or m.group(0)} {m.group('x')}" if _verb(m.group("g"))
          else m.group(0)),
         (re.compile(r"(?:^|(?<=[.!?]\s))there\s+(?:is|should\s+be|will\s+be)\s+(?:a|an|one)\s+(?P<x>[a-z]+)\b[^.!?\n]*[.!?]\s+"
                     r"(?P<v>find|locate|go\s+to|walk\s+to|approach|reach)\s+it\b", I | re.M), r"\g<v> the \g<x>"),
         (re.compile(r"\b(?:clear|cross|get\s+over)\s+(?P<x>the\s+[a-z ]+?)\s+with\s+a\s+(?P<d>jump|leap|hop)\b", I), r"\g<d> \g<x>"),
         (re.compile(r"(?:^|(?<=[.!?]\s))(?P<x>[a-z]+s)\s*:\s*(?P<v>[a-z]+(?:\s+up)?)\s+on\s+sight\b", I | re.M), r"\g<v> \g<x> on sight"),
         (re.compile(r"\b(?:and|then)\s+(left|right)\s+at\s+", I), r"and turn \1 at "),
         (re.compile(r"\bthe\s+(first|second|third|fourth|fifth|last)\s*(?=[.,;!?]|$)", I | re.M), r"the \1 one"),
         (re.compile(r"\b(?:start|begin)\s+(?:off\s+)?with\s+(?:a|an|one)\s+(?=[a-z]+)", I), ""),
         (re.compile(r"\b(?:start|begin)\s+(?:off\s+)?with\s+(?P<x>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)\s*:\s*(?P<v>[a-z][^.;!?\n:]*?)\b(?:it|them)\b", I), r"\g<v>\g<x>"),  # "Start with pillar 1: walk around it."
         (re.compile(r"\benter(?=\s+the\s+[a-z]+)", I), "go into"),
         (re.compile(r"\b(?P<go>go|walk|head|run)\s+to\s+(?P<a>the\s+(?:nearest|closest)\s+[a-z]+)\s+and\s+(?=the\s+(?:nearest|closest)\s+[a-z]+\s*(?:[.,;!]|$))", I | re.M), r"\g<go> to \g<a>, then "),
         (re.compile(r"\bbefore\s+(?:going|moving|heading)\s+anywhere\s*,?\s*", I), "first, "),
         (re.compile(r",?\s*\bthere\s+and\s+back(?:\s+again)?\b", I), ""),
         (re.compile(r"\b(?P<m>(?:has|have|needs?)\s+to|must|should)\s+die\b", I), r"\g<m> be killed"),  # "the second goblin has to die"
         (re.compile(r"(?<!\ba\s)(?<!\bone\s)(?<!\banother\s)(?<!\bthe\s)(?<!\bfirst\s)(?<!\bsecond\s)\bround\b(?=\s+(?:the|it|them|each|every|all|[a-z]+\s+\d)\b)", I), "around"),
         (re.compile(r"\bthat\s+last\s+one\b", I), "it"),  # "Then barrel 3. Circle that last one."
         (re.compile(r"\b(?P<x>[a-z]+)\s+numbered\s+(?=\d{1,2}\b)", I), r"\g<x> "),  # "a stump numbered 4"
         (re.compile(r"\bkeep\s+(?:walking|going|heading|running)\s+(?:up\s+)?to\s+(?:the\s+)?(?P<x>[a-z]+?)s\s+and\s+(?P<v>[a-z]+ing(?:\s+(?:up|down))?(?:\s+(?:at|around|round))?)\s+"
                     r"(?:each|every)\s+one\b", I), r"keep \g<v> every \g<x>"),  # "keep walking up to lamps and looking up at each one"
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:it\s+)?is\s+needed\s+that\s+", I | re.M), ""),  # "Is needed that player flip the lever"
         (re.compile(r"(?:^|(?<=[.!?]\s))for\s+(?=(?:open|unlock|activate)\s+(?:it|the\s+[a-z]+)\s*,)", I | re.M), "To "),  # "For open it, ..."
         (re.compile(r"\b(?P<t>turn|rotate)\s+(?P<a>left|right)\s*,\s*(?P<j>(?:and\s+)?then)\s+(?P<b>left|right)\b", I), r"\g<t> \g<a>, \g<j> \g<t> \g<b>"),  # "turn left, then right"
         (re.compile(r"(?P<look>\blook\s+(?P<d>up|down)\s+at\s+(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)\s*\((?:look|glance)\s+(?P=d)\)", I), r"\g<look>"),  # "(look down)" said again
         (re.compile(r"\s*\((?P<g>[a-z]+ing)\s+(?P<x>(?:(?:over|across|past)\s+)?(?:the|a|an)\s+[a-z]+(?:\s+\d+)?)(?:\s*,?\s*(?:of\s+course|obviously|naturally))?\s*\)(?=\s*(?:[.!;]|$))", I | re.M),
          r", \g<g> \g<x> on the way"),  # "walk to the shrine (jumping the lava of course)": a step on the way there
         (re.compile(r"(?<!\bfirst)\s*,\s*(?:of\s+course|obviously|naturally)(?=\s*(?:[.!?;)]|$))", I | re.M), ""),  # "..., after flipping the switch, of course."
         (re.compile(r"\s*,\s*(?:since\s+|as\s+|because\s+)?(?:they|it|he|she)(?:'ve|'s|\s+have|\s+has|\s+had)\s+been\b[^.;!?\n]*", I), ""),  # "kill them, they've been acting weird lately"
         (re.compile(r"(?<=[a-z0-9])[ \t]+n[ \t]+(?=[a-z])"), " and "), (re.compile(r"\b(?:rigth|rihgt)\b", I), "right"),  # "walk to stump 4 n turn rigth"
         (re.compile(r"\b(?:rotate|spin|turn\s+around)\s+(?=at\s+(?:the\s+)?[a-z]+(?:\s+[a-z0-9]+)?\s*[,:]\s*(?:and\s+)?(?:turn|rotate|spin)\s+(?:left|right)\b)", I), ""),  # "rotate at the second pillar, turn left and then right"
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:and\s+)?(?:while|as)\s+(?:you(?:'re|\s+are)\s+)?(?:walking|moving|going|running|heading)(?:\s+(?:there|around|about|along))?\s*,\s*"
                     r"(?=(?:if|when|whenever|every\s+time|any\s+time)\b)", I | re.M), ""),  # "While you're walking, if you pass a barrel, ...": a standing order
         (re.compile(r"\s*,?\s*\bwhatever\s+(?:it|that)\s+(?:is|may\s+be|happens\s+to\s+be)(?=\s*(?:[.;!?]|$))", I | re.M), ""),  # "the nearest object, whatever it is"
         (re.compile(r"\b(?P<j>and|then)\s+there\s+(?:you\s+)?(?=[a-z]+\b)(?!(?:is|are|was|were|will|should|must|may|might)\b)", I), r"\g<j> "),  # "and there you look up": at that place
         (re.compile(r"\s*\b(?:one\s+after\s+(?:another|the\s+other)|in\s+turn|in\s+sequence)\b", I), ""),
         (re.compile(r",?\s*\bleave\s+(?:the\s+)?[a-z]+\s+alone\b", I), ""),
         (re.compile(r"(?<=\bthen\s)(?=through\s+the\b)", I), "go "),
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:making\s+sure|(?:i\s+)?(?:just\s+)?want\s+to\s+(?:see|check|know|make\s+sure))\b[^.!?\n]*[.!?]?",
                     I | re.M), ""),
         (re.compile(r"(?:^|(?<=[.!?]\s))expect\s+(?:the|that|it|to)\b[^.!?\n]*[.!?]?", I | re.M), ""),
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:nothing|something)\s+should\b[^.!?\n]*[.!?]?", I | re.M), ""),
         (re.compile(r"\b(?P<w>door|switch)_(?P<s>open|on)\s+(?:flips|turns|changes|switches|goes)\s+to\s+(?:1|true|on)\b", I),
          r"the \g<w> is \g<s>"),
         (re.compile(r",?\s*\bprovided\s+(?:that\s+)?(?=(?:it|the\s+\w+)\s+is\s+(?:open|on)\b)", I), " once "),
         (re.compile(r"\b(?:stands|stays|is\s+standing)\s+(?=open\b)", I), "is "),
         (re.compile(r"\blet\s+(?:the\s+(?:player|agent|bot|character)|it|them)\s+(?=[a-z]+)", I), ""),
         (re.compile(r"^\s*(?:check|verify|confirm|test|make\s+sure)\s+(?:that|whether|if)\s+[^:\n]+:\s*", I | re.M), ""),
         (re.compile(r"^\s*(?:checking|testing|verifying|looking\s+at|inspecting)\s+[^:\n]+:\s*", I | re.M), ""),
         (re.compile(r"\banything\s+that\s+(?=(?:attacks|hits|hurts|fights|threatens)\b)", I), "any enemy that "),
         (re.compile(r"(?:^|(?<=[.!?]\s))if\s+[^.!?\n]*,\s*(?:please\s+)?(?:write\s+(?:it\s+)?up|report|log|flag|file|note|tell\s+me|"
                     r"let\s+me\s+know)\b[^.!?\n]*[.!?]?", I | re.M), ""),
         (re.compile(r"(?<=\bthen\s)round\s+(?=[a-z])", I), "around "),
         (re.compile(r",?\s*\band\s+on\s+the\s+way\s*,?\s*", I), ". "),
         (re.compile(r",\s*in\s+order\s*,", I), ""),
         (re.compile(r"^\s*(?:please\s+)?proceed\s+as\s+follows\s*[.:]\s*", I | re.M), ""),
         (re.compile(r"\bthroughout\s+steps\s+\d+\s*(?:to|-|through|and)\s*\d+\s*,?\s*", I), "always "),
         (re.compile(r",?\s*\b(?:and\s+)?(?:stop|stay|remain)\s+there\b", I), ""),
         (re.compile(r",?\s*\bno\s+(?:the\s+)?[a-z]+\s+this\s+time\b", I), ""),
         (re.compile(r"\s+(?:one|1)\s+time\b", I), " once"),
         (re.compile(r"(?:,\s*|\s+)and\s+after\s+(?=(?:around|round|to|at|on|over)\b)", I), ", then "),
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:after(?:wards)?|subsequently)\s*,\s*", I | re.M), "Then "),
         (re.compile(r"(?<=\bthen\s)the\s+same\s+(?=(?:at|with|for|to|on)\b)", I), "do the same "),
         (re.compile(r"\s+of\s+play(?:ing|time)?\b|(?:^|(?<=[.!?]\s))(?:of\s+)?play(?:ing|time)?\s*[.!]\s*", I | re.M), ""),
         (re.compile(r"\b(?:walk|wander|run|move|roam)\s+(?:around\s+)?in\s+the\s+(?:park|level|map|dungeon)\s+and\s+", I), ""),
         (re.compile(r"\bif\s+on\s+the\s+way\s+", I), "if "),
         (re.compile(r"(?:^|(?<=[.;:!?]\s)|(?<=[;:]))\s*(?:when\s+)?(?:near|next\s+to|close\s+to|by)\s+(?=(?:any|every|each|a|an)\s+[a-z]+\s*,)", I | re.M),
          " whenever you are near "),
         (re.compile(r"\b(?P<t>an?\s+[a-z]+)\s+near\s*(?=,)", I), r"\g<t> nearby"),
         (re.compile(r"^(?P<c>(?:before|after|once|when)\s+you\s+[^,.]+?)\s+you\s+(?:must|should|have\s+to|need\s+to)\s+", I | re.M),
          r"\g<c>, "),
         (re.compile(r"\bthe\s+(?P<t>[a-z]+)\s+(?:which|that)\s+is\s+the\s+(?P<o>first|second|third|fourth|fifth|last)(?:\s+one)?\b", I),
          r"the \g<o> \g<t>"),
         (re.compile(r"(?:^|(?<=[.!?]\s))(?P<q>every|any|each|all)\s+(?P<rest>[^:.\n]{1,40}?):\s*(?P<verb>[a-z]+(?:\s+(?:up|down))?)\s*"
                     r"(?=[.!?]|$)", I | re.M), r"\g<verb> \g<q> \g<rest>"),
         (re.compile(r"\bthen\s+(?:on\s+to|onto|over\s+to|across\s+to)\b", I), "then go to"),
         (re.compile(r"\b(go|walk|run|move)\s+round\s+(?=it\b|them\b|the\b|each\b|every\b|any\b|[a-z]+\s+\d)", I), r"\1 around "),
         (re.compile(r"\b(?:(?:so|and)\s+)?(?:basically\s+)?what\s+(?:i|we)\s+(?:need|want)\s+is\s+(?:for\s+)?", I), ""),
         (re.compile(r"(?:^|(?<=[.!?]\s))(?:it\s+)?is\s+(?:necessary|needed|important|required|essential)\s+(?:to\s+)?(?=[a-z])", I | re.M), ""),
         (re.compile(r",?\s*(?:and\s+)?(?:once|when|after|as\s+soon\s+as)\s+(?:it|he|she|they|the\s+[a-z]+)(?:\s+(?:is|are|has\s+been)|'s)\s+"
                     r"(?:dead|killed|gone|down|destroyed|defeated|slain)\s*,\s*", I), ", then "),
         (re.compile(r"\b(?P<v>go|walk|run|head|come|get)\s+back\s+(?=to\b)", I), r"\g<v> "),
         (re.compile(r"\s+before\s+the\s+[a-z]+\s+(?:has|had|have)\s+been\s+[a-z]+(?:ed|en|wn)\b(?![^.!?\n]*\?)", I), ""),
         (re.compile(r"\b(?:take|have)\s+a\s+(?:quick\s+|little\s+)?look\s+(?=(?:up|down)(?:wards?)?\b)", I), "look "),
         (re.compile(r"\b(?:go\s+and\s+)?(?:take|have)\s+a\s+(?:quick\s+|closer\s+|good\s+|little\s+)?look\s+at\s+", I), "go to "),
         (re.compile(r"\b(?P<c>when|once|after|if)\s+(?P<t>it|the\s+[a-z]+)\s+(?P<s>open|closed|on|off|unlocked)\b", I), r"\g<c> \g<t> is \g<s>"),
         (re.compile(r"\b(?:after|when|once)\s+(?:the\s+)?(?P<t>door|gate)\s+is\s+(?:opening|opened)\b\s*,?\s*(?:you\s+)?(?=[a-z])", I),
          r"once the \g<t> is open, "),  # "After door is opening you go inside it"
         (re.compile(r"\s+for\s+(?P<v>use|open|pull|kill|touch|activate|press|flip)\s+(?=it\b|them\b)", I), r" and \g<v> "),  # "go to shrine for use it"
         (re.compile(r"\b(?:get|have)\s+the\s+[a-z]+\s+(?:open|opened|on|unlocked)\s+by\s+(?=[a-z]+ing\b)", I), "start by "),
         (re.compile(r"\b(?P<v>going|walking|running|moving)\s+round\s+(?=[a-z])", I), r"\g<v> around "),
         (re.compile(r"(?:^|(?<=[.!?]\s))the\s+(?P<o>first|last|next|final)\s+thing\s+(?:you|to)\s+do\s+is\s+(?:to\s+)?", I | re.M),
          lambda m: f"{m.group('o').capitalize()}, "))
"""Forms rewritten as they are read, in order."""
CONTINUOUS = re.compile(r"\b(?P<who>you)\s+are\s+(?P<verb>[a-z]+)ing\b", I)
RELATIVE = re.compile(r"\b(?:which|that|who)\s+(?:is|are)\s+(?P<verb>[a-z]+)ing\b", I)
SUBJECT = re.compile(r"(?:(?<=^)|(?<=[.;:!?]\s)|(?<=,\s)|(?<=\band\s)|(?<=\bthen\s)|(?<=\bfirst\s)|(?<=\bnext\s)|(?<=\bfinally\s)|(?<=\bplease\s)|(?<=\bthere\s)|(?<=\d\s)|(?<=\bopen\s)|(?<=\bopened\s)|(?<=\n))(?:you|he|she|(?:the\s+)?(?:player|agent))\s+(?=(?P<verb>[a-z]+)\b)", I)
""""you" (or the player's "he", "she") before a step's verb in its base form at a step's start ("then
you activate the switch", "when the door is opened he go inside it")."""
NOT_STEPS = frozenset({"will", "can", "could", "should", "must", "may", "might", "are", "were", "have", "had", "do", "did",
                       "need", "see", "get", "would", "shall", "want", "know", "find", "notice"})
"""Verbs after "you" that tell or ask rather than step ("you will see", "you need to")."""
THING_DEED = re.compile(r"(?:^(?P<bullet>[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+)?|(?<=[.!?]\s))(?P<x>(?:the\s+)?[a-z]+(?:[ _]\d{1,2})?)[ \t]*(?:,|:|->|→|=>)[ \t]*"
                        r"(?:(?:walk|go|head)(?:[ \t]+there)?[ \t]*,[ \t]*)?(?:just[ \t]+)?(?P<rest>[a-z][^.!?\n]*)", I | re.M)
""""skeleton_2, attack.", "barrel_4: walk there, jump.", "Stump 1: go, look down, look up.": the
deeds where the thing is."""
SEE_THE = re.compile(r"(?:^|(?<=[.!?]\s))(?:do\s+you\s+|can\s+you\s+)?see\s+(?:the|a|an)\s+(?P<x>[a-z]+)\b[^.!?;\n]*\?\s+"
                     r"(?P<next>[^.!?\n]*?)\b(?:it|one)\b", I)
""""See the lava behind the door? Jump over it.": the thing asked about is the step's."""
ON_THE_WAY = re.compile(r"(?P<a>\b(?:grab|get|collect|pick\s+up|take)\s+[^,.;]+?)\s+on\s+(?:your|the)\s+way\s+to\s+"
                        r"(?P<b>the\s+[a-z]+(?:\s+\d{1,2})?|[a-z]+[ _]\d{1,2})", I)
""""Grab coin_2 on your way to the ogre": the coin, then the ogre."""
NOT_STEP = re.compile(r"\b(?P<before>[\w']+)[ \t]*,?[ \t]+not[ \t]+(?=[a-z]+[ \t]+(?:it|them|the)\b)", I)
""""go to the lava, not jump it": a step not to take (after a word that is no auxiliary)."""
AUXILIARIES = frozenset({"do", "does", "did", "is", "are", "was", "were", "be", "been", "should", "must", "can", "could", "will",
                         "would", "may", "might", "shall", "have", "has", "had", "need", "why", "if", "whether"})
NOUN_DEED = re.compile(r"\b(?P<make>make|do|give|take|perform|execute|complete)\s+(?P<whom>(?:him|her|it|them|the\s+[\w-]+(?:\s+\d+)?)\s+)?(?P<art>a|an|one|the)\s+"
                       r"(?:(?:full|single|complete|quick|small|big|whole|little|short|tiny|good)\s+)?(?P<noun>[a-z]+)\b(?P<after>\s+(?:with|around|over|at|on|to|across)\b)?", I)
""""make an interaction with", "give him a hit": the deed's verb ("make a jump" the reader reads as it is)."""
WISH = re.compile(r"\b(?:i|we)\s+(?:need|want|would\s+like|wish)\s+that\s+(?:the\s+player|you|the\s+agent|he|she|it)\s+"
                  r"(?P<verb>[a-z]+?)(?:e?s)?\b", I)
GO_TO_DO = re.compile(r"\b(?P<go>go|come|walk|run|head)\s+to\s+(?P<verb>[a-z]+)\b(?=\s+(?:the|a|an|it|them|at|with|on|over|"
                      r"across|around|up|down|him|her|this|that)\b)", I)
""""go to pray at the shrine": going, then the deed."""

NUMBERS_OF = re.compile(r"\b(?P<t>[a-z]+?)(?P<s>s?)(?P<sep>[ \t]*:[ \t]*|[ \t]+)(?P<list>\d{1,2}(?:[ \t]*(?:,[ \t]*(?:and[ \t]+|then[ \t]+)?|(?:and|then)[ \t]+)\d{1,2}\b)+)"
                        r"(?![ \t]*(?:steps?|moves?|turns?|seconds?|secs?|minutes?|mins?|times?|s)\b)", I)
""""pillar 1, 2, 3, 4", "each barrel: 1, 2, 3 and 4": the thing's name before each number."""


def _numbers_of(m: re.Match[str]) -> str:
    numbers, t = re.findall(r"\d{1,2}", m.group("list")), m.group("t")
    said = [f"{t if i == 0 else t.lower()} {n}" for i, n in enumerate(numbers)]  # "Coins 1, 2, 3": "Coin 1, coin 2 and coin 3"
    if re.search(r"\bthen\b", m.group("list"), re.IGNORECASE):  # "Collect coins: 3, then 1, then 2": each in turn
        return ", then ".join(said)
    listed = ", ".join(said[:-1]) + f" and {said[-1]}"
    return f"{m.group('t')}{m.group('s')}{m.group('sep')}{listed}" if ":" in m.group("sep") else listed


def plain(text: str, things: Iterable[str] = (), verbs: Iterable[str] = ()) -> str:
    """``text`` with the module's forms in the words the reader reads; ``things`` and ``verbs``:
    the game's words for its things ("go to switch" is going to the switch, not to switch) and
    its deeds ("make one circle around it": circle around it)."""
    names = {t.lower() for t in things}
    text = unslanged(by_means(text), names)  # "hey can u kill goblin 1", "shrine (use)"
    deeds = {v.lower() for v in verbs if not isinstance(verbs, dict) or verbs[v] != "move"}  # "make a run for" is no deed
    second = any(re.search(rf"\b(?:to|over|touch|use|at)\s+{re.escape(n)}\b(?!\s*(?:\d|number|no\.|#))", text, I) for n in names if n.isalpha()) \
        or re.search(r"\bmake\s+(?:it\s+(?:on|off|open)|a\s+(?:jump|turn|circle))\b|\b(?:go|walk|run)\s+until\b|\b(?:around|round)\s+(?:him|her)\b", text, I) is not None
    # "go to switch", "make it on", "go until barrel 3", "make one round around him"
    text = re.sub(r"(?:^|(?<=[.!?]\s))(?P<x>[a-z]+)\s+on\s*(?=,)", lambda m: m.group("x") if m.group("x").lower() in names else m.group(0), text, flags=I | re.M)  # "Switch on, door, lava"
    for pattern, said in FORMS:
        text = pattern.sub(said, text)
    text = re.sub(r"\b(?:look|search|hunt)\s+(?:around\s+)?for\s+(?:the\s+|any\s+|some\s+)?(?P<x>[a-z]+?)s\b", lambda m: f"go to every {m.group('x')}"
                  if m.group("x").lower() in names else m.group(0), text, flags=I)  # "Look for barrels for 15 seconds and walk up to each one"
    text = re.sub(r"\b(?P<q>all\s+(?:of\s+)?the)\s+(?P<x>[a-z]+)\b(?!['-])", lambda m: f"{m.group('q')} {m.group('x')}s"
                  if m.group("x").lower() in names and not m.group("x").lower().endswith("s") else m.group(0), text, flags=I)  # "kill all the monster"
    text = re.sub(r"(?:^|(?<=[,;]))(?P<s>[ \t]*)(?P<t>[a-z]+[ \t]+\d{1,2})[ \t]*(?:->|=>|→|:)[ \t]*(?P<v>[a-z]+(?:[ \t]+(?:up|down|left|right|around))?)"
                  r"(?=[ \t]*(?:[,;.]|$))", lambda m: f"{m.group('s')}{m.group('v')} {m.group('t')}" if m.group("t").split()[0].lower() in names
                  else m.group(0), text, flags=I | re.M)  # "barrel 4 -> jump, pillar 1 -> circle"
    text = re.sub(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?P<x>[a-z]+s)(?:\s+only)?\s*:\s*(?P<v>[a-z]+(?:\s+(?:up|down|out))?)\s+them(?P<p>\s+(?:up|down|out))?\b", lambda m: f"{m.group('v')}{m.group('p') or ''} {m.group('x')}"
                  if m.group("x").lower()[:-1] in names else m.group(0), text, flags=I | re.M)  # "Goblins: kill them when they come close."
    text = re.sub(r"(?:^[ \t]*|\s*,\s*)(?:the\s+)?(?P<x>[a-z]+s)\s+only\s*:\s*", lambda m: ("" if m.start() == 0 or text[m.start() - 1] == "\n" else ": ")
                  if m.group("x").lower()[:-1] in names else m.group(0), text, flags=I | re.M)  # "Sixty steps, ogres only: ..."
    text = re.sub(r"\s*,\s*(?:but\s+)?the\s+(?P<x>[a-z]+)\s+(?:has|needs)\s+to\s+be\s+(?P<v>[a-z]+ed)\s+(?:before|first|beforehand)(?:\s*,?\s*though)?(?=\s*(?:[.!]|$))",
                  lambda m: f", but {_verb(m.group('v'))} the {m.group('x')} first" if _verb(m.group("v")) else m.group(0), text, flags=I | re.M)  # ", the lever has to be pulled before though"
    text = NUMBERS_OF.sub(lambda m: _numbers_of(m) if m.group("t").lower() in names else m.group(0), text)  # "pillar 1, 2, 3, 4"
    text = re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", text)  # a cut phrase's room ("and then  look")
    if "door" in names:  # "Pull the switch and go in.", "- go through": through the one thing the game goes through
        text = re.sub(r"\b(?P<v>go|walk|head|step|move|run|pass)\s+(?P<p>through|thru|in|inside)\b(?=[ \t]*(?:[,.;!)]|$|and\b|then\b))", r"\g<v> \g<p> the door", text, flags=I | re.M)
    text = re.sub(r"\b(?P<v>walk|go|run|move|head)\s+until\s+(?=(?:the\s+)?(?P<x>[a-z]+)(?:\s+(?:number\s+)?\d+|\s+number\s+[a-z]+)?\s*(?:[,.;]|$))",
                  lambda m: f"{m.group('v')} to " if m.group("x").lower() in names else m.group(0), text, flags=I | re.M)  # "walk until the barrel 3"
    text = re.sub(r"\b(?P<i>(?P<x>[a-z]+)[ \t]+\d{1,2})[ \t]+(?=(?P<verb>[a-z]+)\b)", lambda m: f"{m.group('i')}, " if m.group("x").lower() in names
                  and m.group("verb").lower() not in names and _base_verb(m.group("verb")) else m.group(0), text, flags=I)  # "go to lamp 1 look up"
    if "enemy" in names:  # "Kill anything that gets close": what one kills is an enemy, where the game names them so
        text = re.sub(r"\b(?P<v>kill|attack|fight(?:\s+off)?|hit|slay|strike|take\s+out|take\s+down|deal\s+with)\s+(?:anything|everything|whatever|anyone)\b(?=\s+(?:that|which|who|on|in|near|nearby|"
                      r"close|hostile|you|around|comes?|gets?|attacks?)\b|\s*[,.;]|\s*$)", r"\g<v> any enemy", text, flags=I)
    if "collectable" in names:  # "Loot everything", "collecting stuff": what one picks up is a collectable
        text = re.sub(r"\b(?P<v>loot|collect|collecting|grab|grabbing|gather|gathering|pick\s+up|picking\s+up|hoover\s+up)\s+(?:everything|anything|whatever|"
                      r"(?:all\s+(?:the\s+)?)?(?:stuff|loot|goodies|items?))\b(?:\s+(?:that\s+is\s+|that's\s+|is\s+)?lying\s+(?:around|about))?"
                      r"(?=\s*(?:[,.;!]|$|and\b|then\b|you\b|for\b|along\b|on\b|always\b))",
                      lambda m: f"{m.group('v')} every collectable", text, flags=I)  # "loot whatever is lying around"
    text = THING_DEED.sub(lambda m: f"{m.group('bullet') or ''}go to {_the(m.group('x'))}, then {m.group('rest')}" if _head(m.group("x")) in names
                          and (m.group("rest").split()[0].lower() in deeds | {"go", "walk", "visit", "reach"} or re.match(r"(?:look|turn|face|glance)\s+(?:up|down|left|right)\b", m.group("rest"), I))
                          and _head(m.group("x")) not in ASIDE_WORDS
                          and not _head(m.group("x")).endswith("s") else m.group(0), text)
    text = every_one(ordinal_one(each_listed(both_kinds(HAVING.sub(_having, text), names)), names), names)
    text = re.sub(r"\b(?P<x>[a-z]+)\s+(?P<d>jump|flip|pull|kill|press|use)\b(?=\s*(?:[,.;]|$|then\b|and\b))",
                  lambda m: f"{m.group('d')} the {m.group('x')}" if m.group("x").lower() in names else m.group(0), text, flags=I | re.M)  # "lava jump"
    text = BARE_THING.sub(lambda m: f"{m.group('w')} {'to ' if m.group('w').lower() in GOING else ''}the " if m.group("x").lower() in names
                          and (m.group("w").lower() in PREPOSITIONS | GOING or m.group("w").lower() in deeds)
                          and not _plural(m.group("x").lower(), names) else m.group(0), text)
    text = THERE_IS.sub(lambda m: f"{m.group('next')}the {m.group('o') + ' ' if m.group('o') else ''}{m.group('x')}" if m.group("x") and m.group("x").lower() in names
                        else f"{m.group('next')}{m.group('xn')}" if m.group("xn") and re.split(r"[\s_]", m.group("xn"))[0].lower() in names
                        else m.group(0), text)
    text = SEE_THE.sub(lambda m: f"{m.group('next')}the {m.group('x')}" if m.group("x").lower() in names else m.group(0), text)
    text = WAY_LEAD.sub(lambda m: f"{m.group('a')}, then go to {m.group('b')}", text)
    text = WAY_THERE.sub(lambda m: f"{m.group('b')}, then {m.group('a')}", text)
    text = ON_THE_WAY.sub(lambda m: f"{m.group('a')}, then go to {m.group('b')}", text)
    text = re.sub(r"(?<![\w-])(?<!the\s)(?P<o>first|second|third|fourth|fifth|last)\s+(?P<t>[a-z]+)\b",
                  lambda m: f"the {m.group('o')} {m.group('t')}" if m.group("t").lower() in names else m.group(0), text, flags=I)
    text = CONTINUOUS.sub(lambda m: f"{m.group('who')} {_verb(m.group('verb') + 'ing') or m.group(0)}"
                          if _verb(m.group("verb") + "ing") else m.group(0), text)
    text = RELATIVE.sub(lambda m: f"that {_third(_verb(m.group('verb') + 'ing'))}" if _verb(m.group("verb") + "ing")
                        else m.group(0), text)
    text = WISH.sub(lambda m: _verb(m.group("verb")) or m.group(0), text)
    text = re.sub(r",\s*after\s+you\s+(?P<verb>[a-z]+ing)\b", lambda m: f", then {_verb(m.group('verb'))}" if _verb(m.group("verb"))
                  else m.group(0), text, flags=I)  # "..., after you turning left": no native "after" clause, so afterwards
    text = re.sub(r"\b(?P<y>you|we)\s+(?:are|is)\s+(?=(?P<verb>[a-z]+)\b)", lambda m: f"{m.group('y')} " if m.group("verb").lower() in deeds | GOING
                  else m.group(0), text, flags=I)  # "after you are jump over the lava": after you jump
    if sum(bool(_base_verb(m.group("verb"))) and m.group("verb").lower() not in NOT_STEPS for m in SUBJECT.finditer(text)) >= 2 \
            or re.search(r",\s*after\s+you\s+[a-z]+\b[^,.;!?]*\band\s+then\b", text, I) \
            or second:  # "Jump the lava, after you open the door": first; "go to switch, ...": a second language's
        text = re.sub(r",\s*after\s+you\s+(?P<verb>[a-z]+)\b", lambda m: f", then {m.group('verb')}" if _base_verb(m.group("verb"))
                      else f", then {_verb(m.group('verb'))}" if m.group("verb").lower().endswith("ing") and _verb(m.group("verb"))
                      else m.group(0), text, flags=I)  # "you go to barrel 3 and you turn left, after you go to pillar 1", "..., after you jump and then ...": afterwards
    text = re.sub(r"(?:^|(?<=[.!?]\s))(?P<lead>(?:please\s+)?first(?:ly)?\b[^.;!?,]*?),\s*after\s+you\s+(?=(?P<verb>[a-z]+)\b)",
                  lambda m: f"{m.group('lead')}, then " if _base_verb(m.group("verb")) else m.group(0), text, flags=I | re.M)  # "First ..., after you go": afterwards
    text = re.sub(r"\band\s+after\s+you\s+(?=(?P<verb>[a-z]+)\b[^,;.!?]*(?:[.!?;]|$))", lambda m: "and then " if _base_verb(m.group("verb")) else m.group(0),
                  text, flags=I | re.M)  # "kill the ogre and after you take the coin": no step follows the clause, so afterwards
    text = SUBJECT.sub(lambda m: "" if _base_verb(m.group("verb")) and m.group("verb").lower() not in NOT_STEPS
                       else m.group(0), text)
    text = re.sub(r"(?:^|(?<=[.!?]\s))after\s+(?=(?P<verb>[a-z]+)\s)", lambda m: "Then " if _base_verb(m.group("verb"))
                  and m.group("verb").lower() not in ("you", "the", "that", "this", "it", "a", "an", "we", "they", "i") else m.group(0),
                  text, flags=I | re.M)  # "After go to barrel 4": then
    text = NOT_STEP.sub(lambda m: m.group(0) if m.group("before").lower() in AUXILIARIES else f"{m.group('before')} don't ", text)
    text = NOUN_DEED.sub(lambda m: _deed(m, names, deeds), text)
    text = re.sub(r"\b(?:make|do)\s+(?P<noun>[a-z]+)\b", lambda m: m.group("noun") if m.group("noun").lower() in deeds else m.group(0),
                  text, flags=I)  # "make jump there": the game's deed, no article
    text = re.sub(r"\band\s+to\s+(?=(?P<verb>[a-z]+)\b)", lambda m: "and " if _base_verb(m.group("verb"))
                  and m.group("verb").lower() not in names else m.group(0), text, flags=I)  # "walk to it and to give"
    return GO_TO_DO.sub(lambda m: f"{m.group('go')} {m.group('verb')}" if _base_verb(m.group("verb"))
                        and m.group("verb").lower() not in names else m.group(0), text)


def _verb(word: str) -> str | None:
    """The verb a word is a form of ("finding": find), by WordNet; None when it is none."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    base = _lemma(word, "v")
    return base if is_verb(base) else None


def _base_verb(word: str) -> bool:
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    return is_verb(word) and _lemma(word, "v") == word.lower()


def _third(verb: str | None) -> str:
    """"comes", "passes": the verb with a third person's ending."""
    verb = verb or ""
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z", "o")) else "s")


def _deed(m: re.Match[str], names: set[str], deeds: set[str]) -> str:
    """A deed said as a noun, as its verb ("make an interaction with": interact with)."""
    noun = m.group("noun").lower()
    if noun in names:
        return m.group(0)  # "take a coin" is no deed in a noun
    for verb in (noun, noun[:-3], noun[:-3] + "e", noun[:-5] + "e"):  # jump; interaction; rotation
        if m.group("art").lower() == "the" and (verb != noun or verb not in deeds):
            continue  # "make the jump" is a jump; "do the usual" is no "use"
        if len(verb) > 2 and _base_verb(verb) and (verb != noun or m.group("whom") or verb in deeds) and m.group("make").lower() != "take":
            whom = (m.group("whom") or "").strip()
            return " ".join(p for p in (verb, whom) if p) + (m.group("after") or "")
    return m.group(0)


BARE_THING = re.compile(r"(?<![\w'-])(?P<w>[a-z]+)\s+(?=(?P<x>[a-z]+)\b(?![ \t]*(?:\d|#|_|-\w|(?:one|two|three|four|five)\b)))", I)
""""go to door", "interact switch": a thing's name with no article after a preposition or a deed's verb
(the tagger reads "to door" as no thing, and "interact switch" as two verbs)."""
GOING = frozenset({"go", "walk", "run", "head", "move"})
PREPOSITIONS = frozenset({"to", "at", "over", "across", "into", "through", "past", "with", "toward", "towards"})


def _plural(word: str, names: set[str]) -> bool:
    """"enemies", "coins", "switches": a plural of one of the game's names (no one thing)."""
    return word.endswith("s") and (word[:-1] in names or word[:-2] in names or (word.endswith("ies") and word[:-3] + "y" in names))
ASIDE_WORDS = frozenset({"goal", "objective", "aim", "purpose", "task", "mission", "target"})
"""Labels that are also a game's words (the dungeon's shrine is its "goal"): "Goal: use the lever"."""


def _the(phrase: str) -> str:
    """A thing's phrase with its article ("Shrine": "the shrine"; "skeleton_2" keeps its number)."""
    return phrase if re.match(r"the\s", phrase, I) or re.search(r"\d", phrase) else f"the {phrase.lower()}"


def _head(phrase: str) -> str:
    """The thing's word of a phrase ("the second skeleton", "skeleton_2": skeleton)."""
    words = re.findall(r"[a-z]+", phrase.lower())
    return words[-1] if words else ""
