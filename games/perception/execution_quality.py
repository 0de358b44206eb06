"""Test execution quality: how closely an executed object test acts like the demonstrations.

PPGTA (Section VI-B) compares the action distribution of an executed test behaviour with the
action distribution of all expert demonstrations of that behaviour by the Jensen-Shannon
divergence, and calls a test successful when the divergence is below a threshold: the mean
divergence the imitation policy reaches on validation trajectories after its last training
epoch (:func:`games.perception.training.imitation.success_threshold`).

Divergences are in bits (base 2), so they lie in [0, 1]: 0 for the same distribution, 1 for
distributions with no action in common.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

import numpy as np
from scipy.spatial.distance import jensenshannon

FIELD_OF_VIEW = 90.0
"""Degrees the park's camera sees across: an object within half of it either side of the
facing is in view (a demonstration has no labels buffer; walls and trees are ignored)."""


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


@dataclass(frozen=True)
class ExecutedTest:
    """One object test an episode completed.

    Attributes:
        object: Index of the object (in the order of the places given).
        start: Step of the first view of it within the radius.
        end: Step of the view that completed the directions.
    """

    object: int
    start: int
    end: int


def close_views(xy: np.ndarray, visible: Sequence[Sequence[int] | None], index: Mapping[int, int],
                places: np.ndarray, radius: float, sectors: int) -> Iterator[tuple[int, int, int]]:
    """``(step, object index, sector)`` of every view of a known object from within ``radius``.

    Args:
        xy: ``[T, 2]`` the agent's place after each step.
        visible: Per step the ids of the objects in view (None where the copy did not step).
        index: Object id -> its index in ``places``.
        places: ``[K, 2]`` the objects' places.
        radius: Map units within which a view counts.
        sectors: Equal sectors of the bearing from the object to the agent.
    """
    width = 360.0 / sectors
    for t, ids in enumerate(visible):
        for ooi in ids or ():
            k = index.get(int(ooi))
            if k is None:
                continue
            dx, dy = xy[t] - places[k]
            if math.hypot(dx, dy) <= radius:
                bearing = math.degrees(math.atan2(dy, dx)) % 360.0
                yield t, k, int(bearing // width) % sectors


def executed_tests(xy: np.ndarray, visible: Sequence[Sequence[int] | None], index: Mapping[int, int],
                   places: np.ndarray, radius: float = 384.0, sectors: int = 12, degrees: float = 270.0,
                   ) -> list[ExecutedTest]:
    """The object tests one episode completed, in the order it completed them (the objects
    oracle's defaults)."""
    width = 360.0 / sectors
    first: dict[int, int] = {}
    seen: dict[int, set[int]] = {}
    done: list[ExecutedTest] = []
    for t, k, sector in close_views(xy, visible, index, places, radius, sectors):
        if any(test.object == k for test in done):
            continue
        first.setdefault(k, t)
        seen.setdefault(k, set()).add(sector)
        if len(seen[k]) * width >= degrees - 1e-9:
            done.append(ExecutedTest(k, first[k], t))
    return done


def demonstrated_window(features: np.ndarray, place: tuple[float, float], radius: float = 384.0,
                        sectors: int = 12, degrees: float = 270.0) -> tuple[int, int] | None:
    """The steps ``(start, end)`` of a demonstrated object test that the objects oracle would
    count as its execution (:func:`executed_tests`), or None when it never completes one.

    ``features`` ``[T + 1, 3]`` are ``(x, y, angle)`` before each action and after the last;
    the object counts as seen after step t when it lies within :data:`FIELD_OF_VIEW` of the
    facing. Scoring an executed test and setting the threshold it is judged by on the same
    stretch of steps keeps the two comparable: a whole demonstration (walking in, circling
    more than once) has a different action mix from the stretch that completes a test.
    """
    after = np.asarray(features, dtype=np.float64)[1:]
    bearing = np.degrees(np.arctan2(place[1] - after[:, 1], place[0] - after[:, 0]))
    off = (bearing - after[:, 2] + 180.0) % 360.0 - 180.0
    visible = [[0] if abs(o) <= FIELD_OF_VIEW / 2 else [] for o in off]
    done = executed_tests(after[:, :2], visible, {0: 0}, np.array([place], dtype=np.float64), radius, sectors, degrees)
    return (done[0].start, done[0].end) if done else None
