"""The forms test cases are written in, taken down to their steps before anything else is read.

Testers who write acceptance criteria and bug reports (``tests/evo/plans/dev/*_dev11.yaml``,
``*_dev12.yaml``: a product owner and a QA engineer who read only the user docs) wrap their steps
in the forms of their trade, which the reader refused:

- a title or a label of the test: "Regression check: ...", "Repro: ...", "Steps to reproduce (seed
  0):", "Scenario: opening the door.", "Regression: coin pickup.", a line "TC-014 Door check",
  "Precondition: ...";
- results and observations, which are no steps: "Expected: ...", "Actual: ...", "Acceptance: ...",
  "Pass criteria: ...", "Note: ...", "Observe that the door stays closed.", "The door should open
  within two steps.", a remark after a semicolon ("...; the pillar top is stretched");
- a user story: "As a player, I want to pick up the coin and then kill the goblin, so that my score
  goes up.";
- Given/When/Then: "Given a fresh park, when the player walks to lamp 3 and looks down, then the base
  of the lamp should be visible." (the steps are the "when");
- where it starts: "Starting at the entrance, ...", "At all times, ..." (always), "During the run,";
- a standing order over a route: "Kill every goblin that comes near you while you walk to the
  shrine and use it." (the route, then the rule);
- a parenthesis that is no step: "(no waiting for the door)", "(happens every time)"; one that is
  ("the switch (pull it)") is kept as a clause.

Each is one pattern over the trade's closed vocabulary (regression, repro, scenario, expected,
actual...) and English's (should, as a, given, when, then); a verb's form is WordNet's.
"""

from __future__ import annotations

import re
from typing import Iterable

RESULT_LINE = re.compile(r"^\s*(?:expected(?:\s+results?)?|actual(?:\s+results?)?|acceptance(?:\s+criteria)?|pass\s+criteria|"
                         r"fail\s+criteria|pass|fail|result|outcome|observed|notes?|ac\s*\d*|criteria|cautions?|warnings?|definitions?|"
                         r"terms(?:\s+used)?|prerequisites?|requirements?|procedure(?!\s*:\s*(?:\(\s*[1ai]\s*\)|[1a][.)]))|why|reason|rationale|issue|problem|defect|symptoms?|"
                         r"severity|priority|seen\s+(?:on|in)|found\s+in|env(?:ironment)?|platform|version)\s*(?:\([^)]*\))?\s*:"
                         r"(?:(?:(?!\.\s+(?:steps|repro|to\s+reproduce)\s*:)[^\n])*\.(?=\s+(?:steps|repro|to\s+reproduce)\s*:)\s*|[^\n]*$)",
                         re.IGNORECASE | re.MULTILINE)
"""A line of results or notes ("Expected: ...", "Actual: ...", "AC1: ..."), or of a manual's
procedure ("Caution: ...", "Definitions: ...", "Procedure: Open the door" over its numbered steps)."""
HEADING = re.compile(r"^\s*(?:(?:tc|test\s*case|case|test|bug|ticket|issue)[\s#-]*[a-z]*-?\d[\w-]*\b[^:.!?\n]*|(?:test\s*case|"
                     r"title|preconditions?|prerequisites?|expected(?:\s+results?)?|expectations?|setup|set-up|results?|"
                     r"observations?|(?:(?:quick|some|short|brief|a\s+bit\s+of)\s+)?(?:context|background)(?:\s+(?:first|for\s+[^:\n]{1,40}))?|summary)\s*:.*|(?:build|version|seed|level\s+seed|session|run)\s*[\d.]+\s*,.*)$",
                     re.IGNORECASE)
"""A line that names or describes the test, not a step ("TC-014 Door check", "Precondition: ...",
"Expected: no damage spikes")."""
TITLE = re.compile(r"^\s*(?:(?:regression|repro|reproduction|scenario|test(?:\s*case)?|tc[-\s]?\d*|bug|issue|smoke\s+test|soak\s+test|texture\s+sweep|"
                   r"sanity\s+check|objective|charter|(?:main|side|extra|bonus)\s+(?:job|task|goal|quest|objective))(?:\s+(?:check|test|sweep|steps|run))?|steps\s+to\s+reproduce|steps)\b"
                   r"(?P<about>[^:.\n]{0,40}?)(?:\s*\([^)]*\))?\s*(?::\s*|\.\s*|$)", re.IGNORECASE | re.MULTILINE)
