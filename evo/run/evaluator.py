"""Play and score: the policies play the game on the workers, and every episode is counted,
checked and scored.

A population plays as chunks, one task a worker (:mod:`evo.run.chunks`), each chunk's copies
in one batch with one forward pass for all its agents. Every episode played goes through
:meth:`Evaluator.observe` (steps, coverage, the frontier's cells, the oracles' checks),
fine-tuning's included, so a bug is found however it was played. While the workers play, the
last generation's tail runs here (:meth:`evo.run.recorder.Recorder.drain`), so they do not
stand idle through it.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from evo.run.built import Built
from evo.run.checks import Checks
from evo.run.chunks import chunks, play_chunks
from evo.run.early_faults import EarlyFaults
from evo.run.parallel import Executor, usable_cores
from evo.run.phases import Phases
from evo.run.recorder import Recorder
from evo.run.state import RunState
from evo.search.explore.frontier import Plan
from evo.search.finetune import Diagnostics
from evo.search.operators import Population, episode_cases
from evo.search.tasks import DenseReward, PlayTask, TuneTask, run_play, run_tune
from games.common.seeds import POLICY_SEED_MAX
from games.core.record import RolloutBatch
from oracles import calibrate_all

MAX_SCORING_THREADS = 32
"""Most threads scoring policies at once (:meth:`Evaluator.scores`)."""


class Evaluator:
    """Plays policies on the run's workers: to score them (:meth:`evaluate`) and to fine-tune
    them (:meth:`tune`).

    Args:
        built: The built experiment (game, agents, objectives, oracles).
        state: The run's state: the steps and cells played are counted there.
        executor: The workers.
        early: Faults the workers tell while they play, kept by ``recorder`` as they come.
        checks: Where every episode played is handed to the oracles.
        phases: Where the seconds of evaluation, fine-tuning, scoring and oracles are added.
        recorder: Whose last tail runs while the workers play.
    """

    def __init__(self, built: Built, state: RunState, executor: Executor, early: EarlyFaults, checks: Checks,
                 phases: Phases, recorder: Recorder) -> None:
        self.built, self.exp, self.state = built, built.exp, state
        self.executor, self.early, self.checks, self.phases, self.recorder = executor, early, checks, phases, recorder
        self.needs_cases = False
        """Whether populations carry each objective's score on each episode (lexicase selection)."""
        self._batch: RolloutBatch | None = None
        """The generation's scored batch, which its tail's objectives and oracles learn from."""
        self._tuned: dict[str, float] = {}
        """The generation's fine-tuning diagnostics (means per policy), for its row."""
        self._scorers: ThreadPoolExecutor | None = None
        """Threads that score the policies for objectives that allow it (:meth:`scores`)."""

    def take(self) -> tuple[RolloutBatch | None, dict[str, float]]:
        """The generation's scored batch and fine-tuning diagnostics, handed to its tail once."""
        taken = self._batch, self._tuned
        self._batch, self._tuned = None, {}
        return taken

    # ----------------------------------------------------------------- scoring
    def evaluate(self, genomes: np.ndarray, ids: np.ndarray) -> Population:
        """Every policy plays ``search.episodes`` episodes and each objective scores them."""
        episodes = self.exp.search.episodes
        rollouts = self.play(genomes, ids, episodes)
        with self.phases.timed("scoring"):
            F = self.scores([rollouts[p * episodes : (p + 1) * episodes] for p in range(len(ids))])
        cases = episode_cases(self.built.objectives, rollouts, episodes) if self.needs_cases else None
        self._batch = rollouts
        return Population(genomes, ids, F, cases)

    def scores(self, policies: list[RolloutBatch]) -> np.ndarray:
        """``[P, objectives]``: each policy's episodes scored by each objective. Objectives
        that allow it (``scores_on_threads``: RND's forward over every step) score the policies
        on threads, one each, on the cores the workers leave idle now; the others in turn."""
        objectives = self.built.objectives
        F = np.zeros((len(policies), len(objectives)))
        threaded = {k for k, o in enumerate(objectives) if o.scores_on_threads} if len(policies) > 1 else set()
        if threaded and self._scorers is None:
            self._scorers = ThreadPoolExecutor(min(usable_cores(), MAX_SCORING_THREADS), thread_name_prefix="evo-score")
        for k in sorted(threaded):
            F[:, k] = list(self._scorers.map(objectives[k].score, policies))  # type: ignore[union-attr]
        for p, mine in enumerate(policies):
            for k, objective in enumerate(objectives):
                if k not in threaded:
                    F[p, k] = objective.score(mine)
        return F

    # ----------------------------------------------------------------- play
    def play(self, genomes: np.ndarray, ids: np.ndarray, episodes: int) -> RolloutBatch:
        """Every policy plays ``episodes`` episodes (from the frontier's cells where the run
        returns to them); chunks of the population run in parallel."""
        state, built = self.state, self.built
        seeds = state.rng_play.integers(0, POLICY_SEED_MAX, size=len(ids))
        plan = None if state.frontier is None else state.frontier.plan(len(ids), episodes)
        limits = self._limits(len(ids) * episodes, plan)
        every = 0 if state.frontier is None else state.frontier.snapshot_every or 0
        isolated = getattr(built.factory, "step_timeout_s", None) is not None
        tasks = []
        for c in play_chunks(len(ids), episodes, self.executor.parts, isolated):
            agent, copies = built.agents.spec(genomes[c]), slice(c.start * episodes, c.stop * episodes)
            tasks.append(PlayTask(
                built.factory, agent if plan is None else plan.spec(agent, copies), ids[c], seeds[c],
                episodes, built.columns, None if plan is None else plan.seeds[copies], state.deadline(),
                None if limits is None else limits[copies], self.early.log,
                None if plan is None else plan.restores(copies), every,
            ))
        with self.phases.timed("evaluation"):
            results = self.executor.start(run_play, tasks)
            self.recorder.drain()  # the last generation's tail, while this one plays
            played = self.early.collect(results, state.counters, len(ids) * episodes, self.recorder.keep_early)
            rollouts = RolloutBatch.concat([result.rollouts for result in played])
        state.cut = state.cut or any(result.cut for result in played)
        self.observe(rollouts, plan)
        return rollouts

    def _limits(self, copies: int, plan: Plan | None) -> np.ndarray | None:
        """``[copies]`` the steps each episode plays at most with ``search.explore_steps``: that
        many after its return's prefix (or from the reset); None: to the horizon."""
        explore = self.exp.search.explore_steps
        if not isinstance(explore, int):
            return None
        prefixes = np.zeros(copies, dtype=np.int64) if plan is None else np.array([len(p) for p in plan.prefixes])
        return prefixes + explore

    def observe_probe(self) -> None:
        """Observe the episodes the game's probe played to set its cells: they are play too."""
        probe = self.built.first_episodes()
        if probe is not None:
            self.observe(probe)

    def observe(self, rollouts: RolloutBatch, plan: Plan | None = None) -> None:
        """Count the steps, coverage, cells and bugs of episodes played (``plan``: where they
        started); the run's first episodes calibrate the components (its warm-up)."""
        with self.phases.timed("oracles"):
            c, frontier = self.state.counters, self.state.frontier
            c.env_steps += int(sum(r.length for r in rollouts))
            self.state.tracker.update(rollouts)
            if frontier is not None:
                frontier.observe(rollouts, c.generation, c.env_steps, plan)
            if not c.calibrated:
                calibrate_all(self.built.components, rollouts)
                c.calibrated = True
            self.checks.submit(rollouts, c.env_steps, time.time() - c.wall_s)

    # ----------------------------------------------------------------- fine-tuning
    def tune(self, genomes: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """The policies after RL fine-tuning (``finetune``) on the objectives' dense rewards;
        as they are where nothing is fine-tuned (``algorithm: none``, agents that do not evolve)."""
        cfg, built, state = self.exp.finetune, self.built, self.state
        if cfg.settings is None or not built.agents.evolves or len(ids) == 0:
            return genomes
        self.recorder.learn()  # the reward reads the objectives as the last batch left them
        objectives = tuple(built.objectives)
        reward = DenseReward(objectives, tuple(cfg.reward_weights.get(o.name, 1.0) for o in objectives))
        seeds = state.rng_tune.integers(0, POLICY_SEED_MAX, size=len(ids))
        tasks = [
            TuneTask(built.factory, built.policy_spec, genomes[c], ids[c], seeds[c], cfg.algorithm, cfg.settings,
                     reward, built.columns, self.exp.device, state.deadline(), self.early.log)
            for c in chunks(len(ids), self.executor.parts)
        ]
        with self.phases.timed("fine-tuning"):
            tuned = self.executor.start(run_tune, tasks)
            self.recorder.drain()  # the rest of the last generation's tail, while the policies learn
            results = self.early.collect(tuned, state.counters, len(ids) * cfg.settings.episodes,
                                         self.recorder.keep_early)
        state.cut = state.cut or any(r.cut for r in results)
        # Per policy, in population order: the same means however the population was cut.
        self._tuned = Diagnostics.concat([r.diagnostics for r in results]).means()
        # Oracles see the batches in the order a single process would have played them:
        # update by update, policies in population order.
        for u in range(max(len(r.batches) for r in results)):
            self.observe(RolloutBatch.concat([r.batches[u] for r in results if u < len(r.batches)]))
        return np.concatenate([r.genomes for r in results])

    def close(self) -> None:
        if self._scorers is not None:
            self._scorers.shutdown(wait=True)
            self._scorers = None
