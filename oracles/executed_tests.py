"""Object tests as an episode executed them, and how closely each acted like the demonstrations.

PPGTA (Section VI-B) judges an executed object test by the Jensen-Shannon divergence between
its action distribution and that of all expert demonstrations of the behaviour
(:mod:`games.perception.execution_quality`). What an executed test is follows the objects
oracle's rule (:mod:`oracles.objects_tested`): an object is tested once, within one episode,
the agent saw it from directions covering ``degrees`` while standing within ``radius`` of it,
the direction counted in ``sectors``. The test's steps run from the first such view of the
object to the one that completes the directions; its actions are those steps' actions.

Ground truth (object places, ``info.visible``): for scoring a run, never a policy's input.
The rule itself (:func:`executed_tests`) lives beside the divergence in
:mod:`games.perception.execution_quality`, where training also cuts demonstrated tests by it.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

import numpy as np

from games.perception.execution_quality import ExecutedTest, close_views, execution_divergence, executed_tests


def execution_divergences(actions: np.ndarray, tests: Sequence[ExecutedTest], demonstrated: np.ndarray) -> np.ndarray:
    """``[len(tests)]`` the JS divergence of each test's actions (steps ``start..end``) from
    the demonstrations' action distribution ``demonstrated``."""
    return np.array([execution_divergence(actions[test.start: test.end + 1], demonstrated) for test in tests])


NEW, REPEATED, FAILED = "new", "repeated", "failed"
"""What a started test came to (:func:`start_outcomes`)."""


def start_outcomes(starts: Sequence[int], tests: Sequence[ExecutedTest], views: Iterable[tuple[int, int, int]],
                   length: int | Sequence[int]) -> list[str]:
    """What each test a tester started in one episode came to, from the ground truth.

    A tester (:class:`evo.search.agents.tester.TesterAgent`) starts a test when it sees an
    object close; whether the test tested anything is the objects oracle's rule. So that a
    user can tell a tester that starts too few tests from one whose tests come to nothing,
    each start at step ``s`` is, over its ``length`` steps ``s .. s + length - 1`` (one length
    for all, or each test's own, as a tester that ends its tests early gives them):

    - ``new``: an executed test (``tests``, :func:`executed_tests`) completed in them;
    - ``repeated``: none did, and the object seen most often from within the radius in them
      (``views``, :func:`close_views`) had been tested earlier in the episode;
    - ``failed``: neither (the object was lost, not gone around, or never within the radius).
    """
    ends = {test.object: test.end for test in tests}
    by_step = [(t, k) for t, k, _ in views]
    lengths = [int(length)] * len(starts) if isinstance(length, (int, np.integer)) else [int(n) for n in length]
    if len(lengths) != len(starts):
        raise ValueError(f"{len(starts)} test starts need as many lengths, got {len(lengths)}")
    out = []
    for s, length in zip(starts, lengths):
        if any(s <= end < s + length for end in ends.values()):
            out.append(NEW)
            continue
        seen = Counter(k for t, k in by_step if s <= t < s + length)
        most = seen.most_common(1)[0][0] if seen else None
        out.append(REPEATED if most is not None and ends.get(most, s) < s else FAILED)
    return out


__all__ = ["ExecutedTest", "FAILED", "NEW", "REPEATED", "close_views", "executed_tests", "execution_divergences",
           "start_outcomes"]
