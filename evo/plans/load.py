"""Reading a plan YAML and checking its names against the game it runs on.

Every problem is a :class:`evo.run.config.ConfigError` of one line naming the key (``nodes[1].
action``) and what was expected, which the command line turns into exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic

from evo.run.config import ConfigError, _format_error
from evo.plans.base import Plan
from evo.run.user_paths import read_yaml
from games.core.base import GameSpec
from games.core.navigation import Navigator


def parse_plan(raw: Any, source: str = "plan") -> Plan:
    """A validated :class:`Plan` from the YAML's data."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping with nodes (and rules, validations)")
    try:
        return Plan.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise ConfigError(f"{source}: {_format_error(exc)}") from None


def load_plan(path: str | Path) -> Plan:
    """Read and validate a plan YAML."""
    return parse_plan(read_yaml(path, "plan file"), str(Path(path)))


def check_plan(plan: Plan, game: Any, spec: GameSpec, label: str) -> Navigator:
    """The game as a :class:`Navigator`, once every name the plan uses is one it knows.

    Raises:
        ConfigError: the game offers no navigator, or a target, action or feature the plan
            names is not the game's (the message names the key and lists what is).
    """
    if not isinstance(game, Navigator):
        raise ConfigError(f"game {label!r} offers no navigator (route, nearest, action and actor names): "
                          "plans cannot run on it")
    words = set(game.actor_names) | set(game.actor_types) | set(game.categories)

    def known(key: str, value: str | None, allowed: set[str] | tuple[str, ...], what: str) -> None:
        if value is not None and value not in allowed:
            expected = f"expected one of {', '.join(sorted(allowed))}" if allowed else "which names none"
            raise ConfigError(f"{key}: {value!r} is not {what} of {label}{';' if allowed else ','} {expected}")

    actions = tuple(game.action_names)
    moves = actions + tuple(getattr(game, "manoeuvres", ()))  # a node may circle its actor
    features = tuple(spec.feature_names)

    def conditions(key: str, when: Any) -> None:
        for j, cond in enumerate(when):
            known(f"{key}.when[{j}].near", cond.near, words, "an actor, actor type or category")
            known(f"{key}.when[{j}].feature", cond.feature, features, "a state feature")

    for i, node in enumerate(plan.nodes):
        known(f"nodes[{i}].target", node.target, words, "an actor, actor type or category")
        known(f"nodes[{i}].action", node.action, moves, "an action")
        if node.action in moves[len(actions):] and node.target is None:
            raise ConfigError(f"nodes[{i}].action: {node.action!r} is done at an actor; give a target")
        conditions(f"nodes[{i}]", node.when)
    for i, rule in enumerate(plan.rules):
        known(f"rules[{i}].target", rule.target, words, "an actor, actor type or category")
        known(f"rules[{i}].action", rule.action, moves, "an action")  # "circle every barrel you pass"
        conditions(f"rules[{i}]", rule.when)
    for i, val in enumerate(plan.validations):
        known(f"validations[{i}].action", val.action, actions, "an action")
        known(f"validations[{i}].target_type", val.target_type, words, "an actor, actor type or category")
        for feature in val.expect:
            known(f"validations[{i}].expect", feature, features, "a state feature")
    return game
