"""The park's WAD: its UDMF map, the texture-bugged decorations and where the file is kept.

The PWAD holds ``MAP01`` (``TEXTMAP`` from :mod:`games.doom.udmf`), a ``DECORATE`` lump declaring
one actor per OOI type and bug kind, and those actors' sprites between ``S_START`` and
``S_END``: Freedoom's own sprite of the decoration, degraded (:mod:`games.doom.wad`). Each bugged
actor inherits its decoration (same size, same solidity, same class family) and only shows
another picture. It is loaded on top of ``freedoom2.wad``, whose sky, flats, textures and
decorations it uses.

The engine dies (SIGSEGV) on a DECORATE that names a missing sprite, so every frame a state
names is written before the DECORATE that names it, and a frame missing from Freedoom is a
``ValueError`` here, before any engine starts.

WADs are written once per content into a cache folder (``<tmp>/evo_doom_park``), named by
preset, seed and a hash of the bytes: the same preset and seed give the same bytes, so
processes that build the same park share one file, and a changed generator never reuses a
stale one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from games.doom.engine import vizdoom_module
from games.doom.park.layout import (
    BUG_KINDS, CELL, GRASS, OOI_TYPES, PATH, ROCK, WATER, OOIType, ParkLayout,
)
from games.doom.udmf import SectorStyle, Thing, grid_textmap
from games.doom.wad import decode_picture, encode_picture, low_resolution, read_lumps, stretched, write_pwad

MAP_NAME = "MAP01"
"""The map's lump: Freedoom 2's MAPINFO gives MAP01 its sky (``SKY1``)."""
LOWRES_FACTOR = 4
"""A low-resolution sprite keeps one pixel in 4 x 4 and is drawn 4 times larger."""
STRETCH_FACTOR = 2.0
"""A stretched sprite is drawn twice as wide as the original."""
EDNUM_BASE = 20000
"""Editor numbers of the bugged actors: ``EDNUM_BASE + 2 * type + bug kind`` (free in
Freedoom and ZDoom, which stop below 10000 outside a few ranges)."""
PLAYER_START = 1
SKY_HEIGHT = 192
"""Ceiling height under the sky: the border walls rise this high."""

STYLES: dict[int, SectorStyle] = {
    GRASS: SectorStyle(0, SKY_HEIGHT, "GRASS1", "F_SKY1", 192),
    PATH: SectorStyle(0, SKY_HEIGHT, "FLAT5_4", "F_SKY1", 192),
    # Rocks: 96 units, over the player's reach even with a jump (a step is 24, a jump ~40).
    ROCK: SectorStyle(96, SKY_HEIGHT, "RROCK11", "F_SKY1", 176, side="ROCK1"),
    # Ponds: shallow (8 units), so the player wades in and out.
    WATER: SectorStyle(-8, SKY_HEIGHT, "FWATER1", "F_SKY1", 176, side="ROCK3"),
}
BORDER_WALL = "ROCK3"

_TYPE_LETTER = {"barrel": "B", "pillar": "P", "stump": "S", "lamp": "L"}


def bugged_actor(ooi_type: OOIType, bug: str) -> str:
    """The DECORATE class of ``ooi_type`` with texture bug ``bug`` (ground truth only)."""
    return f"Park{ooi_type.name.capitalize()}{bug.capitalize()}"


def bugged_ednum(ooi_type: OOIType, bug: str) -> int:
    """The editor number of :func:`bugged_actor`."""
    return EDNUM_BASE + 2 * OOI_TYPES.index(ooi_type) + BUG_KINDS.index(bug)


def bugged_sprite(ooi_type: OOIType, bug: str) -> str:
    """The four-letter sprite name of :func:`bugged_actor`'s pictures."""
    return f"PK{_TYPE_LETTER[ooi_type.name]}{bug[0].upper()}"


def freedoom_path() -> str:
    """``freedoom2.wad`` as shipped in the vizdoom package (the park's IWAD)."""
    return str(Path(vizdoom_module().__file__).parent / "freedoom2.wad")


