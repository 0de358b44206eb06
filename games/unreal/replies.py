"""UnrealCV's replies as numbers and arrays: poses, colours, PNG frames, npy depth, boxes.

Formats, from the plugin's sources (``shared/ANCHORS.md``): locations and rotations are
``"%.3f %.3f %.3f"``; an object's mask colour is ``(R=..,G=..,B=..,A=..)``; ``lit`` and
``object_mask`` in ``png`` are RGBA PNGs; ``depth`` in ``npy`` is float32 written by cnpy.
"""

from __future__ import annotations

import io
import re

import cv2
import numpy as np

_COLOR = re.compile(r"\(R=(\d+),\s*G=(\d+),\s*B=(\d+)(?:,\s*A=(\d+))?\)")
MASK_TOLERANCE = 3
"""How far (per channel) a mask pixel may be from an object's reported colour and still be
that object: a PNG keeps colours exact, but a game's post-processing may shift them by one or
two levels."""


def text(reply: str | bytes, what: str) -> str:
    """A reply that must be text."""
    if not isinstance(reply, str):
        raise ValueError(f"{what}: expected text, got {len(reply)} bytes")
    return reply


def triple(reply: str | bytes, what: str) -> tuple[float, float, float]:
    """Three numbers, as a location or rotation reply gives them."""
    parts = text(reply, what).split()
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3:
        raise ValueError(f"{what}: expected three numbers, got {reply!r}")
    return values  # type: ignore[return-value]


def last_number(reply: str | bytes, what: str) -> float:
    """The number a reply ends with (``"12.5"``, ``"frame 12.5"``)."""
    parts = text(reply, what).split()
    try:
        return float(parts[-1])
    except (IndexError, ValueError):
        raise ValueError(f"{what}: expected a reply ending in a number, got {reply!r}") from None


def color(reply: str | bytes, what: str) -> tuple[int, int, int]:
    """An object's mask colour."""
    match = _COLOR.fullmatch(text(reply, what).strip())
    if match is None:
        raise ValueError(f"{what}: expected (R=..,G=..,B=..,A=..), got {reply!r}")
    return int(match[1]), int(match[2]), int(match[3])


def image(reply: str | bytes, what: str) -> np.ndarray:
    """``[H, W, 3]`` uint8 RGB of a PNG reply (the alpha channel is dropped)."""
    if isinstance(reply, str):
        raise ValueError(f"{what}: expected a PNG, got {reply[:80]!r}")
    img = cv2.imdecode(np.frombuffer(reply, dtype=np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError(f"{what}: the reply is not a colour PNG")
    return cv2.cvtColor(img, cv2.COLOR_BGRA2RGB if img.shape[2] == 4 else cv2.COLOR_BGR2RGB)


def depth(reply: str | bytes, what: str) -> np.ndarray:
    """``[H, W]`` float32 of an ``npy`` reply (``[H, W, 1]`` is squeezed)."""
    if isinstance(reply, str):
        raise ValueError(f"{what}: expected npy, got {reply[:80]!r}")
    try:
        arr = np.load(io.BytesIO(reply), allow_pickle=False)
    except ValueError as exc:
        raise ValueError(f"{what}: the reply is not npy ({exc})") from None
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    if arr.ndim != 2:
        raise ValueError(f"{what}: expected a 2-D depth array, got shape {arr.shape}")
    return arr.astype(np.float32, copy=False)


def object_boxes(mask: np.ndarray, colors: dict[str, tuple[int, int, int]]) -> dict[str, tuple[int, int, int, int]]:
    """The box ``(x0, y0, x1, y1)`` (inclusive pixels) of every object the mask shows.

    What a trained detector gives on the park, here from the game itself: each object is
    painted in its own colour in ``object_mask`` and ``vget /object/NAME/color`` names it.
    """
    out: dict[str, tuple[int, int, int, int]] = {}
    signed = mask.astype(np.int16)
    for name, rgb in colors.items():
        hit = np.all(np.abs(signed - np.asarray(rgb, dtype=np.int16)) <= MASK_TOLERANCE, axis=-1)
        if hit.any():
            rows = np.flatnonzero(hit.any(axis=1))
            cols = np.flatnonzero(hit.any(axis=0))
            out[name] = (int(cols[0]), int(rows[0]), int(cols[-1]), int(rows[-1]))
    return out
