"""PPGTA's exploring agent as a run: ``evo run`` on an experiment with ``finetune.algorithm: preference_ppo``.

PPGTA trains one agent, not a population: PPO on the mixed reward of the ``preference_kl``
objective, actor and critic started from the imitation policy that objective holds
(:mod:`evo.search.finetune.preference_ppo`). Such an experiment therefore has no population
(``search.population: 1``, ``offspring: 0``) and ``evo run`` trains the one agent instead of
evolving: each PPO update is a row of ``generations.csv`` (its episodes scored by every
objective), every episode goes through the oracles as in any run, and the trained actor is
kept as ``policy.pt`` in the run directory after every update (an imitation-policy file:
``ImitationSpec`` plays it, ``evo study ppgta`` evaluates it). The PPO settings are
``finetune.ppo``'s; ``reward_weights`` do not apply (the reward is ``preference_kl``'s).
A killed run is started again, not resumed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from evo.run import rundir
from evo.run.checkpoint import CheckpointError
from evo.run.config import ConfigError, Experiment, dump_experiment
from evo.run.counters import BugsFn
from evo.run.loop import ProgressFn, Search
from evo.search.finetune.preference_ppo import ActorCritic, UpdateStats, preference_updates
from evo.search.operators import Population
from games.core.record import RolloutBatch
from games.common.seeds import POLICY_SEED_MAX
from games.perception.imitation import save_policy

POLICY = "policy.pt"
"""The trained actor in a run directory of PPGTA's agent."""


def is_preference_run(exp: Experiment) -> bool:
    """True when ``evo run`` trains PPGTA's one agent rather than evolving a population."""
    return exp.finetune.algorithm == "preference_ppo"


def search_for(exp: Experiment, run_dir: Path, progress: ProgressFn | None = None,
               begun: float | None = None, on_bugs: BugsFn | None = None) -> Search:
    """The run of ``exp``: PPGTA's one agent (:class:`PreferenceSearch`) or an evolved
    population (:class:`Search`); what ``evo run`` and ``evo compare`` start."""
    return (PreferenceSearch if is_preference_run(exp) else Search)(exp, run_dir, progress, begun, on_bugs)


def check_preference_experiment(exp: Experiment) -> None:
    """ConfigError (one line) unless the experiment is one PPGTA agent rewarded by preference_kl."""
    names = [o.name for o in exp.objectives]
    if "preference_kl" not in names:
        raise ConfigError(f"finetune.algorithm preference_ppo trains on preference_kl's reward: list it in "
                          f"objectives (got {', '.join(names)})")
    if exp.search.population != 1 or exp.search.offspring != 0:
        raise ConfigError(f"finetune.algorithm preference_ppo trains one agent: expected search.population 1 and "
                          f"offspring 0, got {exp.search.population} and {exp.search.offspring}")


class PreferenceSearch(Search):
    """One run of PPGTA's agent into one run directory (see the module)."""

    def __init__(self, exp: Experiment, run_dir: Path, progress: ProgressFn | None = None,
                 begun: float | None = None, on_bugs: BugsFn | None = None) -> None:
        check_preference_experiment(exp)
        super().__init__(exp, run_dir, progress, begun, on_bugs)
        self._overlaps = False  # its updates play in this process: each tail runs at once
        names = [o.name for o in self.built.objectives]
        self.objective = self.built.objectives[names.index("preference_kl")]

    def run(self, resume: bool = False) -> Population:
        """Train until the budget is spent; return the one agent's last scores."""
        if resume:
            self.close()
            raise CheckpointError(f"{self.run_dir}: a preference_ppo run is not resumed; start it again")
        self._new_bugs = []
        threads = torch.get_num_threads()
        torch.set_num_threads(self.exp.torch_threads)
        try:
            rundir.start(self.run_dir, dump_experiment(self.exp), self.built.facts)
            self._open_scalars(None)
            probe = self.built.first_episodes()
            if probe is not None:
                self._observe(probe)
            pop = self._train()
        finally:
            torch.set_num_threads(threads)
            self.close()
        self.population = pop
        return pop

    def _train(self) -> Population:
        cfg = self.exp.finetune.ppo
        model = ActorCritic(self.objective.policy)
        game = self.built.factory.make_vector(cfg.episodes)
        seed = int(self.rng_tune.integers(POLICY_SEED_MAX))
        try:
            for batch, update in preference_updates(game, self.objective, model, cfg, seed, self.built.columns):
                self._observe(batch)
                pop = self._scored(batch, update)
                save_policy(model.actor, self.run_dir / POLICY, self._meta())
                self._finish_generation(pop)
                if self._done():
                    return pop
                self.counters.generation += 1
        finally:
            game.close()
        raise AssertionError("preference_updates never ends")  # pragma: no cover

    def _scored(self, batch: RolloutBatch, update: UpdateStats) -> Population:
        """The update's episodes scored by every objective; the other components learn from
        them (preference_kl's novelty already did, inside the update)."""
        F = np.array([[objective.score(batch) for objective in self.built.objectives]])
        self._settle()  # the oracles' bugs before they learn from the batch
        for component in self.built.components:
            if component is not self.objective:
                component.update(batch)
        diagnostics = {"policy_loss": update.policy_loss, "value_loss": update.value_loss, "entropy": update.entropy,
                       "approx_kl": update.approx_kl, "clip_frac": update.clip_frac}
        self._rl = (self.counters.generation, diagnostics)
        return Population(np.zeros((1, 0), dtype=np.float32), np.zeros(1, dtype=np.int64), F, None)

    def _meta(self) -> dict:
        """What the kept actor says about itself: the policy it started from, and this run."""
        c = self.counters
        start = {k: v for k, v in self.objective.policy_meta.items() if isinstance(v, (int, float, str, list))}
        return {**start, "trained_by": "preference_ppo", "experiment": self.exp.name, "seed": self.exp.seed,
                "updates": c.generation + 1, "env_steps": c.env_steps}
