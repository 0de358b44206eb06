"""Mutation on flat genomes: Wuji's Gaussian weight noise over whole populations.

A plain numpy function with a seeded generator; DEAP's ``mutGaussian`` does the same per
individual but draws from Python's global ``random``.
"""

from __future__ import annotations

import numpy as np

from evo.search.operators.base import MUTATION, OperatorSettings, register


def gaussian_mutation(
    genomes: np.ndarray, sigma: float, rate: float, rng: np.random.Generator
) -> np.ndarray:
    """Add N(0, sigma) noise to each weight with probability ``rate`` (Wuji's GN operator)."""
    noise = rng.standard_normal(genomes.shape).astype(np.float32) * np.float32(sigma)
    mask = rng.random(genomes.shape) < rate
    return (genomes + noise * mask).astype(np.float32)


@register(MUTATION, "gaussian")
class Gaussian:
    """:func:`gaussian_mutation` with ``search.mutation_sigma`` and ``search.mutation_rate``."""

    def __init__(self, settings: OperatorSettings) -> None:
        self.sigma = settings.mutation_sigma
        self.rate = settings.mutation_rate

    def __call__(self, genomes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return gaussian_mutation(genomes, self.sigma, self.rate, rng)
