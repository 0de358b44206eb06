"""NSGA-II selection through pymoo: survival by rank and crowding, binary tournament.

Nothing of the sorting is rewritten here: pymoo's ``RankAndCrowding`` does the
non-dominated sorting and crowding distance, ``TournamentSelection`` with NSGA-II's
``binary_tournament`` picks parents, ``HV`` measures the front. This module only converts
between the engine's objective matrix and pymoo's ``Population``, and flips signs: the engine
keeps each objective in its own sense, pymoo minimises.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Sequence

import numpy as np
from pymoo.algorithms.moo.nsga2 import binary_tournament
from pymoo.core.population import Population
from pymoo.core.problem import Problem
from pymoo.indicators.hv import HV
from pymoo.operators.selection.tournament import TournamentSelection
from pymoo.operators.survival.rank_and_crowding import RankAndCrowding


def to_minimisation(F: np.ndarray, senses: Sequence[str]) -> np.ndarray:
    """Objective matrix ``[n, M]`` in each objective's sense -> all minimised (pymoo's form)."""
    sign = np.array([-1.0 if s == "max" else 1.0 for s in senses])
    return np.asarray(F, dtype=np.float64) * sign


@dataclass(frozen=True)
class Survivors:
    """Who survived NSGA-II selection, in pymoo's order, with their rank and crowding."""

    index: np.ndarray
    rank: np.ndarray
    crowding: np.ndarray


def survive(F: np.ndarray, senses: Sequence[str], n_survive: int, rng: np.random.Generator) -> Survivors:
    """NSGA-II survival: keep ``n_survive`` rows of ``F`` by non-domination rank, then crowding.

    Args:
        F: ``[n, M]`` objective values, each in its own sense.
        senses: ``"max"`` or ``"min"`` per objective.
        n_survive: How many to keep.
        rng: Breaks crowding ties reproducibly.
    """
    Fm = to_minimisation(F, senses)
    pop = Population.new("F", Fm, "index", np.arange(len(Fm)))
    problem = Problem(n_var=1, n_obj=Fm.shape[1])
    kept = RankAndCrowding().do(problem, pop, n_survive=n_survive, random_state=rng)
    return Survivors(
        index=kept.get("index").astype(np.int64),
        rank=kept.get("rank").astype(np.int64),
        crowding=kept.get("crowding").astype(np.float64),
    )


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


def hypervolume(F: np.ndarray, senses: Sequence[str], ref_point: np.ndarray) -> float:
    """Hypervolume of ``F`` against ``ref_point`` (both in the objectives' own senses)."""
    Fm = to_minimisation(F, senses)
    ref = to_minimisation(np.asarray(ref_point, dtype=np.float64)[None, :], senses)[0]
    return float(HV(ref_point=ref)(Fm))
