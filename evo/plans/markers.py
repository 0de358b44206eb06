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

from evo.plans.phrasing import NUMBER_WORDS as _NUMBER_WORDS, plain

_ORDINAL_WORDS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|next|final|last"
MARKER = re.compile(
    r"^\s*(?:[-*•‣◦+>]+|\(?\d+[.):]?\)?(?:\s*[-–:.])?|#\d+[.):]?|\(?[a-h][.)]|\(?(?:i{1,3}|iv|v|vi{1,3})[.)]|"
    rf"\d+(?:st|nd|rd|th)\s*[:.)-]|(?:step|action|move)\s+(?:\d+|[a-h]|{_NUMBER_WORDS})\s*[:.),\-–]?|"
    rf"(?:{_ORDINAL_WORDS})\s+step\s*[:.)\-–]?)(?:\s+|$)", re.IGNORECASE)
"""A list marker or a step label at the start of a sentence ("2)", "Step two:", "Action 1 -", "1st:")."""
TASK = re.compile(
    rf"^\s*(?:(?:your|our|the)\s+)?(?:(?:{_ORDINAL_WORDS}|main|only)\s+)?(?:task|goal|objective|mission|job|thing|aim|"
    rf"step|to-?do)(?:\s+(?:\d+|[a-h]|{_NUMBER_WORDS}))?\s*[:\-–](?:\s+|$)", re.IGNORECASE)
"""A heading that names the step a task or goal ("Your first task:", "Goal:", "Task 2 -")."""
LABEL = re.compile(
    rf"^\s*(?:(?:{_ORDINAL_WORDS}|then|after that|last of all|first of all|to (?:start|begin|finish|end)|"
    r"in the end|at the end|at last|lastly|firstly|secondly|thirdly|finally)\s*[,:]|"
    r"(?:firstly|secondly|thirdly|lastly)\b|(?:start|begin|finish|end) (?:off )?by|"
    r"(?:keep on|keep|continue|carry on|go on)(?=\s+\w+ing\b)|"
    r"(?:you|we|the player|the tester)\s+(?:should|must|need to|have to|has to|will|are to|is to)\b|"
    r"(?:make sure|be sure|try|remember|don't forget|do not forget|be certain)\s+(?:to|and|(?:that\s+)?you)\b|"
    r"(?:go|come|run|head|hurry)(?:\s+(?:ahead|on|over|back))?\s+and\b)\s*", re.IGNORECASE)
"""An ordinal adverb labelling a step ("Second,", "Last of all,", "Firstly", "Start by"), or
a verb of going on before the step's verb ("Keep hitting goblins"), or who must do it ("You
should press ...", "Make sure to ...", "Go and ...")."""
INLINE = re.compile(r"\s+(?=\(\d+\)\s|\(?[a-h]\)\s|#\d+\s|step\s+(?:\d+|" + _NUMBER_WORDS + r")\s*[:\-–]\s)",
                    re.IGNORECASE)
"""A marker in the middle of a line ("(1) Hit the goblin (2) Flip the switch"): a new step."""


PURPOSE = re.compile(r",?\s+(?:to|in order to)\s+(?:begin|start|finish|end)(?:\s+(?:with|off))?\s*(?=[.!?]?\s*$)",
                     re.IGNORECASE)
"""A purpose that only places the step in the list ("Flip the lever to begin."): no actor."""
INTENSIFIER = re.compile(r"\b(?:straight|right|directly|way)\s+(?=(?:up|down|upwards?|downwards?|ahead)\b)|"
                         r"(?<=up)\s+high\b|(?<=down)\s+high\b", re.IGNORECASE)
"""A word that only stresses a direction ("look straight up", "look up high")."""
THEN = re.compile(r",?\s+(?:and\s+)?(?:after that|after this|afterwards|afterward|following that|once done)\s*,?\s+",
                  re.IGNORECASE)
"""A joining phrase in the middle of a sentence ("..., and after that press ..."): "then"."""
SERIAL = re.compile(r"(?:^|(?<=[,;:] )|(?<=then )|(?<=now )|(?<=and )|(?<=also )|(?<=just ))(?:go|come|run|hurry|try to|try and)\s+(?=([a-z]+)\b)", re.IGNORECASE)
"""A verb of going before the verb of the step ("go pull the lever", "come fight"): the step
is the second verb's (the going is implied by every step at a thing)."""
NOT_SERIAL = frozenset({"to", "and", "get", "through", "past", "over", "across", "up", "down", "into", "around",
                        "round", "back", "on", "off", "in", "out", "by", "near", "towards", "toward", "left", "right",
                        "forward", "forwards", "straight", "ahead", "home", "there", "here", "the", "a", "an", "with",
                        "along", "away", "inside", "outside", "north", "south", "east", "west", "under", "onto",
                        "clockwise", "counterclockwise", "counter", "anti", "stand", "stay", "wait", "anticlockwise", "once", "twice", "is", "at", "for"})
