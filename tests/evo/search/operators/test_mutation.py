"""Gaussian mutation on whole populations of flat genomes."""

from __future__ import annotations

import numpy as np
import pytest

from evo.search.operators.mutation import gaussian_mutation


def test_mutation_rate_zero_leaves_genomes_unchanged() -> None:
    genomes = np.random.default_rng(0).standard_normal((10, 30)).astype(np.float32)
    out = gaussian_mutation(genomes, sigma=1.0, rate=0.0, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(out, genomes)


def test_mutation_rate_one_changes_every_weight_by_sigma() -> None:
    genomes = np.random.default_rng(0).standard_normal((200, 100)).astype(np.float32)
    before = genomes.copy()
    out = gaussian_mutation(genomes, sigma=0.05, rate=1.0, rng=np.random.default_rng(1))
    delta = out.astype(np.float64) - genomes

    np.testing.assert_array_equal(genomes, before)  # parents are not mutated in place
    assert out.dtype == np.float32
    assert (delta != 0).all()
    assert delta.std() == pytest.approx(0.05, rel=0.03)
    assert abs(delta.mean()) < 0.002


def test_mutation_rate_is_the_share_of_weights_changed() -> None:
    genomes = np.zeros((200, 100), dtype=np.float32)
    out = gaussian_mutation(genomes, sigma=1.0, rate=0.1, rng=np.random.default_rng(0))
    assert (out != 0).mean() == pytest.approx(0.1, abs=0.01)


def test_mutation_is_seeded() -> None:
    genomes = np.zeros((20, 30), dtype=np.float32)
    a = gaussian_mutation(genomes, 0.1, 0.5, np.random.default_rng(4))
    b = gaussian_mutation(genomes, 0.1, 0.5, np.random.default_rng(4))
    c = gaussian_mutation(genomes, 0.1, 0.5, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
