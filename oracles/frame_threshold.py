"""RELINE's slow-frame threshold, in one place: the performance oracle, the ``fps_drop``
objective and ``evo evaluate`` all judge frames with it.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games"): a
frame is slow when it took longer than ``t = mean + 5 sd`` of the frame times of a baseline;
under the extra load of training the line moves by
``delta = max(Q1_train - Q1_base, Q3_train - Q3_base)``. Here the baseline is sigma-clipped
(the slow frames of a bug the baseline already hit must not hide that bug), floored (a game
whose frames all take 1 ms would otherwise call 1.01 ms slow), and ``delta`` only raises the
line: a lighter load never brings it below the five-sigma line, where noise would be slow.

Lives in ``oracles/`` so that objectives (which already import oracles) and ``evo/`` reach it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

CLIP_ROUNDS = 10
"""Most rounds of sigma clipping in :func:`slow_threshold`; it is stable after 2-3 in
practice."""


def finite(frame_ms: Any) -> np.ndarray:
    """The finite frame times, flattened, as float64."""
    x = np.asarray(frame_ms, dtype=np.float64).ravel()
    return x[np.isfinite(x)]


def slow_threshold(frame_ms: np.ndarray, sd_factor: float = 5.0, floor_ms: float = 0.0) -> float:
    """The frame time above which a frame is slow, from baseline frame times.

    Iterative sigma clipping: frames above ``mean + sd_factor * sd`` are dropped and the
    statistics recomputed, until nothing more is dropped (at most :data:`CLIP_ROUNDS`
    rounds). Without it, the slow frames of a bug that the warm-up policies already hit
    would inflate ``sd`` and hide that very bug.

    Args:
        frame_ms: baseline frame times; non-finite values are ignored.
        sd_factor: how many standard deviations above the mean is slow.
        floor_ms: the threshold is never below this.

    Returns:
        ``max(floor_ms, mean + sd_factor * sd)`` of the clipped sample.

    Raises:
        ValueError: if there is no finite frame time.
    """
    x = finite(frame_ms)
    if x.size == 0:
        raise ValueError("no finite frame times to calibrate the performance threshold on")
    # RELINE: t = mean + 5 sd of baseline frame times
    t = float(x.mean() + sd_factor * x.std())
    for _ in range(CLIP_ROUNDS):
        keep = x <= t
        if keep.all():
            break
        x = x[keep]
        t = float(x.mean() + sd_factor * x.std())
    return max(float(floor_ms), t)


def quartiles(frame_ms: np.ndarray) -> tuple[float, float]:
    """``(Q1, Q3)`` of the finite frame times (RELINE's load measure)."""
    q1, q3 = np.percentile(finite(frame_ms), [25, 75])
    return float(q1), float(q3)


def load_shift(frame_ms: np.ndarray, base: tuple[float, float]) -> float | None:
    """RELINE's delta, ``max(Q1 - Q1_base, Q3 - Q3_base)``, of frame times against the
    baseline's quartiles; None when there is no finite frame time."""
    x = np.asarray(frame_ms, dtype=np.float64).ravel()
    if not np.isfinite(x).any():
        return None
    q1, q3 = quartiles(x)
    return max(q1 - base[0], q3 - base[1])


@dataclass
class FrameThreshold:
    """A calibrated slow-frame line: ``t = base + max(0, delta)``.

    Attributes:
        sd_factor: Standard deviations above the baseline mean (RELINE: 5).
        floor_ms: The base line is never below this.
        shift: Whether RELINE's ``delta`` moves the line (off: ``t = base``).
        base_ms: ``max(floor_ms, mean + sd_factor * sd)`` of the clipped baseline; None
            before :meth:`calibrate`.
        q1_ms: The unclipped baseline's 25th percentile.
        q3_ms: Its 75th percentile.
    """

    sd_factor: float = 5.0
    floor_ms: float = 0.0
    shift: bool = True
    base_ms: float | None = None
    q1_ms: float | None = None
    q3_ms: float | None = None

    @property
    def calibrated(self) -> bool:
        return self.base_ms is not None

    def calibrate(self, frame_ms: Any) -> bool:
        """Set the base line and quartiles from baseline frame times.

        Returns:
            False (nothing changed) when there is no finite frame time.
        """
        x = finite(frame_ms)
        if x.size == 0:
            return False
        self.base_ms = slow_threshold(x, self.sd_factor, self.floor_ms)
        self.q1_ms, self.q3_ms = quartiles(x)
        return True

    def provisional(self, frame_ms: Any) -> float:
        """The base line these frame times alone would give (not kept); inf for none."""
        x = finite(frame_ms)
        return float("inf") if x.size == 0 else slow_threshold(x, self.sd_factor, self.floor_ms)

    def delta(self, frame_ms: Any) -> float | None:
        """RELINE's delta of a batch's frame times against the baseline; None without
        finite frames or before calibration."""
        if self.q1_ms is None or self.q3_ms is None:
            return None
        return load_shift(frame_ms, (self.q1_ms, self.q3_ms))

    def at(self, delta_ms: float | None) -> float:
        """The line under a load of ``delta_ms`` (None: the base line)."""
        assert self.base_ms is not None, "calibrate first"
        if not self.shift:
            return self.base_ms
        return self.base_ms + max(0.0, delta_ms or 0.0)

    def for_batch(self, frame_ms: Any) -> float:
        """The line for a batch, shifted by that batch's own delta."""
        return self.at(self.delta(frame_ms) if self.shift else None)

    def state_dict(self) -> dict[str, Any]:
        """Base line and quartiles, as JSON numbers (None before calibration)."""
        return {"base_ms": self.base_ms, "q1_ms": self.q1_ms, "q3_ms": self.q3_ms}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""
        def opt(v: Any) -> float | None:
            return None if v is None else float(v)

        self.base_ms = opt(state.get("base_ms"))
        self.q1_ms = opt(state.get("q1_ms"))
        self.q3_ms = opt(state.get("q3_ms"))