"""Words after a verb of going that are its path, not a second verb ("go to", "go get", "go
around"): "get" after "go" is the going itself ("go get a coin")."""
ORDER = re.compile(r"^(?P<lead>before|after|once(?=\s+you(?:'ve|\s+have)))\s+(?:you(?:'ve|\s+have|\s+had)?\s+)?(?P<first>(?:\w+ing|(?<=you )\w+|"
                   r"(?<=have )\w+|(?<='ve )\w+)\b[^,]*),\s*(?P<then>.+)$|"
                   r"^(?P<main>[^,]+?)(?<!\band)(?<!\bthen),?\s+(?P<lead2>before|after)\s+(?:you(?:'ve|\s+have|\s+had)?\s+)?"
                   r"(?P<other>(?:\w+ing|(?<=you )\w+|(?<=have )\w+|(?<='ve )\w+)\b(?:(?!,?\s+(?:and\s+)?then\b).)*)(?P<rest>,?\s+(?:and\s+)?then\b.*)?$",
                   re.IGNORECASE)
"""A step ordered by another one ("before you pull the lever", "after killing the ogre"): two
steps in the order they are done, not a condition ("after the switch is on" has no "you" and
no verb in -ing); a "then" after the other step goes on from the pair ("Jump the lava after you
pull the lever, then use the shrine": the lever, the lava, the shrine)."""


TAIL = re.compile(r"(?:\s+(?:as well|too|also|again|once more|once again|quickly|carefully|right away|at once|immediately|"
                  r"on the spot|in place|where you stand|"
                  r"afterwards?)|(?<=\bit)\s+back|(?<=\bthem)\s+back)(?=\s*(?:[,.;!?]|$|,?\s+(?:and|then)\b))", re.IGNORECASE)
"""An adverb at the end of a step ("hit it as well", "pull the lever right away", "hit it back",
"hop on the spot"): how, how often or where the player already is, never an actor."""
SKY = re.compile(r"\b(?:at|to|towards?|into)\s+(?:the|your)\s+(?:(?P<up>sky|ceiling|heavens|clouds)|(?P<down>ground|floor|feet))\b",
                 re.IGNORECASE)
"""A direction named by what lies that way ("look at the sky": up; "at the ground": down): the
only nouns read as directions, a short list of the world's up and down."""
REPEATING = re.compile(r"^\s*(?:keep on|keep|continue|carry on|go on)\s+(?!going\b|playing\b)(\w+ing)\b", re.IGNORECASE)
"""Going on with a deed ("Keep attacking the enemies"): the deed done every time, a rule
("always attack"); "keep going", "keep playing" only say how long (a budget's words)."""
MASS = re.compile(r"\b(?:a (?:little )?bit of|a little|a few|a couple of|a handful of|a lot of|lots of|a bunch of)\s+(?=\w)",
                  re.IGNORECASE)
"""An amount of a thing ("a bit of cash", "a few coins"): "some" of it, one step, not the
actor "bit"."""


GOAL = re.compile(r"\s+(?:in order\s+|so as\s+)?to\s+(?P<verb>[a-z]+)\s+(?P<thing>(?:the|a|an)\s+[a-z]+)(?=(?:\s+(?:first|beforehand))?\s*(?:[,;]|[.!?]?\s*$|[.!?]\s)|[.!?]?[ \t]*\n|\s+(?:and|then)\s+(?:go|walk|head|run|step|pass|move)\s+(?:through|in|inside|out)\b|\s+(?:and\s+)?then\s|\s+and\s+(?!the\b|a\b|an\b))",
                  re.IGNORECASE)
"""A purpose after a step ("Hit the switch to open the door"): what the step is for, no step of
its own; "it" after it is that thing ("..., then walk through it": the door)."""
SO_THAT = re.compile(r"\s+so(?:\s+that)?\s+(?P<thing>(?:the|a|an)\s+[a-z]+)\s+[a-z]+(?:\s+[a-z]+)?(?=\s*(?:[,;]|[.!?]?\s*$))",
                     re.IGNORECASE)
