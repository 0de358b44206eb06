"""Hypervolume through pymoo's HV, in each objective's own sense."""

from __future__ import annotations

import numpy as np
import pytest

from evo.search.operators.hypervolume import hypervolume


def test_hypervolume_of_a_staircase_in_every_sense() -> None:
    pts = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    # Maximised against (0, 0): boxes 1x3, 2x2, 3x1 overlap into area 6.
    assert hypervolume(pts, ["max", "max"], np.array([0.0, 0.0])) == pytest.approx(6.0)
    # The same staircase moved by (1, 1), against (1, 1).
    assert hypervolume(pts + 1.0, ["max", "max"], np.array([1.0, 1.0])) == pytest.approx(6.0)
    # Minimised against (4, 4): the mirror image, also 6.
    assert hypervolume(pts, ["min", "min"], np.array([4.0, 4.0])) == pytest.approx(6.0)
    # Max the first, min the second, against (0, 4): (1,1), (2,2), (3,3) give 3 + 2 + 1.
    mixed = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    assert hypervolume(mixed, ["max", "min"], np.array([0.0, 4.0])) == pytest.approx(6.0)
    assert hypervolume(mixed + 1.0, ["max", "min"], np.array([1.0, 5.0])) == pytest.approx(6.0)


def test_hypervolume_ignores_dominated_points_and_points_past_the_reference() -> None:
    ref = np.array([0.0, 0.0])
    pts = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    more = np.vstack([pts, [[1.0, 1.0], [-1.0, 5.0]]])
    assert hypervolume(more, ["max", "max"], ref) == pytest.approx(6.0)
    # The wrong sense puts every point behind the reference: nothing is covered.
    assert hypervolume(pts, ["min", "min"], ref) == pytest.approx(0.0)
