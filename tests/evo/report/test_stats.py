"""Statistics of `evo compare` against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evo.report.tables import pairwise_tests, summarize
from evo.report.stats import cliffs_delta, delta_magnitude, holm, mann_whitney, time_to_fraction
from games.core.base import BUG_KINDS


def test_cliffs_delta_by_hand() -> None:
    # 9 pairs: x > y once (3 > 2), x < y six times, two ties -> (1 - 6) / 9.
    assert cliffs_delta([1, 2, 3], [2, 3, 4]) == pytest.approx(-5 / 9)
    assert cliffs_delta([2, 3, 4], [1, 2, 3]) == pytest.approx(5 / 9)
    assert cliffs_delta([10, 20, 30], [1, 2, 3]) == 1.0
    assert cliffs_delta([5, 5], [5, 5, 5]) == 0.0
    # 2 x 4 pairs: 4 > {1, 2} and 4 = 4 and 4 < 6 ; 1 < {2, 4, 6} and 1 = 1 -> (2 - 4) / 8.
    assert cliffs_delta([4, 1], [1, 2, 4, 6]) == pytest.approx(-2 / 8)
    assert math.isnan(cliffs_delta([], [1]))


@pytest.mark.parametrize(
    ("delta", "label"),
    [(0.0, "negligible"), (0.146, "negligible"), (-0.147, "small"), (0.329, "small"),
     (0.33, "medium"), (-0.473, "medium"), (0.474, "large"), (-1.0, "large")],
)
def test_delta_magnitude_uses_romano_thresholds(delta: float, label: str) -> None:
    assert delta_magnitude(delta) == label


def test_holm_by_hand() -> None:
    # Sorted: 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> kept monotone 0.06.
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    # Capped at 1, and monotone: 0.5 x2 = 1.0, then 0.6 x1 = 0.6 -> 1.0.
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])
    # NaN does not count in m and stays NaN.
    out = holm([0.01, np.nan, 0.02])
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1]) and out[2] == pytest.approx(0.02)
    assert holm([]).size == 0


def test_mann_whitney_on_scipys_documented_example() -> None:
    # scipy.stats.mannwhitneyu docs (Conover's example): U1 = 17, exact two-sided p = 0.1111.
    males = [19, 22, 16, 29, 24]
    females = [20, 11, 17, 12]
    u, p = mann_whitney(males, females)
    assert u == 17.0
    assert p == pytest.approx(0.1111, abs=1e-4)


def test_mann_whitney_by_hand() -> None:
    # x entirely below y: U = 0; exact two-sided p = 2 / C(6, 3) = 0.1.
    u, p = mann_whitney([1, 2, 3], [4, 5, 6])
    assert (u, p) == (0.0, pytest.approx(0.1))
    # Ties count one half: 1 beats nothing, each 2 ties one 2 -> U = 0.5 + 0.5.
    u, _ = mann_whitney([1, 2, 2], [2, 3, 4])
    assert u == 1.0
    # Nothing to rank: every value the same.
    assert mann_whitney([25, 25], [25, 25]) == (2.0, 1.0)


def test_time_to_fraction() -> None:
    steps = [10, 20, 30, 40, 50]
    wall = [1.0, 2.0, 3.0, 4.0, 5.0]
    ids = [0, None, 0, 1, pd.NA]  # a false report, then a second report of bug 0
    assert time_to_fraction(steps, wall, ids, 4, 0.5) == (40.0, 4.0)  # ceil(2) distinct
    assert time_to_fraction(steps, wall, ids, 4, 0.25) == (10.0, 1.0)
    assert all(math.isnan(v) for v in time_to_fraction(steps, wall, ids, 4, 0.9))
    assert time_to_fraction(steps, wall, [0, 1, 2, 3, 4], 5, 1.0) == (50.0, 5.0)
    # 0.7 * 10 is 7.000000000000001 in floating point; the target is still 7 bugs.
    ten = list(range(10))
    assert time_to_fraction(ten, ten, ten, 10, 0.7) == (6.0, 6.0)
    assert all(math.isnan(v) for v in time_to_fraction([], [], [], 0, 0.5))


def _runs(rows: list[tuple[str, int, float]]) -> pd.DataFrame:
    """A hand-made runs table: (strategy, bugs, steps to 50%) per run, on one game."""
    out = []
    for strategy, bugs, steps in rows:
        row = {"strategy": strategy, "seed": len(out), "game": "g", "injected": 10, "bugs": bugs,
               "reports": bugs, "precision": 1.0, "coverage": 5, "hypervolume": 1.0,
               "env_steps": 100, "wall_s": 1.0, "generations": 2}
        for kind in BUG_KINDS:
            row[f"bugs_{kind}"] = 0
        for s in ("50", "90", "100"):
            row[f"steps_to_{s}"] = steps if s == "50" else np.nan
            row[f"seconds_to_{s}"] = steps / 100 if s == "50" else np.nan
        out.append(row)
    return pd.DataFrame(out)


def test_summary_and_pairwise_tables_by_hand() -> None:
    runs = _runs([("a", 6, 40), ("a", 8, np.nan), ("a", 7, 60),
                  ("b", 1, np.nan), ("b", 2, np.nan), ("b", 3, np.nan),
                  ("c", 7, 10), ("c", 7, 20), ("c", 7, 30)])
    summary = summarize(runs).set_index("strategy")
    assert list(summary.index) == ["a", "b", "c"]
    assert summary.loc["a", "bugs_mean"] == 7.0 and summary.loc["a", "bugs_sd"] == pytest.approx(1.0)
    assert (summary.loc["a", "bugs_min"], summary.loc["a", "bugs_max"]) == (6, 8)
    assert summary.loc["a", "steps_to_50"] == 50.0 and summary.loc["a", "reached_50"] == 2
    assert math.isnan(summary.loc["b", "steps_to_50"]) and summary.loc["b", "reached_50"] == 0

    pairs = pairwise_tests(runs).set_index(["a", "b"])
    assert list(pairs.index) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairs.loc[("a", "b"), "delta"] == 1.0 and pairs.loc[("a", "b"), "magnitude"] == "large"
    assert pairs.loc[("b", "c"), "delta"] == -1.0
    # a vs c: 6 < 7 three times, 8 > 7 three times, 7 = 7 three times -> delta 0.
    assert pairs.loc[("a", "c"), "delta"] == 0.0 and pairs.loc[("a", "c"), "magnitude"] == "negligible"
    np.testing.assert_allclose(pairs["p_holm"], holm(pairs["p"]))
    assert not pairs["significant"].any()  # three runs each cannot reach p <= 0.05 after Holm
