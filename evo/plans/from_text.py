"""A plan from a tester's text: the article's "Text to Plan", stages 4 and 5.

:mod:`evo.plans.text` reads each sentence as a node or a rule and matches its action and
actor keywords to the game's names; here those steps become a :class:`evo.plans.base.Plan`
of the same type a hand-written YAML gives. A node's target is the matched actor type (the
agent goes to the nearest one of it); a node whose actor matched nothing acts at a fallback
place, where the previous node was (the start for the first). A rule acts near any actor of
its type; rules written first take priority.
"""

from __future__ import annotations

from typing import Any, Sequence

from evo.run.config import ConfigError
from evo.plans.base import Condition, Node, Plan, Rule, Validation
from evo.plans.text import NO_ACTION, MatchedStep, read_steps
from games.registry import GameFactory

MOVE_WORDS = ("go to", "walk to", "move to", "head to", "run to", "reach", "approach",
              "navigate to", "return to", "go", "walk", "move")
"""Phrasings of a step that only goes somewhere (:data:`evo.plans.text.NO_ACTION`)."""
RULE_REACH = 4
"""Moves within which a rule's actor counts as near (as in the dungeon's example plans)."""


def vocabulary(game: Any) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The game's actions and actor types (categories included), each with its synonyms.

    A game that plans run on declares ``action_names``, ``actor_types``, ``categories`` and
    ``synonyms`` (a word -> the name it means).
    """
    synonyms: dict[str, str] = dict(getattr(game, "synonyms", {}))
    names_of = lambda names: {n: [w for w, m in synonyms.items() if m == n] for n in names}  # noqa: E731
    actions = names_of(game.action_names)
    actions[NO_ACTION] = list(MOVE_WORDS)
    actors = names_of([*game.actor_types, *getattr(game, "categories", {})])
    return actions, actors


def steps_to_plan(steps: Sequence[MatchedStep], start: tuple[int, int], name: str = "",
                  game: dict[str, Any] | None = None,
                  validations: Sequence[Validation] = ()) -> Plan:
    """Nodes in order and rules by priority from matched steps.

    Raises:
        ConfigError: the text holds no node (a plan needs at least one).
    """
    nodes: list[Node] = []
    rules: list[Rule] = []
    rule_steps = [s for s in steps if s.parsed.kind == "rule"]
    for step in steps:
        if step.parsed.kind == "rule":
            if step.actor_type is None:
                continue  # "whenever ... it" with no actor the game has: nothing to watch for
            rules.append(Rule(name=step.parsed.text, when=[Condition(near=step.actor_type, within=RULE_REACH)],
                              action=step.action, priority=len(rule_steps) - len(rules)))
        elif step.actor_type is not None:
            nodes.append(Node(target=step.actor_type, action=step.action))
        else:
            previous = nodes[-1] if nodes else None
            if previous is not None and previous.target is not None:
                nodes.append(Node(target=previous.target, action=step.action))
            else:
                where = previous.location if previous is not None and previous.location else start
                nodes.append(Node(location=where, action=step.action))
    if not nodes:
        raise ConfigError("plan from text: no sentence reads as a step to take (only rules, or nothing)")
    return Plan(name=name, game=game, nodes=nodes, rules=rules, validations=list(validations))


def plan_from_text(text: str, factory: GameFactory, name: str = "",
                   validations: Sequence[Validation] = (), nlp: Any = None) -> tuple[Plan, list[MatchedStep]]:
    """The plan ``text`` describes on ``factory``'s game, and how each sentence was read.

    Raises:
        ConfigError: the game offers no plan vocabulary, or the text holds no step.
    """
    game = factory.make_vector(1)
    try:
        if not hasattr(game, "action_names") or not hasattr(game, "actor_types"):
            raise ConfigError(f"game {factory.label}: declares no action names and actor types to read a plan into")
        actions, actors = vocabulary(game)
        _, features = game.reset([0])
        start = (int(round(features[0][0])), int(round(features[0][1])))
    finally:
        game.close()
    steps = read_steps(text, actions, actors, nlp)
    ref = {"name": factory.name, "kwargs": dict(factory.kwargs)} if factory.name else None
    return steps_to_plan(steps, start, name, ref, validations), steps
