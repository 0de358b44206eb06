"""RELINE's slow-frame threshold, in one place: the performance oracle, the ``fps_drop``
objective and ``evo evaluate`` all judge frames with it.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games"): a
frame is slow when it took longer than ``t = mean + 5 sd`` of the frame times of a baseline;
under the extra load of training the line moves by
``delta = max(Q1_train - Q1_base, Q3_train - Q3_base)``.

RELINE's baseline is a trained agent on a game whose slow frames are rare. Here the baseline
is the first generation's play on whatever game was given, and its slow frames need not be
rare: a slow stretch on the road every policy drives is 15% of the frames, and those frames
alone put ``mean + 5 sd`` above themselves. So the line is ``mean + 5 sd`` of the frames the
line itself calls normal (the frames at or under it), found from below: it starts at the
third quartile (RELINE reads Q1 and Q3 as the bounds of the central part of the
distribution, representative of its values; its ``delta`` rests on that too) and rises
until the frames under it give it back. Where the frames have one mode (pure jitter, or
RELINE's rare slow frames) that is RELINE's line clipped of its outliers, as before; where
slow frames are a mode of their own under a quarter of the frames, it is the line of the
normal frames, under the slow ones. A mode over a quarter (a timer that reads 16 or 17 ms)
is normal play, as it is for ``delta``.

The line is floored (a game whose frames all take 1 ms would otherwise call 1.01 ms slow,
and scheduler jitter over the line becomes a slow frame), and ``delta`` only raises it: a
lighter load never brings it below the five-sigma line, where noise would be slow.

Lives in ``oracles/`` so that objectives (which already import oracles) and ``evo/`` reach it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

SETTLE_ROUNDS = 50
"""Most rounds of :func:`slow_threshold`'s rise to its fixed point; it settles within a few
in practice (each round takes in the frames under the last line)."""


def finite(frame_ms: Any) -> np.ndarray:
    """The finite frame times, flattened, as float64."""
    x = np.asarray(frame_ms, dtype=np.float64).ravel()
    return x[np.isfinite(x)]


def slow_threshold(frame_ms: np.ndarray, sd_factor: float = 5.0, floor_ms: float = 0.0) -> float:
    """The frame time above which a frame is slow, from baseline frame times.

    RELINE's ``mean + sd_factor * sd``, of the frames at or under the line: the line starts
    at the third quartile and is recomputed from the frames under it until they no longer
    change (at most :data:`SETTLE_ROUNDS` rounds). Without it, slow frames that the warm-up
    policies already hit, rare (a bug they met once) or not (a slow stretch on the road they
    all drive), inflate ``sd`` and hide the very bug that made them. It holds while the slow
    frames are under a quarter of the baseline.

    Args:
        frame_ms: baseline frame times; non-finite values are ignored.
        sd_factor: how many standard deviations above the mean is slow.
        floor_ms: the threshold is never below this.

    Returns:
        ``max(floor_ms, mean + sd_factor * sd)`` of the frames under the line.

    Raises:
        ValueError: if there is no finite frame time.
    """
    x = np.sort(finite(frame_ms))
    if x.size == 0:
        raise ValueError("no finite frame times to calibrate the performance threshold on")
    # RELINE: Q1 and Q3 bound the central part of the distribution; frames up to Q3 are normal.
    under = int(np.searchsorted(x, np.percentile(x, 75), side="right"))
    for _ in range(SETTLE_ROUNDS):
        normal = x[:under]
        # RELINE: t = mean + 5 sd of baseline frame times (here: of the normal ones)
        t = float(normal.mean() + sd_factor * normal.std())
        now = int(np.searchsorted(x, t, side="right"))
        if now == under:
            break
        under = now
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
        base_ms: ``max(floor_ms, mean + sd_factor * sd)`` of the baseline's normal frames
            (:func:`slow_threshold`); None before :meth:`calibrate`.
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