"""A title or label of the test before its steps ("Regression check:", "Repro (happens every
time):", "Steps to reproduce (seed 0):", "Scenario: opening the door.")."""
STORY = re.compile(r"^\s*as\s+an?\s+[\w -]{1,30}?,\s*(?:i|we)\s+(?:want|need|would like|'d like|wish)\s+(?:to\s+)?",
                   re.IGNORECASE | re.MULTILINE)
PURPOSE_TAIL = re.compile(r",?\s+so\s+(?:that\s+)?(?:i|we|my|our|its|the\s+\w+)\b[^.;]*", re.IGNORECASE)
GHERKIN = re.compile(r"^\s*given\s+[^,]+,\s*when\s+(?:the\s+(?:player|tester|user)|they|you|i|we)\s+(?P<steps>.+?)"
                     r"(?:,\s*then\s+[^.!]*)?(?P<end>[.!]?)\s*$", re.IGNORECASE | re.MULTILINE)
STARTING = re.compile(r"^\s*(?:starting|beginning)\s+(?:at|from|in|on)\s+[^,]+,\s*|^\s*(?:during|throughout)\s+the\s+(?:whole\s+|entire\s+)?"
                      r"(?:run|test|session|walk|repro|level)\s*,\s*", re.IGNORECASE | re.MULTILINE)
ALWAYS_LEAD = re.compile(r"^\s*(?:at all times|all the time|the whole time)\s*,\s*", re.IGNORECASE | re.MULTILINE)
OBSERVE = re.compile(r"^\s*(?:expect(?:s|ed)?\s+(?!to\b)|(?:just\s+|and\s+|then\s+)?(?:observe|notice|note|see|watch|keep\s+an\s+eye\s+on|pay\s+attention\s+to|"
                     r"let\s+(?:me|us)\s+know|tell\s+(?:me|us)|ping\s+(?:me|us))\b(?![^.;!?]*(?:,|\band\b|\bthen\b))|"
                     r"(?:check|verify|confirm|ensure)\s+(?:that|whether|if)\b|"
                     r"(?:the|this|that|it|a|an)\s+(?!(?:player|participant|tester|user|agent|bot)\b)(?:[\w-]+\s+){0,5}?"
                     r"(?:should|must|will|may|might)\s+(?!be\s+\w+(?:ed|en)\b))",
                     re.IGNORECASE)
"""A sentence that says what to look for, not what to do ("Observe that the door stays closed.",
"The door should open within two steps.", "Watch the health bar.", "Let me know what the counter
says."); a look with more after it ("Watch the troll, then the orc") is read, not dropped."""
WHILE_ROUTE = re.compile(r"^(?P<rule>[^,;]*?\b(?:any|every|each|all|whatever)\b[^,;]*?)\s+while\s+(?:you\s+|i\s+)?"
                         r"(?P<route>(?:walk|head|go|run|move|make\s+your\s+way|heading|walking|going)\b[^.;!?]*)(?P<end>[.!?]?)$",
                         re.IGNORECASE)
WHILE_LEAD = re.compile(r"^(?:while|as)\s+(?:you\s+|i\s+)?(?P<route>(?:walk|head|go|run|move|make\s+your\s+way|are\s+(?:heading|walking|going))\s+(?:over\s+)?"
                        r"(?:to|towards?|through|into)\b[^,;]*?)\s*,\s*"
                        r"(?P<rule>[^,;]*?\b(?:any|every|each|all|whatever)\b[^;]*?)(?P<end>[.!?]?)$", re.IGNORECASE)
""""While you make your way to the shrine, pick up every coin you pass": the route, then the standing order."""
WHY_INSIDE = re.compile(r"\s*,?\s*\b(?:of\s+course|obviously|naturally|clearly)\b\s*(?=[,)]|$)|"
                        r",?\s*\bor\s+(?:else\s+)?(?:the|it|you)\b[^,()]*?\b(?:stays?|remains?|won't|will\s+not|doesn't|does\s+not|can't|cannot|"
                        r"is\s+(?:locked|shut|closed))\b[^,()]*|"
                        r"^\s*(?:you(?:'ll)?|we)\s+(?:need|want|have\s+to\s+have)\s+the\s+[a-z]+\s+(?:open|opened|on|unlocked)(?:\s+first)?(?:\s+for\s+(?:that|this|it))?\s*,?\s*so\s+",
                        re.IGNORECASE)
