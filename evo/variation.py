"""Wuji's variation operators on flat genomes: single-point crossover and Gaussian mutation.

Plain numpy functions over whole populations with a seeded generator. DEAP's ``cxOnePoint``
and ``mutGaussian`` do the same per individual, but they draw from Python's global
``random`` (breaking seeded runs) and swap numpy slices as views, so they are not used here.
"""

from __future__ import annotations

import numpy as np


def single_point_crossover(
    first: np.ndarray, second: np.ndarray, prob: float, rng: np.random.Generator
) -> np.ndarray:
    """One child per row pair: the first parent's genes up to a random cut, the second's after.

    Args:
        first: ``[n, D]`` genomes of the first parents.
        second: ``[n, D]`` genomes of the second parents.
        prob: Chance that a pair is crossed at all; otherwise the child copies ``first``.
        rng: Draws the cuts.
    """
    n, d = first.shape
    cuts = rng.integers(1, d, size=n)
    crossed = rng.random(n) < prob
    take_second = (np.arange(d)[None, :] >= cuts[:, None]) & crossed[:, None]
    return np.where(take_second, second, first).astype(np.float32)


def gaussian_mutation(
    genomes: np.ndarray, sigma: float, rate: float, rng: np.random.Generator
) -> np.ndarray:
    """Add N(0, sigma) noise to each weight with probability ``rate`` (Wuji's GN operator)."""
    noise = rng.standard_normal(genomes.shape).astype(np.float32) * np.float32(sigma)
    mask = rng.random(genomes.shape) < rate
    return (genomes + noise * mask).astype(np.float32)
