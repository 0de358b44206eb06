"""Statistics for comparing strategies over seeds: the tests RELINE used, and time to find bugs.

- :func:`mann_whitney`: two-sided Mann-Whitney U (scipy), whether one strategy tends to find
  more bugs than another, with no assumption of normality (5 to 10 seeds are far too few to
  check one).
- :func:`holm`: Holm-Bonferroni step-down adjusted p-values, for the family of all pairs of
  strategies compared on one game.
- :func:`cliffs_delta` and :func:`delta_magnitude`: how large the difference is, as the
  probability that a run of one strategy beats a run of the other minus the reverse.
- :func:`time_to_fraction`: env steps and seconds a run took to find a share of the
  injected bugs.

RELINE (Tufano et al., ICSE 2022) compares agents this way: Mann-Whitney with Holm's
correction, and Cliff's delta as the effect size.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import mannwhitneyu

# Romano et al. (2006), "Appropriate statistics for ordinal level data: should we really be
# using t-test and Cohen's d for evaluating group differences on the NSSE and other surveys?"
# |d| < 0.147 negligible, < 0.33 small, < 0.474 medium, otherwise large.
CLIFF_THRESHOLDS: tuple[tuple[float, str], ...] = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))


def mann_whitney(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test of ``x`` against ``y``.

    Returns:
        ``(U, p)``: U of ``x`` (the number of pairs in which ``x`` wins, ties counting one
        half) and the two-sided p-value. scipy picks the exact distribution for small
        samples without ties and the normal approximation otherwise. When every value of
        both samples is the same the test has nothing to rank and ``p`` is 1.
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if len(a) == 0 or len(b) == 0:
        return math.nan, math.nan
    if np.unique(np.concatenate([a, b])).size == 1:
        return len(a) * len(b) / 2.0, 1.0
    result = mannwhitneyu(a, b, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm-Bonferroni step-down adjusted p-values, in the order given.

    With the m p-values sorted ascending, ``p_(i)`` is adjusted to
    ``max_{j <= i} min(1, (m - j + 1) p_(j))`` (i, j from 1): the smallest is multiplied by m,
    the next by m - 1, and so on, kept monotone. A hypothesis is rejected at level alpha
    when its adjusted p-value is at most alpha. NaN p-values stay NaN and do not count in m.
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    order = valid[np.argsort(p[valid], kind="stable")]
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        out[idx] = running
    return out


def cliffs_delta(x: Sequence[float], y: Sequence[float]) -> float:
    """Cliff's delta: ``(#(x_i > y_j) - #(x_i < y_j)) / (len(x) len(y))`` over all pairs.

    +1 when every value of ``x`` is above every value of ``y``, -1 for the reverse, 0 when
    neither side tends to be larger. NaN when a sample is empty.
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if len(a) == 0 or len(b) == 0:
        return math.nan
    diff = a[:, None] - b[None, :]
    return float((np.sum(diff > 0) - np.sum(diff < 0)) / diff.size)


def delta_magnitude(delta: float) -> str:
    """Romano et al.'s label for ``|delta|``: negligible, small, medium or large."""
    if math.isnan(delta):
        return "n/a"
    for bound, label in CLIFF_THRESHOLDS:
        if abs(delta) < bound:
            return label
    return "large"


def time_to_fraction(
    env_steps: Sequence[float],
    wall_s: Sequence[float],
    injected_ids: Sequence[float | None],
    injected: int,
    fraction: float,
) -> tuple[float, float]:
    """When a run had found ``ceil(fraction * injected)`` distinct injected bugs.

    Args:
        env_steps: Env steps at which each bug report was made, in the order found.
        wall_s: Seconds at which each report was made.
        injected_ids: The injected bug each report matched (None or NaN for a false report).
        injected: Bugs seeded into the game.
        fraction: Share of them, in (0, 1].

    Returns:
        ``(env_steps, seconds)`` of the report that reached the target, or ``(nan, nan)``
        when the run never did (or the game has no injected bugs).
    """
    target = math.ceil(fraction * injected - 1e-9)
    if injected <= 0 or target <= 0:
        return math.nan, math.nan
    order = np.argsort(np.asarray(env_steps, dtype=np.float64), kind="stable")
    seen: set[int] = set()
    for i in order:
        bug = injected_ids[i]
        if bug is None or pd.isna(bug):
            continue
        seen.add(int(bug))
        if len(seen) >= target:
            return float(env_steps[i]), float(wall_s[i])
    return math.nan, math.nan


def pairwise_table(samples: dict[str, dict[str, np.ndarray]]) -> pd.DataFrame:
    """Mann-Whitney U (Holm over the pairs of one metric) and Cliff's delta between agents.

    Args:
        samples: metric -> agent -> its samples (per episode, say).
    """
    rows = []
    for metric, by_agent in samples.items():
        names = list(by_agent)
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        tests = [mann_whitney(by_agent[a], by_agent[b]) for a, b in pairs]
        adjusted = holm([p for _, p in tests])
        for (a, b), (u, p), ph in zip(pairs, tests, adjusted):
            d = cliffs_delta(by_agent[a], by_agent[b])
            rows.append({
                "metric": metric, "a": a, "b": b, "n_a": len(by_agent[a]), "n_b": len(by_agent[b]),
                "median_a": float(np.median(by_agent[a])) if len(by_agent[a]) else np.nan,
                "median_b": float(np.median(by_agent[b])) if len(by_agent[b]) else np.nan,
                "U": u, "p": p, "p_holm": ph, "significant": bool(ph <= 0.05), "delta": d,
                "magnitude": delta_magnitude(d),
            })
    return pd.DataFrame(rows, columns=["metric", "a", "b", "n_a", "n_b", "median_a", "median_b", "U", "p",
                                       "p_holm", "significant", "delta", "magnitude"])
