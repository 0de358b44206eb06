"""Uniform random play: Wuji's random-testing baseline (after Monkey), without parameters.

``search.agent: random``. An action is the argmax of pure Gumbel noise, the noise every
worker draws for its copies anyway, so random play is as repeatable as the population's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping, Sequence

import numpy as np

from evo.search.agents.base import check_copies, register_kind
from evo.search.policy import PolicySpec


class UniformAgent:
    """Every copy picks each of the A actions with chance 1 / A at every step.

    Args:
        gumbel: ``[N, T, A]`` pre-drawn Gumbel noise of the N copies.
    """

    def __init__(self, gumbel: np.ndarray) -> None:
        self.actions = np.argmax(gumbel, axis=2).T.copy()  # [T, N]
        n, _, n_actions = gumbel.shape
        self.probs = np.full((n, n_actions), 1.0 / n_actions, dtype=np.float32)
        self.probs.flags.writeable = False  # the same rows are handed out every step

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.probs.shape[0], "uniform random agent")

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        return self.actions[t], self.probs

    def planned(self, t: int, k: int) -> np.ndarray:
        """``[k', N]``: what :meth:`act` plays at steps ``t`` to ``t + k' - 1`` (``k' <= k``,
        the noise drawn for the horizon)."""
        return self.actions[t : t + k]


@dataclass(frozen=True)
class UniformSpec:
    """Uniform random play: nothing to carry but the fact."""

    def build(self, episodes: int, gumbel: np.ndarray) -> UniformAgent:
        return UniformAgent(gumbel)


@dataclass(frozen=True)
class RandomTesting:
    """``search.agent: random``: a fresh batch of uniform random agents every generation.

    The agents have no parameters, so their genomes are empty (``[n, 0]``): nothing to vary,
    nothing to fine-tune, nothing drawn from the search's generators to make them.
    """

    evolves: ClassVar[bool] = False

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.empty((n, 0), dtype=np.float32)

    def spec(self, genomes: np.ndarray, temperature: float = 1.0) -> UniformSpec:
        """Uniform play whatever the genomes and temperature: random play has neither."""
        return UniformSpec()


@register_kind("random")
def random_testing(policy_spec: PolicySpec, device: str = "cpu") -> RandomTesting:
    """The random-testing kind; uniform play needs no policy architecture and no device."""
    return RandomTesting()
