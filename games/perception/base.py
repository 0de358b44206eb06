"""The contract between a detector and what uses its boxes.

A :class:`Detector` turns a batch of frames into one :class:`Detections` per frame. The
``detect`` observation wrapper (PPGTA's OD mask) greys each frame outside the boxes and
publishes the detections as the info value ``detections`` (record column
``info.detections``), where the visual oracle reads the crops it judges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

DETECTIONS_KEY = "detections"
"""The info key (column ``info.detections``) under which the ``detect`` wrapper publishes
each copy's :class:`Detections` after every step."""

# ITU-R BT.601 luma weights (as games.core.wrappers.LUMA): the grey of PPGTA's OD mask.
_LUMA = np.array([0.299, 0.587, 0.114], dtype=np.float32)


@dataclass(frozen=True, eq=False)
class Detections:
    """The objects a detector found in one frame.

    Attributes:
        boxes: ``[K, 4]`` int32 ``(x, y, width, height)`` in pixels of the frame.
        types: ``[K]`` int64 indices into the detector's ``types``.
        scores: ``[K]`` float32 confidences in [0, 1].
        crops: ``K`` uint8 arrays ``[3, h, w]``: the frame inside each box before any
            masking (what a texture judge looks at); empty when the detector was asked for
            boxes only.
    """

    boxes: np.ndarray
    types: np.ndarray
    scores: np.ndarray
    crops: tuple[np.ndarray, ...] = ()

    def __len__(self) -> int:
        return int(self.boxes.shape[0])


def no_detections() -> Detections:
    """A frame with nothing found in it."""
    return Detections(np.zeros((0, 4), dtype=np.int32), np.zeros(0, dtype=np.int64),
                      np.zeros(0, dtype=np.float32))


@runtime_checkable
class Detector(Protocol):
    """Finds objects of interest in frames.

    Attributes:
        types: The names of the object types it finds (``Detections.types`` index them).
    """

    types: tuple[str, ...]

    def detect(self, frames: np.ndarray) -> list[Detections]:
        """``[N, 3, H, W]`` uint8 RGB frames -> one :class:`Detections` per frame, batched
        (one forward pass for the whole batch)."""
        ...


def od_mask(frames: np.ndarray, boxes: Sequence[np.ndarray]) -> np.ndarray:
    """PPGTA's OD mask: each frame grey (BT.601 luma in all three channels) except inside its
    boxes, which keep their colour.

    Args:
        frames: ``[N, 3, H, W]`` RGB, uint8 or float32.
        boxes: Per frame, ``[K, 4]`` ``(x, y, width, height)`` boxes (K may be 0).

    Returns:
        The masked frames, same shape and dtype.
    """
    if frames.ndim != 4 or frames.shape[1] != 3:
        raise ValueError(f"od_mask needs RGB frames [N, 3, H, W], got shape {frames.shape}")
    if len(boxes) != frames.shape[0]:
        raise ValueError(f"od_mask got {len(boxes)} box lists for {frames.shape[0]} frames")
    grey = np.einsum("nchw,c->nhw", frames, _LUMA, dtype=np.float32)
    if frames.dtype == np.uint8:  # rounded once per pixel, before the three channels are made
        np.rint(grey, out=grey)  # within [0, 255]: the weights sum to 1
    out = np.empty_like(frames)
    out[:] = grey.astype(frames.dtype, copy=False)[:, None]
    h, w = frames.shape[2:]
    for i, frame_boxes in enumerate(boxes):
        for x, y, bw, bh in np.asarray(frame_boxes, dtype=np.int64).reshape(-1, 4):
            x0, y0 = max(int(x), 0), max(int(y), 0)
            x1, y1 = min(int(x + bw), w), min(int(y + bh), h)
            if x1 > x0 and y1 > y0:
                out[i, :, y0:y1, x0:x1] = frames[i, :, y0:y1, x0:x1]
    return out


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over union of every box in ``a`` ``[K, 4]`` with every box in ``b``
    ``[M, 4]`` (``(x, y, width, height)``): ``[K, M]``."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    ax1, ay1 = a[:, 0] + a[:, 2], a[:, 1] + a[:, 3]
    bx1, by1 = b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]
    iw = np.clip(np.minimum(ax1[:, None], bx1[None]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    ih = np.clip(np.minimum(ay1[:, None], by1[None]) - np.maximum(a[:, None, 1], b[None, :, 1]), 0, None)
    inter = iw * ih
    union = (a[:, 2] * a[:, 3])[:, None] + (b[:, 2] * b[:, 3])[None] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)
