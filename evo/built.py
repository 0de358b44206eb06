"""What an experiment builds once, before its first generation: the game's factory and spec,
the policy architecture, the objectives and oracles with their contexts, and the game's facts
(ground truth, map) that the run directory keeps. Search, replay and evaluate share it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from evo.agents import AgentKind, agent_kind
from evo.config import ConfigError, Experiment, PolicyConfig, game_factory
from evo.game_facts import GameFacts, game_label
from evo.policy import PolicySpec
from games.base import GameSpec, GameSpecError
from games.rollout import info_keys
from objectives import build_objectives
from oracles import build_oracles
from oracles.component import Component, Context


def build_policy_spec(policy: PolicyConfig, spec: GameSpec) -> PolicySpec:
    """The policy architecture of an experiment on a game.

    Raises:
        ConfigError: ``policy.conv`` on a game whose observation is not an image
            ``(channels, height, width)``, or conv layers that do not fit the image.
    """
    obs_dim = int(np.prod(spec.obs_shape))
    hidden = tuple(policy.hidden)
    if not policy.conv:
        return PolicySpec(obs_dim, spec.n_actions, hidden)
    if len(spec.obs_shape) != 3:
        raise ConfigError(
            f"policy.conv: conv layers need a game that observes an image (channels, height, width); "
            f"this game's observation has shape {tuple(spec.obs_shape)}"
        )
    conv = tuple((int(c), int(k), int(s)) for c, k, s in policy.conv)
    image = (int(spec.obs_shape[0]), int(spec.obs_shape[1]), int(spec.obs_shape[2]))
    try:
        return PolicySpec(obs_dim, spec.n_actions, hidden, conv, image)
    except ValueError as exc:
        raise ConfigError(f"policy.conv: {exc}") from None


@dataclass
class Built:
    """Everything an experiment builds once: game factory, spec, objectives, oracles, facts."""

    exp: Experiment
    factory: Any
    spec: GameSpec
    policy_spec: PolicySpec
    objectives: list[Any]
    oracles: list[Any]
    facts: GameFacts
    truth: Any | None = None

    @classmethod
    def from_experiment(cls, exp: Experiment, run_dir: Path | None = None) -> "Built":
        """Build it all; components get their contexts (``run_dir`` None: no run directory)."""
        factory = game_factory(exp)
        try:
            spec = factory.spec()
        except GameSpecError:
            raise
        except ValueError as exc:  # a kwarg the game refused when it was built
            raise ConfigError(f"game.kwargs: {exc}") from None
        policy_spec = build_policy_spec(exp.policy, spec)
        context = Context(exp.seed, exp.device, run_dir)
        try:
            objectives = build_objectives([(o.name, o.kwargs) for o in exp.objectives], spec, context)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        oracles = build_oracles([(o.name, o.kwargs) for o in exp.oracles], spec, context)
        # A Gymnasium game hands on the info keys some component records (numpy games all).
        required = frozenset().union(*(c.requires for c in [*objectives, *oracles]))
        factory = replace(factory, info_keys=info_keys(required))
        env = factory.make_env()
        facts = GameFacts.of_game(game_label(exp.game.model_dump(mode="json")), spec, env.unwrapped)
        truth = env.unwrapped if facts.has_truth else None
        if truth is None:
            env.close()
        return cls(exp, factory, spec, policy_spec, objectives, oracles, facts, truth)

    @property
    def components(self) -> list[Component]:
        """Objectives then oracles: everything the loop calibrates, updates and saves."""
        return [*self.objectives, *self.oracles]

    @property
    def columns(self) -> frozenset[str]:
        """The optional record columns some objective or oracle requires: what play keeps."""
        return frozenset().union(*(c.requires for c in self.components))

    @property
    def agents(self) -> AgentKind:
        return agent_kind(self.exp.search.policy, self.policy_spec)

    def match(self, bug: Any) -> int | None:
        return None if self.truth is None else self.truth.match(bug)

    @property
    def injected(self) -> list[Any]:
        return list(self.facts.injected)
