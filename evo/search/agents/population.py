"""The evolved population: P policies as flat float32 genomes, one forward pass for all.

``search.agent: mlp``. Every step is one batched forward of every policy on every one of
its episodes (:class:`evo.search.policy.PopulationActor`). Actions are sampled, not taken greedily:
A2C and PPO train stochastic policies, and sampling is also what lets the stuck oracle see a
policy try different actions in place. They are sampled with the Gumbel-max trick from noise
drawn before the first step, ``argmax(logits + T * gumbel)``, which picks each action at its
rate in ``softmax(logits / T)``. Search and fine-tuning sample at temperature ``T = 1``; an
evaluation may play the policies surer, or greedily at 0: a DQN agent such as RELINE's takes
the argmax of its Q-values, apart from a small exploration rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping, Sequence

import numpy as np
import torch

from evo.search.agents.base import check_copies, register_kind
from evo.search.policy import PolicySpec, PopulationActor


def _check_temperature(temperature: float) -> None:
    if not temperature >= 0:  # also refuses nan
        raise ValueError(f"temperature must be at least 0, got {temperature}")


class PopulationAgent:
    """P policies, each playing ``episodes`` copies (policy-major), in one forward pass.

    Args:
        genomes: ``[P, D]`` float32 flat genomes (:class:`evo.search.policy.PolicySpec` layout).
        policy_spec: Their architecture.
        episodes: Copies each policy plays.
        gumbel: ``[P * episodes, T, A]`` pre-drawn Gumbel noise.
        temperature: Of the sampling: 1 as trained, lower is surer, 0 greedy.
        device: Where the forward pass runs (``cpu``, ``cuda``, ``cuda:N``); observations
            come from and actions go back to the host.

    Raises:
        ValueError: a negative or nan temperature.
    """

    def __init__(self, genomes: np.ndarray, policy_spec: PolicySpec, episodes: int, gumbel: np.ndarray,
                 temperature: float = 1.0, device: str = "cpu") -> None:
        _check_temperature(temperature)
        self.policies = genomes.shape[0]
        self.episodes = episodes
        self.temperature = temperature
        self.actor = PopulationActor(policy_spec, genomes, episodes, device)
        noise = torch.from_numpy(np.ascontiguousarray(gumbel.transpose(1, 0, 2))).to(device)  # [T, N, A]
        if temperature != 1.0:
            # Scaled once here; at 0 the noise is dropped (inf * 0 would be nan).
            noise = noise * temperature if temperature > 0 else torch.zeros_like(noise)
        self.noise = noise

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.policies * self.episodes, "population agent")

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        """Sampled actions and ``softmax(logits / T)`` (one-hot of the greedy action at 0)."""
        p, e, temp = self.policies, self.episodes, self.temperature
        with torch.no_grad():
            logits = self.actor.logits(torch.from_numpy(obs).to(self.noise.device).view(p, e, -1)).view(p * e, -1)
            probs = torch.softmax(logits if temp == 1.0 else logits / temp, dim=1) if temp > 0 else None
            actions = logits.add_(self.noise[t]).argmax(dim=1)  # logits is a reused buffer
            if probs is None:
                probs = torch.nn.functional.one_hot(actions, logits.shape[1]).to(torch.float32)
        return actions.cpu().numpy(), probs.cpu().numpy()


@dataclass(frozen=True, eq=False)
class PopulationSpec:
    """A chunk of the population as a task carries it: genomes, architecture, temperature,
    and the device its forward pass runs on."""

    policy_spec: PolicySpec
    genomes: np.ndarray
    temperature: float = 1.0
    device: str = "cpu"

    def __post_init__(self) -> None:
        _check_temperature(self.temperature)

    def build(self, episodes: int, gumbel: np.ndarray) -> PopulationAgent:
        return PopulationAgent(self.genomes, self.policy_spec, episodes, gumbel, self.temperature, self.device)


@register_kind("mlp")
@dataclass(frozen=True)
class EvolvedPopulation:
    """``search.agent: mlp``: neural policies whose weights evolve and are fine-tuned."""

    policy_spec: PolicySpec
    device: str = "cpu"
    """Where the population's forward pass runs (the experiment's ``device``)."""
    evolves: ClassVar[bool] = True

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.policy_spec.init_genomes(n, rng)

    def spec(self, genomes: np.ndarray, temperature: float = 1.0) -> PopulationSpec:
        return PopulationSpec(self.policy_spec, genomes, temperature, self.device)
