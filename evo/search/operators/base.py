"""Contracts of the search operators: survival, parent selection, crossover, mutation.

An operator is a small class registered by name in one of four plain dicts; the YAML's
``search.operators`` picks one of each by that name, and :mod:`evo.search.operators.algorithm`
assembles them into the generation's ask (parents, children) and tell (survivors). Every
operator draws only from the run's ``numpy.random.Generator`` it is handed, so a seeded run
repeats.

Objective values stay in each objective's own sense (``"max"`` or ``"min"``) everywhere in
the engine; signs flip only at the pymoo boundary (:func:`to_minimisation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence, TypeVar

import numpy as np

from games.common.registry import Registry


def to_minimisation(F: np.ndarray, senses: Sequence[str]) -> np.ndarray:
    """Objective matrix ``[n, M]`` in each objective's sense -> all minimised (pymoo's form)."""
    sign = np.array([-1.0 if s == "max" else 1.0 for s in senses])
    return np.asarray(F, dtype=np.float64) * sign


@dataclass
class Population:
    """The evolved policies with their scores.

    Attributes:
        genomes: ``[P, D]`` float32 flat policy weights.
        ids: ``[P]`` policy ids.
        F: ``[P, M]`` objective values, each in its own sense.
        cases: ``[P, M, E]`` each objective's score on each single episode, kept only when
            parent selection asks for them (lexicase); None otherwise.
    """

    genomes: np.ndarray
    ids: np.ndarray
    F: np.ndarray
    cases: np.ndarray | None = None

    def concat(self, other: "Population") -> "Population":
        """This population followed by ``other`` (parents then children)."""
        cases = None if self.cases is None or other.cases is None else np.concatenate([self.cases, other.cases])
        return Population(
            np.concatenate([self.genomes, other.genomes]),
            np.concatenate([self.ids, other.ids]),
            np.concatenate([self.F, other.F]),
            cases,
        )

    def take(self, index: np.ndarray) -> "Population":
        """The rows ``index``, in that order."""
        return Population(
            self.genomes[index], self.ids[index], self.F[index], None if self.cases is None else self.cases[index]
        )


@dataclass(frozen=True)
class Survivors:
    """Who survived, in the survival's order, with their non-domination rank and crowding.

    ``crowding`` is NSGA-II's crowding distance (larger: more isolated, preferred in a
    tie); survivals without one (NSGA-III) leave it 0, so ties fall to a random pick.
    """

    index: np.ndarray
    rank: np.ndarray
    crowding: np.ndarray


@dataclass(frozen=True)
class OperatorSettings:
    """What the operators may read of the experiment (built from ``SearchConfig``).

    Attributes:
        n_obj: Number of objectives.
        population: Policies kept each generation.
        crossover_prob: Chance a child is crossed.
        mutation_sigma: Std of Gaussian weight noise.
        mutation_rate: Chance each weight is mutated.
        partitions: NSGA-III's Das-Dennis partitions; None picks them from the population.
    """

    n_obj: int
    population: int
    crossover_prob: float = 0.9
    mutation_sigma: float = 0.3
    mutation_rate: float = 0.2
    partitions: int | None = None


class Survival(Protocol):
    """Keeps ``n_survive`` of ``F``'s rows (environmental selection)."""

    def __call__(
        self, F: np.ndarray, senses: Sequence[str], n_survive: int, rng: np.random.Generator
    ) -> Survivors: ...


class ParentSelection(Protocol):
    """Picks the two parents of each child among the survivors.

    ``needs_cases`` tells the search to record each objective's per-episode scores
    (``Population.cases``), which the selection then receives.
    """

    needs_cases: bool

    def __call__(self, F: np.ndarray, senses: Sequence[str], survivors: Survivors, n_pairs: int,
                 rng: np.random.Generator, cases: np.ndarray | None = None) -> np.ndarray:
        """``[n_pairs, 2]`` positions into ``survivors.index``."""
        ...


class Crossover(Protocol):
    """One child per pair of parent genomes (``[n, D]`` each)."""

    def __call__(self, first: np.ndarray, second: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


class Mutation(Protocol):
    """Perturbed copies of ``[n, D]`` genomes (the input is not changed)."""

    def __call__(self, genomes: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


OperatorFactory = Callable[[OperatorSettings], Any]
"""A registered operator: called with the settings, returns the operator."""

SURVIVAL: Registry[OperatorFactory] = Registry("survival operator", "evo.operators.survival")
SELECTION: Registry[OperatorFactory] = Registry("selection operator", "evo.operators.selection")
CROSSOVER: Registry[OperatorFactory] = Registry("crossover operator", "evo.operators.crossover")
MUTATION: Registry[OperatorFactory] = Registry("mutation operator", "evo.operators.mutation")

REGISTRIES: dict[str, Registry[OperatorFactory]] = {
    "survival": SURVIVAL,
    "selection": SELECTION,
    "crossover": CROSSOVER,
    "mutation": MUTATION,
}
"""The four registries by the YAML key that names their operator (``search.operators.<key>``);
installed packages add operators through the entry-point groups ``evo.operators.<key>``."""

F_ = TypeVar("F_", bound=OperatorFactory)


def register(registry: Registry[OperatorFactory], name: str) -> Callable[[F_], F_]:
    """Class decorator: make an operator available to YAMLs under ``name``."""
    return registry.register(name)


def check_name(kind: str, name: str) -> None:
    """Raise ``ValueError`` (one line, listing the known names) if ``name`` is not registered.

    Args:
        kind: A key of :data:`REGISTRIES` (``survival``, ``selection``, ...).
        name: The operator's registered name.
    """
    REGISTRIES[kind].check(name)


def build(kind: str, name: str, settings: OperatorSettings) -> Any:
    """The operator ``name`` of ``kind``, built from ``settings``."""
    return REGISTRIES[kind].build(name, settings)
