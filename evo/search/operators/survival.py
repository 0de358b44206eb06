"""Survival operators through pymoo: NSGA-II (rank and crowding) and NSGA-III (reference directions).

Nothing of the sorting is rewritten here: pymoo's ``RankAndCrowding`` and
``ReferenceDirectionSurvival`` do the non-dominated sorting, crowding and niching. This module
converts between the engine's objective matrix and pymoo's ``Population`` and flips signs:
the engine keeps each objective in its own sense, pymoo minimises.
"""

from __future__ import annotations

from math import comb
from typing import Sequence

import numpy as np
from pymoo.algorithms.moo.nsga3 import ReferenceDirectionSurvival
from pymoo.core.population import Population
from pymoo.core.problem import Problem
from pymoo.operators.survival.rank_and_crowding import RankAndCrowding
from pymoo.util.ref_dirs import get_reference_directions

from evo.search.operators.base import SURVIVAL, OperatorSettings, Survivors, register, to_minimisation


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


@register(SURVIVAL, "nsga2")
class NSGA2Survival:
    """NSGA-II's survival (Deb et al. 2002), Wuji's choice: :func:`survive`."""

    def __init__(self, settings: OperatorSettings) -> None:
        del settings  # NSGA-II has no settings

    def __call__(self, F: np.ndarray, senses: Sequence[str], n_survive: int, rng: np.random.Generator) -> Survivors:
        return survive(F, senses, n_survive, rng)


def default_partitions(n_obj: int, population: int) -> int:
    """The most Das-Dennis partitions whose reference points do not outnumber the population.

    NSGA-III (Deb and Jain 2014) sizes the population to about the number of reference
    points H = C(M + p - 1, p); here the population is given, so p is the largest with
    H <= population (at least 1).
    """
    if n_obj == 1:
        return 1
    p = 1
    while comb(n_obj + p, p + 1) <= population:
        p += 1
    return p


def reference_directions(n_obj: int, partitions: int) -> np.ndarray:
    """Das-Dennis reference directions on the unit simplex, from pymoo: ``[H, n_obj]``."""
    return get_reference_directions("das-dennis", n_obj, n_partitions=partitions)


def survive_nsga3(
    F: np.ndarray, senses: Sequence[str], n_survive: int, rng: np.random.Generator, ref_dirs: np.ndarray
) -> Survivors:
    """NSGA-III survival: keep ``n_survive`` rows of ``F`` by rank, then niching on ``ref_dirs``.

    A fresh pymoo survival per call: its normalisation (ideal and extreme points) comes from
    the rows given, not from earlier generations as in pymoo's NSGA-III algorithm, so that a
    resumed run, which has only the checkpointed population, continues identically.

    Args:
        F: ``[n, M]`` objective values, each in its own sense.
        senses: ``"max"`` or ``"min"`` per objective.
        n_survive: How many to keep.
        rng: Breaks niching ties reproducibly.
        ref_dirs: ``[H, M]`` reference directions (:func:`reference_directions`).
    """
    Fm = to_minimisation(F, senses)
    pop = Population.new("F", Fm, "index", np.arange(len(Fm)))
    problem = Problem(n_var=1, n_obj=Fm.shape[1])
    kept = ReferenceDirectionSurvival(ref_dirs).do(problem, pop, n_survive=n_survive, random_state=rng)
    return Survivors(
        index=kept.get("index").astype(np.int64),
        rank=kept.get("rank").astype(np.int64),
        crowding=np.zeros(len(kept), dtype=np.float64),
    )


@register(SURVIVAL, "nsga3")
class NSGA3Survival:
    """NSGA-III's survival for many objectives: niches around Das-Dennis reference directions
    keep the front spread where crowding distance (NSGA-II) loses its grip beyond 3 objectives."""

    def __init__(self, settings: OperatorSettings) -> None:
        partitions = settings.partitions or default_partitions(settings.n_obj, settings.population)
        self.ref_dirs = reference_directions(settings.n_obj, partitions)

    def __call__(self, F: np.ndarray, senses: Sequence[str], n_survive: int, rng: np.random.Generator) -> Survivors:
        return survive_nsga3(F, senses, n_survive, rng, self.ref_dirs)
