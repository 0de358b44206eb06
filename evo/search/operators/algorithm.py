"""The search's operators assembled from the YAML's names: ask for children, tell survivors.

Like pymoo's algorithms, the generation is put together from the operators it is given; the
defaults (NSGA-II survival, binary tournament, single-point crossover, Gaussian mutation) are
Wuji's loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from evo.search.operators.base import (
    REGISTRIES,
    Crossover,
    Mutation,
    OperatorSettings,
    ParentSelection,
    Population,
    Survival,
    build,
)

KINDS = tuple(REGISTRIES)
"""The YAML keys of ``search.operators`` that name an operator, in the order of the fields below."""


@dataclass(frozen=True)
class Operators:
    """One operator of each kind."""

    survival: Survival
    selection: ParentSelection
    crossover: Crossover
    mutation: Mutation

    @classmethod
    def build(cls, names: dict[str, str], settings: OperatorSettings) -> "Operators":
        """The operators named by ``names`` (``survival``, ``selection``, ``crossover``, ``mutation``).

        Raises:
            ValueError: A name that is not registered (one line, listing the known ones).
        """
        return cls(*(build(kind, names[kind], settings) for kind in KINDS))

    @classmethod
    def from_search(cls, search: Any, n_obj: int) -> "Operators":
        """The operators of an experiment's ``search`` section (:class:`evo.run.search_config.SearchConfig`)."""
        ops = search.operators
        settings = OperatorSettings(
            n_obj, search.population, search.crossover_prob, search.mutation_sigma, search.mutation_rate, ops.partitions
        )
        return cls.build({kind: getattr(ops, kind) for kind in KINDS}, settings)

    @property
    def needs_cases(self) -> bool:
        """Whether the population must carry per-episode scores (``Population.cases``)."""
        return bool(self.selection.needs_cases)

    def offspring(self, pop: Population, senses: Sequence[str], n: int, rng: np.random.Generator) -> np.ndarray:
        """``[n, D]`` children: parents picked among the ranked population, crossed, mutated."""
        kept = self.survival(pop.F, senses, len(pop.ids), rng)
        pairs = self.selection(pop.F, senses, kept, n, rng, pop.cases)
        first = pop.genomes[kept.index[pairs[:, 0]]]
        second = pop.genomes[kept.index[pairs[:, 1]]]
        return self.mutation(self.crossover(first, second, rng), rng)

    def survivors(self, pop: Population, senses: Sequence[str], n: int, rng: np.random.Generator) -> Population:
        """The ``n`` that survive, in population order (parents before children)."""
        kept = self.survival(pop.F, senses, n, rng)
        return pop.take(np.sort(kept.index))
