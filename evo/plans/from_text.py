"""A plan from a tester's text: the article's "Text to Plan", stages 4 and 5.

:mod:`evo.plans.text` reads each clause as a node or a rule and matches its action and actor
keywords to the game's names; here those steps become a :class:`evo.plans.base.Plan` of the
same type a hand-written YAML gives. A node's target is the matched actor type (the agent goes
to the nearest one of it), or the instance an ordinal names ("the second barrel":
``barrel_2``); "it" is the actor before; a node that names no actor acts at a fallback place,
where the previous node was (the start for the first). "Go to the switch and pull it" is one
node: going to a thing and then acting on it is acting on it. A node's precondition ("once
the switch is on") is the game's state feature it names. A rule acts near any actor of its
type, or of its trigger's ("whenever you see a goblin, attack it"); rules written first take
priority. A text of rules alone is a plan of rules that plays until its step budget ("for 120
steps", else :data:`RULES_BUDGET`), with the whole level in reach.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Collection, Sequence

from evo.run.config import ConfigError
from evo.plans.doubts import check_confident
from evo.plans.dropped import check_instances, check_nothing_dropped
from evo.plans.reports import unreported
from evo.plans.tracker import unlabelled
from evo.plans.budgets import budget_steps, without_budget
from evo.plans.areas import in_areas
from evo.plans.fields import fields
from evo.plans.framing import aimless
from evo.plans.prerequisites import needed_first
from evo.plans.standing import all_of_them, repeated
from evo.plans.base import Condition, Node, Plan, Rule, TextStep, Validation, WordRead
from evo.plans.lexicon import THRESHOLD, WordMatch, _lemma, similarity
from evo.plans.text import NO_ACTION, MatchedStep, read_steps
from games.registry import GameFactory

MOVE_WORDS = ("go to", "walk to", "move to", "head to", "run to", "reach", "approach",
              "navigate to", "return to", "go", "walk", "move", "visit", "collect", "pick up", "grab",
              "take", "gather", "get", "fetch", "obtain", "pocket", "loot", "snag")
"""Phrasings of a step that only goes somewhere (:data:`evo.plans.text.NO_ACTION`); in a game
without a collect action, collecting is walking onto the item (WordNet puts ``grab`` and
``collect`` under ``get``, a root too general to make verbs alike, so the collecting verbs are
listed)."""
RULE_REACH = 4
"""Moves within which a rule's actor counts as near (as in the dungeon's example plans)."""
LEVEL_REACH = 64
"""A rule's reach in a plan of rules alone: with no step to come back to, the whole level."""
RULES_BUDGET = 150
"""Steps a plan of rules alone plays when the text gives no budget."""
def _after(step: MatchedStep) -> bool:
    """The condition comes after the pronoun of a deed ("activate it once the door is open"): "it"
    is the thing before, not the condition's ("once the door is open, walk through it"; a move,
    "go through it once the door is open", still goes to the condition's thing)."""
    text, clause = step.parsed.text.lower(), step.parsed.clause
    word = (step.parsed.actor_word or "").lower()
    cond = (clause.condition or "").lower().rstrip(".!?;, ") if clause else ""
    return bool(word and cond) and re.search(rf"\b{re.escape(word)}\b", text) is not None and cond in text \
        and re.search(rf"\b{re.escape(word)}\b", text).start() < text.index(cond)


def targets_of(game: Any) -> dict[str, set[str]]:
    """Actions -> the actor types they act on, with each category all of whose types they act on
    (``attack``: the enemies and ``enemy``), from a game's optional ``action_targets``."""
    declared: dict[str, Sequence[str]] = dict(getattr(game, "action_targets", {}))
    categories: dict[str, Sequence[str]] = dict(getattr(game, "categories", {}))
    return {action: set(on) | {c for c, types in categories.items() if set(types) <= set(on)}
            for action, on in declared.items()}


