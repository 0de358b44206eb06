"""A game's scene in ``game.json``: written and read back whole; and the park's objects of
interest and preferred area in the shape run directories kept them before scenes (0.2): one
line naming ``evo migrate``, which moves them into a scene (objects and area; the ground truth
they also held stays in ``injected_bugs``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from evo.run.game_facts import GameFacts, read_game_facts
from evo.run.migrate import migrate
from evo.run.user_paths import ConfigError
from games.core.base import GameSpec
from games.core.scene import objects_with_bugs
from games.doom.park.layout import park_layout
from games.doom.park.scene import park_scene
from games.doom.park.truth import injected_bugs

OLD_PARK_RUN = Path(__file__).resolve().parents[2] / "data" / "park_run_before_scene"
SPEC = GameSpec((3, 120, 160), 9, ("x", "y", "angle"), (0.0, 0.0, 0.0), (2048.0, 2048.0, 360.0), (32, 32, 8), 60)


def test_a_scene_goes_into_game_json_and_comes_back_whole() -> None:
    layout = park_layout("small", 3)
    facts = GameFacts("doom_park()", SPEC, True, tuple(injected_bugs(layout.oois)), layout.blocked,
                      park_scene(layout, (160, 120)))
    back = GameFacts.from_json(json.loads(json.dumps(facts.to_json())))
    scene, again = facts.scene, back.scene
    assert (again.types, again.objects, again.camera, again.match_radius) == (
        scene.types, scene.objects, scene.camera, scene.match_radius)
    assert np.array_equal(again.preferred, scene.preferred) and again.camera.frame_size == (160, 120)
    assert GameFacts.from_json(GameFacts("maze", SPEC, False, (), None).to_json()).scene is None


def test_a_game_json_of_the_first_shape_is_migrated_into_a_scene(tmp_path: Path) -> None:
    old = json.loads((OLD_PARK_RUN / "game.json").read_text())
    assert "scene" not in old and old["objects"][0].keys() >= {"bugged", "bug"}
    run_dir = tmp_path / "run"
    shutil.copytree(OLD_PARK_RUN, run_dir)
    with pytest.raises(ConfigError, match=r"game.json: written before 0.2 .*; run evo migrate .* to move it$"):
        read_game_facts(run_dir)
    migrate(run_dir)
    facts = read_game_facts(run_dir)
    scene = facts.scene
    assert [(o.id, o.type, o.x, o.y) for o in scene.objects] == [
        (o["id"], o["type"], o["x"], o["y"]) for o in old["objects"]]
    assert np.array_equal(scene.preferred, np.asarray(old["preferred"], dtype=bool))
    # What it called bugged is what the injected bugs, located at the objects, say.
    assert sorted(objects_with_bugs(scene.objects, facts.injected)) == [o["id"] for o in old["objects"] if o["bugged"]]
