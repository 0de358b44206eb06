"""Uniform random play: Wuji's random-testing baseline (after Monkey), without parameters.

``search.agent: random``. An action is the argmax of pure Gumbel noise, the noise every
worker draws for its copies anyway, so random play is as repeatable as the population's.

With ``search.action_repeat: m`` an action is held for m steps on average (a fresh one is
drawn with chance 1 / m each step): Go-Explore's explorer on Atari (Ecoffet et al. 2019,
``repeat_action`` 20), where a jump or a climb takes many steps of the same input and play
that changes its mind every step only jitters in place.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from evo.search.agents.base import check_copies, register_kind
from evo.search.policy import PolicySpec


def held(gumbel: np.ndarray, mean_repeat: float) -> np.ndarray:
    """``[N, T]`` actions that each step draw a fresh uniform action with chance ``1 / mean_repeat``
    and otherwise play the last one again, read from the noise ``gumbel [N, T, A]`` alone.

    A step's argmax is its fresh action; whether it is taken comes from the same step's
    maximum, which for independent Gumbels is Gumbel(log A) and independent of the argmax
    (the Gumbel-max trick), so it gives one more uniform draw for free.
    """
    fresh = np.argmax(gumbel, axis=2)
    if mean_repeat <= 1.0:
        return fresh
    n_actions = gumbel.shape[2]
    uniform = np.exp(-np.exp(-(gumbel.max(axis=2) - np.log(n_actions))))
    new = uniform < 1.0 / mean_repeat
    new[:, 0] = True
    last = np.maximum.accumulate(np.where(new, np.arange(new.shape[1])[None, :], 0), axis=1)
    return np.take_along_axis(fresh, last, axis=1)


class UniformAgent:
    """Every copy picks each of the A actions with chance 1 / A at every step, or holds each
    for ``mean_repeat`` steps on average.

    Args:
        gumbel: ``[N, T, A]`` pre-drawn Gumbel noise of the N copies.
        mean_repeat: Mean steps an action is held (1: a fresh action every step).
    """

    def __init__(self, gumbel: np.ndarray, mean_repeat: float = 1.0) -> None:
        self.actions = held(gumbel, mean_repeat).T.copy()  # [T, N]
        n, _, n_actions = gumbel.shape
        self.stay = 1.0 - 1.0 / max(float(mean_repeat), 1.0)
        self.probs = np.full((n, n_actions), (1.0 - self.stay) / n_actions, dtype=np.float32)
        self.probs.flags.writeable = False  # the same rows are handed out every step

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.probs.shape[0], "uniform random agent")

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        """Step ``t``'s actions; ``probs`` the chance of each action given the last one held."""
        if not self.stay:
            return self.actions[t], self.probs
        if t == 0:
            return self.actions[0], np.full_like(self.probs, 1.0 / self.probs.shape[1])
        probs = self.probs.copy()
        probs[np.arange(probs.shape[0]), self.actions[t - 1]] += self.stay
        return self.actions[t], probs

    def planned(self, t: int, k: int) -> np.ndarray:
        """``[k', N]``: what :meth:`act` plays at steps ``t`` to ``t + k' - 1`` (``k' <= k``,
        the noise drawn for the horizon)."""
        return self.actions[t : t + k]


@dataclass(frozen=True)
class UniformSpec:
    """Uniform random play: nothing to carry but how long an action is held."""

    mean_repeat: float = 1.0

    def build(self, episodes: int, gumbel: np.ndarray) -> UniformAgent:
        return UniformAgent(gumbel, self.mean_repeat)


@dataclass(frozen=True)
class RandomTesting:
    """``search.agent: random``: a fresh batch of uniform random agents every generation.

    The agents have no parameters, so their genomes are empty (``[n, 0]``): nothing to vary,
    nothing to fine-tune, nothing drawn from the search's generators to make them.
    """

    evolves: ClassVar[bool] = False
    mean_repeat: float = 1.0
    """Mean steps an action is held (``search.action_repeat``)."""

    def fitted(self, exp: Any, game_obs_shape: Sequence[int]) -> "RandomTesting":
        """This kind holding its actions as ``exp``'s ``search.action_repeat`` says."""
        return replace(self, mean_repeat=float(exp.search.action_repeat))

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.empty((n, 0), dtype=np.float32)

    def spec(self, genomes: np.ndarray, temperature: float = 1.0) -> UniformSpec:
        """Uniform play whatever the genomes and temperature: random play has neither."""
        return UniformSpec(self.mean_repeat)


@register_kind("random")
def random_testing(policy_spec: PolicySpec, device: str = "cpu") -> RandomTesting:
    """The random-testing kind; uniform play needs no policy architecture and no device."""
    return RandomTesting()