def vocabulary(game: Any) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The game's actions and actor types (categories included), each with its synonyms.

    A game that plans run on declares ``action_names``, ``actor_types``, ``categories`` and
    ``synonyms`` (a word -> the name it means), and may declare ``action_targets`` (an action ->
    the actor types it acts on, :func:`targets_of`).
    """
    synonyms: dict[str, str] = dict(getattr(game, "synonyms", {}))
    names_of = lambda names: {n: [w for w, m in synonyms.items() if m == n] for n in names}  # noqa: E731
    actions = names_of([*game.action_names, *getattr(game, "manoeuvres", ())])
    actions[NO_ACTION] = list(MOVE_WORDS)
    actors = names_of([*game.actor_types, *getattr(game, "categories", {})])
    return actions, actors


def _read(m: WordMatch | None) -> WordRead | None:
    return None if m is None else WordRead(word=m.word, name=m.name, via=m.via, score=m.score, how=m.how)


def _precondition(step: MatchedStep, features: Sequence[str], before: str | None = None) -> Condition:
    """The state feature a precondition names ("the switch is on": ``switch_on`` above 0.5); a
    condition on a pronoun ("when it is on") is on the step's actor or else the one ``before``, or
    else on the one thing whose state it names ("once it is open": only the door opens)."""
    clause = step.parsed.clause
    actors = [step.condition_match.name] if step.condition_match else [step.actor_type, before]
    state = clause.condition_state if clause else None
    scored = [(max(similarity(state or "", f.partition("_")[2], pos)[0] for pos in ("a", "v")), f)
              for actor in actors for f in features if actor and f.startswith(f"{actor}_")]
    score, feature = max(scored, default=(0.0, ""))
    if score < THRESHOLD and len(scored) == 1 and state and _lemma(state, "v") != state:
        score, feature = THRESHOLD, scored[0][1]  # "the lever has been pulled": done to it, its one state
    pronoun = clause is not None and re.search(r"\b(?:it|they)\b", clause.condition or "", re.IGNORECASE) is not None
    if score < THRESHOLD and pronoun and state:  # "once it is open" where only the door opens: the door's state
        fits = [f for f in features if max(similarity(state, f.partition("_")[2], pos)[0] for pos in ("a", "v")) >= THRESHOLD]
        if len(fits) == 1:
            score, feature = THRESHOLD, fits[0]
    if score < THRESHOLD:
        raise ConfigError(f"plan from text: condition {clause.condition if clause else ''!r} names no state "
                          f"feature of the game ({', '.join(features)})")
    return Condition(feature=feature, above=0.5)


def _target(step: MatchedStep, actor_names: Sequence[str]) -> str | None:
    """The actor type, or the instance an ordinal names when the game has it."""
    ordinal = step.parsed.clause.ordinal if step.parsed.clause else None
    if step.actor_type is not None and ordinal is not None and f"{step.actor_type}_{ordinal}" in actor_names:
        return f"{step.actor_type}_{ordinal}"
    return step.actor_type


ANOTHER = re.compile(r"\b(?:another|one more|a second|the next|a different|the\s+(?:nearest|closest)\s+one\s+after)\b", re.IGNORECASE)
"""Words of one more thing of a kind ("Then get another coin"): a step of its own."""


def _only_waits(step: MatchedStep) -> bool:
    """A step that only waits for a state ("Wait until the door is open.", "wait for the door to
    open"): its condition is the next step's, it goes nowhere of its own."""
    verb = (step.parsed.action_word or "").lower().split()
    return step.parsed.kind == "node" and (not verb or verb[0] in ("wait", "hold", "pause")) \
        and (step.actor_type is None or step.condition_match is None or step.actor_type == step.condition_match.name)


def steps_to_plan(steps: Sequence[MatchedStep], start: tuple[int, int], name: str = "",
                  game: dict[str, Any] | None = None, validations: Sequence[Validation] = (),
                  features: Sequence[str] = (), actor_names: Sequence[str] = (),
                  max_steps: int | None = None, manoeuvres: Sequence[str] = ()) -> Plan:
    """Nodes in order and rules by priority from matched steps.

    Raises:
        ConfigError: the text holds no step and no rule, or a precondition names no state.
    """
    nodes: list[Node] = []
    rules: list[tuple[str, str, str | None]] = []
    last: str | None = None  # the actor "it" stands for
    waiting: list[Condition] = []  # "Wait until the door is open." alone: the next step's condition
    waited: str | None = None  # and the thing it waits on
    for step in steps:
        clause = step.parsed.clause
        target = _target(step, actor_names)
        pronoun = step.parsed.actor_word is not None and target is None
        ordinal = clause.ordinal if clause else None
        if pronoun and ordinal and last and (step.parsed.actor_word or "").lower() in ("one", "ones", "same"):
            kind_of = last.rsplit("_", 1)[0] if last.rsplit("_", 1)[-1].isdigit() else last
            if f"{kind_of}_{ordinal}" in actor_names:  # "the second goblin, then the first one"
                target, pronoun = f"{kind_of}_{ordinal}", False
        if target is not None and last is not None and last.rsplit("_", 1)[0] == target and last != target \
                and re.search(rf"\b(?:the|that|this)\s+{re.escape(step.parsed.actor_word or '-')}(?=\s*(?:[,.;:!?]|$)|\s+(?:and|then|too|again)\b)",
                              step.parsed.text, re.IGNORECASE):
            target = last  # "Go to pillar 2. At the pillar, look up.": the one just named
        if step.parsed.kind != "rule" and step.condition_match is not None and target is None \
                and (pronoun or (step.action is None and not step.parsed.actor_word)) and not (pronoun and last and step.action is not None and _after(step)):
            target, pronoun = step.condition_match.name, False  # "when the door is open, walk through (it)"
        if step.parsed.kind == "rule":
            near = target or (step.condition_match.name if step.condition_match else None) or (last if pronoun else None)
            if near is not None:
                if not any((n, a) == (near, step.action) for _, n, a in rules):  # "hunting skeletons: attack every one": one rule
                    rules.append((step.parsed.text, near, step.action))
                continue  # a rule with nothing to watch for ("Wait.") is a step here
        when = [*waiting, *([_precondition(step, features, last)] if clause and clause.condition_state else [])]
        when = [c for k, c in enumerate(when) if c not in when[:k]]  # "wait until the door is open. When it is open, ...": one wait
        if target is None and waiting and waited and (pronoun or not step.parsed.actor_word):
            target, pronoun = waited, False  # "Wait for the door to open. Walk through (it).": the door
        state_of = when[-1].feature.split("_")[0] if when and when[-1].feature else None
        if target is None and step.action is None and not step.parsed.actor_word and state_of \
                and any(n.rsplit("_", 1)[0] == state_of for n in actor_names):
            target = state_of  # "once it's open, go through": through the thing whose state it waits on (door_open: the door)
        if target is None and pronoun and state_of and clause is not None and re.search(r"\b(?:it|they)\b", clause.condition or "", re.IGNORECASE) \
                and (last or "").rsplit("_", 1)[0] != state_of and any(n.rsplit("_", 1)[0] == state_of for n in actor_names):
            target, pronoun = state_of, False  # "Pull it. The door should open; once it is open, walk through it.": the door both times
        waiting = []
        if clause is not None and clause.condition_state and _only_waits(step):
            waiting, waited = when, step.condition_match.name if step.condition_match else None
            continue
        if target is None and (pronoun or nodes):
            previous = nodes[-1] if nodes else None
            target = last if pronoun and last else (previous.target if previous is not None else None)
            if target is None and previous is not None and previous.location is not None:
                nodes.append(Node(location=previous.location, action=step.action, when=when))
                continue
        if target is None:
            nodes.append(Node(location=start, action=step.action, when=when))
            continue
        last = target
        previous = nodes[-1] if nodes else None
        if previous is not None and previous.target == target and step.action is None and not when \
                and not ANOTHER.search(step.parsed.text):
            continue  # "Run to the coin. Grab it.": already there ("get another coin" is the next one)
        if previous is not None and previous.target == target and previous.action is None and step.action is None \
                and not previous.when and when:
            nodes[-1] = previous.model_copy(update={"when": when})  # "walk to the door and go through it when it's open": one wait
            continue
        if previous is not None and previous.target == target and previous.action is None and not (previous.when and when) \
                and step.action is not None:  # "go to the switch and pull it (once the door is open)": one node
            nodes[-1] = previous.model_copy(update={"action": step.action, "when": previous.when or when})
            continue
        nodes.append(Node(target=target, action=step.action, when=when))
    reach = RULE_REACH if nodes else LEVEL_REACH
    plan_rules = [Rule(name=text, when=[Condition(near=near, within=reach)], action=action,
                       priority=len(rules) - k) for k, (text, near, action) in enumerate(rules)]
    if not nodes and not plan_rules:
        raise ConfigError("plan from text: no sentence reads as a step to take or a rule to follow")
    read = [TextStep(text=s.parsed.text, kind=s.parsed.kind, action=_read(s.action_match),  # type: ignore[arg-type]
                     actor=_read(s.actor_match or s.condition_match),
                     condition=s.parsed.clause.condition if s.parsed.clause else None) for s in steps]
    return Plan(name=name, game=game, nodes=nodes, rules=plan_rules, validations=list(validations),
                max_steps=max_steps if max_steps is not None else (None if nodes else RULES_BUDGET),
                read_from=read)


def plan_from_text(text: str, factory: GameFactory, name: str = "", validations: Sequence[Validation] = (),
                   nlp: Any = None, accept: Collection[int] = ()) -> tuple[Plan, list[MatchedStep]]:
    """The plan ``text`` describes on ``factory``'s game, and how each clause was read.

    Args:
        accept: Clauses (numbered from 1) whose reading is taken though it is in doubt
            (:mod:`evo.plans.doubts`).

    Raises:
        UnsureReading: a clause read without confidence and not accepted (it carries every
            clause's reading).
        ConfigError: the game offers no plan vocabulary, a word is like none of its names,
            or the text holds no step.

    A refused text is read once more without the sentences a trained classifier is sure are
    talk (:mod:`evo.plans.talk`); the plan then names them in ``left_out``. Slips of the game's
    words are read as those words first (:mod:`evo.plans.spelling`), named in ``respelled``, and
    steps the text takes back and says again are left out (:mod:`evo.plans.taken_back`), named in
    ``taken_back``.
    """
    from evo.plans.spelling import respelled
    from evo.plans.taken_back import taken_back

    actions, actors, *_ = _facts(factory)
    text, slips = respelled(text, {t for words in (actions, actors) for n, ws in words.items() for w in (n, *ws)
                                   for t in w.replace("_", " ").split()})
    text, gone = taken_back(text, {w for n, ws in actors.items() for w in (n, *ws)})
    plan, steps = _without_talk(text, factory, name, validations, nlp, accept)
    return plan.model_copy(update={"respelled": slips, "taken_back": gone}) if slips or gone else plan, steps


def _without_talk(text: str, factory: GameFactory, name: str, validations: Sequence[Validation],
                  nlp: Any, accept: Collection[int]) -> tuple[Plan, list[MatchedStep]]:
    """The plan of ``text``, or of ``text`` without its talk where it is refused with it."""
    try:
        return _plan_from_text(text, factory, name, validations, nlp, accept)
    except ConfigError as refused:
        from evo.plans.talk import still_a_step, talk_in, without

        talk = talk_in(text)  # sentences of talk no pass knows (:mod:`evo.plans.talk`): read once more without them
        if not talk:
            raise
        try:
            plan, steps = _plan_from_text(without(text, [span for span, _ in talk]), factory, name, validations, nlp, accept)
        except ConfigError:
            raise refused from None
        left_out = [text[b:e].strip() for (b, e), _ in talk]
        actions, actors, *_, categories = _facts(factory)
        if any(still_a_step(sentence, plan, actions, actors, categories) for sentence in left_out):
            raise refused from None
        return plan.model_copy(update={"left_out": left_out}), steps


def _plan_from_text(text: str, factory: GameFactory, name: str, validations: Sequence[Validation],
                    nlp: Any, accept: Collection[int]) -> tuple[Plan, list[MatchedStep]]:
    actions, actors, targets, start, feature_names, actor_names, step_seconds, manoeuvres, categories = _facts(factory)
    from evo.plans.reading import game_words  # reading imports this module's neighbours: no cycle at import

    things, _, deeds = game_words(actions, actors, targets)
    text = needed_first(fields(text), things, deeds)  # "(lever first)": before all the others
    text = in_areas(text, things, *_AREAS[repr(factory)])  # "the ogre in room B": ogre 2
    text = unreported(text, {w for n, ws in actors.items() for w in (n, *ws)})  # "A player reports that ...": no step
    labelled = unlabelled(text, {w: n for n, ws in actors.items() for w in (n, *ws)},
                          {w: n for n, ws in actions.items() for w in (n.replace("_", " "), *ws)})
    labelled = _finish_at(_switched_on(labelled, things, deeds), actors, targets)
    unbudgeted = without_budget(labelled)
    if unbudgeted is not None:  # "visit any object for 20 seconds": under a budget, "any" is every one met
        unbudgeted = re.sub(r"\b(?P<v>approach|visit|go\s+to|walk\s+to|head\s+to|run\s+to|reach)\s+(?:any\s+(?=[a-z]+\s*(?:[.!,;]|$))|(?P<x>[a-z]+)s(?=\s*(?:[.!,;]|$)))",
                            lambda m: f"{m.group('v')} every {m.group('x') or ''}" if m.group("x") is None or m.group("x").lower() in things else m.group(0),
                            unbudgeted, flags=re.IGNORECASE | re.MULTILINE)  # "visit objects for 3 minutes": every one
    steps = read_steps(aimless(unbudgeted if unbudgeted is not None else labelled), actions, actors, nlp, targets, categories)
    check_confident(steps, accept, [a for a in actions if a != NO_ACTION], actors, categories, targets)
    check_nothing_dropped(text, steps, accept, actions, actors, categories)
    budget = budget_steps(EXPECTATION.sub("", text), step_seconds, factory.label)
    if budget is not None:
        steps = [repeated(step) for step in steps]
    steps = all_of_them(steps)
    ref = {"name": factory.name, "kwargs": dict(factory.kwargs)} if factory.name else None
    plan = steps_to_plan(steps, start, name, ref, validations, feature_names, actor_names, budget, manoeuvres)
    check_instances(text, plan, steps, accept, actor_names, actors, actions)
    return plan, steps


_FACTS: dict[str, tuple[Any, ...]] = {}
"""What a text is read against, per game factory (its ``repr``): made once a process, not per text."""
_AREAS: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}
"""A game's rooms and what testers call them (:mod:`evo.plans.areas`), per game factory."""


