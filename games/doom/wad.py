"""Doom's archive and picture formats in numpy and ``struct``: WAD lumps and sprite pictures.

A WAD is a 12-byte header (``IWAD`` or ``PWAD``, lump count, directory offset), the lumps'
bytes, and a directory of 16-byte entries (offset, size, 8-byte name). A picture (the format
of sprites and wall patches) is a header (width, height, left and top offset), one offset per
column, and per column a list of posts: runs of opaque palette indices, each ``(top, length,
pad, pixels..., pad)``, the column ending with ``0xFF``. The offsets place the picture on
the thing: ``left`` pixels left of its centre and ``top`` pixels above its feet.

Used by :mod:`games.doom.park.wad` to read Freedoom's sprites and write degraded copies of them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

_ENTRY = struct.Struct("<ii8s")
_POST_MAX = 254
"""Longest post and highest top a column's one-byte fields can hold (``0xFF`` ends a column)."""


def read_lumps(path: str) -> list[tuple[str, bytes]]:
    """Every lump of the WAD at ``path``, in directory order, as ``(NAME, bytes)``.

    Raises:
        ValueError: the file is not a WAD.
    """
    with open(path, "rb") as f:
        return lumps_of(f.read(), path)


def lumps_of(data: bytes, source: str = "data") -> list[tuple[str, bytes]]:
    """Every lump of the WAD ``data`` (read from ``source``), as :func:`read_lumps` gives them."""
    if len(data) < 12 or data[:4] not in (b"IWAD", b"PWAD"):
        raise ValueError(f"{source!r} is not a WAD file")
    count, offset = struct.unpack_from("<ii", data, 4)
    lumps = []
    for i in range(count):
        pos, size, raw = _ENTRY.unpack_from(data, offset + 16 * i)
        name = raw.rstrip(b"\0").decode("ascii", "replace").upper()
        lumps.append((name, data[pos: pos + size]))
    return lumps


def write_pwad(lumps: list[tuple[str, bytes]]) -> bytes:
    """A PWAD holding ``lumps`` in order (names up to 8 ASCII characters)."""
    body = bytearray()
    entries = []
    for name, data in lumps:
        raw = name.upper().encode("ascii")
        if not raw or len(raw) > 8:
            raise ValueError(f"lump name {name!r} must be 1 to 8 characters")
        entries.append(_ENTRY.pack(12 + len(body) if data else 0, len(data), raw))
        body += data
    header = struct.pack("<4sii", b"PWAD", len(lumps), 12 + len(body))
    return header + bytes(body) + b"".join(entries)


@dataclass(frozen=True, eq=False)
class Picture:
    """A decoded Doom picture.

    Attributes:
        pixels: ``[height, width]`` uint8 palette indices (0 where transparent).
        opaque: ``[height, width]`` bool, True where a post covers the pixel.
        left: Pixels from the picture's left edge to the thing's centre.
        top: Pixels from the picture's top edge to the thing's feet.
    """

    pixels: np.ndarray
    opaque: np.ndarray
    left: int
    top: int

    @property
    def width(self) -> int:
        return int(self.pixels.shape[1])

    @property
    def height(self) -> int:
        return int(self.pixels.shape[0])


def decode_picture(data: bytes) -> Picture:
    """Read a picture lump.

    Raises:
        ValueError: the lump is not a well-formed picture.
    """
    if len(data) < 8:
        raise ValueError("picture lump shorter than its header")
    width, height, left, top = struct.unpack_from("<HHhh", data, 0)
    if len(data) < 8 + 4 * width:
        raise ValueError("picture lump shorter than its column table")
    pixels = np.zeros((height, width), dtype=np.uint8)
    opaque = np.zeros((height, width), dtype=bool)
    for x, pos in enumerate(struct.unpack_from(f"<{width}I", data, 8)):
        while pos < len(data) and data[pos] != 0xFF:
            row, length = data[pos], data[pos + 1]
            run = np.frombuffer(data, dtype=np.uint8, count=length, offset=pos + 3)
            end = min(row + length, height)
            pixels[row:end, x] = run[: end - row]
            opaque[row:end, x] = True
            pos += length + 4
    return Picture(pixels, opaque, int(left), int(top))


def encode_picture(picture: Picture) -> bytes:
    """Write ``picture`` as a picture lump (heights up to 254 pixels).

    Raises:
        ValueError: the picture is taller than one-byte post offsets can address.
    """
    height, width = picture.pixels.shape
    if height > _POST_MAX:
        raise ValueError(f"picture of height {height} is taller than {_POST_MAX} pixels")
    columns = []
    for x in range(width):
        col = bytearray()
        mask = np.concatenate([[False], picture.opaque[:, x], [False]])
        edges = np.flatnonzero(mask[1:] != mask[:-1])
        for start, stop in zip(edges[::2], edges[1::2]):
            run = picture.pixels[start:stop, x].tobytes()
            col += bytes([start, stop - start, 0]) + run + b"\0"
        columns.append(bytes(col) + b"\xff")
    offsets, pos = [], 8 + 4 * width
    for col in columns:
        offsets.append(pos)
        pos += len(col)
    header = struct.pack(f"<HHhh{width}I", width, height, picture.left, picture.top, *offsets)
    return header + b"".join(columns)


def low_resolution(picture: Picture, factor: int) -> Picture:
    """The picture sampled every ``factor`` pixels: ``factor`` times fewer in each direction.

    Each new pixel is the centre pixel of its ``factor x factor`` block (palette indices do
    not average); drawn ``factor`` times larger (DECORATE ``Scale``) it covers the same place
    in blocks, as a texture loaded at a low mip level does.
    """
    k = int(factor)
    rows = np.minimum(np.arange(0, picture.height, k) + k // 2, picture.height - 1)
    cols = np.minimum(np.arange(0, picture.width, k) + k // 2, picture.width - 1)
    pixels = picture.pixels[np.ix_(rows, cols)]
    opaque = picture.opaque[np.ix_(rows, cols)]
    return Picture(pixels.copy(), opaque.copy(), round(picture.left / k), round(picture.top / k))


def stretched(picture: Picture, factor: float) -> Picture:
    """The picture stretched ``factor`` times along x (nearest pixel), its feet in place:
    the texture spread over a wider shape, as a wrongly scaled texture map draws it."""
    width = max(1, round(picture.width * factor))
    cols = np.minimum((np.arange(width) / factor).astype(np.int64), picture.width - 1)
    return Picture(picture.pixels[:, cols].copy(), picture.opaque[:, cols].copy(),
                   round(picture.left * factor), picture.top)
