"""Crossover on flat genomes: Wuji's single-point crossover over whole populations.

A plain numpy function with a seeded generator. DEAP's ``cxOnePoint`` does the same per
individual, but it draws from Python's global ``random`` and swaps numpy slices as views,
so it is not used here.
"""

from __future__ import annotations

import numpy as np

from evo.search.operators.base import CROSSOVER, OperatorSettings, register


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


@register(CROSSOVER, "single_point")
class SinglePoint:
    """:func:`single_point_crossover` with ``search.crossover_prob``."""

    def __init__(self, settings: OperatorSettings) -> None:
        self.prob = settings.crossover_prob

    def __call__(self, first: np.ndarray, second: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return single_point_crossover(first, second, self.prob, rng)
