"""Test execution quality: how closely an executed object test acts like the demonstrations.

PPGTA (Section VI-B) compares the action distribution of an executed test behaviour with the
action distribution of all expert demonstrations of that behaviour by the Jensen-Shannon
divergence, and calls a test successful when the divergence is below a threshold: the mean
divergence the imitation policy reaches on validation trajectories after its last training
epoch (:func:`games.vision.imitation_train.success_threshold`).

Divergences are in bits (base 2), so they lie in [0, 1]: 0 for the same distribution, 1 for
distributions with no action in common.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.spatial.distance import jensenshannon


def action_distribution(actions: Sequence[int] | np.ndarray, n_actions: int) -> np.ndarray:
    """``[n_actions]`` float64: the share of each action among ``actions``.

    Raises:
        ValueError: no actions, or one outside ``0..n_actions - 1``.
    """
    a = np.asarray(actions, dtype=np.int64).reshape(-1)
    if a.size == 0:
        raise ValueError("an action distribution needs at least one action")
    if a.min() < 0 or a.max() >= n_actions:
        raise ValueError(f"actions must be in 0..{n_actions - 1}, got {a.min()}..{a.max()}")
    return np.bincount(a, minlength=n_actions).astype(np.float64) / a.size


def js_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence of two distributions over the same actions, in bits."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if p.shape != q.shape:
        raise ValueError(f"distributions over different actions: {p.shape} and {q.shape}")
    # scipy gives the distance, the square root of the divergence.
    return float(jensenshannon(p, q, base=2.0) ** 2)


def execution_divergence(executed: Sequence[int] | np.ndarray, demonstrated: np.ndarray) -> float:
    """JS divergence of an executed test's actions from the demonstrations' distribution
    ``demonstrated`` (:func:`action_distribution` of all their actions)."""
    return js_divergence(action_distribution(executed, len(demonstrated)), demonstrated)


def execution_succeeded(executed: Sequence[int] | np.ndarray, demonstrated: np.ndarray, threshold: float) -> bool:
    """PPGTA's test success: the divergence is at most ``threshold``."""
    return execution_divergence(executed, demonstrated) <= threshold

