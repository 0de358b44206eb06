"""NSGA-II selection through pymoo: survival, tournaments, hypervolume, senses, convergence."""

from __future__ import annotations

import numpy as np
import pytest

from evo.select import hypervolume, survive, tournament
from evo.variation import gaussian_mutation, single_point_crossover

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


@pytest.mark.parametrize("sense", ["max", "min"])
def test_tournament_favours_the_dominating_individual(sense: str) -> None:
    # A chain: in the given sense, individual 9 ("max") or 0 ("min") dominates all others.
    F = np.array([[i, i] for i in range(10)], dtype=float)
    best, worst = (9, 0) if sense == "max" else (0, 9)
    rng = np.random.default_rng(0)
    kept = survive(F, [sense, sense], 10, rng)
    pairs = tournament(F, [sense, sense], kept, 500, rng)

    assert pairs.shape == (500, 2)
    assert pairs.min() >= 0 and pairs.max() < len(kept.index)
    picked = np.bincount(kept.index[pairs].ravel(), minlength=10) / pairs.size
    # The best wins every tournament it enters (about 2 of 10 slots); the worst none.
    assert picked[best] > 0.15
    assert picked[worst] < 0.02


def test_tournament_indexes_into_the_survivors() -> None:
    F = np.array([[i, i] for i in range(20)], dtype=float)
    rng = np.random.default_rng(0)
    kept = survive(F, ["max", "max"], 6, rng)
    assert sorted(kept.index.tolist()) == list(range(14, 20))
    pairs = tournament(F, ["max", "max"], kept, 300, rng)
    assert pairs.min() >= 0 and pairs.max() < 6
    assert np.bincount(kept.index[pairs].ravel()).argmax() == 19


def test_hypervolume_of_a_staircase_in_every_sense() -> None:
    pts = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    # Maximised against (0, 0): boxes 1x3, 2x2, 3x1 overlap into area 6.
    assert hypervolume(pts, ["max", "max"], np.array([0.0, 0.0])) == pytest.approx(6.0)
    # The same staircase moved by (1, 1), against (1, 1).
    assert hypervolume(pts + 1.0, ["max", "max"], np.array([1.0, 1.0])) == pytest.approx(6.0)
    # Minimised against (4, 4): the mirror image, also 6.
    assert hypervolume(pts, ["min", "min"], np.array([4.0, 4.0])) == pytest.approx(6.0)
    # Max the first, min the second, against (0, 4): (1,1), (2,2), (3,3) give 3 + 2 + 1.
    mixed = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    assert hypervolume(mixed, ["max", "min"], np.array([0.0, 4.0])) == pytest.approx(6.0)
    assert hypervolume(mixed + 1.0, ["max", "min"], np.array([1.0, 5.0])) == pytest.approx(6.0)


def test_hypervolume_ignores_dominated_points_and_points_past_the_reference() -> None:
    ref = np.array([0.0, 0.0])
    pts = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    more = np.vstack([pts, [[1.0, 1.0], [-1.0, 5.0]]])
    assert hypervolume(more, ["max", "max"], ref) == pytest.approx(6.0)
    # The wrong sense puts every point behind the reference: nothing is covered.
    assert hypervolume(pts, ["min", "min"], ref) == pytest.approx(0.0)


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
