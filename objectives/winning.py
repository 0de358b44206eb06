"""Winning: how well a policy plays the game, as its mean episode return (Wuji's first goal)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from objectives.base import Objective, ObjectiveConfig, register


class WinningConfig(ObjectiveConfig):
    """Winning takes no options: the game's own reward says what winning is."""


@register("winning", WinningConfig)
class Winning(Objective):
    """Mean episode return over the policy's episodes.

    Wuji drives the population towards completing the mission, because some bugs only show
    after intermediate tasks that need skill. The dense reward for RL is the game reward.
    """

    name = "winning"
    sense: Literal["max", "min"] = "max"

    def __init__(self, spec: GameSpec, config: WinningConfig, context: Context) -> None:
        self.spec = spec

    def score(self, rollouts: RolloutBatch) -> float:
        if not len(rollouts):
            return 0.0
        return float(np.where(rollouts.valid, rollouts.rewards, 0.0).sum(axis=1).mean())

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        return rollout.rewards.astype(np.float64, copy=True)
