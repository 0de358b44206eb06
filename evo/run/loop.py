"""The generation loop: vary, fine-tune, evaluate, watch for bugs, select, checkpoint.

Wuji's loop (Algorithm 1): binary tournaments pick parents from the population; single-point
crossover and Gaussian mutation make children; A2C fine-tunes every child (weights written
back); children play the game, objectives score them and oracles watch every episode played
(fine-tuning episodes included); NSGA-II survival on parents and children keeps the
population. Every generation ends with a row of ``generations.csv`` and a checkpoint.

What a generation still has to do once its population is chosen, its tail
(:class:`evo.run.tail.Tail`: the objectives and oracles learn from its batch, its bugs are
archived, its row, checkpoint and tables are written, progress is told), nothing of the next
generation waits for. So the tail runs while the next generation plays
(:meth:`evo.run.parallel.Executor.start`), and the workers no longer stand idle through it:
between two generations is only what choosing the next one needs (scoring and selection).
Everything is done in the order a run without the overlap does it, on the same data, so the
same YAML and seed give the same results; only the clock columns differ.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from collections import defaultdict
from pathlib import Path
from typing import Iterator

import numpy as np
import torch

from evo.run import rundir
from evo.run.checkpoint import CheckpointError, load_latest
from evo.run.budget import Budget
from evo.run.built import Built
from evo.run.config import Experiment, dump_experiment
from evo.run.device import check_runnable
from evo.search.explore.frontier import Frontier, Plan
from evo.search.explore.snapshot_check import snapshot_every
from evo.search.finetune import Diagnostics
from evo.run.chunks import chunks, play_chunks, run_batch
from evo.run.parallel import Executor, usable_cores
from evo.run.scalars import ScalarLog, check_installed
from evo.search.tasks import DenseReward, PlayTask, TuneTask, run_play, run_tune
from evo.search.operators import Operators, Population, episode_cases
from games.core.record import RolloutBatch
from games.common.seeds import POLICY_SEED_MAX, Stream, stream_rng
from objectives.coverage import CoverageTracker
from evo.run.checks import Checks, background_safe
from evo.run.counters import BugsFn, Counters, GenerationReport, ProgressFn
from evo.run.early_faults import EarlyFaults
from evo.run.replays import Replays
from evo.run.tail import GenerationTail, Tail
from oracles import calibrate_all
from oracles.archive import ArchivedBug, BugArchive

log = logging.getLogger(__name__)
MAX_SCORING_THREADS = 32
"""Most threads scoring policies at once (:meth:`Search._scores`)."""
__all__ = ["GenerationReport", "ProgressFn", "Search"]


class Search(GenerationTail):
    """One run of an experiment into one run directory."""

    def __init__(self, exp: Experiment, run_dir: Path, progress: ProgressFn | None = None,
                 begun: float | None = None, on_bugs: BugsFn | None = None) -> None:
        """``begun``: when the run began (``time.perf_counter()``; ``evo run``: its start), for
        its wall budget; None: now. ``on_bugs``: told of bugs archived while a generation
        plays (a fault of the game's process), else they come with its report."""
        if exp.logging.tensorboard:
            check_installed()  # one line before anything is built or written
        check_runnable(exp)  # a run starts on its device; opening it later need not (evo.run.device)
        self._begun = time.perf_counter() if begun is None else begun
        self.exp = exp
        self.run_dir = Path(run_dir)
        self.progress, self.on_bugs = progress, on_bugs
        self.built = Built.from_experiment(exp, self.run_dir)
        self.exp = exp = self.built.exp  # fitted to the game (evo.run.fit): what config.yaml records
        try:
            self._start(exp)
        except BaseException:
            self.built.close()  # e.g. a Ray or Dask cluster that does not start: the game's processes end
            raise

    def _start(self, exp: Experiment) -> None:
        """Everything after the game is built: state, seed streams, workers, operators."""
        self.spec = self.built.spec
        self.archive = BugArchive()
        self.tracker = CoverageTracker(self.spec)
        # The run's time starts with the command, its making included (imports, the game's
        # first copy, the probe's play): a wall budget is the whole run's.
        self.counters = Counters(wall_offset=time.perf_counter() - self._begun)
        # One stream per use (games/common/seeds.py); the names are the checkpoint's keys.
        self.rng_vary, self.rng_play, self.rng_tune, self.rng_init = (
            stream_rng(exp.seed, s) for s in (Stream.VARIATION, Stream.PLAY, Stream.FINETUNE, Stream.INIT)
        )
        self.executor = Executor(exp.parallel, exp.torch_threads)
        self.early = EarlyFaults(self.built.oracles, self.run_dir)
        """Faults of the game's processes, archived as the workers tell them (evo.run.early_faults)."""
        self._early: list[ArchivedBug] = []
        """Those archived since the last settle, which the components hear of there."""
        self.checks = Checks(self.built.oracles, background_safe(self.built.objectives))
        """The oracles' checks, beside the objectives' work on the same batch (evo.run.checks)."""
        self.replays = Replays(self.built.factory, self.spec.n_actions, self.built.columns, run_batch(exp))
        """Reports played again before they are kept (the performance oracle's confirmation)."""
        self.seconds: dict[str, float] = defaultdict(float, evaluation=self.built.probe_s)
        """Wall seconds spent per phase (evaluation, fine-tuning, scoring, learning, oracles,
        selection, bookkeeping). Evaluation and fine-tuning run from the workers' start to their results,
        so they hold the last generation's tail (learning, oracles, bookkeeping) where it ran
        meanwhile: what is not evaluation or fine-tuning is time the workers stood idle."""
        self._batch: RolloutBatch | None = None
        """The generation's scored batch, which its tail's objectives and oracles learn from."""
        self._tail: Tail | None = None
        """The last generation's tail, until it has run (:meth:`_drain`)."""
        self._overlaps = self.executor.overlaps
        """Whether a generation's tail waits for the next generation's play (else it runs at once)."""
        self._new_bugs: list[ArchivedBug] = []
        self._cut = False
        """Play was cut short by the wall budget (:meth:`_deadline`): the run ends with this generation."""
        self._scorers: ThreadPoolExecutor | None = None
        """Threads that score the policies for objectives that allow it (:meth:`_scores`)."""
        self.population: Population | None = None
        self.senses = [o.sense for o in self.built.objectives]
        self.names = [o.name for o in self.built.objectives]
        self._rl: tuple[int, dict[str, float]] | None = None
        """The generation last fine-tuned and its mean RL diagnostics, for its row."""
        self.operators = Operators.from_search(exp.search, len(self.senses))
        self.budget = Budget(exp.budget, len(self.built.injected))
        """When the run ends (:mod:`evo.run.budget`)."""
        share = exp.search.return_share
        factory, every = self.built.factory, None if exp.search.snapshots else 0  # None: checked at the first return
        check = functools.partial(snapshot_every, factory, exp.seed, f"game {factory.label}")
        self.frontier = Frontier(self.spec, share, stream_rng(exp.seed, Stream.EXPLORE), every, check) if share else None
        """The cells reached and the returns to them (``search.strategy``, ``frontier_share``)."""
        self.scalars: ScalarLog | None = None
        """TensorBoard scalars of each generation (``logging.tensorboard``), opened by run."""

    # ----------------------------------------------------------------- games and play
    def close(self) -> None:
        if self._scorers is not None:
            self._scorers.shutdown(wait=True)
            self._scorers = None
        self.checks.close()
        self.replays.close()
        self.early.close()
        self.executor.close()
        if self.scalars is not None:
            self.scalars.close()
        self.built.close()

    def _play(self, genomes: np.ndarray, ids: np.ndarray, episodes: int) -> RolloutBatch:
        """Every policy plays ``episodes`` episodes; chunks of the population run in parallel."""
        seeds = self.rng_play.integers(0, POLICY_SEED_MAX, size=len(ids))
        plan = None if self.frontier is None else self.frontier.plan(len(ids), episodes)
        limits = self._limits(len(ids) * episodes, plan)
        tasks = []
        isolated = getattr(self.built.factory, "step_timeout_s", None) is not None
        for c in play_chunks(len(ids), episodes, self.executor.parts, isolated):
            agent, copies = self.built.agents.spec(genomes[c]), slice(c.start * episodes, c.stop * episodes)
            tasks.append(PlayTask(
                self.built.factory, agent if plan is None else plan.spec(agent, copies), ids[c], seeds[c],
                episodes, self.built.columns, None if plan is None else plan.seeds[copies], self._deadline(),
                None if limits is None else limits[copies], self.early.log,
                None if plan is None else plan.restores(copies),
                (self.frontier.snapshot_every or 0) if self.frontier is not None else 0,
            ))
        with self._timed("evaluation"):
            results = self.executor.start(run_play, tasks)
            self._drain()  # the last generation's tail, while this one plays
            played = self.early.collect(results, self.counters, len(ids) * episodes, self._keep_early)
            rollouts = RolloutBatch.concat([result.rollouts for result in played])
        self._cut = self._cut or any(result.cut for result in played)
        self._observe(rollouts, plan)
        return rollouts

    def _limits(self, copies: int, plan: Plan | None) -> np.ndarray | None:
        """``[copies]`` the steps each episode plays at most with ``search.explore_steps``: that
        many after its return's prefix (or from the reset); None: to the horizon."""
        explore = self.exp.search.explore_steps
        if not isinstance(explore, int):
            return None
        prefixes = np.zeros(copies, dtype=np.int64) if plan is None else np.array([len(p) for p in plan.prefixes])
        return prefixes + explore

    @contextlib.contextmanager
    def _timed(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - start

    def _observe(self, rollouts: RolloutBatch, plan: Plan | None = None) -> None:
        """Count steps, coverage, cells and bugs of every episode played (``plan``: where
        the episodes of an evaluation started)."""
        with self._timed("oracles"):
            self._observe_untimed(rollouts, plan)

    def _observe_untimed(self, rollouts: RolloutBatch, plan: Plan | None) -> None:
        c = self.counters
        c.env_steps += int(sum(r.length for r in rollouts))
        self.tracker.update(rollouts)
        if self.frontier is not None:
            self.frontier.observe(rollouts, c.generation, c.env_steps, plan)
        if not c.calibrated:  # the first episodes of the run are its warm-up
            calibrate_all(self.built.components, rollouts)
            c.calibrated = True
        self.checks.submit(rollouts, c.env_steps, time.time() - c.wall_s)

    def _score(self, genomes: np.ndarray, ids: np.ndarray) -> Population:
        episodes = self.exp.search.episodes
        rollouts = self._play(genomes, ids, episodes)
        with self._timed("scoring"):
            F = self._scores([rollouts[p * episodes : (p + 1) * episodes] for p in range(len(ids))])
        cases = episode_cases(self.built.objectives, rollouts, episodes) if self.operators.needs_cases else None
        self._batch = rollouts  # the objectives and oracles learn from it in the generation's tail
        return Population(genomes, ids, F, cases)

    def _scores(self, policies: list[RolloutBatch]) -> np.ndarray:
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

    # ----------------------------------------------------------------- evolution
    def _new_ids(self, n: int) -> np.ndarray:
        ids = np.arange(self.counters.next_id, self.counters.next_id + n, dtype=np.int64)
        self.counters.next_id += n
        return ids

    def _finetune(self, genomes: np.ndarray, ids: np.ndarray) -> np.ndarray:
        cfg = self.exp.finetune
        if cfg.algorithm == "none" or not self.built.agents.evolves or len(ids) == 0:
            return genomes
        if self._tail is not None:  # the reward reads the objectives as the last batch left them
            self._learn(self._tail)
        objectives = tuple(self.built.objectives)
        reward = DenseReward(objectives, tuple(cfg.reward_weights.get(o.name, 1.0) for o in objectives))
        seeds = self.rng_tune.integers(0, POLICY_SEED_MAX, size=len(ids))
        tasks = [
            TuneTask(self.built.factory, self.built.policy_spec, genomes[c], ids[c], seeds[c], cfg.algorithm,
                     cfg.settings, reward, self.built.columns, self.exp.device, self._deadline(), self.early.log)
            for c in chunks(len(ids), self.executor.parts)
        ]
        with self._timed("fine-tuning"):
            tuned = self.executor.start(run_tune, tasks)
            self._drain()  # the rest of the last generation's tail, while the policies learn
            results = self.early.collect(tuned, self.counters, len(ids) * cfg.settings.episodes, self._keep_early)
        self._cut = self._cut or any(r.cut for r in results)
        # Per policy, in population order: the same means however the population was cut.
        self._rl = (self.counters.generation, Diagnostics.concat([r.diagnostics for r in results]).means())
        # Oracles see the batches in the order a single process would have played them:
        # update by update, policies in population order.
        for u in range(max(len(r.batches) for r in results)):
            self._observe(RolloutBatch.concat([r.batches[u] for r in results if u < len(r.batches)]))
        return np.concatenate([r.genomes for r in results])

    def _offspring(self, pop: Population) -> tuple[np.ndarray, np.ndarray]:
        with self._timed("selection"):
            return self._offspring_untimed(pop)

    def _offspring_untimed(self, pop: Population) -> tuple[np.ndarray, np.ndarray]:
        n = self.exp.search.offspring
        return self.operators.offspring(pop, self.senses, n, self.rng_vary), self._new_ids(n)

    def _initial(self) -> Population:
        s = self.exp.search
        probe = self.built.first_episodes()
        if probe is not None:  # the episodes that set the game's cells are play too
            self._observe(probe)
        genomes = self.built.agents.init_genomes(s.population, self.rng_init)
        return self._score(genomes, self._new_ids(s.population))

    def _step(self, pop: Population) -> Population:
        s = self.exp.search
        if s.offspring == 0:
            # No evolution: the same policies play again (the RL-alone and random baselines).
            return self._score(self._finetune(pop.genomes, pop.ids), pop.ids)
        if self.built.agents.evolves:
            genomes, ids = self._offspring(pop)
            genomes = self._finetune(genomes, ids)
            if self._cut:  # the wall budget ended fine-tuning: no child is scored, the run ends
                return pop
        else:  # fresh agents every generation (random testing)
            genomes, ids = self.built.agents.init_genomes(s.offspring, self.rng_init), self._new_ids(s.offspring)
        if any(o.rescores_parents for o in self.built.objectives):
            # Scores that drift as the objective learns: parents play again beside the children.
            both = self._score(np.concatenate([pop.genomes, genomes]), np.concatenate([pop.ids, ids]))
        else:
            both = pop.concat(self._score(genomes, ids))
        with self._timed("selection"):
            return self.operators.survivors(both, self.senses, s.population, self.rng_vary)

    # ----------------------------------------------------------------- bookkeeping
    def _restore(self) -> Population | None:
        """The population of the newest checkpoint that loads, the search state put back as it
        was then; None where the run was killed before its first checkpoint."""
        ckpt = load_latest(self.run_dir)
        if ckpt is None:
            saved = len(list((self.run_dir / "checkpoints").glob("gen_*.pt")))
            if saved or rundir.rows_written(self.run_dir) > 1:  # more than a kill in generation 0
                raise CheckpointError(
                    f"{self.run_dir}: no checkpoint to resume from ({saved} saved, none loads); "
                    "nothing in it was changed"
                )
            return None
        m = ckpt.meta
        c = self.counters
        c.generation, c.env_steps, c.wall_offset = m["generation"], m["env_steps"], m["wall_s"]
        c.next_id, c.hv_ref, c.calibrated = m["next_id"], m["hv_ref"], m["calibrated"]
        c.started = time.perf_counter()
        for name, state in m["rng"].items():
            getattr(self, name).bit_generator.state = state
        self.tracker.load_state_dict(m["coverage"])
        if self.frontier is not None:
            self.frontier.load_state_dict(m["frontier"])
        for component, state in zip(self.built.components, [*m["objectives"], *m["oracles"]]):
            if state is not None:  # None: a component without state in an older checkpoint
                component.load_state_dict(state)
        # What a killed run wrote after its last checkpoint is redone, so it is cut here.
        self.archive = rundir.truncate_to_generation(self.run_dir, c.generation)
        return Population(ckpt.genomes, ckpt.policy_ids, ckpt.F, ckpt.cases)

    def _deadline(self) -> float | None:
        return self.budget.deadline(self.counters)

    def _done(self) -> bool:
        return self.budget.spent(self.counters, self.archive.injected_found(), self._cut)

    # ----------------------------------------------------------------- the loop
    def run(self, resume: bool = False) -> Population:
        """Run until the budget is spent; return the final population."""
        threads = torch.get_num_threads()
        torch.set_num_threads(self.exp.torch_threads)
        try:
            restored = self._restore() if resume else None
            if restored is None:  # a new run, or one killed before its first checkpoint
                rundir.start(self.run_dir, dump_experiment(self.exp), self.built.facts, again=resume)
                self._open_scalars(None)
                pop = self._initial()
                finished = self._finish_generation(pop)
            else:
                pop = restored
                self._open_scalars(self.counters.generation + 1)
                self._write_tables()  # a kill may have come between the checkpoint and its tables
                finished = self._done()
            while not finished:
                self.counters.generation += 1
                pop = self._step(pop)
                finished = self._finish_generation(pop)
            self._drain()
        except BaseException:
            self._stopped()
            raise
        finally:
            torch.set_num_threads(threads)
            self.close()
        self.population = pop
        return pop

    def _stopped(self) -> None:
        """The run ends with an error or an interrupt: workers still playing are stopped, and
        the last whole generation's tail runs, so that its checkpoint is there to resume from."""
        self.executor.close()
        try:
            self._drain()
        except Exception as exc:  # noqa: BLE001 - the error that stopped the run is the one raised
            log.warning("the last generation's bookkeeping failed too: %s: %s", type(exc).__name__, exc)

    def _open_scalars(self, purge_from: int | None) -> None:
        if self.exp.logging.tensorboard:
            self.scalars = ScalarLog(self.run_dir, purge_from)
