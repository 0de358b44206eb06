"""The ``detect`` observation wrapper: PPGTA's OD mask over a game's RGB frames.

Each frame is run through the detector and greyed outside the boxes it found
(:func:`games.vision.base.od_mask`): the observation keeps its shape and dtype, so anything
after it in ``game.wrappers`` (the encoder, a resize) or a pixel policy reads it as a frame.
The detections themselves are published after every step as ``VecStep.info["detections"]``
(record column ``info.detections``), one :class:`~games.vision.base.Detections` per copy with
its crops cut from the unmasked frame; a copy that did not step holds ``None``, as for every
object-valued info key. The step contract has no info at reset, so the detections of a
reset's first frames are kept in :attr:`Detect.detections` (always the latest per copy).

    game: {name: doom_park, wrappers: [{name: detect, kwargs: {threshold: 0.5}}]}
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Sequence

import numpy as np

from games.base import VecStep, VectorGame
from games.vision.base import DETECTIONS_KEY, Detections, no_detections, od_mask
from games.vision.detector import CNNDetector, load_detector
from games.wrappers import ObservationWrapper


class Detect(ObservationWrapper):
    """RGB frames masked outside the objects a detector finds; the detections in ``info``.

    Only the copies that stepped are detected, all of them in one batched forward.

    Args:
        game: A vector game (or wrapper) with uint8 RGB frames ``(3, H, W)``.
        weights: A detector's weights file (default: the shipped ``weights/detector.pt``).
        threshold: Score from which an object is kept (default: the one saved with the
            weights).

    Attributes:
        detector: The detector.
        detections: ``[num_envs]`` object array, each copy's latest :class:`Detections`,
            the reset's included.
    """

    def __init__(self, game: VectorGame, weights: str | None = None,
                 threshold: float | None = None) -> None:
        if weights is not None and not isinstance(weights, str):
            raise ValueError(f"weights must be the path of a detector's weights file, got {weights!r}")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
            raise ValueError(f"threshold must be a number in (0, 1), got {threshold!r}")
        self.detector: CNNDetector = load_detector(None if weights is None else Path(weights), threshold)
        super().__init__(game)
        self.detections = np.empty(self.num_envs, dtype=object)
        for i in range(self.num_envs):  # one by one: numpy would unpack a list of them
            self.detections[i] = no_detections()

    def obs_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if len(shape) != 3 or shape[0] != 3:
            raise ValueError(f"detect needs RGB frames (3, H, W), got observations of shape {shape}")
        return shape

    def obs_dtype(self, dtype: str) -> str:
        if dtype != "uint8":
            raise ValueError(f"detect needs uint8 frames, got {dtype} observations "
                             "(put it before any wrapper that computes)")
        return dtype

    def observation(self, obs: np.ndarray) -> np.ndarray:
        rows = np.arange(self.num_envs) if self.starting else np.flatnonzero(self.stepped)
        found: Sequence[Detections] = self.detector.detect(obs[rows]) if rows.size else ()
        for row, det in zip(rows.tolist(), found):
            self.detections[row] = det
        return od_mask(obs, [d.boxes for d in self.detections])

    def step(self, actions: np.ndarray) -> VecStep:
        out = super().step(actions)
        published = np.empty(self.num_envs, dtype=object)  # None where a copy did not step
        for row in np.flatnonzero(self.stepped).tolist():
            published[row] = self.detections[row]
        return dataclasses.replace(out, info={**out.info, DETECTIONS_KEY: published})
