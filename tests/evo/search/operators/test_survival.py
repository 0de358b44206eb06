"""Survival through pymoo: NSGA-II rank and crowding, NSGA-III reference directions, senses, convergence."""

from __future__ import annotations

import numpy as np
import pytest

from evo.search.operators.crossover import single_point_crossover
from evo.search.operators.hypervolume import hypervolume
from evo.search.operators.mutation import gaussian_mutation
from evo.search.operators.selection import tournament
from evo.search.operators.base import OperatorSettings
from evo.search.operators.survival import (
    NSGA3Survival,
    default_partitions,
    reference_directions,
    survive,
    survive_nsga3,
)

# A front of three points and two dominated ones, for maximising both objectives.
FRONT_AND_TWO = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0], [0.5, 0.5], [1.0, 1.0]])


def dominates(a: np.ndarray, b: np.ndarray) -> bool:
    """``a`` dominates ``b`` when both are minimised."""
    return bool((a <= b).all() and (a < b).any())


def test_survive_keeps_the_non_dominated_front_first() -> None:
    kept = survive(FRONT_AND_TWO, ["max", "max"], 3, np.random.default_rng(0))
    assert sorted(kept.index.tolist()) == [0, 1, 2]
    assert (kept.rank == 0).all()

    kept = survive(FRONT_AND_TWO, ["max", "max"], 4, np.random.default_rng(0))
    assert sorted(kept.index.tolist()) == [0, 1, 2, 4]  # (1, 1) dominates (0.5, 0.5)
    assert dict(zip(kept.index.tolist(), kept.rank.tolist()))[4] == 1


def test_survive_keeps_the_extremes_of_a_front_on_crowding() -> None:
    kept = survive(FRONT_AND_TWO, ["max", "max"], 2, np.random.default_rng(0))
    assert sorted(kept.index.tolist()) == [0, 2]  # infinite crowding distance beats (2, 2)


@pytest.mark.parametrize(
    ("senses", "winner"),
    [(["max", "max"], 3), (["min", "min"], 0), (["max", "min"], 2), (["min", "max"], 1)],
)
def test_survive_honours_each_objectives_sense(senses: list[str], winner: int) -> None:
    corners = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    kept = survive(corners, senses, 1, np.random.default_rng(0))
    assert kept.index.tolist() == [winner]


def test_survive_returns_n_unique_indices_that_no_discarded_point_dominates() -> None:
    rng = np.random.default_rng(1)
    F = rng.integers(0, 6, size=(40, 3)).astype(float)  # ties and duplicates on purpose
    senses = ["max", "min", "max"]
    kept = survive(F, senses, 15, np.random.default_rng(2))

    assert kept.index.shape == (15,)
    assert len(set(kept.index.tolist())) == 15
    assert kept.index.min() >= 0 and kept.index.max() < 40
    Fm = F * np.array([-1.0, 1.0, -1.0])
    dropped = np.setdiff1d(np.arange(40), kept.index)
    for d in dropped:
        for k in kept.index:
            assert not dominates(Fm[d], Fm[k]), f"dropped {d} dominates survivor {k}"


def test_survive_is_seeded() -> None:
    F = np.random.default_rng(0).integers(0, 4, size=(30, 2)).astype(float)
    a = survive(F, ["max", "max"], 10, np.random.default_rng(3))
    b = survive(F, ["max", "max"], 10, np.random.default_rng(3))
    np.testing.assert_array_equal(a.index, b.index)


def zdt1(x: np.ndarray) -> np.ndarray:
    """ZDT1 (both minimised); the Pareto front is f2 = 1 - sqrt(f1), x[1:] = 0."""
    f1 = x[:, 0].astype(np.float64)
    g = 1.0 + 9.0 * x[:, 1:].mean(axis=1)
    return np.stack([f1, g * (1.0 - np.sqrt(f1 / g))], axis=1)