def _facts(factory: GameFactory) -> tuple[Any, ...]:
    """The game's plan vocabulary, start, features, instances, step length, manoeuvres and categories,
    from one copy of it, made and reset once per factory (a ViZDoom park takes 25 ms to make)."""
    key = repr(factory)
    if key not in _FACTS:
        game = factory.make_vector(1)
        try:
            if not hasattr(game, "action_names") or not hasattr(game, "actor_types"):
                raise ConfigError(f"game {factory.label}: declares no action names and actor types to read a plan into")
            _, features = game.reset([0])
            _AREAS[key] = (dict(getattr(game, "areas", {})), dict(getattr(game, "area_synonyms", {})))
            _FACTS[key] = (*vocabulary(game), targets_of(game), (int(round(features[0][0])), int(round(features[0][1]))),
                           tuple(game.game_spec.feature_names), tuple(getattr(game, "actor_names", ())),
                           getattr(game, "step_seconds", None), tuple(getattr(game, "manoeuvres", ())), dict(getattr(game, "categories", {})))
        finally:
            game.close()
    return copy.deepcopy(_FACTS[key])


def read_as(text: str, factory: GameFactory) -> str:
    """``text`` as its steps are read on ``factory``'s game, in the game's words (``--explain``'s
    "read as:" line: "lever, lava" reads as the deeds the game does to them)."""
    from evo.plans.reading import as_read, game_words

    actions, actors, targets, *_, categories = _facts(factory)
    things, verbs, deeds = game_words(actions, actors, targets)
    return as_read(text, things, verbs, categories, deeds)


