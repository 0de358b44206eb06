"""A test written as a Gherkin scenario, line by line, and the lines of a test case that start the
game rather than step in it (issue 55, wave 19: ``tests/evo/plans/dev/*_dev41.yaml``, ``*_dev42.yaml``).

Testers who write acceptance tests put one clause on each line:

    Given a fresh level
    When the player activates the switch
    And walks through the door
    Then the next room should be reachable

"Given" sets the scene, or says a step done before ("Given I pulled the switch"), and "Then" says
what to expect (no step; an "And" after a "Then" is one more expectation), unless it says a deed
of the player's ("Then I look up at lamp 4"); a "When" that is a state ("When the door is open")
is the condition of the step after it; each "When" and "And" before it is a step, its subject ("the player", "they", "I")
and its verb's third person ("activates") taken off. Test cases also begin with "Start a new game."
or "Start wherever the level puts you.": the run starts there anyway, so the line is no step
("Start at the second pillar and go round it" goes there first: it is one).
"""

from __future__ import annotations

import re

I = re.IGNORECASE
KEYWORD = re.compile(r"^\s*(?P<word>given|when|and|but|then)\b\s*", I)
EXPECTS = re.compile(r"\b(?:should|must|will|expect(?:ed)?|is|are|was|were|appears?|opens?|closes?|renders?|ends?|completes?|"
                     r"can|cannot|can't|does|do|shows?|works?|stays?|remains?|looks?)\b", I)
"""A "Then" that says what to expect ("Then the door should open"), not a step ("Then jump")."""
SUBJECT = re.compile(r"^(?:the\s+(?:player|tester|user|agent|bot|character)|they|i|you|we|he|she)\s+", I)
STARTS = re.compile(r"^\s*(?:\d+[.)]\s*|[-*•]\s*)?(?:start|begin|load|launch|boot(?:\s+up)?|open|spawn\s+into)\s+"
                    r"(?:(?:a|the)\s+(?:new|fresh|clean)\s+|a\s+|the\s+)?(?:game|level|run|session|build|map|save|scenario)\b[^.!?\n,;]*[.!]?\s*$|"
                    r"^\s*start\s+(?:wherever|where)\s+the\s+(?:level|game|map)\s+(?:puts|spawns|drops|places)\s+you\b[^.!?\n]*[.!]?\s*$", I)
"""A line that starts the game ("Start a new game.", "Load the level", "Start wherever the level
puts you."): the run starts there, no step."""
FRESH = re.compile(r"\b(?:start|begin|load|launch)\s+(?:a|the)\s+(?:new|fresh|clean)\s+(?:game|level|run|session|map)\s*"
                   r"(?:,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|;\s*)(?=[a-z])", I)
"""The same before the first step in its sentence ("So: start a fresh level, find goblin 1 and kill it")."""


DONE_BEFORE = re.compile(r"^(?:the\s+(?P<t>[a-z]+)\s+(?:has|have)\s+(?:already\s+)?been\s+(?P<v>[a-z]+(?:ed|en))\b(?P<r>[^.!?\n]*)|"
                         r"(?:i|we|the\s+player|they)\s+(?:(?:has|have)\s+)?(?:already\s+)?(?P<v2>[a-z]+ed)\s+(?P<o>[^.!?\n]+))", I)
"""A "Given" that something was done ("the door has been opened with the switch", "I have pulled
the lever"): the setup's step, done first."""


def _base(word: str) -> str:
    """A verb's third person in its base form ("activates": activate), by WordNet."""
    from evo.plans.lexicon import _lemma, is_verb, wordnet

    wordnet()
    base = _lemma(word.lower(), "v")
    return base if base != word.lower() and is_verb(base) else word


def scenario(text: str) -> str:
    """``text`` with a Gherkin scenario written as its steps, and its lines that start the game out;
    as it is when it has neither."""
    lines = [FRESH.sub("", line) for line in text.splitlines() if not STARTS.match(line) or not line.strip()]
    keys = [KEYWORD.match(line) for line in lines]
    if sum(k is not None for k in keys) < 2 or not any(k is not None and k.group("word").lower() in ("given", "when") for k in keys):
        return "\n".join(lines)
    out, expecting, when = [], False, ""
    for line, key in zip(lines, keys):
        if key is None:
            if not re.match(r"^\s*(?:scenario(?:\s+outline)?|feature|background)\s*:", line, I):  # the scenario's title: no step
                out.append(line)
            continue
        word, rest = key.group("word").lower(), line[key.end():].strip()
        state = STATE.match(rest)
        if state is not None and (word == "when" or word == "and" and not expecting):
            when = f"once {state.group(0).rstrip('.! ')}, "  # "When the door is open / Then I walk through it": the next step's condition
            continue
        done_by_me = word == "then" and SUBJECT.match(rest) is not None and not DOER_EXPECTS.match(SUBJECT.sub("", rest))
        expecting = word == "given" or (word == "then" and EXPECTS.search(rest) is not None and not done_by_me) or (word in ("and", "but") and expecting)
        done = DONE_BEFORE.match(rest) if word in ("given", "and", "but") and expecting else None
        if done is not None:  # "Given the door has been opened with the switch": a step of the setup
            from evo.plans.second_language import plain

            out.append(plain(f"{_base(done.group('v') or done.group('v2'))} {done.group('o') or 'the ' + done.group('t')}{done.group('r') or ''}".strip()))
            continue
        if expecting:
            continue
        rest = SUBJECT.sub("", re.sub(r"^(?:then|also|next)\s+", "", rest, flags=I))  # "And then walks round pillar 1"
        first, _, after = rest.partition(" ")
        out.append(when + (f"{_base(first)} {after}".strip() if first.endswith("s") else rest))
        when = ""
    return "\n".join(out)


STATE = re.compile(r"^(?:the\s+)?[a-z]+\s+(?:is|are|gets|has\s+been)\s+(?:now\s+)?(?:open|opened|on|unlocked|switched\s+on|turned\s+on)\s*[.!]?$", I)
"""A "When" that is a state, not a deed ("When the door is open"): the condition of the step after it."""
DOER_EXPECTS = re.compile(r"(?:should|must|will|can|cannot|can't|could|see|notice|expect|get|am|is|are|was|do|don't|does|never)\b", I)
"""After "Then I": words of what to expect ("Then I should see the door open"), no deed of mine ("Then I look up at lamp 4")."""
