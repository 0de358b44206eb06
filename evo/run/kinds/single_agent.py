"""PPGTA's exploring agent as a run (``run: single_agent``): one agent trained, not a population evolved.

PPGTA trains one agent: PPO on the mixed reward of the ``preference_kl`` objective, actor and
critic started from the imitation policy that objective holds
(:mod:`evo.search.finetune.preference_ppo`). Such an experiment therefore has no population
(``search.population: 1``, ``offspring: 0``): each PPO update is a row of ``generations.csv``
(its episodes scored by every objective), every episode goes through the oracles as in any
run, and the trained actor is kept as ``policy.pt`` in the run directory after every update
(an imitation-policy file: ``ImitationSpec`` plays it, ``evo study ppgta`` evaluates it). The
PPO settings are ``finetune.ppo``'s (``finetune.algorithm: ppo``); ``reward_weights`` do not
apply (the reward is ``preference_kl``'s). A killed run is started again, not resumed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evo.run.checkpoint import CheckpointError
from evo.run.config import ConfigError, Experiment
from evo.run.counters import BugsFn, ProgressFn
from evo.run.kinds import RUN_KINDS
from evo.run.kinds.base import Run
from evo.search.finetune.preference_ppo import ActorCritic, UpdateStats, preference_updates
from evo.search.operators import Population
from games.common.seeds import POLICY_SEED_MAX
from games.core.record import RolloutBatch
from games.perception.imitation import save_policy

POLICY = "policy.pt"
"""The trained actor in a run directory of PPGTA's agent."""
REWARD = "preference_kl"
"""The objective whose reward the agent trains on and whose imitation policy it starts from."""


@RUN_KINDS.register("single_agent")
class SingleAgent(Run):
    """One run of PPGTA's agent into one run directory (see the module)."""

    overlaps = False  # its updates play in this process: each generation's tail runs at once

    def __init__(self, exp: Experiment, run_dir: Path, progress: ProgressFn | None = None,
                 begun: float | None = None, on_bugs: BugsFn | None = None) -> None:
        super().__init__(exp, run_dir, progress, begun, on_bugs)
        self.objective = next(o for o in self.built.objectives if o.name == REWARD)

    @classmethod
    def check(cls, exp: Experiment) -> None:
        names = [o.name for o in exp.objectives]
        if REWARD not in names:
            raise ConfigError(f"run single_agent trains on {REWARD}'s reward: list it in objectives "
                              f"(got {', '.join(names)})")
        if exp.search.population != 1 or exp.search.offspring != 0:
            raise ConfigError(f"run single_agent trains one agent: expected search.population 1 and offspring 0, "
                              f"got {exp.search.population} and {exp.search.offspring}")
        if exp.finetune.algorithm != "ppo":
            raise ConfigError(f"run single_agent trains by PPO: expected finetune.algorithm ppo, "
                              f"got {exp.finetune.algorithm}")

    def run(self, resume: bool = False) -> Population:
        """Train until the budget is spent; return the one agent's last scores."""
        if resume:
            self.close()
            raise CheckpointError(f"{self.run_dir}: a single_agent run is not resumed; start it again")
        with self.running():
            self.recorder.start()
            self.evaluator.observe_probe()
            pop = self._train()
        self.population = pop
        return pop

    def _train(self) -> Population:
        cfg = self.exp.finetune.ppo
        model = ActorCritic(self.objective.policy)
        game = self.built.factory.make_vector(cfg.episodes)
        seed = int(self.state.rng_tune.integers(POLICY_SEED_MAX))
        try:
            for batch, update in preference_updates(game, self.objective, model, cfg, seed, self.built.columns):
                self.evaluator.observe(batch)
                pop = self._scored(batch)
                save_policy(model.actor, self.run_dir / POLICY, self._meta())
                if self.recorder.finish(pop, None, _diagnostics(update)):
                    return pop
                self.state.counters.generation += 1
        finally:
            game.close()
        raise AssertionError("preference_updates never ends")  # pragma: no cover

    def _scored(self, batch: RolloutBatch) -> Population:
        """The update's episodes scored by every objective; the other components learn from
        them (preference_kl's novelty already did, inside the update)."""
        F = self.evaluator.scores([batch])
        self.recorder.settle()  # the oracles' bugs before they learn from the batch
        for component in self.built.components:
            if component is not self.objective:
                component.update(batch)
        return Population(np.zeros((1, 0), dtype=np.float32), np.zeros(1, dtype=np.int64), F, None)

    def _meta(self) -> dict:
        """What the kept actor says about itself: the policy it started from, and this run."""
        c = self.state.counters
        start = {k: v for k, v in self.objective.policy_meta.items() if isinstance(v, (int, float, str, list))}
        return {**start, "trained_by": "preference_ppo", "experiment": self.exp.name, "seed": self.exp.seed,
                "updates": c.generation + 1, "env_steps": c.env_steps}


def _diagnostics(update: UpdateStats) -> dict[str, float]:
    return {"policy_loss": update.policy_loss, "value_loss": update.value_loss, "entropy": update.entropy,
            "approx_kl": update.approx_kl, "clip_frac": update.clip_frac}