SWITCHED_ON = re.compile(r"(?:(?<=^)|(?<=[\n:.;,\])])|(?<=\d)|(?<=\bthen))(?P<lead>\s*)(?:the\s+)?(?P<x>[a-z]+)\s+(?:on|to\s+on)\b(?=\s*(?:[.;!\n]|$|,?\s*then\b))", re.IGNORECASE)
"""A thing and "on" as a step of its own ("Step 1 switch on.", "- [ ] switch on"): interact with it."""


CROSSED = re.compile(r"(?:(?<=^)|(?<=[\n:;\])])|(?<=\d[.)]))(?P<lead>[ \t]*)(?P<p>over|across)\s+(?:the\s+)?(?P<x>[a-z]+)(?=[ \t]*(?:[.;!\n]|$))", re.IGNORECASE | re.MULTILINE)
"""A list item of a place crossed alone ("3) over the lava"): jumping it, where that is the game's deed for it."""


def _switched_on(text: str, things: dict[str, str], deeds: dict[str, str]) -> str:
    """"switch on" as a step: turning on a thing whose one deed is interacting is interacting with it (the switch)."""
    text = SWITCHED_ON.sub(lambda m: f"{m.group('lead')}interact with the {m.group('x')}" if deeds.get(m.group("x").lower()) == "interact"
                           and things.get(m.group("x").lower()) else m.group(0), text)
    return CROSSED.sub(lambda m: f"{m.group('lead')}jump {m.group('p')} the {m.group('x')}" if deeds.get(m.group("x").lower()) == "jump" else m.group(0), text)


