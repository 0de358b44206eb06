"""The ``detect`` observation wrapper: PPGTA's OD mask over a game's RGB frames.

Each frame is run through the detector and greyed outside the boxes it found
(:func:`games.perception.base.od_mask`): the observation keeps its shape and dtype, so anything
after it in ``game.wrappers`` (the encoder, a resize) or a pixel policy reads it as a frame.
The detections themselves are published after every step as ``VecStep.info["detections"]``
(record column ``info.detections``), one :class:`~games.perception.base.Detections` per copy with
its crops cut from the unmasked frame; a copy that did not step holds ``None``, as for every
object-valued info key. The step contract has no info at reset, so the detections of a
reset's first frames are kept in :attr:`Detect.detections` (always the latest per copy).

The detector is the pixel pipeline's largest cost (about 8M multiply-adds a frame against
1.4M for the encoder), so ``every: k`` runs it on a copy's reset frame and then on every k-th
step only. In between, the frame is masked with the copy's last boxes (objects drift a few
pixels a step as the agent moves) and ``info.detections`` carries those boxes without crops:
the mask's boxes, but nothing the visual oracle judges or places, since a box paired with
where the agent stands steps later would misplace its object. ``every: 1`` (the default)
detects every frame.

On a GPU the step's frames are uploaded once: the detector reads them there and the mask is
made there (:mod:`games.perception.device_frames`, the same bytes as the host's mask). The masked
frames stay on the device as :attr:`Detect.frames` for an ``encode`` wrapper right above on the
same device, which shrinks and encodes them there; the host gets its copy of them while the
device works on.

    game: {name: doom_park, wrappers: [{name: detect, kwargs: {threshold: 0.5, every: 4}}]}
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from games.core.base import VecStep, VectorGame
from games.common.device import torch_device
from games.perception.base import DETECTIONS_KEY, Detections, no_detections, od_mask
from games.perception import device_frames
from games.perception.detector import CNNDetector, load_detector
from games.core.wrappers import ObservationWrapper


class Detect(ObservationWrapper):
    """RGB frames masked outside the objects a detector finds; the detections in ``info``.

    Only the copies that stepped are detected, all of them in one batched forward.

    Args:
        game: A vector game (or wrapper) with uint8 RGB frames ``(3, H, W)``.
        weights: A detector's weights file (default: the shipped ``weights/detector.pt``).
        threshold: Score from which an object is kept (default: the one saved with the
            weights).
        every: Detect a copy's frame on reset and every ``every``-th step after; between
            them, mask with its last boxes and publish them without crops.
        device: Where the detector runs: ``cpu``, ``cuda`` or ``cuda:N`` (an experiment's
            ``device`` fills it in).

    Attributes:
        detector: The detector.
        detections: ``[num_envs]`` object array, each copy's latest :class:`Detections`,
            the reset's included (crops too: the last detected frame's).
        since: ``[num_envs]`` steps each copy has taken since it was last detected.
        frames: On a GPU, the last masked frames as a uint8 tensor there (None on the CPU).
        host_frames: The masked frames the last observation returned (on a GPU, the host's
            copy of ``frames``).
        hand_over: Set by a wrapper above that reads :attr:`frames` itself: the host copy
            is then made while the device works on, and that wrapper waits for it
            (:meth:`wait_host`) before its step returns.
    """

    runs_networks = True
    publishes = frozenset({DETECTIONS_KEY})

    def __init__(self, game: VectorGame, weights: str | None = None,
                 threshold: float | None = None, every: int = 1, device: str = "cpu") -> None:
        if weights is not None and not isinstance(weights, str):
            raise ValueError(f"weights must be the path of a detector's weights file, got {weights!r}")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
            raise ValueError(f"threshold must be a number in (0, 1), got {threshold!r}")
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ValueError(f"every must be a positive number of steps between detections, got {every!r}")
        self.every = int(every)
        self.detector: CNNDetector = load_detector(None if weights is None else Path(weights), threshold,
                                                   str(torch_device(device)))
        super().__init__(game)
        self.detections = np.empty(self.num_envs, dtype=object)
        self._carried = np.empty(self.num_envs, dtype=object)  # the boxes alone, no crops
        for i in range(self.num_envs):  # one by one: numpy would unpack a list of them
            self.detections[i] = self._carried[i] = no_detections()
        self.since = np.zeros(self.num_envs, dtype=np.int64)
        self.device = self.detector.net.device
        self.stream = (device_frames.FramesStream(self.device)
                       if device_frames.frames_stay_on(self.device) else None)
        self.frames: torch.Tensor | None = None
        self.host_frames: np.ndarray | None = None
        self.hand_over = False

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
        if self.starting:  # a reset: every copy is detected, which restarts its count
            rows = np.arange(self.num_envs)
        else:
            self.since[self.stepped] += 1
            rows = np.flatnonzero(self.stepped & (self.since >= self.every))
        if self.stream is not None:
            return self._on_device(obs, rows)
        self._found(rows, self.detector.detect(obs[rows]) if rows.size else ())
        self.host_frames = od_mask(obs, [d.boxes for d in self.detections])
        return self.host_frames

    def _found(self, rows: np.ndarray, found: Sequence[Detections]) -> None:
        for row, det in zip(rows.tolist(), found):
            self.detections[row] = det
            self._carried[row] = Detections(det.boxes, det.types, det.scores)
        self.since[rows] = 0

    def _on_device(self, obs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The GPU's step: one upload for the detector and the mask; crops cut on the host."""
        assert self.stream is not None
        with self.stream:
            frames = self.stream.upload(obs)
            if rows.size:
                chosen = frames if rows.size == self.num_envs else frames[torch.from_numpy(rows).to(self.device)]
                self._found(rows, self.detector.detect(obs[rows], on_device=chosen))
            self.frames = device_frames.od_mask_tensor(frames, [d.boxes for d in self.detections])
            self.host_frames = self.stream.to_host(self.frames, wait=not self.hand_over)
        return self.host_frames

    def wait_host(self) -> None:
        """Until :attr:`host_frames` is complete (see :attr:`hand_over`)."""
        if self.stream is not None:
            self.stream.wait()

    def step(self, actions: np.ndarray) -> VecStep:
        out = super().step(actions)
        published = np.empty(self.num_envs, dtype=object)  # None where a copy did not step
        for row in np.flatnonzero(self.stepped).tolist():
            published[row] = self.detections[row] if self.since[row] == 0 else self._carried[row]
        return dataclasses.replace(out, info={**out.info, DETECTIONS_KEY: published})
