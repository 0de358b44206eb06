"""What the park's frames show, as the game contract's scene (:mod:`games.core.scene`).

The camera is ViZDoom's and the object types' sizes are the park's decorations as that
camera draws them: the numbers the visual oracle places boxed objects with, measured here once
(``benchmarks/visual_oracle.py``). The scene carries the OOIs' places and the pathways, never
which OOIs are bugged: that is :mod:`games.doom.park.truth` (``injected_bugs``, located at the
OOI each is on).
"""

from __future__ import annotations

from games.core.scene import Camera, ObjectType, Scene, SceneObject
from games.doom.park.layout import OOI_TYPES, ParkLayout
from games.doom.park.truth import MATCH_RADIUS

__all__ = ["HFOV_DEGREES", "OBJECT_HEIGHTS", "OBJECT_TYPES", "OBJECT_WIDTH", "PIXEL_ASPECT", "TILT_RANGE",
           "park_camera", "park_scene"]

HFOV_DEGREES = 90.0
"""ViZDoom's horizontal field of view at a 4:3 resolution (the ``fov`` 90 default; fitted
from box centres against the OOIs' true bearings: 89.9 degrees at 160x120)."""
PIXEL_ASPECT = 1.2
"""Doom draws a map unit 1.2 times taller than wide (its 320x200 heritage): a box's height is
``PIXEL_ASPECT * focal * object height / depth`` (fitted: 1.20 at 160x120)."""
OBJECT_HEIGHTS: dict[str, float] = {"barrel": 32.0, "pillar": 56.2, "stump": 67.9, "lamp": 79.1}
"""Map units each OOI type stands in the frame (box height x depth fitted over 5,000 boxes of
level 1 and divided by ``PIXEL_ASPECT * focal``; a bugged copy is drawn as tall)."""
OBJECT_WIDTH = 32.0
"""Map units an OOI spans across (a pillar or a barrel): how far a close view's place may be
from the object's, however near the view."""
OBJECT_TYPES: tuple[ObjectType, ...] = tuple(ObjectType(t.name, OBJECT_HEIGHTS[t.name], OBJECT_WIDTH)
                                             for t in OOI_TYPES)
"""The OOI types in :data:`games.doom.park.layout.OOI_TYPES`' order (the detector's)."""


TILT_RANGE = (-32.0, 56.0)
"""Where ZDoom stops the view's tilt: 32 degrees up, 56 down (ViZDoom's ``PITCH``, measured
on the park by looking up and down past both ends)."""


def park_camera(frame_size: tuple[int, int] | None = None, tilt: tuple[float, ...] = ()) -> Camera:
    """ViZDoom's camera over frames of ``(width, height)`` pixels; ``tilt``: per action, the
    degrees it tilts the view (positive down), as the park's look actions hold their button."""
    return Camera(HFOV_DEGREES, PIXEL_ASPECT, frame_size, tilt, TILT_RANGE if any(tilt) else (0.0, 0.0))


def park_scene(layout: ParkLayout, frame_size: tuple[int, int] | None = None,
               tilt: tuple[float, ...] = ()) -> Scene:
    """The scene of a park: its OOIs where they stand, their types, the camera, the pathways
    (the preferred area) and the radius within which a report names an OOI."""
    objects = tuple(SceneObject(o.id, o.type, o.x, o.y) for o in layout.oois)
    return Scene(OBJECT_TYPES, objects, park_camera(frame_size, tilt), layout.pathway, MATCH_RADIUS)