EXPECTATION = re.compile(r"^[ \t]*expect(?:s|ed)?\b(?![ \t]*:).*$", re.IGNORECASE | re.MULTILINE)
"""A line of what to expect ("Expect level complete in under 40 steps"): its number of steps is no budget."""
FINISH_AT = re.compile(r"\b(?:finish|end)(?:\s+(?:up|off|the\s+(?:level|run|game|test)))?\s+(?:at|on|by)\s+(?P<np>(?:(?:the|a|an)\s+)?(?P<x>[a-z]+))\b"
                       r"(?![^.;!?\n]*\b(?:it|there)\b)", re.IGNORECASE)
"""Finishing at a thing, with no deed said on it after ("finish at the shrine (use it)" is that deed)."""


def _finish_at(text: str, actors: dict[str, list[str]], targets: dict[str, set[str]]) -> str:
    """"Finish at the shrine" as using it where the game's way of finishing at it is a deed (the
    dungeon's shrine ends the level when used, and testers of waves 17 to 23 meant that); a place one
    only reaches ("finish at the lamp") stays a place to go to."""
    kinds = {w.lower(): kind for kind, words in actors.items() for w in (kind, *words)}
    usable = targets.get("interact", set())
    return FINISH_AT.sub(lambda m: f"use {m.group('np')}" if kinds.get(m.group("x").lower()) in usable else m.group(0), text)