@lru_cache(maxsize=1)
def _freedoom_sprites() -> dict[str, bytes]:
    """Freedoom 2's sprite lumps by name (those between ``S_START`` and ``S_END``)."""
    sprites, inside = {}, False
    for name, data in read_lumps(freedoom_path()):
        if name in ("S_START", "SS_START"):
            inside = True
        elif name in ("S_END", "SS_END"):
            inside = False
        elif inside:
            sprites[name] = data
    return sprites


def degraded_sprites() -> list[tuple[str, bytes]]:
    """Every bugged actor's pictures, as ``(lump name, picture bytes)``.

    Raises:
        ValueError: a frame of a decoration is missing from Freedoom.
    """
    originals = _freedoom_sprites()
    out = []
    for t in OOI_TYPES:
        for frame in t.frames:
            name = f"{t.sprite}{frame}0"
            if name not in originals:
                raise ValueError(f"freedoom2.wad has no sprite {name} for the {t.name} OOI")
            picture = decode_picture(originals[name])
            for bug in BUG_KINDS:
                copy = (low_resolution(picture, LOWRES_FACTOR) if bug == "lowres"
                        else stretched(picture, STRETCH_FACTOR))
                out.append((f"{bugged_sprite(t, bug)}{frame}0", encode_picture(copy)))
    return out


def decorate() -> str:
    """The DECORATE lump: per OOI type and bug kind, an actor inheriting the decoration whose
    spawn state shows the degraded sprite with the original's frames and timing."""
    blocks = []
    for t in OOI_TYPES:
        for bug in BUG_KINDS:
            scale = f"  Scale {LOWRES_FACTOR}\n" if bug == "lowres" else ""
            bright = " Bright" if t.bright else ""
            end = "Stop" if t.tics < 0 else "Loop"
            blocks.append(
                f"actor {bugged_actor(t, bug)} : {t.actor} {bugged_ednum(t, bug)}\n{{\n{scale}"
                f"  States\n  {{\n  Spawn:\n    {bugged_sprite(t, bug)} {t.frames} {t.tics}{bright}\n"
                f"    {end}\n  }}\n}}\n"
            )
    return "\n".join(blocks)


def park_things(layout: ParkLayout) -> list[Thing]:
    """The player start, the OOIs (bugged ones as their bugged actor) and the trees."""
    by_name = {t.name: t for t in OOI_TYPES}
    things = [Thing(PLAYER_START, layout.start[0], layout.start[1], int(layout.start[2]))]
    for o in layout.oois:
        t = by_name[o.type]
        things.append(Thing(bugged_ednum(t, o.bug) if o.bugged else t.ednum, o.x, o.y))
    things += [Thing(ednum, x, y) for _, ednum, x, y in layout.trees]
    return things


def park_wad_bytes(layout: ParkLayout) -> bytes:
    """The park's PWAD (deterministic: the same layout gives the same bytes)."""
    textmap = grid_textmap(layout.terrain, CELL, STYLES, BORDER_WALL, park_things(layout))
    return write_pwad([
        (MAP_NAME, b""),
        ("TEXTMAP", textmap.encode("ascii")),
        ("ENDMAP", b""),
        ("DECORATE", decorate().encode("ascii")),
        ("S_START", b""),
        *degraded_sprites(),
        ("S_END", b""),
    ])


def cache_dir() -> Path:
    """Where park WADs are kept (``<tmp>/evo_doom_park``)."""
    return Path(tempfile.gettempdir()) / "evo_doom_park"


def park_wad_path(layout: ParkLayout) -> str:
    """The path of the park's PWAD, written on first use (atomically: processes building the
    same park at once each write a whole file and rename it into place)."""
    data = park_wad_bytes(layout)
    digest = hashlib.sha256(data).hexdigest()[:16]
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"park-{layout.preset}-seed{layout.seed}-{digest}.wad"
    if not path.is_file():
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; any process may load the park
        os.replace(tmp, path)
    return str(path)
