"""Stuck oracle: the state stopped changing while the policy kept trying different actions.

Wuji, oracle "stuck": the moving average of the previous n states is compared with the
current state; "if the difference between current observed state s and s̄ is less than a
threshold, a stuck potential bug is discovered". Wuji checks states, not screens, because
"monitoring the game screen is too heavy and not scalable".

The comparison here is with every one of the previous n states, not with their mean: an
agent walking a small loop (up, right, down, left) stands on the mean of its window while
moving all the time, and the mean test calls that stuck.

A state that does not change is not enough on its own: an agent pushing one way into a wall
stays put too, and that is the game working. So the oracle also asks that the ignored steps
used several different actions (all of them, by default): every input was tried and none
moved the game.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from pydantic import Field

from games.base import GameSpec, Rollout
from oracles.base import Bug, OracleConfig, register


class StuckConfig(OracleConfig):
    """Settings of the stuck oracle."""

    window: int = Field(default=8, ge=1)
    """n of Wuji's moving average: how many previous states the current one is compared with,
    and how many steps in a row the game must have ignored."""

    tolerance: float = Field(default=1e-6, ge=0.0)
    """Wuji's threshold on the difference to each of the window's states, per feature (max-abs). The default only forgives
    float rounding: a feature that moves at all is not stuck."""

    min_distinct_actions: int | None = Field(default=None, ge=1)
    """How many different actions the ignored steps must include; ``None`` means every
    action of the game (``spec.n_actions``). 1 turns the action check off."""


@register("stuck", StuckConfig)
class StuckOracle:
    """Reports, once per rollout, the first step at which the game ignored ``window`` steps."""

    name = "stuck"

    def __init__(self, spec: GameSpec, config: StuckConfig) -> None:
        self.spec = spec
        self.config = config
        self.min_distinct = (
            spec.n_actions if config.min_distinct_actions is None
            else config.min_distinct_actions
        )

    def first_stuck_step(self, rollout: Rollout) -> int | None:
        """The first step at which the rollout is stuck, or ``None``.

        Step ``t`` is stuck when the state after it, ``features[t + 1]``, equals (within
        ``tolerance``) each state since the run of unchanged states began at some
        ``features[s]``, the run is at least ``window`` steps long (``t + 1 - s >= window``),
        and the steps of the run, ``actions[s : t + 1]``, used at least ``min_distinct``
        different actions. Counting over the whole run, not only its last ``window`` steps,
        lets a policy with strong preferences show that it tried everything, given time.
        """
        n = self.config.window
        length = rollout.length
        if length < n:
            return None
        feats = np.asarray(rollout.features, dtype=np.float64)
        acts = np.asarray(rollout.actions, dtype=np.int64)
        tol = self.config.tolerance
        start = 0  # first state index of the current run of unchanged states
        seen: set[int] = set()
        for t in range(length):
            if np.abs(feats[t + 1] - feats[start]).max() > tol:
                start, seen = t + 1, set()
                continue
            seen.add(int(acts[t]))
            if t + 1 - start >= n and len(seen) >= self.min_distinct:
                return t
        return None

    def check(self, rollouts: Sequence[Rollout]) -> list[Bug]:
        """At most one ``stuck`` bug per rollout, at its first stuck step.

        The signature is the bucket of the stuck state (the game's ``feature_bins``), so one
        trap reached by many policies, or from slightly different positions inside one cell,
        is one bug.
        """
        bugs: list[Bug] = []
        n = self.config.window
        for rollout in rollouts:
            t = self.first_stuck_step(rollout)
            if t is None:
                continue
            point = tuple(int(b) for b in self.spec.buckets(rollout.features[t + 1]))
            run = np.flatnonzero(
                np.abs(rollout.features[: t + 2] - rollout.features[t + 1]).max(axis=-1)
                > self.config.tolerance
            )
            begin = int(run[-1]) if run.size else 0  # the last state that differed
            distinct = len(np.unique(rollout.actions[begin : t + 1]))
            bugs.append(Bug.at_step(
                rollout, t,
                kind="stuck",
                oracle=self.name,
                signature=f"stuck:{point}",
                message=(
                    f"state unchanged for {t + 1 - begin} steps at step {t} "
                    f"despite {distinct} different actions (bucket {point})"
                ),
                data={"window": n, "tolerance": self.config.tolerance,
                      "distinct_actions": distinct},
            ))
        return bugs
