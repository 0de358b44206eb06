"""What a replay video of a pixel game adds to the game's frames: the box of the object a
visual bug is about, and the level's map as an inset.

A visual bug names an object by its place on the map (the visual oracle's ``data``: ``x``,
``y`` and ``type``). In each replayed frame, the detections the ``detect`` wrapper published
are placed as the oracle places them (:func:`oracles.visual.place_of`: the box's bearing and
height from where the agent stands); the one of the bug's type nearest to the object's
place, within the scene's match radius, is the judged object, and gets a red box.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
from PIL import Image, ImageDraw

from evo.report.video_frames import BUG, TEXT
from oracles.visual import place_of

INSET_SHARE = 0.25
"""The map inset's width as a share of the frame's: the view stays the picture."""
NEAR = 256.0
"""Map units within which a detection is the bug's object where the scene gives no match radius."""


def bug_place(record: Mapping[str, Any]) -> tuple[float, float] | None:
    """The map place of the object a bug is about (a visual bug's ``data``), None for a bug
    that names no object."""
    data = record.get("data") or {}
    if not isinstance(data, Mapping) or not all(isinstance(data.get(k), (int, float)) for k in ("x", "y")):
        return None
    return float(data["x"]), float(data["y"])


def judged_box(record: Mapping[str, Any], detections: Any, features: np.ndarray, scene: Any,
               frame_width: int) -> tuple[int, int, int, int] | None:
    """The box ``(x, y, width, height)`` in this frame of the object the bug is about: the
    detection of its type placed nearest to its place; None where none is near.

    Args:
        record: The bug (``bugs.jsonl``'s line).
        detections: The frame's :class:`games.perception.base.Detections` (None: nothing detected).
        features: ``(x, y, angle)`` of the agent in this frame.
        scene: The game's :class:`games.core.scene.Scene` (types, camera, match radius).
        frame_width: Width in pixels of the frames the boxes are in.
    """
    place = bug_place(record)
    kind = (record.get("data") or {}).get("type")
    if place is None or detections is None or scene is None or scene.camera is None:
        return None
    names = [t.name for t in scene.types]
    kind_type = scene.type_named(kind) if isinstance(kind, str) else None
    if kind_type is None:
        return None
    near = scene.match_radius or NEAR
    best: tuple[float, tuple[int, int, int, int]] | None = None
    for box, index in zip(np.asarray(detections.boxes).reshape(-1, 4), np.asarray(detections.types)):
        if not 0 <= int(index) < len(names) or names[int(index)] != kind:
            continue
        x, y, _, _ = place_of(box, features, kind_type.height, frame_width, scene.camera)
        gap = math.hypot(x - place[0], y - place[1])
        if gap <= near and (best is None or gap < best[0]):
            best = (gap, tuple(int(v) for v in box))  # type: ignore[assignment]
    return None if best is None else best[1]


def draw_box(picture: np.ndarray, box: tuple[int, int, int, int], scale: int) -> np.ndarray:
    """``picture`` (a frame scaled up by ``scale``) with ``box`` (in the frame's pixels)
    outlined in the bug's red."""
    image = Image.fromarray(picture)
    x, y, w, h = (v * scale for v in box)
    ImageDraw.Draw(image).rectangle([x - 1, y - 1, x + w, y + h], outline=BUG, width=max(2, scale // 2))
    return np.asarray(image)


def with_inset(picture: np.ndarray, inset: np.ndarray) -> np.ndarray:
    """``picture`` with ``inset`` (the map) shrunk to :data:`INSET_SHARE` of its width in the
    top right corner, framed in the overlay's text colour."""
    width = max(1, int(picture.shape[1] * INSET_SHARE))
    height = max(1, round(inset.shape[0] * width / inset.shape[1]))
    small = np.asarray(Image.fromarray(inset).resize((width, height), Image.Resampling.BOX))
    out = picture.copy()
    h, w = min(height, out.shape[0] - 2), min(width, out.shape[1] - 2)
    x0 = out.shape[1] - w - 2
    out[: h + 2, x0 - 1:] = TEXT
    out[1:h + 1, x0:x0 + w] = small[:h, :w]
    return out