ZDT_SENSES = ["min", "min"]
ZDT_REF = np.array([1.1, 1.1])
POP, N_VAR, GENERATIONS = 40, 10, 60


def nsga2_on_zdt1(seed: int) -> float:
    """The engine's NSGA-II loop on ZDT1; the hypervolume of the final population."""
    rng = np.random.default_rng(seed)
    X = rng.random((POP, N_VAR)).astype(np.float32)
    F = zdt1(X)
    for _ in range(GENERATIONS):
        kept = survive(F, ZDT_SENSES, POP, rng)
        pairs = tournament(F, ZDT_SENSES, kept, POP, rng)
        X, F = X[kept.index], F[kept.index]
        kids = single_point_crossover(X[pairs[:, 0]], X[pairs[:, 1]], prob=0.9, rng=rng)
        kids = np.clip(gaussian_mutation(kids, sigma=0.1, rate=1.0 / N_VAR, rng=rng), 0.0, 1.0)
        X, F = np.concatenate([X, kids]), np.concatenate([F, zdt1(kids)])
    kept = survive(F, ZDT_SENSES, POP, rng)
    return hypervolume(F[kept.index], ZDT_SENSES, ZDT_REF)


def random_search_on_zdt1(seed: int) -> float:
    """Hypervolume of as many uniform random points as the loop evaluates."""
    X = np.random.default_rng(seed).random((POP * (GENERATIONS + 1), N_VAR))
    return hypervolume(zdt1(X), ZDT_SENSES, ZDT_REF)


def test_nsga2_converges_on_zdt1() -> None:
    # The true front's hypervolume w.r.t. (1.1, 1.1) is 0.1 + 2/3 + 0.11 = 0.877; 40 points
    # can reach about 0.86. Seeded runs of this loop end at 0.853-0.858 (after 30 generations
    # they are still at 0.72-0.80), while random search with the same 2,440 evaluations
    # scores 0.00-0.03 (g = 1 + 9 mean(x[1:]) is ~5.5, far behind the reference).
    bound = 0.82
    hv = nsga2_on_zdt1(seed=0)
    baseline = random_search_on_zdt1(seed=0)
    assert hv > bound
    assert baseline < 0.2
    assert nsga2_on_zdt1(seed=0) == hv, "a seeded run must repeat exactly"


