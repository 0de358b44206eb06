"""Object tests as an episode executed them, and how closely each acted like the demonstrations.

PPGTA (Section VI-B) judges an executed object test by the Jensen-Shannon divergence between
its action distribution and that of all expert demonstrations of the behaviour
(:mod:`games.vision.execution_quality`). What an executed test is follows the objects
oracle's rule (:mod:`oracles.objects_tested`): an object is tested once, within one episode,
the agent saw it from directions covering ``degrees`` while standing within ``radius`` of it,
the direction counted in ``sectors``. The test's steps run from the first such view of the
object to the one that completes the directions; its actions are those steps' actions.

Ground truth (object places, ``info.visible``): for scoring a run, never a policy's input.
The rule itself (:func:`executed_tests`) lives beside the divergence in
:mod:`games.vision.execution_quality`, where training also cuts demonstrated tests by it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from games.vision.execution_quality import ExecutedTest, close_views, execution_divergence, executed_tests


def execution_divergences(actions: np.ndarray, tests: Sequence[ExecutedTest], demonstrated: np.ndarray) -> np.ndarray:
    """``[len(tests)]`` the JS divergence of each test's actions (steps ``start..end``) from
    the demonstrations' action distribution ``demonstrated``."""
    return np.array([execution_divergence(actions[test.start: test.end + 1], demonstrated) for test in tests])


__all__ = ["ExecutedTest", "close_views", "executed_tests", "execution_divergences"]
