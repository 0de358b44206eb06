"""Parent selection: NSGA-II's binary tournament (pymoo) and automatic epsilon-lexicase (DEAP).

A tournament compares policies on their mean scores, so a policy that is the best of all on
one episode and poor on the others loses to any policy that dominates its means. Lexicase
(Spector 2012; La Cava et al. 2016 for the automatic epsilon) compares them case by case in a
random order, where a case is one objective's score on one episode, and so keeps such
specialists as parents.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Iterator, Sequence

import numpy as np
from deap import tools
from pymoo.algorithms.moo.nsga2 import binary_tournament
from pymoo.core.population import Population
from pymoo.core.problem import Problem
from pymoo.operators.selection.tournament import TournamentSelection

from evo.search.operators.base import SELECTION, OperatorSettings, Survivors, register, to_minimisation
from games.common.seeds import POLICY_SEED_MAX


def tournament(
    F: np.ndarray, senses: Sequence[str], survivors: Survivors, n_pairs: int, rng: np.random.Generator
) -> np.ndarray:
    """Binary tournaments among the survivors (domination first, then crowding).

    Returns:
        ``[n_pairs, 2]`` positions into ``survivors.index`` of the two parents of each child.
    """
    Fm = to_minimisation(F, senses)[survivors.index]
    pop = Population.new("F", Fm, "rank", survivors.rank, "crowding", survivors.crowding)
    algorithm = SimpleNamespace(tournament_type="comp_by_dom_and_crowding", random_state=rng)
    problem = Problem(n_var=1, n_obj=Fm.shape[1])
    selection = TournamentSelection(func_comp=binary_tournament)
    return selection.do(problem, pop, n_pairs, n_parents=2, to_pop=False, algorithm=algorithm, random_state=rng)


@register(SELECTION, "tournament")
class Tournament:
    """NSGA-II's binary tournament, Wuji's choice: :func:`tournament`."""

    needs_cases = False

    def __init__(self, settings: OperatorSettings) -> None:
        del settings  # binary, no settings

    def __call__(self, F: np.ndarray, senses: Sequence[str], survivors: Survivors, n_pairs: int,
                 rng: np.random.Generator, cases: np.ndarray | None = None) -> np.ndarray:
        return tournament(F, senses, survivors, n_pairs, rng)


@contextlib.contextmanager
def python_random_from(rng: np.random.Generator) -> Iterator[None]:
    """Seed Python's global ``random`` from ``rng`` for the block, then put its state back.

    DEAP draws from the global ``random`` module; seeding it from the run's generator makes
    its picks repeat with the run, and restoring the state leaves every other user of
    ``random`` as it was.
    """
    saved = random.getstate()
    random.seed(int(rng.integers(0, POLICY_SEED_MAX)))
    try:
        yield
    finally:
        random.setstate(saved)


@dataclass(frozen=True)
class _Individual:
    """What DEAP's lexicase reads of an individual (``fitness.values`` and ``.weights``)."""

    index: int
    fitness: SimpleNamespace


def lexicase(cases: np.ndarray, senses: Sequence[str], k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` independent picks by DEAP's automatic epsilon-lexicase selection.

    Args:
        cases: ``[n, M, E]`` each objective's score on each of ``E`` episodes, in its own sense.
        senses: ``"max"`` or ``"min"`` per objective.
        k: How many to pick.
        rng: Seeds DEAP's draws (Python's ``random``, restored afterwards).

    Returns:
        ``[k]`` row indices of ``cases``.
    """
    n, _, episodes = cases.shape
    weights = tuple(float(w) for w in np.repeat([1.0 if s == "max" else -1.0 for s in senses], episodes))
    individuals = [
        _Individual(i, SimpleNamespace(values=tuple(float(v) for v in row), weights=weights))
        for i, row in enumerate(np.asarray(cases, dtype=np.float64).reshape(n, -1))
    ]
    with python_random_from(rng):
        picked = tools.selAutomaticEpsilonLexicase(individuals, k)
    return np.array([ind.index for ind in picked], dtype=np.int64)


@register(SELECTION, "lexicase")
class Lexicase:
    """Automatic epsilon-lexicase over per-episode scores: :func:`lexicase`."""

    needs_cases = True

    def __init__(self, settings: OperatorSettings) -> None:
        del settings  # the epsilon is automatic (median absolute deviation per case)

    def __call__(self, F: np.ndarray, senses: Sequence[str], survivors: Survivors, n_pairs: int,
                 rng: np.random.Generator, cases: np.ndarray | None = None) -> np.ndarray:
        if cases is None:
            raise ValueError("lexicase selection needs each policy's per-episode scores (Population.cases)")
        return lexicase(cases[survivors.index], senses, 2 * n_pairs, rng).reshape(n_pairs, 2)
