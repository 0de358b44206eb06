"""Wuji's generation loop (Algorithm 1): vary, fine-tune, evaluate, watch for bugs, select, keep.

Binary tournaments pick parents from the population; single-point crossover and Gaussian
mutation make children; A2C fine-tunes every child (weights written back); children play the
game, objectives score them and oracles watch every episode played (fine-tuning episodes
included); NSGA-II survival on parents and children keeps the population. Every generation
ends with a row of ``generations.csv`` and a checkpoint, written while the next generation
plays (:mod:`evo.run.recorder`); the same YAML and seed give the same results either way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evo.run.config import Experiment
from evo.run.counters import BugsFn, ProgressFn
from evo.run.kinds import RUN_KINDS
from evo.run.kinds.base import Run
from evo.search.operators import Operators, Population


@RUN_KINDS.register("evolve")
class Evolve(Run):
    """A population evolved by NSGA-II with RL fine-tuning between generations (``run: evolve``)."""

    def __init__(self, exp: Experiment, run_dir: Path, progress: ProgressFn | None = None,
                 begun: float | None = None, on_bugs: BugsFn | None = None) -> None:
        super().__init__(exp, run_dir, progress, begun, on_bugs)
        self.operators = Operators.from_search(self.exp.search, len(self.built.objectives))
        self.senses = [o.sense for o in self.built.objectives]
        self.evaluator.needs_cases = self.operators.needs_cases

    def run(self, resume: bool = False) -> Population:
        with self.running():
            pop = self.recorder.restore() if resume else None
            if pop is None:  # a new run, or one killed before its first checkpoint
                self.recorder.start(again=resume)
                pop = self._initial()
                done = self.recorder.finish(pop, *self.evaluator.take())
            else:
                done = self.state.done()
            while not done:
                self.state.counters.generation += 1
                pop = self._next(pop)
                done = self.recorder.finish(pop, *self.evaluator.take())
        self.population = pop
        return pop

    def _initial(self) -> Population:
        self.evaluator.observe_probe()
        n = self.exp.search.population
        return self.evaluator.evaluate(self.built.agents.init_genomes(n, self.state.rng_init), self.state.new_ids(n))

    def _next(self, pop: Population) -> Population:
        """The next generation's population: children made, fine-tuned and scored, and the
        survivors of parents and children."""
        s, agents, evaluator = self.exp.search, self.built.agents, self.evaluator
        if s.offspring == 0:  # no evolution: the same policies play again (the RL-alone and random baselines)
            return evaluator.evaluate(evaluator.tune(pop.genomes, pop.ids), pop.ids)
        ids = self.state.new_ids(s.offspring)
        if not agents.evolves:  # fresh agents every generation (random testing)
            children = agents.init_genomes(s.offspring, self.state.rng_init)
        else:
            with self.phases.timed("selection"):
                children = self.operators.offspring(pop, self.senses, s.offspring, self.state.rng_vary)
            children = evaluator.tune(children, ids)
            if self.state.cut:  # the wall budget ended fine-tuning: no child is scored, the run ends
                return pop
        if any(o.rescores_parents for o in self.built.objectives):
            # Scores that drift as the objective learns: parents play again beside the children.
            both = evaluator.evaluate(np.concatenate([pop.genomes, children]), np.concatenate([pop.ids, ids]))
        else:
            both = pop.concat(evaluator.evaluate(children, ids))
        with self.phases.timed("selection"):
            return self.operators.survivors(both, self.senses, s.population, self.state.rng_vary)
