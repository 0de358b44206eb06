"""Contracts of the objectives: how a policy's play is scored.

An objective knows rollouts and nothing of evolution or of a particular game. Objectives are
combined in the order the YAML lists them; their ``sense`` is honoured, and signs flip only
at the pymoo boundary (``evo.search.operators``).
"""

from __future__ import annotations

import abc
from typing import Any, Callable, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from games.core.component import Component, ComponentEntry, Context, registering
from games.common.registry import Registry
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch


class Objective(Component, abc.ABC):
    """Scores the rollouts of one policy: the base of every objective.

    The hooks the loop calls on every component (``calibrate``, ``update(all_rollouts)``
    once per generation after scoring, ``state_dict`` / ``load_state_dict``, ``tables``, ...)
    come from :class:`games.core.component.Component`; an objective implements
    :meth:`score` and overrides the defaults below that it needs.
    """

    name: str
    sense: Literal["max", "min"] = "max"
    rescores_parents: bool = False
    """True for an objective whose scores drift as it learns (RND novelty): the loop then has
    the surviving parents play again beside each generation's children, so that selection
    compares scores made by the same model (their steps count)."""
    ranks_players: bool = False
    """True for the objective a study of a finished run's players (``evo evaluate --select
    best``) ranks the final policies by when told none (fps_drop: RELINE evaluates the agent
    trained to find slow frames); without one, the run's first objective."""
    scores_on_threads: bool = False
    """True for an objective whose ``score`` only reads its state and spends its time in
    torch or numpy kernels that free the GIL (RND novelty: a network over every step): the
    loop then scores the policies on threads, one policy each, while the workers wait
    between generations. Each policy's number is the one a single thread gives."""

    @abc.abstractmethod
    def score(self, rollouts: RolloutBatch) -> float:
        """One number for the policy that played ``rollouts`` (all its episodes)."""

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        """The ``[T]`` dense reward RL fine-tuning uses for this objective, larger is better
        whatever the sense. Default zeros: fine-tuning ignores an objective without one."""
        return np.zeros(rollout.length, dtype=np.float64)


def step_rewards(objective: Objective, rollout: Rollout) -> np.ndarray:
    """The objective's dense reward for ``rollout`` in float64, as fine-tuning sums it."""
    return np.asarray(objective.step_rewards(rollout), dtype=np.float64)


class ObjectiveConfig(BaseModel):
    """Base of every objective's keyword arguments; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


ObjectiveFactory = Callable[[GameSpec, Any, Context], Objective]
"""Builds an objective from the game's spec, its validated config and its context."""

OBJECTIVES: Registry[ComponentEntry] = Registry("objective", "evo.objectives")
"""Objectives by the name a YAML gives them; installed packages add theirs through the
``evo.objectives`` entry-point group."""


register = registering(OBJECTIVES)
"""Class decorator ``@register(name, config)``: make an objective available to YAMLs as
``{name: <name>}``. The class is called as ``cls(spec, config, context)`` (see
:class:`games.core.component.Context`) and must derive from :class:`Objective`."""
