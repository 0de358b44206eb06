"""Contracts of the objectives: how a policy's play is scored.

An objective knows rollouts and nothing of evolution or of a particular game. Objectives are
combined in the order the YAML lists them; their ``sense`` is honoured, and signs flip only
at the pymoo boundary (``evo.search.operators``).
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict

from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from oracles.component import Context


@runtime_checkable
class Objective(Protocol):
    """Scores the rollouts of one policy.

    Every built objective derives from :class:`oracles.component.Component`, whose hooks
    the loop calls on all of them: ``calibrate``, ``update(all_rollouts)`` (once per
    generation after scoring: archives, baselines), ``state_dict`` / ``load_state_dict``
    (JSON types and tensors) and ``tables``. Component also gives the objective's own
    hooks below their defaults; an objective overrides those it needs.
    """

    name: str
    sense: Literal["max", "min"]
    rescores_parents: bool
    """True for an objective whose scores drift as it learns (RND novelty): the loop then has
    the surviving parents play again beside each generation's children, so that selection
    compares scores made by the same model (their steps count). Default False."""
    ranks_players: bool
    """True for the objective a study of a finished run's players (``evo evaluate --select
    best``) ranks the final policies by when told none (fps_drop: RELINE evaluates the agent
    trained to find slow frames); without one, the run's first objective. Default False."""
    scores_on_threads: bool
    """True for an objective whose ``score`` only reads its state and spends its time in
    torch or numpy kernels that free the GIL (RND novelty: a network over every step): the
    loop then scores the policies on threads, one policy each, while the workers wait
    between generations. Each policy's number is the one a single thread gives. Default False."""

    def score(self, rollouts: RolloutBatch) -> float:
        """One number for the policy that played ``rollouts`` (all its episodes)."""
        ...

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        """The ``[T]`` dense reward RL fine-tuning uses for this objective, larger is better
        whatever the sense. Default zeros: fine-tuning ignores an objective without one."""
        ...


def step_rewards(objective: Objective, rollout: Rollout) -> np.ndarray:
    """The objective's dense reward for ``rollout`` in float64, as fine-tuning sums it."""
    return np.asarray(objective.step_rewards(rollout), dtype=np.float64)


class ObjectiveConfig(BaseModel):
    """Base of every objective's keyword arguments; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


ObjectiveFactory = Callable[[GameSpec, Any, Context], Objective]
"""Builds an objective from the game's spec, its validated config and its context."""

REGISTRY: dict[str, tuple[type[ObjectiveConfig], ObjectiveFactory]] = {}


def register(
    name: str, config: type[ObjectiveConfig]
) -> Callable[[ObjectiveFactory], ObjectiveFactory]:
    """Class decorator: make an objective available to YAMLs as ``{name: <name>}``.

    The objective class is called as ``cls(spec, config, context)`` (see
    :class:`oracles.component.Context`) and must derive from
    :class:`oracles.component.Component`.
    """

    def wrap(factory: ObjectiveFactory) -> ObjectiveFactory:
        REGISTRY[name] = (config, factory)
        return factory

    return wrap
