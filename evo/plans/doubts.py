"""Precision first: a clause read without confidence is refused with its closest reading, never guessed.

A plan from a tester's text runs only where every clause was read with confidence: a wrong plan
that runs without a word costs a tester more than a refusal that says what to rephrase. Each
clause in doubt is refused in one line that quotes it and offers the reading it would run, which
``evo plan from-text --accept N`` takes (:class:`UnsureReading`). What is in doubt was chosen by
reading the wrong plans of the held-out and development sets (``benchmarks/text_plans.py``;
docs/guides/text-plans.md): it turned 9 of their 17 plans read wrong without a word into
refusals and refused none read right.

- **A verb read as going only loosely.** A clause whose verb is like none of the game's actions
  is read as going to its actor when WordNet puts the verb under a kind of moving ("Crank the
  lever", "worship at the altar", "Swing at the skeleton"). A verb of going says where to
  ("stroll to the barrel"), or is a going verb itself or a synonym of one.
- **A clause with nothing in it.** No action, no actor and no verb of going ("First off"): it
  would send the agent to where the step before ended.
- **A condition read only loosely.** A condition whose words are like a game name by a looser
  relation than the same word or a synonym ("If an enemy approaches" read as a door near).
- **A rule watching for one thing.** A rule acts whenever any actor of a type is near; a
  condition that names one ("Once you reach the 2nd pillar, jump", "when you get to the door")
  is more likely a step done there.
- **An actor left unread.** A step read with no actor though one of its words names one (the
  same word, a synonym or the same spelling: "Slay orcs" read as attacking where the step
  before ended).
- **A pronoun for nothing.** "it" in a clause before any clause named a thing ("Check the 4th
  barrel: go to it", its heading taken out) would act where the plan starts.
- **A thing named and left out.** A clause names a thing of the game (the same word, a synonym
  or the same spelling) that no step of the plan goes to, acts on or waits for: a step was lost
  in the reading ("Touch the shrine, but before that hop over the lava" read as the shrine alone;
  "Visit the coin before the door").
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Collection, Iterable, Mapping, Sequence

from evo.plans.text import MatchedStep, match_actor
from evo.run.config import ConfigError

CONFIDENT = ("same", "synonym", "clipped")
"""How a word may be matched to be read with confidence where a loose match is in doubt."""
NAMING = (*CONFIDENT, "spelling")
"""How a word left unread must match an actor to be in doubt ("orcs": spelling, as WordNet has
no plural of "orc"); looser relations hold for verbs and states too often ("open" is a gloss of
lava's)."""
ONE_THING = re.compile(r"\b(the|this|that|\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|"
                       r"eighth|ninth|tenth|last)\s+(?:[\w-]+\s+){0,2}?", re.IGNORECASE)
"""Words before a noun that make it one thing, not any of its kind."""
PLACE = re.compile(r"\b(?:by|near|beside|behind|next to|close to|in front of|opposite|past|from)\s+(?:(?![\w'-]*ing\s|first\s)[\w'-]+\s+){0,3}$",
                   re.IGNORECASE)
"""Words before a thing that say where a step is, not what it does ("the lever by the door")."""
TOWARDS = (" to", " toward", " towards", " into", " onto", " up to")
"""Endings of a verb of going that say where to ("stroll to", "dash over to")."""


@dataclass(frozen=True)
class Doubt:
    """A clause read without confidence.

    Attributes:
        clause: Its number, from 1, in the order the clauses were read (``--accept`` takes it).
        text: The clause as written.
        why: What is in doubt, in a tester's words.
        reading: The closest reading: the step the plan would take.
    """

    clause: int
    text: str
    why: str
    reading: str


def reading(step: MatchedStep) -> str:
    """The step a clause was read as, in the notation of ``evo plan from-text``'s table
    ("interact switch", "rule attack goblin", "go (where the step before ended)")."""
    rule = "rule " if step.parsed.kind == "rule" else ""
    target = step.actor_type or (step.condition_match.name if step.condition_match else None)
    ordinal = step.parsed.clause.ordinal if step.parsed.clause else None
    where = f"{target} {ordinal}" if target and ordinal else target or ("it" if step.parsed.actor_word and step.parsed.actor_word.lower() != "there" else None)
    return f"{rule}{step.action or 'go'} {where or '(where the step before ended)'}"


def doubts(steps: Sequence[MatchedStep], actors: Mapping[str, Iterable[str]] | None = None,
           categories: Mapping[str, Iterable[str]] | None = None,
           targets: Mapping[str, Collection[str]] | None = None) -> list[Doubt]:
    """Every clause of ``steps`` in doubt (see the module), in order; ``actors``: the game's actor
    types and their synonyms, to find an actor left unread or left out (None: not looked for);
    ``categories``: the game's categories and their types ("enemy": goblin, skeleton, ogre);
    ``targets``: the actions that act on things and the things each acts on, where the game says."""
    out = []
    covered = _covered(steps, categories or {}) if actors is not None else set()
    for number, step in enumerate(steps, 1):
        named = any(s.actor_type or s.condition_match for s in steps[:number])
        why = _why(step) or (_unread(step, actors) if actors is not None else None) or _unknown(step) or _spelled(step) \
            or _nothing_before(step, named) or _rule_before(step, steps[:number - 1]) or _beforehand(step, number) \
            or _statement(step, steps[number:number + 1]) \
            or _nowhere(step, any(s.parsed.kind == "node" and (s.actor_type or s.condition_match) for s in steps[:number])
                        or step.parsed.kind == "rule" and named, targets or {}) or _does_nothing(step, steps[:number - 1], targets or {}) \
            or _nothing_there(step, steps[:number - 1], targets or {}) or _anything(step) \
            or (_left_out(step, actors, covered) if actors is not None else None)
        if why is not None:
            out.append(Doubt(number, step.parsed.text, why, reading(step)))
    return out


def _anything(step: MatchedStep) -> str | None:
    """A step on "anything" or "everything" with no kind named ("Jump over anything that gets in
    your way" after a route): read as the thing before, it is a guess. What one kills is an enemy
    where the game names them so (:mod:`evo.plans.second_language`): no doubt."""
    word = (step.parsed.actor_word or "").lower()
    vague = re.search(r"\b(anything|everything|something|whatever)\b", step.parsed.text, re.IGNORECASE)
    if step.actor_type is None and step.condition_match is None and vague and word in ("", "anything", "everything", "something",
                                                                                       "whatever", "that", "it", "which"):
        return f"{vague.group(1).lower()!r} names no kind of thing"
    bare = re.search(r"\b(any|all|each|every|some)\b(?!\s+(?:of\s+)?(?:the\s+)?[a-z]+(?<!you)\b\s)", step.parsed.text, re.IGNORECASE)
    if step.actor_type is None and step.condition_match is None and step.action is not None \
            and (word in ("any", "all", "each", "every", "some") or not word and bare):
        return f"{(word or bare.group(1)).lower()!r} names no kind of thing"  # "attack any you find"
    if step.parsed.kind == "rule" and step.actor_type is None and step.condition_match is None and not word \
            and step.parsed.clause is not None and step.parsed.clause.condition \
            and not re.search(r"\b(?:it|them|there|one|that\s+one)\b", step.parsed.clause.condition, re.IGNORECASE):
        return "a standing order that names no kind of thing to watch for"  # "Kill anything that gets in your way"
    return None


def _nothing_before(step: MatchedStep, named: bool) -> str | None:
    """A pronoun that stands for nothing: no clause up to it named a thing ("go to it" first,
    "Walk there" after a remark that was no step)."""
    word = (step.parsed.actor_word or "").lower()
    if word in ("it", "them", "one", "ones", "that", "this", "those", "there") and not named:
        return f"{word!r} stands for nothing named before it"
    if word in ("this", "that", "it") and (step.parsed.action_word or "").lower() in ("do", "repeat", "redo"):
        return f"'{step.parsed.action_word} {word}' asks again for what was said before, and for which step is not clear"  # "Do this and nothing else"
    return None


def _beforehand(step: MatchedStep, number: int) -> str | None:
    """A step after others said to come before one of them ("..., then head through the door,
    flip the switch beforehand"), where the reader could not tell before which."""
    said = re.search(r"\b(?:beforehand|before\s+(?:that|then|this)|in\s+between)\s*[.!?]?\s*$", step.parsed.text, re.IGNORECASE)
    if number > 1 and said is not None:
        return f"{said.group(0).strip()!r} puts it before an earlier step, and before which one is not clear"
    return None


def _statement(step: MatchedStep, after: Sequence[MatchedStep]) -> str | None:
    """A clause that tells of a thing rather than asks for a deed ("The coins are a pacing
    device"): no verb of the game's, its thing the subject of "is" or "are", and no step after it
    that refers back to it ("The shrine is the goal. Get there and use it.")."""
    word = (step.parsed.actor_word or "").split()[-1:] or [""]
    back = any((s.parsed.actor_word or "").lower() in ("it", "there", "them") for s in after)
    if step.parsed.action_word is None and word[0] and not back and re.search(
            rf"\b{re.escape(word[0])}\s+(?:is|are|was|were|seems?|looks?|feels?|sits?|stands?)\b", step.parsed.text, re.IGNORECASE):
        return f"{step.parsed.text!r} tells of the {word[0]} rather than asking for a deed"
    return None


def _rule_before(step: MatchedStep, before: Sequence[MatchedStep]) -> str | None:
    """A step on "it" whose thing was last named by a standing order ("Go to any barrel and look
    up at it"): the rules act after the steps, so "it" would be where the plan starts."""
    word = (step.parsed.actor_word or "").lower()
    last = next((s for s in reversed(before) if s.actor_type or s.condition_match), None)
    if step.actor_type is None and step.condition_match is None and word in ("it", "them", "there") \
            and last is not None and last.parsed.kind == "rule":
        return f"{word!r} stands for the thing of a standing order ({last.parsed.text!r}), not one place"
    return None


def _nowhere(step: MatchedStep, named: bool, targets: Mapping[str, Collection[str]]) -> str | None:
    """A first step to a thing or at a thing that names none ("Kill anything hostile", "Pick up
    anything"): it would go nowhere, or act where the plan starts."""
    if named or step.parsed.actor_word or step.condition_match is not None:  # a rule with nothing to watch is a step
        return None
    if step.action is None and step.action_match is not None or step.action in targets:
        return "it names no thing to go to or act on, so it would act where the plan starts"
    return None


def _does_nothing(step: MatchedStep, before: Sequence[MatchedStep], targets: Mapping[str, Collection[str]]) -> str | None:
    """An action read loosely, or a verb said for an earlier thing, on a thing the game says it
    does nothing to ("Stand on the coin" read as attacking it: the dungeon attacks enemies; "Attack
    the nearest enemy, then the nearest collectable")."""
    gapped = (step.parsed.action_word or "").lower() not in step.parsed.text.lower()  # "Kill the ogre, then the coin"
    if step.parsed.kind != "node" or step.action_match is None or step.action_match.how in CONFIDENT and not gapped:
        return None  # "Open the door": the tester's own word for the deed
    thing = step.actor_type or next((s.actor_type for s in reversed(before) if s.actor_type), None) \
        if step.parsed.actor_word else step.actor_type
    if step.action in targets and thing is not None and thing not in targets[step.action]:
        return f"{step.action!r} does nothing to a {thing} in this game"
    return None


def _nothing_there(step: MatchedStep, before: Sequence[MatchedStep], targets: Mapping[str, Collection[str]]) -> str | None:
    """A deed with no thing of its own, done where the step before ended, on a thing the game says
    it does nothing to ("grab the coin and then jump across": a jump at the coin)."""
    if step.parsed.kind != "node" or step.action is None or step.parsed.actor_word or step.actor_type \
            or step.condition_match is not None or step.action not in targets:
        return None
    thing = next((s.actor_type for s in reversed(before) if s.actor_type), None)
    if thing is not None and thing not in targets[step.action]:
        return f"{step.action!r} does nothing to a {thing} in this game, where the step before ended"
    return None


def _covered(steps: Sequence[MatchedStep], categories: Mapping[str, Iterable[str]]) -> set[str]:
    """The actor types and categories the plan's steps go to, act on or wait for, each category
    with its types and each type with its categories."""
    names = {name for s in steps for name in (s.actor_type, s.condition_match.name if s.condition_match else None) if name}
    for category, types in categories.items():
        if category in names or names & set(types):
            names |= {category, *types} if category in names else {category}
    return names


def _left_out(step: MatchedStep, actors: Mapping[str, Iterable[str]], covered: set[str]) -> str | None:
    verb = (step.action_match.word if step.action_match else step.parsed.action_word) or ""
    read = " ".join(w or "" for w in (verb.split()[0] if verb else None,  # "Jump lava" tagged as one verb: lava is read
                                      step.parsed.actor_word,
                                      step.parsed.clause.condition_actor if step.parsed.clause else None)).lower().split()
    for where in re.finditer(r"[A-Za-z][A-Za-z'-]{2,}", step.parsed.text):
        word = where.group(0)
        if word.lower() in read or PLACE.search(step.parsed.text[:where.start()]):
            continue
        try:
            match = match_actor(word, actors, step.parsed.text)
        except ConfigError:
            continue
        if match is not None and match.how in CONFIDENT and match.name not in covered:
            return f"{word!r} names {match.name!r}, but no step of the plan goes to it"
    return None


def _why(step: MatchedStep) -> str | None:
    verb, condition = step.action_match, step.condition_match
    if step.action is None and verb is not None and verb.how not in CONFIDENT \
            and not verb.word.lower().endswith(TOWARDS):
        return f"{verb.word!r} is like none of the game's actions, only a kind of {verb.via!r}"
    if step.action is None and step.actor_type is None and verb is None and step.parsed.actor_word is None \
            and step.parsed.kind == "node" and condition is None:
        return "it names nothing to do and nowhere to go"
    if step.parsed.kind == "rule" and condition is not None:
        words = (step.parsed.clause.condition if step.parsed.clause and step.parsed.clause.condition
                 else step.parsed.text)
        one = re.search(ONE_THING.pattern + re.escape(condition.word), words, re.IGNORECASE)
        if one is not None:
            return (f"a rule acts whenever any {condition.name} is near, but its condition names one "
                    f"({one.group(0)!r})")
    if condition is not None and condition.how not in CONFIDENT:
        return (f"its condition {condition.word!r} was read as {condition.name!r} only as a {condition.how} "
                f"of {condition.via!r}")
    return None


def _unread(step: MatchedStep, actors: Mapping[str, Iterable[str]]) -> str | None:
    if step.actor_type is not None or step.parsed.actor_word is not None or step.condition_match is not None:
        return None
    used = set((step.action_match.word if step.action_match else "").lower().split())
    for word in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", step.parsed.text):
        if word.lower() in used:
            continue
        try:
            match = match_actor(word, actors, step.parsed.text)
        except ConfigError:  # like no actor: not one left unread
            continue
        if match is not None and match.how in NAMING:
            return f"{word!r} names {match.name!r}, but the step was read without an actor"
    return None


def _spelled(step: MatchedStep) -> str | None:
    """An action matched only by its spelling to a word of a different meaning ("Sidle up to the
    skeleton" read as idling there): a typo of the game's word is no English word ("attck"), and
    "depress" is "press" with a prefix; another word WordNet knows is a word of its own."""
    match = step.action_match
    if match is None or match.how != "spelling" or step.action is None:
        return None
    from evo.plans.lexicon import wordnet

    word, via = match.word.split()[0].lower(), match.via.split()[0].lower()
    if word != via and word not in (f"{prefix}{via}" for prefix in ("de", "re", "pre")) and wordnet().synsets(word):
        return f"{match.word!r} is a word of its own, only spelled like {match.via!r}"
    return None


def _unknown(step: MatchedStep) -> str | None:
    """A word no dictionary knows where the step's thing would be ("flip sw", "hit the gobbo"):
    read without it, the step would act where the step before ended."""
    if step.actor_type is not None or step.parsed.actor_word is not None or step.condition_match is not None \
            or step.action_match is None:
        return None
    from spacy.lang.en.stop_words import STOP_WORDS

    from evo.plans.lexicon import wordnet

    used = set(step.action_match.word.lower().split())
    for word in re.findall(r"[A-Za-z][A-Za-z'-]+", step.parsed.text):
        if word.lower() not in used and word.lower() not in STOP_WORDS and "'" not in word \
                and not wordnet().synsets(word.lower()):
            return f"{word!r} is a word the reader does not know, where the step's thing would be"
    return None


class UnsureReading(ConfigError):
    """A text with clauses read without confidence: one line for the first, the others counted.

    Attributes:
        doubts: Every clause in doubt.
        steps: How each clause was read (``--explain`` shows them).
    """

    def __init__(self, doubts: Sequence[Doubt], steps: Sequence[MatchedStep], actions: Sequence[str] = ()) -> None:
        self.doubts, self.steps = list(doubts), list(steps)
        first = self.doubts[0]
        why = first.why.replace("the game's actions", f"the game's actions ({', '.join(actions)})", 1) if actions \
            else first.why
        more = len(self.doubts) - 1
        rest = f" ({more} more clause{'s' if more > 1 else ''} in doubt: --explain shows each)" if more else ""
        where = f"clause {first.clause} {first.text!r}" if first.clause else f"the text, at {first.text!r}"  # 0: evo.plans.dropped
        super().__init__(f"{where}: {why}; closest reading: {first.reading}; "
                         f"to run it so, add --accept {first.clause}, or rephrase {'the clause' if first.clause else 'it'}{rest}")


def check_confident(steps: Sequence[MatchedStep], accept: Collection[int] = (), actions: Sequence[str] = (),
                    actors: Mapping[str, Iterable[str]] | None = None,
                    categories: Mapping[str, Iterable[str]] | None = None,
                    targets: Mapping[str, Collection[str]] | None = None) -> None:
    """Raise :class:`UnsureReading` for the clauses in doubt not in ``accept`` (``actions``: the
    game's, for the message; ``actors``: its actor types and their synonyms; ``categories``: its
    categories' types).

    Raises:
        ConfigError: ``accept`` names a clause the text does not have.
    """
    beyond = sorted(n for n in accept if not 0 <= n <= len(steps))  # 0: the text as a whole (evo.plans.dropped)
    if beyond:
        raise ConfigError(f"--accept {beyond[0]}: the text has {len(steps)} clause{'s' if len(steps) != 1 else ''}, "
                          f"numbered from 1")
    left = [d for d in doubts(steps, actors, categories, targets) if d.clause not in accept]
    if left:
        raise UnsureReading(left, steps, actions)