"""Words in a parenthesis of steps that say why ("(pull the lever first, obviously, or the door stays
shut)", "(you need the door open first, so flip the switch before that)"): the steps are what is left."""
PARENTHESIS = re.compile(r"\s*\((?!\s*(?:\d+|[a-h]|i{1,3}|iv|v|vi{1,3})\s*\))(?P<inside>[^()]*)\)")
"""A parenthesis, not a list marker ("(2) do a jump")."""
WANTED = re.compile(r"\b(?P<q>every|any|all|each|the)\s+(?P<thing>[\w-]+)\s+(?P<verb>[a-z]+ed)\b(?!\s+(?:by|to|on|at|in)\b)",
                    re.IGNORECASE)
""""I want every pillar circled": the deed on them ("circle every pillar")."""
WHATEVER = re.compile(r"\bwhatever\s+(?P<thing>[\w-]+)\s+(?P<verb>is|are|comes?|gets?|appears?)\b", re.IGNORECASE)


ABOUT_TEST = re.compile(r"^\s*(?:(?:this|the)\s+(?:scenario|test|case|run|check|experiment|condition|trial|session)\s+(?:\w+\s+)?"
                        r"(?:tests|checks|covers|reproduces|measures|verifies|examines|isolates|exercises|targets|is|was)\b|"
                        r"no\s+(?:other|further|additional|more)\s+\w+|in\s+(?:earlier|previous|older|past|the\s+last)\s+builds?\b|"
                        r"previously\b|background\s*[.:])", re.IGNORECASE)
"""A sentence about the test, not a step ("This scenario tests the jump mechanic in isolation.",
"No other action is required.", "In earlier builds the door remained shut.", "Background.")."""
PURPOSE = re.compile(r"^\s*(?:purpose|goal|aim|objective|rationale|motivation)\s*:\s*to\s+", re.IGNORECASE)
"""Why the test is run, before its steps ("Purpose: to verify that the switch opens the door.")."""
CHARTER = re.compile(r"^\s*charter\b", re.IGNORECASE)
"""What an exploratory session explores, over the steps that explore it (a "Mission:" may be the
step itself: "Mission: slay the goblin.")."""
LOOKING = re.compile(r"^\s*(?:looking|checking|testing|verifying|hunting|searching)\s+(?:for|at|that|whether|if)\b", re.IGNORECASE)
"""What the tester looks for ("Looking for stretched textures."), no step."""
GOAL_LINE = re.compile(r"^\s*(?:goal|objective|purpose|aim)\s*:", re.IGNORECASE)
"""A goal over a list of steps (alone on its line it is the step: :mod:`evo.plans.markers`)."""
KEEP = re.compile(r"(?:(?<=[,;]\s)|(?<=\band\s))(?:then\s+)?keep\s+(?:on\s+)?(?P<verb>[a-z]+ing)\b|(?<=\bthen\s)keep\s+(?:on\s+)?(?P<verb2>[a-z]+ing)\b",
                  re.IGNORECASE)
STANDING = re.compile(r",?\s*(?:standing|staying|waiting|stopping)\s+(?:right\s+)?(?:next\s+to|near|by|beside|in\s+front\s+of|at)\s+"
                      r"(?:it|them|the\s+[\w-]+)\s*,", re.IGNORECASE)
""""then, standing next to it, look down": where the step before ended."""


ORDERS_ONLY = re.compile(r"\b(?:any|every|each|whenever|all|along\s+the\s+way|on\s+the\s+way|at\s+all\s+times)\b", re.IGNORECASE)


def _the_only_step(line: str, after: list[str], names: set[str]) -> bool:
    """A goal line that is itself the step ("Goal: get to the shrine and use it."): an order on a
    thing of the game, with nothing after it but standing orders ("Along the way, destroy any ogre")."""
    body = GOAL_LINE.sub("", line).strip()
    first, rest = (re.split(r"(?<=[.!?])\s+", body, maxsplit=1) + [""])[:2]
    later = [x for x in re.split(r"(?<=[.!?])\s+|\n", "\n".join([rest, *after])) if x.strip()]
    return bool(later) and _imperative(first, 99) and bool(set(re.findall(r"[a-z]+", first.lower())) & names) \
        and all(ORDERS_ONLY.search(x) for x in later)


