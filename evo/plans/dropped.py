"""Precision over the whole text: a thing or a deed the text names that the plan never takes up.

The reader takes out words around the steps (a message's frame, remarks, headings, a designer's
"we expect them to": :mod:`evo.plans.letters`, :mod:`evo.plans.framing`,
:mod:`evo.plans.conventions`). Each of those cuts is a pattern, and a pattern can cut a step with
the words around it ("Once the switch is on, we expect the player to go pick up the coin" lost its
condition; "we expect them to finish by using the shrine" its deed). The clause-level doubts
(:mod:`evo.plans.doubts`) never see what was cut, so this check reads the text as the tester wrote
it: every thing of the game it names (by its name or a declared synonym) and every deed (by the
action's name or a declared synonym) must be taken up by some step, rule or condition of the plan,
or stand in words that say not to do it ("don't touch the coins", "skip the gold") or what to
expect ("Expected: the door opens"). Otherwise the plan is refused, quoting the word, rather than
run without it; ``--accept 0`` runs it as read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Collection, Iterable, Mapping, Sequence

from evo.plans.conventions import WHY_INSIDE, conventions
from evo.plans.doubts import PLACE, Doubt, UnsureReading, _covered
from evo.plans.framing import ASIDE, NO_HARM, NOT_TO, OUTCOME
from evo.plans.markers import GOAL, REACHING
from evo.plans.ordering import BEFORE_THAT, _before_that
from evo.plans.reading import game_words
from evo.plans.reports import unreported
from evo.plans.said_first import before_chain, first_of_all
from evo.plans.base import Plan
from evo.plans.second_language import plain as plain_english
from evo.plans.states import stated_left_out
from evo.plans.text import MatchedStep
from evo.plans.tracker import title_in_doubt
from evo.plans.spelling import JARGON

LABEL = re.compile(r"^\s*(?:notes?|nb|tips?|important|cautions?|warnings?|definitions?|terms(?:\s+used)?|prerequisites?|"
                   r"requirements?|procedure)\s*:\s*", re.IGNORECASE | re.MULTILINE)
"""A label whose line the reader drops but which may hold a step or a name: its words are checked."""
STEPS_INSIDE = re.compile(r"\b(?:first|before|beforehand|after|once|need\s+to|have\s+to|must|then|do\s+it|do\s+that)\b", re.IGNORECASE)
"""Words of a parenthesis that holds steps of the test, not a remark."""
REVERSED = re.compile(r"\b(?:in\s+reverse(?:\s+order)?|backwards(?!-)|in\s+(?:the\s+)?reverse(?:d)?\s+order|in\s+(?:the\s+)?opposite\s+order)\b", re.IGNORECASE)
"""A text that asks for its steps in another order than written ("I'm listing these backwards")."""
CORRECTION = re.compile(r"(?<=\S)(?:\s*[,;.!-]\s*|\s+)(?P<said>(?:no\s*,\s*(?:the|it'?s|make\s+it|i\s+mean)\b[^,.;!?\n]*|actually(?=\s*[,;.!?-]|\s*$|\s+(?:just|only|skip|drop|forget|leave|no|not|instead|scratch|make\s+it|do\s+(?:the|it))\b)|scratch\s+that|never\s*mind|nvm|on\s+second\s+thought|(?:no\s*,?\s*)?hang\s+on|wait\s*,?\s*no|"
                        r"correction)\b\s*,?\s*(?:(?:just|only|skip|drop|forget|leave|no|not|instead|do|make\s+it)\b[^,.;!?\n]*)?|"
                        r"(?:skip|drop|forget)\s+(?:the\s+\w+|it|that|this|\d+|\w+\s+\d+)(?:\s+actually)?\b)", re.IGNORECASE)
"""A text that corrects itself after a step ("grab the coin, then kill the goblin, actually skip
the coin", "coin 2 and coin 3, actually just coin 3"): which steps are meant is not clear."""
ENABLED_BY = re.compile(r"\b(?:opens?|unlocks?|works?|activates?|starts?)\s+(?:only\s+)?(?:with|via|using|by|after|when|once)\b", re.IGNORECASE)
"""A remark that says what a thing needs ("the door opens with the switch"): a step the plan may lack."""
WHOLE = 0
"""The clause number a doubt about the whole text has (``--accept 0``)."""
AIMLESS = frozenset({"move", "wait", "north", "south", "east", "west", "forward", "backward", "left", "right"})
"""Actions a word names too loosely to miss ("up" is north, "left" a direction)."""


def said(text: str) -> str:
    """``text`` without the words that say what not to do, what to expect or why (the test case's
    forms, :func:`evo.plans.conventions.conventions`; asides; steps not to take)."""
    from evo.plans.budgets import without_budget
    from evo.plans.framing import _tells

    from evo.plans.slang import SAID_OVER

    text = SAID_OVER.sub(lambda m: f"{m.group('t2') or m.group('t1')} {m.group('n2')}", text)  # "coin 3 - sorry, I meant coin 1": coin 1
    text = LABEL.sub("", without_budget(unreported(text)) or unreported(text))  # "Note: at all times, attack any enemy": read here
    text = re.sub(r"(?<=[.!?])[ \t]*(?:->|=>|→)[^\n]*", "", text)  # "1. Flip the switch. -> door_1 opens": what to expect
    text = re.sub(r"\((?P<inside>[^()]*)\)", lambda m: f", {WHY_INSIDE.sub('', m.group('inside'))}," if STEPS_INSIDE.search(m.group("inside"))
                  else m.group(0), text)  # "(you'll need to press the switch and cross the lava first)": read, not dropped
    text = plain_english(text)  # "go to the lava, not jump it"
    from evo.plans.ordering import PURPOSE_FIRST, _purpose_after

    text = PURPOSE_FIRST.sub(_purpose_after, text)  # "To open the door, use the switch."
    text = GOAL.sub(lambda m: m.group(0) if m.group("verb").lower() in REACHING else "", text)  # "... to open the door": why
    text = ASIDE.sub(" ", NOT_TO.sub(" ", NO_HARM.sub(" ", OUTCOME.sub(" ", conventions(text)))))  # "If the gate stays shut, that's the bug."
    text = GOAL.sub(lambda m: m.group(0) if m.group("verb").lower() in REACHING else "", text)  # a scenario's setup: "Given the door has been opened with the switch"
    text = re.sub(r",?\s+(?:so|and|but|then)\s*(?=[.;!?])", "", text, flags=re.IGNORECASE)  # "The shrine ends the level, so [do not use it]."
    text = " ".join(s for s in re.split(r"(?<=[.!?;])\s+|\n", text) if not _tells(s) or ENABLED_BY.search(s)
                    or re.search(r"\b(?:first|second|third|last|next|then|before|after)\b", s, re.IGNORECASE))  # "The pit glows red."
    return re.sub(r"\bno\s+need\s+to\b[^.;!?\n]*|\boptional\b[^.;!?\n]*|\b(?:just\s+)?(?:checking|to\s+check|to\s+see|seeing)\s+(?:that\s+|if\s+|whether\s+)?"
                  r"(?:the|it)\b[^.;!?\n]*?\b(?:opens?|is\s+open|stays?|works?|shows?|unlocks?|locks?|closes?)\b[^.;!?\n]*|[,;]\s*(?:as|since)\s+(?:the|it|this|that|they|we|i)\b[^.;!?\n]*",
                  " ", text, flags=re.IGNORECASE)


def dropped(text: str, steps: Sequence[MatchedStep], actions: Mapping[str, Iterable[str]],
            actors: Mapping[str, Iterable[str]], categories: Mapping[str, Iterable[str]]) -> Doubt | None:
    """The first thing or deed ``text`` names that no step of ``steps`` takes up, as a doubt about
    the whole text; None when every one is taken up."""
    for line in text.splitlines():
        left = BEFORE_THAT.search(_before_that(before_chain(first_of_all(line))))
        if left is not None:  # "Go to the door, then jump the lava. Before that, ...": before which?
            said_ = left.group("said")
            return Doubt(WHOLE, said_, f"{said_!r} follows more than one step, and which one it comes before is not clear",
                         _plan(steps))
    backwards = REVERSED.search(text)
    if backwards is not None:
        return Doubt(WHOLE, backwards.group(0), f"{backwards.group(0)!r} asks for the steps in another order than written", _plan(steps))
    corrected = CORRECTION.search(plain_english(text))
    if corrected is not None:
        said_ = corrected.group("said").strip()
        return Doubt(WHOLE, said_, f"the text corrects itself at {said_!r}, and which steps it means is not clear", _plan(steps))
    title = title_in_doubt(plain_english(text), _names(actors), {**_names(actions), **{a.replace("_", " "): a for a in actions}},
                           categories)
    if title is not None:
        return Doubt(WHOLE, title, f"the first line {title!r} reads as a title over the steps under it or as steps of its own, "
                     "and it names what they do not", _plan(steps))
    covered = _covered(steps, categories)
    done = {s.action for s in steps if s.action}
    read = {w.lower() for s in steps for part in (s.parsed.action_word, s.parsed.actor_word,
                                                  s.parsed.clause.condition if s.parsed.clause else None)
            for w in re.findall(r"[A-Za-z]+", part or "")}
    things = _names(actors)
    deeds = {word: name for word, name in _names(actions).items() if name not in AIMLESS and " " not in word}
    stated = stated_left_out(text, *game_words(actions, actors, None)[:2])  # "Switch doesn't open the door!!": how the game is
    plain = re.sub(r"(?P<to>\bto\s+(?:the\s+)?[a-z]+(?:\s+\d+)?\s+)by\s+(?=[a-z]+ing\b)", r"\g<to>and ", said(stated),
                   flags=re.IGNORECASE)  # "make your way to the shrine by jumping the lava": a deed on the way, no place
    for where in re.finditer(r"[A-Za-z][A-Za-z'-]+", plain):
        word, low = where.group(0), where.group(0).lower()
        if low in read or plain[where.end():where.end() + 1] == ":" or PLACE.search(plain[:where.start()]) and not low.endswith("ing"):
            continue  # read as some clause's verb, thing or condition; a label; a place ("the lever by the door")
        thing = things.get(low) or (things.get(low[:-1]) if low.endswith("s") else None)
        if thing is not None and thing not in covered:
            return Doubt(WHOLE, word, f"{word!r} names {thing!r}, but no step of the plan goes to it", _plan(steps))
        deed = deeds.get(low) or (deeds.get(_verb_of(low)) if low.endswith(("ing", "ed")) else None)  # "by jumping the lava"
        state = re.search(r"(?:\b(?:is|are|be|been|was|were|to|gets?|swings?|slides?|stays?)|'s)\s+$", plain[:where.start()], re.IGNORECASE)
        if deed is not None and deed not in done and not _as_thing(low, things) and not state:
            return Doubt(WHOLE, word, f"{word!r} names the action {deed!r}, but no step of the plan does it", _plan(steps))
        meant = _misspelt(low, things, deeds) if thing is None and deed is None else None
        if meant is not None and (things.get(meant) or deeds.get(meant)) not in covered | done:  # "activte the swich"
            return Doubt(WHOLE, word, f"{word!r} looks like {meant!r} misspelt, but no step of the plan takes it up", _plan(steps))
    for deed in actions:  # "look up", "turn left": an action named in two words
        first, _, rest = deed.replace("_", " ").partition(" ")
        where = re.search(rf"\b{re.escape(first)}(?:s|ed|ing)?\s+{re.escape(rest)}\b", plain, re.IGNORECASE) if rest else None
        if where is not None and deed not in done and deed not in AIMLESS and not set(where.group(0).lower().split()) <= read:
            return Doubt(WHOLE, where.group(0), f"{where.group(0)!r} names the action {deed!r}, but no step of the plan does it",
                         _plan(steps))
    unknown = _unknown_item(text, read, things, deeds)
    if unknown is not None:
        return Doubt(WHOLE, unknown, f"{unknown!r} is a word the reader does not know, standing where a step would be",
                     _plan(steps))
    waited = CONDITION_SAID.search(plain)
    if waited is not None and not any(s.parsed.clause is not None and s.parsed.clause.condition for s in steps):
        return Doubt(WHOLE, waited.group(0), f"{waited.group(0)!r} is a condition no step of the plan waits for", _plan(steps))
    return None


CONDITION_SAID = re.compile(r"\b(?:only\s+)?(?:if|once|when|as\s+soon\s+as|unless)\s+(?:it|the\s+[a-z]+)\s+(?:is|'s|has\s+been|gets|stays|remains|was)\s+"
                            r"(?:still\s+|now\s+|already\s+)?(?:turned\s+|switched\s+)?(?:open|opened|on|unlocked|closed|shut)\b", re.IGNORECASE)
"""A state a step is to wait for ("only if the switch is on"): a plan with no condition has lost it."""


NUMBERED = re.compile(r"\b(?P<thing>[a-z]+)(?:[ \t]+|_)?(?:number[ \t]+|no\.[ \t]*|#[ \t]*)?(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\b"
                      r"(?![ \t]*(?:steps?|s|secs?|seconds?|mins?|minutes?|times?|x|%|ticks?|more|by|of|or)\b)(?![.)][ \t]*\S)", re.IGNORECASE)
"""A thing with its number ("lamp 4", "coin #2", "skeleton two")."""
ORDINAL = re.compile(r"\bthe\s+(?P<n>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|4th|5th|6th|7th|8th|9th|10th)\s+(?P<w1>[a-z]+)(?:\s+(?P<w2>[a-z]+))?",
                     re.IGNORECASE)
"""A thing by its ordinal ("the third stump", "the second gold coin")."""
MET_FIRST = re.compile(r"\s+(?:that\s+)?(?:you|the\s+player|the\s+agent)\s+(?:meet|see|find|encounter|spot|run\s+into|come\s+across)\b", re.IGNORECASE)
"""After "the first goblin": the one met first, the nearest (:data:`evo.plans.framing.CLOSEST`), no goblin by its number."""
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
           "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}


def left_out(text: str, targets: Collection[str], instances: Collection[str], actors: Mapping[str, Iterable[str]]) -> Doubt | None:
    """The first instance ``text`` names ("lamp 4", "the third stump") that no step of the plan
    goes to (``targets``: the plan's nodes'), of those the game has (``instances``); None when
    every one is taken up. A step read as any thing of the kind ("go lamp" for "reach lamp 4")
    is as wrong as a step lost."""
    things = _names(actors)
    plain = said(re.sub(r"^[ \t]*(?:#?\d+[ \t]*[.):-]?|[-*•])[ \t]+", "", text, flags=re.MULTILINE))  # "1 Kill the ogre"
    named = [(m.start(), m.end(), m.group(0), m.group("thing"), m.group("n")) for m in NUMBERED.finditer(plain)]
    for m in ORDINAL.finditer(plain):
        if m.group("n").lower() in ("first", "1st") and MET_FIRST.match(plain, m.end("w1")):
            continue
        w = "w1" if _thing(m.group("w1"), things) or not m.group("w2") else "w2"
        named.append((m.start(), m.end(w), plain[m.start():m.end(w)], m.group(w), m.group("n")))
    for start, end, words, word, n in sorted(named):
        thing = _thing(word, things)
        number = NUMBERS.get(n.lower()) or (int(n) if n.isdigit() else int(n[:-2]) if n[:-2].isdigit() else None)
        name = f"{thing}_{number}" if thing else None
        corrected = re.match(r"[\s,]*(?:no|sorry|i\s+mean|actually|rather|scratch\s+that|wait)\b", plain[end:], re.IGNORECASE)
        after = re.match(r"\s+([a-z]+)", plain[end:], re.IGNORECASE)
        if "#" in words and after is not None and _thing(after.group(1), things):
            continue  # "#1 coin 4 #2 gate #3 altar": "#3" numbers the list's item, the altar
        if name in instances and name not in targets and not PLACE.search(plain[:start]) and not corrected:
            return Doubt(WHOLE, words, f"{words!r} names {name!r}, but no step of the plan goes to it", "")
        if name is not None and name not in instances and any(i.startswith(f"{thing}_") for i in instances) and not corrected \
                and not PLACE.search(plain[:start]) and not re.match(r"\s+[a-z]+s\b", plain[end:], re.IGNORECASE):  # "pit two tiles"
            return Doubt(WHOLE, words, f"{words!r} names {name!r}, which the game does not have", "")  # "the 3rd skeleton" of two
    return None


def check_instances(text: str, plan: Plan, steps: Sequence[MatchedStep], accept: Collection[int],
                    instances: Collection[str], actors: Mapping[str, Iterable[str]], actions: Iterable[str]) -> None:
    """Raise :class:`UnsureReading` when ``plan`` leaves out an instance the text names
    (:func:`left_out`), unless ``accept`` holds :data:`WHOLE`."""
    targets = {node.target for node in plan.nodes if node.target}
    doubt = None if WHOLE in accept else left_out(text, targets, instances, actors) or _which_one(plan)
    if doubt is not None:
        reading = ", ".join(f"{n.action or 'go'} {n.target or 'there'}" for n in plan.nodes) or "nothing"
        raise UnsureReading([replace(doubt, reading=reading)], steps, [a for a in actions if a != "move"])


def _which_one(plan: Plan) -> Doubt | None:
    """A step at any thing of a kind after a step at one of them, with another step between
    ("Visit lamp 1 and pillar 1, and go round the lamp"): it may mean the one named, in its turn."""
    for k, node in enumerate(plan.nodes):
        named = [n.target for n in plan.nodes[:k - 1] if n.target and n.target.rsplit("_", 1)[0] == node.target
                 and n.target.rsplit("_", 1)[-1].isdigit()]
        if node.target and named and plan.nodes[k - 1].target != named[-1]:
            return Doubt(WHOLE, node.target, f"a step at any {node.target} follows one at {named[-1]!r}, and which "
                         f"{node.target} it means, and when, is not clear", "")
    return None


def _thing(word: str, things: Mapping[str, str]) -> str | None:
    low = word.lower()
    return things.get(low) or (things.get(low[:-1]) if low.endswith("s") else None)


def check_nothing_dropped(text: str, steps: Sequence[MatchedStep], accept: Collection[int],
                          actions: Mapping[str, Iterable[str]], actors: Mapping[str, Iterable[str]],
                          categories: Mapping[str, Iterable[str]]) -> None:
    """Raise :class:`UnsureReading` when the plan leaves out a thing or deed the text names
    (:func:`dropped`), unless ``accept`` holds :data:`WHOLE`."""
    doubt = None if WHOLE in accept else dropped(text, steps, actions, actors, categories)
    if doubt is not None:
        raise UnsureReading([doubt], steps, [a for a in actions if a != "move"])


ITEM = re.compile(r"(?:^|[,;|>\n(.!?]|\bthen\b|^[ \t]*(?:[-*•]|\d+[.)]))[ \t]*(?P<w>[A-Za-z]+)[ \t]*(?=$|[,;.!?|\n)]|-+>|\bthen\b)",
                  re.MULTILINE | re.IGNORECASE)
"""A word standing alone as an item of a list or route ("lever, lava, zorble", "- zorble")."""


def _unknown_item(text: str, read: Collection[str], things: Mapping[str, str], deeds: Mapping[str, str]) -> str | None:
    """A word no dictionary knows standing alone where a list's step would be ("lever, lava,
    zorble"): read without it, the plan would leave a step out without a word. A capitalised
    word that ends the text is a name signing off ("Thanks,\nGabe"), not a step."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from evo.plans.lexicon import _lemma, wordnet
    from evo.plans.spelling import CHAT

    for m in ITEM.finditer(text):
        word = m.group("w")
        low = word.lower()
        if low in read or low in things or low in deeds or low in STOP_WORDS or low in CHAT or low in JARGON or len(low) < 3 \
                or low in ("whichever", "whatever", "whoever", "wherever", "whenever", "however", "etc", "anyways"):
            continue
        if word[0].isupper() and not text[m.end():].strip(" \t\n.!?,;:-)"):
            continue
        if not any(wordnet().synsets(form) for form in {low, *(_lemma(low, pos) for pos in "nvar")}):
            return word
    return None


def _names(vocabulary: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Word -> the name it means: each name and declared synonym, as written."""
    return {word.lower(): name for name, synonyms in vocabulary.items() for word in (name, *synonyms)}


SLIP = 0.8
"""How alike (difflib's ratio) an unknown word and a game's word are to read one as a slip of the
other: one letter dropped or swapped in a word of five or more ("swich", "activte", "shrien")."""





def _misspelt(word: str, things: Mapping[str, str], deeds: Mapping[str, str]) -> str | None:
    """The game's word ``word`` is a slip of ("swich": switch, "activte": activate), where it is no
    English word WordNet knows; None otherwise."""
    from difflib import get_close_matches

    from spacy.lang.en.stop_words import STOP_WORDS

    from evo.plans.lexicon import _lemma, wordnet

    if len(word) < 4 or not word.isalpha() or word in STOP_WORDS or word in JARGON:  # "with" is no slip of "switch"
        return None
    words = [w for w in (*things, *deeds) if len(w) >= 4 and w.isalpha()]
    close = get_close_matches(word, words, n=1, cutoff=SLIP) or [w for w in words if w[0] == word[0] and sorted(w) == sorted(word)][:1]  # "jmup"
    if not close or any(wordnet().synsets(form) for form in {word, *(_lemma(word, pos) for pos in "nvar")}):
        return None
    return close[0]


def _as_thing(word: str, things: Mapping[str, str]) -> bool:
    """A deed's word that is also a thing's ("fire" is lava): read as the thing."""
    return word in things


def _plan(steps: Sequence[MatchedStep]) -> str:
    from evo.plans.doubts import reading

    return ", ".join(reading(s) for s in steps) or "nothing"


def _verb_of(word: str) -> str:
    """The verb a form of it is ("jumping": jump), by WordNet."""
    from evo.plans.lexicon import _lemma, wordnet

    wordnet()
    return _lemma(word, "v")