def nearest_direction(P: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Index of the reference direction closest in angle to each row of ``P``."""
    unit = P / np.linalg.norm(P, axis=1, keepdims=True)
    return (unit @ (directions / np.linalg.norm(directions, axis=1, keepdims=True)).T).argmax(axis=1)


def test_nsga3_keeps_one_point_per_reference_direction_on_a_five_objective_front() -> None:
    # DTLZ1's linear front (sum f = 0.5) sampled on a fine Das-Dennis grid, plus dominated
    # copies; the coarse grid's 70 directions are all among the fine grid's 495 points.
    M = 5
    coarse = reference_directions(M, 4)
    front = reference_directions(M, 8) * 0.5
    F = np.vstack([front, front[::7] * 1.5 + 0.1])
    kept = survive_nsga3(F, ["min"] * M, len(coarse), np.random.default_rng(0), coarse)

    assert (kept.rank == 0).all()
    got = {tuple(row) for row in np.round(F[kept.index] * 2.0, 9)}
    assert got == {tuple(row) for row in np.round(coarse, 9)}  # exactly the reference points
    # NSGA-II's crowding, on the same set, leaves about half of the directions empty.
    nsga2 = survive(F, ["min"] * M, len(coarse), np.random.default_rng(0))
    assert len(set(nearest_direction(F[nsga2.index], coarse))) < 0.6 * len(coarse)


def test_nsga3_honours_senses_and_is_seeded() -> None:
    M = 3
    directions = reference_directions(M, 3)
    F = np.random.default_rng(0).random((60, M))
    a = survive_nsga3(-F, ["max"] * M, 12, np.random.default_rng(1), directions)
    b = survive_nsga3(F, ["min"] * M, 12, np.random.default_rng(1), directions)
    np.testing.assert_array_equal(a.index, b.index)  # maximising -F is minimising F
    for d in np.setdiff1d(np.arange(60), a.index):
        for k in a.index:
            assert not dominates(F[d], F[k]), f"dropped {d} dominates survivor {k}"
    c = survive_nsga3(F, ["min"] * M, 12, np.random.default_rng(1), directions)
    np.testing.assert_array_equal(b.index, c.index)


@pytest.mark.parametrize(
    ("n_obj", "population", "partitions", "points"), [(2, 30, 29, 30), (3, 30, 6, 28), (5, 30, 2, 15), (1, 30, 1, 1)]
)
def test_default_partitions_give_no_more_directions_than_the_population(
    n_obj: int, population: int, partitions: int, points: int
) -> None:
    assert default_partitions(n_obj, population) == partitions
    assert reference_directions(n_obj, partitions).shape == (points, n_obj)


def test_nsga3_survival_reads_its_partitions_from_the_settings() -> None:
    assert NSGA3Survival(OperatorSettings(n_obj=3, population=30, partitions=3)).ref_dirs.shape == (10, 3)
    assert NSGA3Survival(OperatorSettings(n_obj=3, population=30)).ref_dirs.shape == (28, 3)


def dtlz2(x: np.ndarray, n_obj: int) -> np.ndarray:
    """DTLZ2 (all minimised); the Pareto front is the unit sphere's positive orthant, x[M-1:] = 0.5."""
    g = ((x[:, n_obj - 1 :] - 0.5) ** 2).sum(axis=1)
    theta = x[:, : n_obj - 1].astype(np.float64) * np.pi / 2
    f = np.ones((len(x), n_obj)) * (1.0 + g)[:, None]
    for m in range(n_obj):
        f[:, m] *= np.prod(np.cos(theta[:, : n_obj - 1 - m]), axis=1)
        if m > 0:
            f[:, m] *= np.sin(theta[:, n_obj - 1 - m])
    return f


def engine_loop_on_dtlz2(seed: int, nsga3: bool) -> tuple[float, int]:
    """The engine's loop on 3-objective DTLZ2: mean distance of the final population to the
    front, and how many of the 28 reference directions (6 partitions) it covers."""
    M, n_var, pop, senses = 3, 7, 28, ["min"] * 3
    directions = reference_directions(M, 6)
    rng = np.random.default_rng(seed)

    def keep(F: np.ndarray, n: int):
        return survive_nsga3(F, senses, n, rng, directions) if nsga3 else survive(F, senses, n, rng)

    X = rng.random((pop, n_var)).astype(np.float32)
    F = dtlz2(X, M)
    for _ in range(100):
        kept = keep(F, pop)
        pairs = tournament(F, senses, kept, pop, rng)
        X, F = X[kept.index], F[kept.index]
        kids = single_point_crossover(X[pairs[:, 0]], X[pairs[:, 1]], prob=0.9, rng=rng)
        kids = np.clip(gaussian_mutation(kids, sigma=0.1, rate=1.0 / n_var, rng=rng), 0.0, 1.0)
        X, F = np.concatenate([X, kids]), np.concatenate([F, dtlz2(kids, M)])
    F = F[keep(F, pop).index]
    return float(np.abs(np.linalg.norm(F, axis=1) - 1.0).mean()), len(set(nearest_direction(F, directions)))


def test_nsga3_converges_and_spreads_on_dtlz2() -> None:
    # Seeds 0-2 of this loop end 0.03-0.06 from the front covering 20-27 of the 28
    # directions; with NSGA-II survival instead they end 0.42-0.48 away covering 14-16.
    distance, covered = engine_loop_on_dtlz2(seed=0, nsga3=True)
    nsga2_distance, nsga2_covered = engine_loop_on_dtlz2(seed=0, nsga3=False)
    assert distance < 0.15 and covered >= 18
    assert distance < nsga2_distance and covered > nsga2_covered