def _imperative(inside: str, most: int = 4) -> bool:
    """A parenthesis that is a step: it starts with a verb in its base form ("pull it"), in at most
    ``most`` words."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    words = inside.split()
    wordnet()
    return 0 < len(words) <= most and words[0].isalpha() and is_verb(words[0]) and _lemma(words[0], "v") == words[0].lower() \
        and words[0].lower() not in ("seed", "no", "see", "e.g", "i.e", "watch", "careful", "note", "beware", "mind")


CROSSING = frozenset({"cross", "clear", "pass", "traverse", "get", "go", "make", "hop", "leap", "vault", "jump", "bound"})
"""Verbs of getting over a thing: "cross lava (jump)" says how, no second jump."""


def _manner(m: re.Match[str], text: str) -> bool:
    """A parenthesis of one verb that says how the step before it is done: "cross lava (jump)",
    "hit the goblin (hit)"; not "go to the shrine (interact)", a deed of its own."""
    inside = m.group("inside").strip().lower()
    if not re.fullmatch(r"[a-z]+", inside):
        return False
    clause = re.split(r"[,.;:!?\n]|\bthen\b|\band\b", text[:m.start()])[-1].strip(" -*•0123456789)").lower().split()
    if not clause:
        return False
    return inside == clause[0] or (inside in ("jump", "leap", "hop", "vault") and clause[0] in CROSSING
                                   and len(clause) > 1 and clause[1] not in ("to", "up", "toward", "towards"))


def _base(verb: str) -> str:
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    return _lemma(verb, "v")


def _named(rest: str) -> bool:
    """What follows a title names the test rather than a step: it starts with no verb in its base
    form ("opening the door", "coin pickup" with nothing after)."""
    from evo.plans.lexicon import _lemma, is_noun, is_verb, wordnet

    words = rest.split()
    wordnet()
    last = words[-1].strip(".!").lower() if words else ""
    if 1 < len(words) <= 4 and re.search(r"(?:tion|sion|ment|ance|ence|ing|al)$", last) and is_noun(last) \
            and not re.search(r"\b(?:the|a|an|it|them)\b", rest, re.IGNORECASE):
        return True  # "shrine activation", "door opening", "lava traversal": a deed named as a noun
    return not words or len(words) <= 4 and not (is_verb(words[0]) and _lemma(words[0], "v") == words[0].lower()
                             and not (len(words) <= 2 and is_noun(words[-1].strip(".")) and words[-1].strip(".").endswith("up")))


RESULTS_HEAD = re.compile(r"^\s*(?:expected(?:\s+results?)?|expectations?|actual(?:\s+results?)?|acceptance(?:\s+criteria)?|pass(?:\s+criteria)?|"
                          r"results?|outcomes?)\s*:\s*$", re.IGNORECASE)
"""A label of results alone on its line, its items under it ("Expected:\n- Door opens at step 2.")."""
PASS_IF = re.compile(r"^\s*(?:pass(?:es)?|fails?|succeeds?)\s+(?:if|when|once)\b", re.IGNORECASE)
"""A sentence of when the test passes ("Pass if the player ends up in the doorway."): no step."""


def _results_listed(text: str) -> str:
    """``text`` without the list under a label of results (:data:`RESULTS_HEAD`)."""
    out, listed = [], False
    for line in text.splitlines():
        item = re.match(r"^\s*(?:\d+[.)]|[-*•]|[a-z][.)])\s+\S", line, re.IGNORECASE) is not None
        if RESULTS_HEAD.match(line):
            listed = True
        elif listed and item:
            continue
        else:
            listed = False
        out.append(line)
    return "\n".join(out)


def _sentence(sentence: str, more: bool) -> str:
    if PASS_IF.match(sentence) or RESULT_LINE.match(sentence) or ABOUT_TEST.match(sentence) or more and PURPOSE.match(sentence):
        return ""  # "Use the shrine. Expected: level ends."; "This scenario tests the jump."; "Purpose: to ..."
    titled = TITLE.match(sentence)
    if titled is not None:
        rest = sentence[titled.end():].strip()
        listed = re.match(r"(?:\d{1,2}[.)]|\(\d{1,2}\)|[-*•])\s", rest) is not None  # "Steps: 1) Use the switch.": a step, no title
        if not listed and (_named(rest) or (more and CHARTER.match(sentence))):  # "Charter: explore the door. Pull the lever."
            return ""
        sentence = rest
    if LOOKING.match(sentence):
        return ""
    sentence = ALWAYS_LEAD.sub("always ", STARTING.sub("", GHERKIN.sub(lambda m: m.group("steps") + m.group("end"), sentence)))
    if STORY.match(sentence):
        sentence = PURPOSE_TAIL.sub("", STORY.sub("", sentence))
        sentence = WANTED.sub(lambda g: f"{_base(g.group('verb'))} {g.group('q')} {g.group('thing')}"
                              if _base(g.group("verb")) != g.group("verb").lower() else g.group(0), sentence)
    sentence = WHATEVER.sub(lambda g: f"any {g.group('thing')} that {g.group('verb')}", sentence)  # "whatever enemy is nearby"
    m = WHILE_ROUTE.match(sentence) or WHILE_LEAD.match(sentence)
    if m is not None:
        route = m.group("route")
        route = re.sub(r"^(\w+)ing\b", lambda g: g.group(1) if len(g.group(1)) > 2 else g.group(0), route)
        sentence = f"{route}. {m.group('rule')}{m.group('end') or '.'}"
    if OBSERVE.match(sentence):
        then = EXPECTED_THEN.match(sentence)  # "The third coin should be past the door, pick that one up too.": the step
        if then is None or not _imperative(then.group("b"), 8):
            return ""
        b = re.sub(r"\b(?:that\s+one|this\s+one|it)\b", then.group("x").strip(), then.group("b"), count=1, flags=re.IGNORECASE)
        return f"{b[0].upper()}{b[1:]}"
    return sentence


EXPECTED_THEN = re.compile(r"^\s*(?P<x>(?:the|this|that)\s+(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:should|must|will|may|might)\b[^,;]*[,;]\s*"
                           r"(?:(?:so|and|then)\s+)?(?P<b>[a-z][^,;]*)$", re.IGNORECASE)
"""What to expect, then a step after a comma: the step is read."""


CONDITION_FIRST = re.compile(r"\((?P<c>(?:only\s+)?(?:if|once|when|as\s+soon\s+as)\s+[^()]*)\)\s+(?P<np>(?:the\s+)?[a-z]+(?:\s+\d{1,2})?)(?=\s*(?:[,.;!]|$))",
                             re.IGNORECASE | re.MULTILINE)
"""A condition in brackets before the thing it is on ("then (once open) the door"): after it."""


def _parenthesis(m: re.Match[str]) -> str:
    """A parenthesis of steps as a clause of its sentence, without what says why; any other out."""
    inside = re.sub(r"^(?:just|simply|only|you(?:'ll|\s+will|'d|\s+would)?\s+(?:have|need)\s+to|you\s+(?:must|should)|(?:be|make)\s+sure\s+to|"
                    r"remember\s+to|(?:do\s+not|don't)\s+forget\s+to)\s+", "", WHY_INSIDE.sub("", m.group("inside")).strip(" ,."),
                    flags=re.IGNORECASE)  # "(just walk up to it)", "(You'll have to turn it on yourself first.)"
    if not inside:
        return ""
    if re.match(r"(?:but\s+)?(?:only\s+)?(?:if|when|once|unless|as\s+soon\s+as)\s+(?:it|the\s+[a-z]+|[a-z]+)\s+(?:is|are|'s|has\s+been|have\s+been|was|gets|got|"
                r"stays|stayed|remains)\s+(?:still\s+|now\s+|already\s+|actually\s+|really\s+|finally\s+)?(?:turned\s+|switched\s+|flipped\s+|pulled\s+)?"
                r"(?:open|opened|on|closed|shut|unlocked|active|activated)\s*$", inside, re.IGNORECASE):
        return f" {inside}"  # "(only when the lever's been thrown on)": a condition, read or refused, never dropped
    enables = re.search(r"\s+(?:in\s+order\s+)?to\s+(?:open|unlock|activate)\s+(?:it|them|the\s+[a-z]+)$", inside, re.IGNORECASE)
    if enables is not None and _imperative(inside[:enables.start()]):  # "(pull the lever to open it)": a step before the one it enables
        inside = f"{inside[:enables.start()]} first"
    alone = m.string[:m.start()].rstrip().endswith((".", "!", "?"))  # "Jump the lava. (Pull the lever first.)": a sentence

    parts = [p for p in re.split(r"\s*,\s*(?:and\s+|then\s+)?|\s+(?:and|then)\s+", inside) if p]
    listed = len(parts) > 1 and all(_imperative(p) for p in parts)  # "(pull the switch, jump the lava, use the shrine)"
    if _manner(m, m.string) or not (listed or _imperative(inside, 8 if alone else 4)):
        return ""
    waits = re.search(r"\b(?:once|when|as\s+soon\s+as|after|if)\s+the\s+(?P<x>[a-z]+)\s+(?:is|gets|has\s+been)\s+(?:on|open|opened|active|down)\b[^.!?]*$",
                      m.string[:m.start()], re.IGNORECASE)
    if waits is not None:  # "Go through the door as soon as the switch is on (pull it first).": it is the switch
        inside = re.sub(r"\bit\b", f"the {waits.group('x')}", inside, count=1)
    return f" {inside[0].upper()}{inside[1:]}." if alone else f", {inside}"


def conventions(text: str, things: Iterable[str] = ()) -> str:
    """``text`` with its test-case forms taken down to the steps (the module's families; a Gherkin
    scenario's lines, :mod:`evo.plans.scenario`); ``things``: the game's words for its things (a
    setup line of steps on them is steps: "Setup: pull the switch so that the door opens.")."""
    from evo.plans.scenario import scenario

    names = {t.lower() for t in things}
    text = RESULT_LINE.sub("", _results_listed(scenario(text)))
    text = re.sub(r"^[^\n]*\(a\)[^\n]+\(b\)[^\n]*$", lambda line: re.sub(r"[ \t]*\((?:[a-h]|[ivx]{1,3})\)[ \t]+", lambda m: "\n" if m.start() else "",
                                                                          line.group(0)), text, flags=re.M)  # "Steps: (a) go to lamp 2 (b) turn left": a step a line
    text = re.sub(r"\s*,?\s*\b(?:of\s+course|obviously|naturally)\s*(?=\))", "", text, flags=re.IGNORECASE)  # "(the lever first, of course)"
    text = CONDITION_FIRST.sub(r"\g<np> (\g<c>)", text)  # "then (once open) the door": the door's condition
    text = PARENTHESIS.sub(_parenthesis, text)
    lines = []
    rows = text.splitlines()
    for k, line in enumerate(rows):
        setup = re.match(r"^\s*(?:setup|set-up|set\s+up)\s*:\s*(?P<steps>\S.*)$", line, re.IGNORECASE)
        if setup is not None and _imperative(setup.group("steps"), 99) and set(re.findall(r"[a-z]+", setup.group("steps").lower())) & names:
            line = setup.group("steps")
        elif GOAL_LINE.match(line) and _the_only_step(line, rows[k + 1:], names):
            line = GOAL_LINE.sub("", line)  # "Goal: get to the shrine and use it. Along the way, destroy any ogre."
        elif HEADING.match(line) or GOAL_LINE.match(line) and any(r.strip() for r in rows[k + 1:]):
            continue  # "Goal: finish the level." over the steps that do it
        elif GOAL_LINE.match(line) and re.search(r"[.!?]\s+\S", line):
            line = re.split(r"(?<=[.!?])\s+", line, maxsplit=1)[1]  # "Purpose: make sure jumping works. Walk up to the lava and jump."
        line = re.sub(r"(?:^|(?<=[.!?]\s))(?:priority|prio|p)\s*(?:\d|one|two|three|four)\s*[:.-]\s*(?:stay\s+alive\s*,\s*)?", "", line, flags=re.IGNORECASE)
        line = KEEP.sub(lambda g: f"always {_base(g.group('verb') or g.group('verb2'))}", STANDING.sub(",", line))
        marker = re.match(r"^\s*(?:\d+[.)]|[-*•])\s+", line)  # a list item's marker stays
        head, body = (line[:marker.end()], line[marker.end():]) if marker else ("", line)
        pieces = re.split(r"(?<=[.!?;])\s+", body)
        more = [any(r.strip() for r in rows[k + 1:]) or j + 1 < len(pieces) for j in range(len(pieces))]
        parts = [_sentence(p, m) for p, m in zip(pieces, more)]
        kept = " ".join(p for p in parts if p)
        lines.append(head + kept if kept or not head else "")
    return "\n".join(lines)
