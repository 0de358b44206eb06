"""``search.agent: imitation``: a population of PPGTA's imitation policy whose weights evolve.

PPGTA's agent starts from the imitation policy a tester's few demonstrations taught
(:mod:`games.perception.imitation`) and trains it by PPO; a population of MLPs evolved from
random weights on the same objectives starts from nothing a tester showed, and on the park it
tested fewer objects within 18 episodes (73% against 87.5%). Here every genome is the whole
imitation policy (its conv encoder, its two GRUs and its head, flattened: 590k weights for the
shipped one), the first generation is that policy, and NSGA-II varies it from there with the
experiment's operators (small Gaussian noise: ``search.mutation_sigma`` of 0.003 or so, not the
MLPs' 0.3). The policy is the one ``preference_kl`` scores against where the experiment lists
it, else the shipped weights; observations are the game's RGB frames, as the policy learned
on (OD-masked by the ``detect`` wrapper where it learned on masked frames).

A policy's copies keep the policy's memory between steps (:class:`games.perception.imitation.Playing`)
and sample with the worker's Gumbel noise, so a policy plays the same in any batch.
Fine-tuning does not apply (``finetune.algorithm: none``): PPO of the imitation policy is
``run: single_agent``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np
import torch
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from evo.search.agents.base import check_copies, register_kind
from evo.search.agents.imitation import ImitationAgent
from evo.search.policy import PolicySpec
from games.perception.imitation import load_policy


class ImitationPopulationAgent:
    """P imitation policies of E copies each (copies policy-major), each played by its own
    :class:`ImitationAgent`."""

    def __init__(self, agents: Sequence[ImitationAgent], episodes: int) -> None:
        self.agents, self.episodes = list(agents), int(episodes)

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, len(self.agents) * self.episodes, "imitation population")
        for agent in self.agents:
            agent.reset(seeds[: self.episodes])

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        e = self.episodes
        played = [agent.act(obs[i * e: (i + 1) * e], features, infos, t) for i, agent in enumerate(self.agents)]
        return np.concatenate([a for a, _ in played]), np.concatenate([p for _, p in played])


@dataclass(frozen=True, eq=False)
class ImitationPopulationSpec:
    """A chunk of the population as a task carries it: the genomes, where the architecture's
    weights file is, the frame shape and the temperature."""

    genomes: np.ndarray
    frame_shape: tuple[int, int, int]
    weights: str | None = None
    temperature: float = 1.0

    def build(self, episodes: int, gumbel: np.ndarray) -> ImitationPopulationAgent:
        if gumbel.shape[0] != self.genomes.shape[0] * episodes:
            raise ValueError(f"imitation population: {gumbel.shape[0]} copies for {self.genomes.shape[0]} "
                             f"policies of {episodes} episodes")
        agents = []
        for i, genome in enumerate(self.genomes):
            model = load_policy(self.weights)[0]
            with torch.no_grad():
                vector_to_parameters(torch.from_numpy(np.asarray(genome, dtype=np.float32)), model.parameters())
            agents.append(ImitationAgent(model, self.frame_shape, gumbel[i * episodes: (i + 1) * episodes],
                                         self.temperature))
        return ImitationPopulationAgent(agents, episodes)


@dataclass(frozen=True)
class ImitationPopulation:
    """The kind: genomes are the imitation policy's weights, the first generation the policy itself.

    Attributes:
        frame_shape: ``(3, H, W)`` of the game's observation, set by :meth:`fitted`.
        weights: The imitation policy's file (None: the shipped one).
    """

    frame_shape: tuple[int, int, int] | None = None
    weights: str | None = None
    evolves: ClassVar[bool] = True

    def fitted(self, exp: Any, game_obs_shape: Sequence[int]) -> "ImitationPopulation":
        """This kind for ``exp``'s game: its frames, and the policy its ``preference_kl`` scores
        against (the shipped one where that objective is not listed or names none).

        Raises:
            ValueError: the game's observation is not an RGB frame ``(3, H, W)``, or the experiment
                fine-tunes.
        """
        if exp.finetune.algorithm != "none":
            raise ValueError(f"search.agent imitation evolves the imitation policy without fine-tuning: set "
                             f"finetune.algorithm none (got {exp.finetune.algorithm}; PPO of it is run single_agent)")
        shape = tuple(int(v) for v in game_obs_shape)
        if len(shape) != 3 or shape[0] != 3:
            raise ValueError(f"search.agent imitation plays the imitation policy on RGB frames (3, H, W); "
                             f"this game's observation has shape {shape} (drop wrappers that replace the frame)")
        weights = next((o.kwargs.get("weights") for o in exp.objectives if o.name == "preference_kl"), None)
        return replace(self, frame_shape=shape, weights=weights)

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``[n, D]``: the imitation policy's weights, n times (variation makes them differ)."""
        flat = parameters_to_vector(load_policy(self.weights)[0].parameters()).detach().numpy().astype(np.float32)
        return np.repeat(flat[None], n, axis=0)

    def spec(self, genomes: np.ndarray, temperature: float = 1.0) -> ImitationPopulationSpec:
        if self.frame_shape is None:
            raise ValueError("search.agent imitation: the kind was not fitted to the game's frames")
        return ImitationPopulationSpec(np.asarray(genomes, dtype=np.float32), self.frame_shape, self.weights,
                                       temperature)


@register_kind("imitation")
def imitation_population(policy_spec: PolicySpec, device: str = "cpu") -> ImitationPopulation:
    """The kind; it takes no MLP architecture (``network`` does not apply) and plays on the CPU."""
    return ImitationPopulation()
