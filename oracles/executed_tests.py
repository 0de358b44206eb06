"""Object tests as an episode executed them, and how closely each acted like the demonstrations.

PPGTA (Section VI-B) judges an executed object test by the Jensen-Shannon divergence between
its action distribution and that of all expert demonstrations of the behaviour
(:mod:`games.vision.execution_quality`). What an executed test is follows the objects
oracle's rule (:mod:`oracles.objects_tested`): an object is tested once, within one episode,
the agent saw it from directions covering ``degrees`` while standing within ``radius`` of it,
the direction counted in ``sectors``. The test's steps run from the first such view of the
object to the one that completes the directions; its actions are those steps' actions.

Ground truth (object places, ``info.visible``): for scoring a run, never a policy's input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

import numpy as np

from games.vision.execution_quality import execution_divergence


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


def execution_divergences(actions: np.ndarray, tests: Sequence[ExecutedTest], demonstrated: np.ndarray) -> np.ndarray:
    """``[len(tests)]`` the JS divergence of each test's actions (steps ``start..end``) from
    the demonstrations' action distribution ``demonstrated``."""
    return np.array([execution_divergence(actions[test.start: test.end + 1], demonstrated) for test in tests])
