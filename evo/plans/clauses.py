"""Split a sentence into the steps it holds, and find the condition each step is under.

Testers write two steps in one sentence ("Go to the switch and pull it, then jump over the
lava") and put conditions in front or behind ("Once the switch is on, ...", "... whenever
you see one", "goblins that come near"). The trained pipeline (:mod:`evo.plans.text`) tags
every action keyword of the sentence; each action after the first opens a new clause where
the words before it join two steps (``,``, ``and``, ``then``...), so the steps keep their
order. A condition is the part of a clause that starts with a condition word, or a relative
clause on its actor: it is a rule's **trigger** when it says an actor is about ("whenever you
see a goblin", "that come near"), and a node's **precondition** when it says a thing is in a
state ("once the switch is on").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evo.plans.clause_words import (
    ADVERBS, AROUND, BREAKS, CONDITION, DEEDS, DETERMINERS, DIRECTIONS, DONE_WORDS, GOING, IDIOMS, JOINERS, LEADS,
    LIGHT, MOVEMENT, ORDINALS, PARTICLES, PHRASE_ENDS, POSITIONS, PRONOUNS, RELATIVE, REPEATS, ROTATIONS, STATE,
    STEP_JOINS, TRIGGER,
)
from evo.plans.lexicon import compound, is_adverb, is_noun, is_verb


@dataclass(frozen=True)
class Clause:
    """One step of a sentence, with what it is under.

    Attributes:
        text: The clause as written.
        action_word: Its action keyword, or None (a step that only goes somewhere).
        actor_word: Its actor keyword, None, or a pronoun ("it": the actor before).
        ordinal: "the second barrel": 2.
        condition: The condition's words, or None.
        trigger: The condition is an actor being about (a rule's trigger), not a state.
        condition_actor: The actor keyword of the condition.
        condition_state: The state word of a precondition ("on" in "the switch is on").
    """

    text: str
    action_word: str | None
    actor_word: str | None
    ordinal: int | None = None
    condition: str | None = None
    trigger: bool = False
    condition_actor: str | None = None
    condition_state: str | None = None


def _is_joiner(token: Any) -> bool:
    return token.text.lower() in JOINERS or token.is_punct


def _verb_tagged_actor(doc: Any, ent: Any) -> bool:
    """An ACTOR tag on a step's verb: after a joining word and before a particle or direction
    ("..., and look down at it"), which no noun of a step stands between."""
    if not (ent.label_ == "ACTOR" and ent.start > 0 and len(ent) == 1 and doc[ent.start - 1].text.lower() in STEP_JOINS):
        return False
    if ent.end >= len(doc) or doc[ent.end].is_punct:  # "... and pray.": a verb that is no noun
        return not is_noun(ent.text) and is_verb(ent.text)
    return doc[ent.end].text.lower() in PARTICLES | DIRECTIONS


def _in_condition(doc: Any, i: int) -> bool:
    """Whether token ``i`` is in a condition in front of its step ("If an ogre hits you, ..."):
    from a condition word at a sentence's or clause's start up to the comma."""
    for k in range(i, -1, -1):
        if doc[k].text in ",;":
            return False
        if (k == 0 or doc[k - 1].text.lower() in JOINERS or doc[k - 1].is_punct) and CONDITION.match(doc[k:].text):
            return any(t.text == "," for t in doc[i:])
    return False


ORDER_ADVERBS = frozenset({"beforehand", "before", "after", "afterwards", "afterward", "later", "then"})
"""Words of order the tagger may take for a thing ("slay the orc beforehand"): never one."""


def _opens_step(doc: Any, ent: Any) -> bool:
    """An action keyword that is a step's verb: not a position ("is next to you"), not a verb
    whose subject is "you" ("each pillar you walk past") or a relative pronoun ("that walks up"),
    not an ordinal ("then the third one"), not a noun that is no verb ("skeletons")."""
    words = {t.text.lower() for t in ent}
    before = doc[ent.start - 1].text.lower() if ent.start > 0 else ""
    if len(ent) == 1 and is_adverb(ent.text) and not is_verb(ent.text):  # "Constantly smash": how, no deed
        return False
    if len(ent) == 1 and before in ("and", "or", "&") and ent.text.isalpha() and is_noun(ent.text) and not is_verb(ent.text):  # "... goblins and skeletons that
        return False  # come near": a thing the tagger took for a deed, the verb before's object
    return not words <= PARTICLES | DIRECTIONS | POSITIONS | ROTATIONS | ORDINALS.keys() and not _in_condition(doc, ent.start) \
        and before not in ("you", "that", "which", "who", "it", "they", "he", "she", "we")  # "any goblin that walks up to you", "whatever monsters it runs into"


def _relative_verb(doc: Any, ent: Any) -> bool:
    """A tagged actor that is the verb of a relative clause ("anything that blocks you"), not a
    thing after "that" ("that skeleton")."""
    before = doc[ent.start - 1].text.lower() if ent.start > 0 else ""
    after = doc[ent.end].text.lower() if ent.end < len(doc) else ""
    return len(ent) == 1 and (before in ("which", "who") or before == "that" and ent.text.lower().endswith("s")
                              and after in ("you", "me", "us", "him", "her", "them", "it") and is_verb(ent.text))


def _untagged_verb(doc: Any, i: int) -> bool:
    """A verb the tagger missed after "and" or a comma, standing alone or before a particle,
    direction, determiner or pronoun ("... and hop.", "..., and press it"): a step of its own."""
    word = doc[i].text.lower()
    if i == 0 or doc[i - 1].text.lower() not in STEP_JOINS or any(e.start <= i < e.end for e in doc.ents):
        return False
    after = doc[i + 1].text.lower() if i + 1 < len(doc) else "."
    ends = after in PARTICLES | DIRECTIONS | DETERMINERS | PRONOUNS | REPEATS or doc[i + 1:i + 2].text in ".!?,;" or after == "."
    return word.isalpha() and word not in JOINERS | DETERMINERS | PRONOUNS | PARTICLES and ends and is_verb(word)


def _conjunct(doc: Any, ent: Any) -> int | None:
    """Where a second object of one verb starts ("Kill all goblins and all skeletons", "Attack the
    ogre, the goblin and the skeleton"): an actor after "and" or a comma and its determiners, with
    an actor before it since the last verb, outside any condition; each is a step of that verb."""
    k = ent.start
    while k > 0 and doc[k - 1].text.lower() in DETERMINERS | ORDINALS.keys():
        k -= 1
    if ent.label_ != "ACTOR" or k == 0 or doc[k - 1].text.lower() not in (",", "and") or not is_noun(ent.text) \
            or _verb_tagged_actor(doc, ent) or _in_condition(doc, ent.start) or CONDITION.search(doc[:ent.start].text):
        return None
    for e in reversed([e for e in doc.ents if e.end < k]):
        if e.label_ == "ACTION" or RELATIVE.search(doc[e.end:k].text):
            return None
        if e.label_ == "ACTOR" and is_noun(e.text):
            verbs = [t for t in doc[e.end:k - 1] if _untagged_verb(doc, t.i)]
            return None if verbs else k
    return None


def clause_bounds(doc: Any) -> list[tuple[int, int]]:
    """Token ranges of a parsed sentence's clauses, in order: a new one starts at the joining
    words before each action keyword after the first, and at each object after the first that
    one verb is done to (:func:`_conjunct`)."""
    heads = sorted({e.start for e in doc.ents if (e.label_ == "ACTION" and _opens_step(doc, e)) or _verb_tagged_actor(doc, e)}
                   | {t.i + 1 for t in doc if t.text.lower() in BREAKS and t.i + 1 < len(doc) and not doc[t.i + 1].is_punct}
                   | {t.i for t in doc if _untagged_verb(doc, t.i)}
                   | {k for k in map(lambda e: _conjunct(doc, e), doc.ents) if k is not None}
                   | {t.i for t in doc if 0 < t.i < len(doc) - 2 and t.text.lower() == "the" and _is_joiner(doc[t.i - 1])
                      and doc[t.i + 1].text.lower() in ORDINALS and doc[t.i + 2].text.lower() in ("one", "ones")})  # "... and the third one"
    starts = [0]
    for head in heads:
        k = _before_condition(doc, starts[-1], _back(doc, starts[-1], head))
        before = doc[starts[-1]:k]
        only_condition = CONDITION.match(before.text) and not any(
            e.label_ == "ACTION" and _opens_step(doc, e) and starts[-1] <= e.start < k for e in doc.ents)
        if starts[-1] < k < head and any(not _is_joiner(t) and t.text.lower() not in LEADS for t in before) \
                and not only_condition:  # "First, walk to ...": a lead word is no step
            starts.append(k)  # a condition in front ("Whenever you see one, ...") stays with its step
    return [(a, b) for a, b in zip(starts, [*starts[1:], len(doc)])]


def _back(doc: Any, start: int, k: int) -> int:
    while k > start and (_is_joiner(doc[k - 1]) or doc[k - 1].text.lower() in ADVERBS):
        k -= 1
    return k


def _before_condition(doc: Any, start: int, k: int) -> int:
    """Where a step starts whose condition comes between it and the step before ("Flip the
    switch, and when it is on, head to the door": at "when"): the condition is the next step's."""
    if k == 0 or doc[k].text != ",":
        return k
    for j in range(k - 1, start, -1):
        if doc[j].text in ",;":
            break
        if (_is_joiner(doc[j - 1]) or doc[j - 1].is_punct) and CONDITION.match(doc[j:k].text):
            return _back(doc, start, j)
    return k


def _imperative(span: Any) -> str | None:
    """The verb a step starts with, after its lead words ("Then, hop across"): what the
    tagger missed. With its particle, as a keyword is tagged."""
    words = [t for t in span if not t.is_punct and t.text.lower() not in LEADS]
    if not words or words[0].text.lower() in DETERMINERS | PRONOUNS | PARTICLES:
        return None  # "then the skeleton", "and then to the pillar": no verb (the step before's)
    if words[0].i > span.start and _is_joiner(span[0]) and words[0].text.isalpha() and is_noun(words[0].text) \
            and not is_verb(words[0].text):
        return None  # "... goblins and skeletons that come near": a thing, the verb before's object
    verb = words[0].text
    if len(words) > 1 and words[1].text.lower() in PARTICLES | DIRECTIONS | IDIOMS and words[1].i == words[0].i + 1:
        verb += " " + words[1].text
    return verb


def _noun_after_determiner(span: Any, subject: bool = False) -> str | None:
    """The last word of the first noun phrase ("the old stone altar": altar): what the tagger
    missed, or tagged on a word that is no noun. As a condition's ``subject``, the phrase ends
    before its verb: a word followed by its object or particle ("a goblin attacks you")."""
    tokens = list(span)
    for k, t in enumerate(tokens):
        if t.text.lower() in DETERMINERS - {"that", "this"}:
            phrase = []
            for j, u in enumerate(tokens[k + 1:], start=k + 1):
                if u.is_punct or u.text.lower() in PARTICLES | PHRASE_ENDS | REPEATS | POSITIONS | ORDER_ADVERBS:  # "a coin nearby"
                    break
                after = tokens[j + 1].text.lower() if j + 1 < len(tokens) else ""
                if subject and phrase and after in PARTICLES | PRONOUNS | DETERMINERS | {"you", "your", "back"}:
                    break
                phrase.append(u.text)
            while subject and len(phrase) > 1 and not is_noun(phrase[-1]):  # "a skeleton aggros": the verb
                phrase.pop()
            if phrase and phrase[-1].lower() not in DIRECTIONS:  # "turn to the right": no actor
                return phrase[-1]
    return None


def _around(span: Any, action: str | None) -> str | None:
    """A path around a thing is circling it: "walk (clockwise) around the barrel" is "walk
    around", "do a lap around", "go once round" are "go around" (the name's synonyms say which
    manoeuvre that is); other verbs keep their action ("look around at it" has no object)."""
    words = [t.text.lower() for t in span]
    at = next((k for k, w in enumerate(words[:-1]) if w in AROUND and (words[k + 1] in DETERMINERS | PRONOUNS
                                                                       or words[k + 1] in ORDINALS)), None)
    if action and any(w in action.lower() for w in ("circle", "orbit")):
        return action
    if at is None and not (action and "around" in action.lower().split()):
        return action
    verb = (action or "go").split()[0].lower()
    verb = {"walking": "walk", "running": "run", "going": "go", "moving": "move", "jogging": "jog"}.get(verb, verb)  # "Spend 40 s walking around ..."
    return ("go" if verb in LIGHT - {"walk", "run"} else verb) + " around" if verb in LIGHT else action


def _given(span: Any, action: str | None) -> Any:
    """The deed in "give it a pull", "give the goblin a whack", "do a jump": the noun after "a"
    that is a verb too, the step's action (the thing given it is the actor)."""
    if not action or not action.split() or action.split()[0].lower() not in DEEDS:
        return None
    tokens = list(span)
    return next((u for t, u in zip(tokens, tokens[1:]) if t.text.lower() in ("a", "an") and is_verb(u.text)), None)


def _path_at(span: Any) -> int | None:
    """Where "around" is in the doc: the actor comes after it ("do a full loop around the lamp":
    the lamp; "full", "loop" are the path)."""
    return next((t.i for t in span if t.text.lower() in AROUND), None)


def _trim(span: Any) -> str:
    tokens = list(span)
    while tokens and _is_joiner(tokens[0]):
        tokens.pop(0)
    while tokens and tokens[-1].is_punct:
        tokens.pop()
    return "".join(t.text_with_ws for t in tokens).strip()


def _words(ent: Any) -> str:
    """A tagged keyword without the punctuation or the repeat the tagger took with it ("and leap.":
    leap; "the lamp twice": lamp)."""
    return " ".join(t.text for t in ent if not t.is_punct and t.text.lower() not in REPEATS) or ent.text


PREPOSITIONS = frozenset({"in", "of", "for", "from", "within", "inside", "outside", "under", "behind", "beside", "near",
                          "by", "last", "first", "as", "like", "than", "without"})
"""Words that end a noun phrase before another ("every goblin in the dungeon"), or follow it as
an adverb ("flip the switch last")."""


def _head(doc: Any, ent: Any, end: int) -> str:
    """A tagged actor's noun phrase, its nouns after the tag included: "the wall switch" tagged at
    ``wall`` is "wall switch" (the nouns are matched each, :func:`evo.plans.text.match_actor`), or
    the one compound WordNet knows the two as ("lamp post": lamppost, "tree stump")."""
    words = _words(ent)
    stop = PHRASE_ENDS | PARTICLES | DETERMINERS | PRONOUNS | JOINERS | REPEATS | POSITIONS | DIRECTIONS | LEADS \
        | ADVERBS | PREPOSITIONS
    if ent.start > 0 and len(ent) == 1 and doc[ent.start - 1].text.isalpha() and doc[ent.start - 1].text.lower() not in stop:
        words = compound(doc[ent.start - 1].text.lower(), words) or words  # "the lamp post" tagged at post
    k = ent.end
    while k < end and doc[k].text.isalpha() and doc[k].text.islower() and doc[k].text not in stop \
            and doc[k].text not in ORDINALS and is_noun(doc[k].text) and not is_adverb(doc[k].text):  # "switch so"
        last = words.split()[-1]
        words = compound(last, doc[k].text) or f"{last} {doc[k].text}"
        k += 1
    return words


def _bare_object(token: Any) -> bool:
    """The last word of a verb tagged with its object, the object with no article a checklist
    leaves out ("jump lava"): a noun that is no particle, direction or adverb of the verb."""
    word = token.text.lower()
    return token.text.isalpha() and word not in PARTICLES | DIRECTIONS | IDIOMS | ROTATIONS | REPEATS | POSITIONS \
        | DETERMINERS | PRONOUNS | JOINERS | LEADS and is_noun(word) and not is_adverb(word)


def _last_noun(tokens: Any) -> str | None:
    """A condition's thing with no article, last in it ("whenever you see gold"), past the words
    of where it is ("nearby", "close by")."""
    tokens = list(tokens)
    for k in range(len(tokens) - 1, 0, -1):
        t, word = tokens[k], tokens[k].text.lower()
        if t.is_punct or word in POSITIONS | PARTICLES | DIRECTIONS | REPEATS or (is_adverb(word) and not is_noun(word)):
            continue
        before = tokens[k - 1].text.lower()  # "it opens", "you can", "it is open": a verb or a state, no thing
        return t.text if t.text.isalpha() and word not in PRONOUNS | DETERMINERS | {"you", "your"} and is_noun(word) \
            and before not in PRONOUNS | PHRASE_ENDS | {"you", "they", "we", "i"} else None
    return None


def _condition_range(span: Any) -> tuple[int, int] | None:
    """Token range (in the doc) of a clause's condition: from a condition word to the comma
    (in front) or to the end (behind), or a relative clause on the actor."""
    text = span.text
    found = CONDITION.search(text) or RELATIVE.search(text)
    if found is None:
        return None
    start = next(t.i for t in span if t.idx - span.start_char >= found.start())
    end = span.end
    if start == span.start or any(t.text == "," for t in span[start - span.start:]):
        comma = next((t.i for t in span[start - span.start:] if t.text == ","), None)
        end = comma if comma is not None and comma > start else span.end
    return start, end


def read_clause(doc: Any, begin: int, end: int) -> Clause:
    """A clause's keywords and condition, from the tagged tokens of its range."""
    span = doc[begin:end]
    cond = _condition_range(span)
    inside = (lambda e: cond[0] <= e.start < cond[1]) if cond else (lambda e: False)
    ents = [e for e in doc.ents if begin <= e.start < end]
    action_ent = next((e for e in ents if e.label_ == "ACTION" and not inside(e) and _opens_step(doc, e)), None)
    action = _words(action_ent) if action_ent is not None else None
    if action_ent is not None and action.lower() in PARTICLES and action_ent.start > begin \
            and not _is_joiner(doc[action_ent.start - 1]):  # "Bound over" tagged "over": the verb is before
        action = doc[action_ent.start - 1].text + " " + action
    elif action_ent is not None and action.lower() in PARTICLES:  # "and then to the pillar": no verb
        action = None
    if action is None:
        pass  # a particle with no verb before it: read from the span below
    elif action_ent is not None and action_ent.end < end and doc[action_ent.end].text.lower() in DIRECTIONS | IDIOMS \
            and action_ent.text.split()[-1].lower() not in DIRECTIONS | IDIOMS:  # "take out": the idiom
        action += " " + doc[action_ent.end].text
    elif action_ent is not None and action_ent.end < end and action.lower() in GOING \
            and doc[action_ent.end].text.lower() == "after":  # "go after it": pursue, not a condition
        action += " " + doc[action_ent.end].text
    if action is None:
        action = _imperative(span if cond is None or cond[0] > begin else doc[cond[1]:end])
    moving = MOVEMENT.match(_trim(span if cond is None or cond[0] > begin else doc[cond[1]:end]))
    if moving:  # "make your way to": one movement, not "make" or "way"
        action = moving.group(0).strip()
    turn = next((t for t in span if t.text.lower() in DIRECTIONS and t.i > begin and doc[t.i - 1].text.lower() in ("the", "your")
                 and (t.i + 1 >= end or doc[t.i + 1].text.lower() != "of")), None)
    if turn is not None and action and action.split()[-1].lower() not in DIRECTIONS:  # "turn to the right"
        action = action.split()[0] + " " + turn.text
    action = _around(span, action)
    given = None if action and action.endswith(" around") else _given(span, action)  # "do a full circle around it"
    if given is not None:
        after = doc[given.i + 1].text if given.i + 1 < end else ""
        action = given.text + (" " + after if after.lower() in DIRECTIONS else "")  # "have a look up"
    verb_at = next((t.i for t in (span if cond is None or cond[0] > begin else doc[cond[1]:end])  # after a leading condition
                    if not t.is_punct and t.text.lower() not in LEADS), None)
    path = _path_at(span) if action is not None and action.endswith(" around") else None
    actor_ent = next((e for e in ents if e.label_ == "ACTOR" and not inside(e) and is_noun(e.text)
                      and (path is None or e.start > path) and e.text.lower() not in ROTATIONS
                      and (given is None or e.start != given.i) and e.text.lower() not in REPEATS
                      and e.text.lower() not in DIRECTIONS | ORDINALS.keys() | ORDER_ADVERBS and e.start != verb_at
                      and not _relative_verb(doc, e)), None)
    actor = _head(doc, actor_ent, end) if actor_ent is not None else None
    if actor_ent is not None and actor_ent.end + 1 < end and doc[actor_ent.end].text.lower() == "of":
        actor = _noun_after_determiner(doc[actor_ent.end:end]) or next(  # "in front of the statue": statue
            (t.text.lower() for t in doc[actor_ent.end:end] if t.text.lower() in PRONOUNS), actor)  # "of it"
    if actor is None and action_ent is not None and len(action_ent) > 1 and action and " " in action and _bare_object(action_ent[-1]):
        action, actor = action.rsplit(" ", 1)  # "jump lava", "go through door" tagged as one verb: a checklist's object
    if actor is None:
        rest = span if cond is None else (doc[cond[1]:end] if cond[0] == begin else doc[begin:cond[0]])
        actor = _noun_after_determiner(rest if given is None else doc[rest.start:given.i - 1])  # "a pull": no actor
    if actor is None and action is None and begin > 0 and _is_joiner(doc[begin]):  # "... and skeletons that come near":
        first = next((t for t in span if not t.is_punct and t.text.lower() not in LEADS), None)  # the verb before's object
        if first is not None and first.i > begin and first.text.isalpha() and is_noun(first.text) and not is_verb(first.text) \
                and not (cond and cond[0] <= first.i < cond[1]):
            actor = first.text.lower()
    if actor is None:  # "pull it": the pronoun stands for the actor before
        actor = next((t.text.lower() for t in span if t.text.lower() in PRONOUNS and not (cond and cond[0] <= t.i < cond[1])), None)
    ordinal = next((ORDINALS[t.text.lower()] for t in span if t.text.lower() in ORDINALS and t.i > 0
                    and doc[t.i - 1].text.lower() in DETERMINERS and not (cond and cond[0] <= t.i < cond[1])),
                   None)  # "the fourth barrel": 4 ("First, ..." is no ordinal)
    if cond is None:
        return Clause(_trim(span), action, actor, ordinal)
    words = doc[cond[0]:cond[1]]
    relative = CONDITION.search(words.text) is None  # "that come near": the actor is the step's
    keyword = CONDITION.match(words.text)  # "every time you meet an ogre": not a time
    after = [t for t in words if keyword is None or t.idx - words.start_char >= keyword.end()]
    cond_actor = None if relative else (_noun_after_determiner(after, subject=True) or next(
        (e.text for e in ents if e.label_ == "ACTOR" and inside(e) and is_noun(e.text)
         and doc[e.start - 1].text.lower() not in PRONOUNS | {"you", "they", "we"}), None) or _last_noun(after))  # "it opens"
    state = STATE.search(words.text)
    if state is not None and (next(g for g in state.groups() if g).lower() in PRONOUNS | DONE_WORDS
                              or (after and after[0].text.lower() in ("you", "we", "i"))):  # "while you are walking"
        state = None  # "once you get there": arriving, no state
    trigger = bool(TRIGGER.search(words.text)) or RELATIVE.match(words.text) is not None
    if not trigger and state is None:  # "once there,": no actor about, no state, no condition
        return Clause(_trim(span), action, actor, ordinal)
    return Clause(_trim(span), action, actor, ordinal, words.text.strip(" ,"), trigger,
                  cond_actor, None if trigger or state is None else next(g for g in state.groups() if g).lower())
