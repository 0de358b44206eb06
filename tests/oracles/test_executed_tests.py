"""Executed object tests: the steps an episode took to circle an object, found by the objects
oracle's rule, and the JS divergence of their actions from the demonstrations'."""

from __future__ import annotations

import math

import numpy as np
import pytest

from games.perception.execution_quality import action_distribution
from oracles.executed_tests import (ExecutedTest, close_views, execution_divergences, executed_tests,
                                    start_outcomes)

PLACES = np.array([[1000.0, 1000.0], [3000.0, 3000.0]])
INDEX = {7: 0, 9: 1}


def _circle(start_deg: float, steps: int, radius: float, per_step: float = 30.0) -> np.ndarray:
    angles = np.radians(start_deg + per_step * np.arange(steps))
    return PLACES[0] + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)


def test_a_circle_of_270_degrees_is_an_executed_test_from_its_first_close_view() -> None:
    far = np.full((3, 2), 2000.0)  # walking in, object 7 in view but too far
    xy = np.concatenate([far, _circle(15.0, 12, radius=200.0)])
    visible = [(7,)] * len(xy)
    tests = executed_tests(xy, visible, INDEX, PLACES)
    # Views start at step 3; 9 sectors of 30 degrees make 270: the ninth close view completes it.
    assert tests == [ExecutedTest(object=0, start=3, end=11)]
    # Half a circle, or a circle outside the radius, is no test.
    assert executed_tests(_circle(15.0, 6, 200.0), [(7,)] * 6, INDEX, PLACES) == []
    assert executed_tests(_circle(15.0, 12, 500.0), [(7,)] * 12, INDEX, PLACES) == []
    # Not in view: not tested, wherever the agent stands.
    assert executed_tests(_circle(15.0, 12, 200.0), [()] * 6 + [None] * 6, INDEX, PLACES) == []


def test_each_test_is_scored_by_the_divergence_of_its_own_actions() -> None:
    xy = np.concatenate([_circle(15.0, 12, 200.0), _circle(15.0, 12, 200.0)])
    tests = executed_tests(xy, [(7,)] * 24, INDEX, PLACES)
    assert len(tests) == 1  # an object is tested once an episode
    actions = np.array([3, 4] * 6 + [8] * 12)  # strafe and turn while circling, then jump about
    demonstrated = action_distribution([3, 4] * 5, 9)
    (divergence,) = execution_divergences(actions, tests, demonstrated)
    assert divergence < 0.01  # steps 0..8: five strafes and four turns
    late = ExecutedTest(0, 12, 23)
    assert execution_divergences(actions, [late], demonstrated)[0] == pytest.approx(1.0)
    assert math.isclose(len(execution_divergences(actions, [], demonstrated)), 0)


def test_each_started_test_is_new_repeated_or_failed() -> None:
    # Steps 0-11 circle object 7 (tested at step 8), 12-23 circle it again, 24-35 stand far off.
    xy = np.concatenate([_circle(15.0, 12, 200.0), _circle(15.0, 12, 200.0), np.full((12, 2), 2000.0)])
    visible = [(7,)] * len(xy)
    tests = executed_tests(xy, visible, INDEX, PLACES)
    views = list(close_views(xy, visible, INDEX, PLACES, 384.0, 12))
    # A start whose steps complete a test is new; one going round the tested object again is
    # repeated; one that never comes within the radius of anything failed.
    assert start_outcomes([0, 12, 24], tests, views, length=12) == ["new", "repeated", "failed"]
    # Each test's own length, as a tester that ends tests early gives them: a test that stopped
    # at step 5, before the completion at step 8, did not complete it.
    assert start_outcomes([0, 12], tests, views, length=[5, 12]) == ["failed", "repeated"]
    with pytest.raises(ValueError, match="2 test starts need as many lengths, got 1"):
        start_outcomes([0, 12], tests, views, length=[5])
    # Half a circle of an object not yet tested failed too.
    half = np.concatenate([_circle(15.0, 6, 200.0), np.full((6, 2), 2000.0)])
    assert start_outcomes([0], [], list(close_views(half, [(7,)] * 12, INDEX, PLACES, 384.0, 12)), 12) == ["failed"]
