"""A game's scene (:class:`games.core.scene.Scene`) as ``game.json`` keeps it, and back.

``game.json["scene"]``: ``types`` (name, height, width each), ``objects`` (id, type, x, y
each), ``camera`` (``hfov_degrees``, ``pixel_aspect``, ``frame_size``; null without one),
``preferred`` (a nested list of 0 and 1; null without one) and ``match_radius``. Run
directories written before 0.2 kept the park's objects and preferred area at the top of
``game.json``; ``evo migrate`` moves them here (:mod:`evo.run.migrate`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.core.scene import Camera, ObjectType, Scene, SceneObject


def scene_to_json(scene: Scene) -> dict[str, Any]:
    """``game.json["scene"]`` (see the module)."""
    camera = scene.camera
    return {
        "types": [{"name": t.name, "height": float(t.height), "width": float(t.width)} for t in scene.types],
        "objects": [{"id": int(o.id), "type": o.type, "x": float(o.x), "y": float(o.y)} for o in scene.objects],
        "camera": None if camera is None else {
            "hfov_degrees": float(camera.hfov_degrees), "pixel_aspect": float(camera.pixel_aspect),
            "frame_size": None if camera.frame_size is None else [int(v) for v in camera.frame_size],
            "tilt": [float(v) for v in camera.tilt], "tilt_range": [float(v) for v in camera.tilt_range],
        },
        "preferred": None if scene.preferred is None else np.asarray(scene.preferred).astype(np.uint8).tolist(),
        "match_radius": None if scene.match_radius is None else float(scene.match_radius),
    }


def _objects(entries: Any) -> tuple[SceneObject, ...]:
    return tuple(SceneObject(int(o["id"]), str(o["type"]), float(o["x"]), float(o["y"])) for o in entries or ())


def _preferred(grid: Any) -> np.ndarray | None:
    return None if grid is None else np.asarray(grid, dtype=bool)


def scene_from_json(facts: dict[str, Any]) -> Scene | None:
    """The scene of a ``game.json`` (its content ``facts``); None for a game without one."""
    data = facts.get("scene")
    if data is None:
        return None
    camera = data.get("camera")
    return Scene(
        types=tuple(ObjectType(str(t["name"]), float(t["height"]), float(t.get("width", 0.0)))
                    for t in data.get("types") or ()),
        objects=_objects(data.get("objects")),
        camera=None if camera is None else Camera(
            float(camera["hfov_degrees"]), float(camera.get("pixel_aspect", 1.0)),
            None if camera.get("frame_size") is None else tuple(int(v) for v in camera["frame_size"]),
            tuple(float(v) for v in camera.get("tilt") or ()),
            tuple(float(v) for v in camera.get("tilt_range") or (0.0, 0.0))),  # type: ignore[arg-type]
        preferred=_preferred(data.get("preferred")),
        match_radius=None if data.get("match_radius") is None else float(data["match_radius"]),
    )
