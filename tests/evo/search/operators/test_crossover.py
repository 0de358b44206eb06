"""Single-point crossover on whole populations of flat genomes."""

from __future__ import annotations

import numpy as np
import pytest

from evo.search.operators.crossover import single_point_crossover

N, D = 400, 6


def parents() -> tuple[np.ndarray, np.ndarray]:
    """First parents all 1s, second parents all 2s (float64, to check the cast)."""
    return np.ones((N, D)), np.full((N, D), 2.0)


def test_crossover_child_is_a_prefix_of_first_and_suffix_of_second() -> None:
    first, second = parents()
    child = single_point_crossover(first, second, prob=1.0, rng=np.random.default_rng(0))

    assert child.shape == (N, D) and child.dtype == np.float32
    from_first = child == 1.0
    assert (from_first | (child == 2.0)).all()
    cuts = from_first.sum(axis=1)
    prefix = np.arange(D)[None, :] < cuts[:, None]
    np.testing.assert_array_equal(from_first, prefix)  # one cut, first parent before it
    # Every cut in [1, D - 1] occurs, so each child has genes of both parents.
    assert set(cuts.tolist()) == set(range(1, D))


def test_crossover_keeps_each_rows_genes_in_place() -> None:
    rng = np.random.default_rng(3)
    first = rng.standard_normal((5, 8))
    second = rng.standard_normal((5, 8))
    child = single_point_crossover(first, second, prob=1.0, rng=rng)
    for i in range(5):
        cut = int(np.argmax(child[i] != first[i].astype(np.float32)))
        np.testing.assert_array_equal(child[i, :cut], first[i, :cut].astype(np.float32))
        np.testing.assert_array_equal(child[i, cut:], second[i, cut:].astype(np.float32))


def test_crossover_probability_zero_copies_the_first_parent() -> None:
    first, second = parents()
    child = single_point_crossover(first, second, prob=0.0, rng=np.random.default_rng(0))
    assert child.dtype == np.float32
    np.testing.assert_array_equal(child, first)


def test_crossover_probability_is_the_share_of_crossed_pairs() -> None:
    first, second = np.ones((4000, D)), np.full((4000, D), 2.0)
    child = single_point_crossover(first, second, prob=0.3, rng=np.random.default_rng(0))
    crossed = (child == 2.0).any(axis=1).mean()
    assert crossed == pytest.approx(0.3, abs=0.03)


def test_crossover_is_seeded() -> None:
    rng = np.random.default_rng(0)
    first, second = rng.standard_normal((50, 20)), rng.standard_normal((50, 20))
    a = single_point_crossover(first, second, 0.7, np.random.default_rng(5))
    b = single_point_crossover(first, second, 0.7, np.random.default_rng(5))
    c = single_point_crossover(first, second, 0.7, np.random.default_rng(6))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
