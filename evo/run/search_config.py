"""The search's sections of an experiment: ``search`` (the evolutionary loop, its agent kind and
operators, and Go-Explore's fields) and ``finetune`` (RL between generations). Every model
rejects unknown keys (:mod:`evo.run.config` has the whole experiment)."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from evo.search.explore.config import ExplorationFields
from evo.search.finetune import ALGORITHMS as FINETUNE_ALGORITHMS
from evo.search.finetune import A2CConfig, PPOConfig, UpdateConfig

log = logging.getLogger(__name__)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OperatorsConfig(Strict):
    """The search operators by registered name (evo/search/operators/); the defaults are Wuji's loop."""

    survival: str = Field(
        "nsga2", description="Who survives each generation: nsga2 (rank, then crowding distance) or "
        "nsga3 (rank, then niches around Das-Dennis reference directions; for many objectives).",
    )
    selection: str = Field(
        "tournament", description="How parents are picked: tournament (binary: domination, then "
        "crowding) or lexicase (DEAP's automatic epsilon-lexicase over each objective's score on "
        "each episode, which keeps specialists that a mean hides).",
    )
    crossover: str = Field("single_point", description="single_point: one cut, search.crossover_prob.")
    mutation: str = Field(
        "gaussian", description="gaussian: N(0, search.mutation_sigma) on each weight with "
        "probability search.mutation_rate.",
    )
    partitions: int | None = Field(
        None, ge=1, description="nsga3: Das-Dennis partitions of the reference directions "
        "(null: the most whose number of directions does not exceed search.population).",
    )

    @field_validator("survival", "selection", "crossover", "mutation")
    @classmethod
    def _registered(cls, name: str, info: ValidationInfo) -> str:
        from evo.search.operators import check_name  # lazy: pymoo and DEAP load with the operators

        check_name(str(info.field_name), name)
        return name

    @model_validator(mode="after")
    def _partitions_for_nsga3(self) -> "OperatorsConfig":
        if self.partitions is not None and self.survival != "nsga3":
            raise ValueError(
                f"partitions are NSGA-III's reference directions; survival is {self.survival!r}, not nsga3"
            )
        return self


class SearchConfig(ExplorationFields):
    """The evolutionary loop (Wuji's defaults: population and offspring 30)."""

    population: int = Field(30, ge=1, description="Policies kept each generation.")
    offspring: int = Field(30, ge=0, description="Children made each generation (0: no evolution).")
    episodes: int = Field(4, ge=1, description="Episodes each policy plays per evaluation.")
    crossover_prob: float = Field(0.9, ge=0, le=1, description="Chance a child is crossed (single point).")
    mutation_sigma: float = Field(0.3, ge=0, description="Std of Gaussian weight noise.")
    mutation_rate: float = Field(0.2, ge=0, le=1, description="Chance each weight is mutated.")
    agent: str = Field(
        "mlp", description="The agent kind, by its name in evo.search.agents.AGENT_KINDS: mlp, neural "
        "policies; random, uniform random actions (the baseline); imitation, copies of PPGTA's imitation "
        "policy whose weights evolve. Named policy before 0.3, which still loads.",
    )
    action_repeat: float = Field(
        1.0, ge=1, description="agent random: mean steps an action is held, a fresh one drawn with chance "
        "1 / action_repeat each step (Go-Explore's explorer holds each for 20 on Atari, where jumps and "
        "climbs take many steps of one input); 1: a fresh action every step.",
    )
    hv_ref: list[float] | None = Field(
        None, description="Hypervolume reference point, one value per objective (default: "
        "the first generation's worst values)."
    )
    operators: OperatorsConfig = Field(
        default_factory=OperatorsConfig, description="Survival, parent selection, crossover and mutation by name."
    )

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and "policy" in raw:  # 0.2's name, loaded for one release with a warning
            if "agent" in raw:
                raise ValueError("search.policy is the old name of search.agent; give agent only")
            log.warning("search.policy: is now search.agent: (the same kinds); search.policy: still loads for now")
            raw = {("agent" if key == "policy" else key): value for key, value in raw.items()}
        return raw

    @model_validator(mode="after")
    def _explores_with_random_play(self) -> "SearchConfig":
        if self.strategy == "go_explore" and self.agent != "random":
            raise ValueError("strategy go_explore explores with random actions; set agent: random "
                             "(or keep strategy evolve and set frontier_share)")
        if self.action_repeat != 1 and self.agent != "random":
            raise ValueError(f"action_repeat holds the actions of agent random; agent {self.agent} chooses its own "
                             "(set agent: random or leave action_repeat at 1)")
        return self

    @field_validator("agent")
    @classmethod
    def _registered_kind(cls, name: str) -> str:
        from evo.search.agents import check_kind  # lazy: the agents load torch

        check_kind(name)
        return name


class FinetuneConfig(Strict):
    """RL fine-tuning of every offspring between variation and evaluation (Wuji's A2C step,
    or PPO, which learns more from each game step)."""

    algorithm: str = Field(
        "a2c", description="A registered algorithm (a2c, ppo), its settings under its own key; none: no fine-tuning. "
        "A run of PPGTA's one agent (run: single_agent) trains by ppo.",
    )
    reward_weights: dict[str, float] = Field(
        default_factory=dict,
        description="Weight of each objective's dense reward (default 1 for each listed objective).",
    )
    a2c: A2CConfig = Field(default_factory=A2CConfig, description="Settings of a2c.")
    ppo: PPOConfig = Field(default_factory=PPOConfig, description="Settings of ppo.")

    @field_validator("algorithm")
    @classmethod
    def _registered(cls, name: str) -> str:
        known = ["none", *sorted(n for n in FINETUNE_ALGORITHMS if n in cls.model_fields)]
        if name not in known:
            raise ValueError(f"unknown algorithm {name!r}; expected one of {', '.join(known)}")
        return name

    @property
    def settings(self) -> UpdateConfig | None:
        """The hyperparameters of the chosen algorithm; None for ``none``, which fine-tunes nothing."""
        return None if self.algorithm == "none" else getattr(self, self.algorithm)
