"""Parent selection: NSGA-II's binary tournament (pymoo), automatic epsilon-lexicase (DEAP)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evo.search.operators.base import OperatorSettings
from evo.search.operators.selection import Lexicase, lexicase, tournament
from evo.search.operators.survival import survive

SETTINGS = OperatorSettings(n_obj=2, population=10)


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


def specialist_and_generalists() -> np.ndarray:
    """Cases ``[10, 2, 3]`` (both maximised): nine generalists score about 5 on every case;
    policy 9 scores 9 on objective 0's first episode and 0 everywhere else, so its means
    (3, 0) are dominated by every generalist's."""
    rng = np.random.default_rng(0)
    cases = 5.0 + 0.1 * rng.random((10, 2, 3))
    cases[9] = 0.0
    cases[9, 0, 0] = 9.0
    return cases


def test_lexicase_picks_the_specialist_that_tournament_never_does() -> None:
    cases = specialist_and_generalists()
    senses = ["max", "max"]
    F = cases.mean(axis=2)
    kept = survive(F, senses, 10, np.random.default_rng(0))
    pairs = tournament(F, senses, kept, 500, np.random.default_rng(1))
    assert (kept.index[pairs] != 9).all()  # dominated by everyone: loses every tournament

    picks = lexicase(cases, senses, 1000, np.random.default_rng(1))
    assert picks.shape == (1000,) and picks.min() >= 0 and picks.max() < 10
    # It wins whenever its case comes first: 1 in 6 case orders.
    assert (picks == 9).mean() == pytest.approx(1 / 6, abs=0.04)


def test_lexicase_honours_each_objectives_sense() -> None:
    cases = specialist_and_generalists()
    picks = lexicase(-cases, ["min", "min"], 600, np.random.default_rng(2))
    assert (picks == 9).mean() == pytest.approx(1 / 6, abs=0.05)


def test_lexicase_same_seed_same_parents() -> None:
    cases = np.random.default_rng(0).random((20, 2, 4))
    a = lexicase(cases, ["max", "min"], 50, np.random.default_rng(7))
    b = lexicase(cases, ["max", "min"], 50, np.random.default_rng(7))
    c = lexicase(cases, ["max", "min"], 50, np.random.default_rng(8))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_lexicase_leaves_the_global_random_state_as_it_was() -> None:
    random.seed(123)
    before = random.getstate()
    rng = np.random.default_rng(0)
    lexicase(np.random.default_rng(0).random((8, 1, 3)), ["max"], 20, rng)
    assert random.getstate() == before
    # And the draws it made came from the run's generator, not from the global state.
    cases = np.random.default_rng(0).random((8, 1, 3))
    random.seed(999)
    first = lexicase(cases, ["max"], 20, np.random.default_rng(0))
    random.seed(1000)
    np.testing.assert_array_equal(first, lexicase(cases, ["max"], 20, np.random.default_rng(0)))


def test_lexicase_selection_returns_pairs_of_survivor_positions() -> None:
    cases = specialist_and_generalists()
    F = cases.mean(axis=2)
    kept = survive(F, ["max", "max"], 10, np.random.default_rng(0))
    pairs = Lexicase(SETTINGS)(F, ["max", "max"], kept, 300, np.random.default_rng(3), cases)
    assert pairs.shape == (300, 2)
    assert (kept.index[pairs] == 9).any()
    with pytest.raises(ValueError, match="per-episode scores"):
        Lexicase(SETTINGS)(F, ["max", "max"], kept, 3, np.random.default_rng(3), None)
