"""Hypervolume of a population's front through pymoo's ``HV``, in the objectives' own senses.

Not an operator: the measure ``generations.csv`` reports each generation. It lives with the
operators because it shares their sign convention (:func:`evo.search.operators.base.to_minimisation`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from pymoo.indicators.hv import HV

from evo.search.operators.base import to_minimisation


def hypervolume(F: np.ndarray, senses: Sequence[str], ref_point: np.ndarray) -> float:
    """Hypervolume of ``F`` against ``ref_point`` (both in the objectives' own senses)."""
    Fm = to_minimisation(F, senses)
    ref = to_minimisation(np.asarray(ref_point, dtype=np.float64)[None, :], senses)[0]
    return float(HV(ref_point=ref)(Fm))
