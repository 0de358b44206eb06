"""What a game may say about the world its frames show: its scene (optional, duck-typed).

A game whose agents look at things (the park's barrels and lamps) says what those things are
through a ``scene`` attribute, a :class:`Scene` (:class:`games.core.base.Game`): the types of
its objects of interest and how tall and wide each stands, where every object is, the camera
that draws them, and the area a tester prefers to walk. The engine keeps it in the run
directory's ``game.json`` and hands it to the components that read it
(:attr:`games.core.component.Context.scene`): the visual oracle places what a detector boxed from
the camera and the types' heights, the objects oracle counts the objects seen and tested,
and ``evo report`` draws the scene from above.

A scene holds no ground truth. Which objects are bugged is the game's ``injected_bugs``: an
injected bug is *on* the object that stands where it is located (the first two numbers of
:attr:`games.core.base.InjectedBug.location` are the object's ``x, y``), and
:func:`objects_with_bugs` says which. Places are in the units of the game's first two state
features (the map position), so an agent's features and an object's place compare directly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np


@dataclass(frozen=True)
class ObjectType:
    """A kind of object of interest, as the game's camera draws it.

    Attributes:
        name: What a detector calls it (and a visual report's ``data["type"]``).
        height: Map units it stands in the frame: a box ``h`` pixels tall shows it at depth
            ``camera.pixel_aspect * focal * height / h``.
        width: Map units it spans across: how far a close view's estimate of its place may be
            off however near the view.
    """

    name: str
    height: float
    width: float = 0.0


@dataclass(frozen=True)
class SceneObject:
    """One object of interest where it stands.

    Attributes:
        id: Unique within the scene (what ``info.visible`` names and tables key on).
        type: The :attr:`ObjectType.name` of its type.
        x: Place along the first state feature.
        y: Place along the second state feature.
    """

    id: int
    type: str
    x: float
    y: float


@dataclass(frozen=True)
class Camera:
    """What the game's frames are seen through.

    Attributes:
        hfov_degrees: Horizontal field of view of a frame.
        pixel_aspect: How many times taller than wide the camera draws a map unit (1: square).
        frame_size: ``(width, height)`` of the frames it renders, None when not fixed.
        tilt: Per action, degrees the action tilts the view, positive down (empty: no action
            tilts it). An agent that hands over to a policy demonstrated with a level view
            (the tester's object tests) levels it first by undoing its own tilt.
        tilt_range: Where the tilt stops: ``(up, down)``, the most up (negative) and down.
    """

    hfov_degrees: float
    pixel_aspect: float = 1.0
    frame_size: tuple[int, int] | None = None
    tilt: tuple[float, ...] = ()
    tilt_range: tuple[float, float] = (0.0, 0.0)

    def focal(self, frame_width: int) -> float:
        """Pixels from the eye to a frame ``frame_width`` pixels wide."""
        return (frame_width / 2.0) / math.tan(math.radians(self.hfov_degrees / 2.0))


@dataclass(frozen=True, eq=False)
class Scene:
    """A game's objects of interest, their types, its camera and its preferred area.

    Every part is optional: a game with a camera and no objects, or objects and no camera,
    gives what it has, and a component that needs a missing part says so in one line when
    it is built.

    Attributes:
        types: The object types, in the order a detector indexes them.
        objects: Every object of interest.
        camera: The camera, None when the game renders no frames.
        preferred: The tester's preferred area (the park's pathways): 2-D bool indexed by
            the buckets of the first two state features, like ``render_map``; None without.
        match_radius: Map units within which a report's place names an object (the game's
            ``match`` uses the same for its bugged ones); None: any distance.
    """

    types: tuple[ObjectType, ...] = ()
    objects: tuple[SceneObject, ...] = ()
    camera: Camera | None = None
    preferred: np.ndarray | None = None
    match_radius: float | None = None

    def type_named(self, name: str) -> ObjectType | None:
        """The type called ``name``, None when the scene has none of that name."""
        return next((t for t in self.types if t.name == name), None)


def report_place(bug: Any) -> tuple[str, float, float] | None:
    """``(type, x, y)`` a visual report names in its ``data`` (the object it is about);
    None for any other kind of bug, or a visual report that names no type or place."""
    if getattr(bug, "kind", None) != "visual":
        return None
    data = getattr(bug, "data", None) or {}
    try:
        x, y = float(data["x"]), float(data["y"])
    except (KeyError, TypeError, ValueError):
        return None
    kind = data.get("type")
    if not isinstance(kind, str) or not (math.isfinite(x) and math.isfinite(y)):
        return None
    return kind, x, y


def object_near(objects: Sequence[Any], type_: str, x: float, y: float,
                within: float | None = None) -> Any | None:
    """The object of ``type_`` nearest to ``(x, y)``, within ``within`` map units (None: any
    distance); None when there is none. Ties go to the one listed first. ``objects``: anything
    with ``type``, ``x`` and ``y`` (:class:`SceneObject`, a game's own records)."""
    best: Any | None = None
    best_d = math.inf if within is None else float(within)
    for o in objects:
        if o.type != type_:
            continue
        d = math.hypot(o.x - x, o.y - y)
        if d <= best_d and (best is None or d < best_d):
            best, best_d = o, d
    return best


def objects_with_bugs(objects: Sequence[SceneObject], injected: Sequence[Any]) -> dict[int, Any]:
    """Object id -> the injected bug on it (located at its place; see the module), for the
    objects that have one."""
    at = {(float(o.x), float(o.y)): o.id for o in objects}
    on: dict[int, Any] = {}
    for bug in injected:
        location = tuple(getattr(bug, "location", ()))[:2]
        k = at.get(tuple(float(v) for v in location)) if len(location) == 2 else None
        if k is not None:
            on.setdefault(k, bug)
    return on