"""A result the step is for ("Press the switch so that the door opens"): as a purpose."""
HEADING = re.compile(r"^\s*(?:[A-Za-z'-]+\s*){1,4}:\s*$")
"""A line that only heads the steps ("Steps:", "Test plan:", "What to do:"): no step."""
REACHING = frozenset({"reach", "get", "go", "walk", "head", "run", "move", "return", "come", "visit", "find"})
"""Verbs of a purpose that is a step of its own ("jump the pit to reach the door")."""


def _purpose(sentence: str) -> str:
    """``sentence`` without a purpose clause (:data:`GOAL`), "it" after it read as its thing, and
    a way through with no object ("then go through") through it."""
    from evo.plans.lexicon import is_verb

    m = SO_THAT.search(sentence) or GOAL.search(sentence)
    if m is None or "verb" in m.groupdict() and (m.group("verb").lower() in REACHING or not is_verb(m.group("verb"))):
        return sentence
    after = sentence[m.end():]
    it = re.search(r"\bit\b", after)
    if it is not None and re.search(r"\b(?:the|a|an)\s+[a-z]+|\b[a-z]+\s+\d", after[:it.start()], re.IGNORECASE):
        return sentence[:m.start()] + after  # "..., then go to the ogre and hit it": the ogre, named since
    rest, found = re.subn(r"\bit\b", m.group("thing"), after, count=1)
    if not found:  # "..., then go through": through it
        rest = re.sub(r"\b((?:go|walk|head|run|step|pass|move)\s+(?:through|in|inside|out))(?=\s*(?:[.,;!?]|$))",
                      lambda g: f"{g.group(1)} {m.group('thing')}", rest, count=1, flags=re.IGNORECASE)
    return sentence[:m.start()] + rest


def _verb(word: str) -> str:
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()  # morphy finds no base form before WordNet is loaded
    return _lemma(word, "v")


def _serial(sentence: str) -> str:
    """``sentence`` without a verb of going that stands before another verb."""
    from evo.plans.lexicon import is_verb

    def cut(m: re.Match[str]) -> str:
        word = m.group(1).lower()
        return "" if word not in NOT_SERIAL and is_verb(word) else m.group(0)

    return SERIAL.sub(cut, sentence)


def _ordered(sentence: str) -> str:
    """"A before you B" and "after B-ing, A" as the two steps in the order done ("B, then A")."""
    m = ORDER.match(sentence.strip().rstrip(".!"))
    if m is None:
        return sentence
    if m.group("lead"):
        lead, first, then = m.group("lead").lower(), m.group("first"), m.group("then")
        done = [then, first] if lead == "before" else [first, then]
    else:
        lead, main, other = m.group("lead2").lower(), m.group("main"), m.group("other")
        done = [main, other] if lead == "before" else [other, main]
    steps = [" ".join([_verb(s.split()[0]), *s.split()[1:]]) for s in done]
    rest = re.sub(r"^,?\s+(?:and\s+)?", ", ", m.group("rest") or "") if not m.group("lead") else ""
    return f"{steps[0]}, then {steps[1][0].lower() + steps[1][1:]}{rest}."


def _always(m: re.Match[str]) -> str:
    """"Keep attacking" as "always attack": the verb as a step's verb, with the word that
    makes the step a rule."""
    return f"always {_verb(m.group(1))}" if _verb(m.group(1)) != m.group(1).lower() else m.group(0)


def strip_marker(sentence: str) -> str:
    """``sentence`` without its list marker and step label ("Step two: pull the lever":
    "pull the lever"; "Start by pulling the lever": "pulling the lever")."""
    before = None
    while before != sentence:
        before = sentence
        sentence = LABEL.sub("", TASK.sub("", MARKER.sub("", plain(REPEATING.sub(_always, sentence)))))
    sentence = _purpose(MASS.sub("some ", TAIL.sub("", SKY.sub(lambda m: "up" if m.group("up") else "down", sentence))))
    sentence = _serial(INTENSIFIER.sub("", PURPOSE.sub("", THEN.sub(", then ", sentence))))
    return _ordered(sentence).strip()


def split_markers(line: str) -> list[str]:
    """A line cut at every list marker inside it ("(1) ... (2) ...")."""
    return [part for part in INLINE.split(line) if part.strip()]
