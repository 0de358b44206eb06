"""The work a worker does: play a chunk of agents, or fine-tune a chunk of policies.

A task carries an agent spec or flat numpy genomes, the game factory and one seed per
policy, never torch modules or live games; the worker builds its own vector game (and keeps it
in :data:`evo.search.game_cache.WORKER_GAMES`) and plays its chunk as one batch.
:mod:`evo.run.parallel` sends tasks to workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evo.search.agents.base import AgentSpec
from evo.search.faults import FaultLog
from evo.search.finetune import Diagnostics, UpdateConfig, finetune
from evo.search.game_cache import WORKER_GAMES
from evo.search.policy import PolicySpec
from evo.search.play import draw_episodes, play
from games.core.record import RolloutBatch
from objectives.base import step_rewards

@dataclass(frozen=True)
class PlayTask:
    """Play ``episodes`` episodes with each of a chunk of agents.

    Attributes:
        factory: The game factory (the worker makes and keeps its vector game).
        agent: What plays (:class:`evo.search.agents.base.AgentSpec`), built in the worker.
        ids: ``[P]`` policy ids recorded in the rollouts.
        seeds: ``[P]`` one seed per policy: its episode seeds and its sampling noise.
        episodes: Episodes each policy plays.
        columns: Optional record columns to keep (what objectives and oracles require).
        episode_seeds: ``[P * episodes]`` seeds replacing the drawn ones where not negative
            (copies that return to an archived cell, :mod:`evo.search.explore`); None: all drawn.
    """

    factory: Any
    agent: AgentSpec
    ids: np.ndarray
    seeds: np.ndarray
    episodes: int
    columns: frozenset[str] = frozenset()
    episode_seeds: np.ndarray | None = None
    deadline: float | None = None
    """Wall clock time (``time.time()``) after which no step starts: the run's wall budget."""
    limits: np.ndarray | None = None
    """``[P * episodes]`` the steps each episode plays at most (``search.explore_steps``)."""
    faults: FaultLog | None = None
    """Where faults of the game's process are told as they happen (:mod:`evo.search.faults`)."""
    restores: tuple[tuple[bytes | None, ...], tuple[np.ndarray, ...]] | None = None
    """``(starts, heads)``: per copy, the snapshot it goes on from and the actions before it
    (:meth:`evo.search.explore.frontier.Plan.restores`); None: every copy from its reset."""
    snapshot_every: int = 0
    """Steps between the snapshots each copy takes (0: none)."""


@dataclass
class PlayResult:
    rollouts: RolloutBatch
    cut: bool = False
    """The deadline truncated episodes still running."""


def run_play(task: PlayTask) -> PlayResult:
    """Worker side of :class:`PlayTask`."""
    n = len(task.ids) * task.episodes
    game = WORKER_GAMES.get(task.factory, n)
    spec = game.game_spec
    draws = draw_episodes(task.seeds, task.episodes, spec.max_steps, spec.n_actions)
    agent = task.agent.build(task.episodes, draws.gumbel)
    chosen = task.episode_seeds
    seeds = draws.seeds if chosen is None else np.where(chosen >= 0, chosen, draws.seeds)
    starts, heads = task.restores or (None, None)
    result = play(game, seeds, np.repeat(task.ids, task.episodes), agent, columns=task.columns,
                  deadline=task.deadline, limits=task.limits, faults=task.faults, starts=starts, heads=heads,
                  snapshot_every=task.snapshot_every)
    if result.game_broken:
        WORKER_GAMES.drop(task.factory, n)
    return PlayResult(result.rollouts, result.cut)


@dataclass(frozen=True)
class DenseReward:
    """The fine-tuning reward: the objectives' ``step_rewards``, weighted and summed."""

    objectives: tuple[Any, ...]
    weights: tuple[float, ...]

    def __call__(self, rollouts: RolloutBatch, horizon: int) -> np.ndarray:
        out = np.zeros((len(rollouts), horizon))
        for i, r in enumerate(rollouts):
            for objective, w in zip(self.objectives, self.weights):
                if w:
                    out[i, : r.length] += w * step_rewards(objective, r)
        return out


@dataclass(frozen=True)
class TuneTask:
    """Fine-tune a chunk of policies with a registered algorithm (``a2c``, ``ppo``)."""

    factory: Any
    policy_spec: PolicySpec
    genomes: np.ndarray
    ids: np.ndarray
    seeds: np.ndarray
    algorithm: str
    config: UpdateConfig
    reward: DenseReward
    columns: frozenset[str] = frozenset()
    """Optional record columns of the batches played (the oracles watch them too)."""
    device: str = "cpu"
    """Where the weights and updates live (the experiment's ``device``)."""
    deadline: float | None = None
    """Wall clock time (``time.time()``) after which no step starts: the run's wall budget."""
    faults: FaultLog | None = None
    """Where faults of the game's process are told as they happen (:mod:`evo.search.faults`)."""


@dataclass
class TuneResult:
    """What a worker sends back: the tuned genomes, every batch it played (for the oracles)
    and each policy's RL diagnostics averaged over its updates (for ``generations.csv``)."""

    genomes: np.ndarray
    diagnostics: Diagnostics
    batches: list[RolloutBatch] = field(default_factory=list)
    cut: bool = False
    """The deadline stopped fine-tuning: the genomes are those of the updates made before."""


def run_tune(task: TuneTask) -> TuneResult:
    """Worker side of :class:`TuneTask`: the tuned genomes and every batch it played."""
    n = len(task.ids) * task.config.episodes
    batches: list[RolloutBatch] = []
    tuned, stats = finetune(
        task.genomes, task.policy_spec, WORKER_GAMES.get(task.factory, n), task.algorithm, task.config,
        task.reward, task.seeds, task.ids, on_rollouts=batches.append, columns=task.columns,
        device=task.device, deadline=task.deadline, faults=task.faults,
    )
    if stats.game_broken:
        WORKER_GAMES.drop(task.factory, n)
    return TuneResult(tuned, stats.diagnostics, batches, stats.cut)
