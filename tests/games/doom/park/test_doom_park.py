"""The generated park: the map loads and its things spawn where the layout put them, seeds
repeat byte for byte, the bugged sprites are degraded as their bug says, the labels name types
and never bugs, PPGTA's 9 actions do what they say, and both presets load."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

vizdoom = pytest.importorskip("vizdoom")

from games import GameFactory  # noqa: E402
from games.doom.engine import new_engine  # noqa: E402
from games.doom.park.doom_park import ACTIONS, VIEW, DoomPark, DoomParkVector, label_types  # noqa: E402
from games.doom.park.layout import (  # noqa: E402
    BUG_KINDS, CELL, OOI_TYPES, PATH, PRESETS, ROCK, TREES, park_layout,
)
from games.doom.park.wad import (  # noqa: E402
    LOWRES_FACTOR, STRETCH_FACTOR, bugged_sprite, decorate, degraded_sprites, park_wad_bytes,
    _freedoom_sprites,
)
from games.doom.wad import decode_picture, lumps_of  # noqa: E402

ACT = {name: k for k, name in enumerate(ACTIONS)}


def test_the_map_loads_and_every_thing_spawns_where_the_layout_put_it() -> None:
    game = DoomParkVector(1, level_seed=3)
    try:
        view = dataclasses.replace(VIEW, objects=True)
        engine = new_engine(game.settings, view=view)
        engine.new_episode()
        objects = engine.get_state().objects
        engine.close()
    finally:
        game.close()
    layout = game.layout
    types = label_types()
    spawned = Counter((types[o.name], round(o.position_x), round(o.position_y))
                      for o in objects if o.name in types)
    placed = Counter((o.type, round(o.x), round(o.y)) for o in layout.oois)
    assert spawned == placed and len(layout.oois) == 4 * PRESETS["small"].oois_per_type
    # The bugged ones spawn as their bugged actor (class names: ground truth, read here only).
    bugged = {(round(o.position_x), round(o.position_y)) for o in objects
              if o.name.endswith(("Lowres", "Stretched"))}
    assert bugged == {(round(o.x), round(o.y)) for o in layout.oois if o.bugged}
    trees = [o for o in objects if o.name in {name for name, _ in TREES}]
    assert len(trees) == len(layout.trees) > 0
    player = [o for o in objects if o.name == "DoomPlayer"]
    assert len(player) == 1
    assert (round(player[0].position_x), round(player[0].position_y)) == tuple(
        round(v) for v in layout.start[:2])


def test_oois_stand_beside_the_pathways_half_of_each_type_bugged() -> None:
    layout = park_layout("small", 0)
    for t in OOI_TYPES:
        mine = [o for o in layout.oois if o.type == t.name]
        assert sum(o.bugged for o in mine) == len(mine) // 2
        assert {o.bug for o in mine if o.bugged} == set(BUG_KINDS)
    terrain = layout.terrain
    for o in layout.oois:
        i, j = int(o.x // CELL), int(o.y // CELL)
        assert terrain[i, j] != PATH  # beside the pathway, not on it
        assert (terrain[i - 1: i + 2, j - 1: j + 2] == PATH).any()
    start = tuple(int(v // CELL) for v in layout.start[:2])
    assert layout.pathway[start]


def test_same_seed_same_wad_bytes_and_another_seed_another_park() -> None:
    a, b = park_layout("small", 5), park_layout("small", 5)
    assert park_wad_bytes(a) == park_wad_bytes(b)
    other = park_layout("small", 6)
    assert not np.array_equal(a.terrain, other.terrain)
    assert [(o.x, o.y) for o in a.oois] != [(o.x, o.y) for o in other.oois]
    assert park_wad_bytes(a) != park_wad_bytes(other)


def test_bugged_sprites_are_low_resolution_or_stretched_copies_of_freedoom_s() -> None:
    originals = _freedoom_sprites()
    made = dict(degraded_sprites())
    for t in OOI_TYPES:
        for frame in t.frames:
            src = decode_picture(originals[f"{t.sprite}{frame}0"])
            low = decode_picture(made[f"{bugged_sprite(t, 'lowres')}{frame}0"])
            wide = decode_picture(made[f"{bugged_sprite(t, 'stretched')}{frame}0"])
            # Low resolution: a quarter of the pixels each way, drawn 4 times larger.
            assert (low.width, low.height) == (-(-src.width // LOWRES_FACTOR),
                                               -(-src.height // LOWRES_FACTOR))
            # Stretched: twice as wide, as tall, every column of the original twice.
            assert (wide.width, wide.height) == (round(src.width * STRETCH_FACTOR), src.height)
            np.testing.assert_array_equal(wide.pixels[:, ::2], src.pixels)
            np.testing.assert_array_equal(wide.opaque[:, 1::2], src.opaque)
    # Every degraded sprite the DECORATE names is in the WAD (a missing one kills the engine).
    lumps = dict(lumps_of(park_wad_bytes(park_layout("small", 0))))
    text = decorate()
    for t in OOI_TYPES:
        for bug in BUG_KINDS:
            assert f"{bugged_sprite(t, bug)} {t.frames}" in text
            assert all(f"{bugged_sprite(t, bug)}{f}0" in lumps for f in t.frames)
    assert f"Scale {LOWRES_FACTOR}" in text


def test_labels_name_the_type_and_never_the_bug() -> None:
    env = DoomPark(level_seed=0, max_steps=60)
    try:
        env.reset(seed=0)
        seen = list(env.visible)
        for a in np.random.default_rng(0).integers(len(ACTIONS), size=40):
            env.step(int(a))
            seen += env.visible
        oois = env.oois
    finally:
        env.close()
    assert seen, "the start looks at no OOI"
    names = {t.name for t in OOI_TYPES}
    assert {v.type for v in seen} <= names
    assert all(oois[v.ooi].type == v.type for v in seen)  # boxed as what it is
    assert any(oois[v.ooi].bugged for v in seen) and any(not oois[v.ooi].bugged for v in seen)
    text = repr(seen)
    assert "Lowres" not in text and "Stretched" not in text and "Park" not in text
    for v in seen:
        x, y, w, h = v.box
        assert 0 <= x and 0 <= y and x + w <= 160 and y + h <= 120 and w * h > 0


def test_the_nine_actions_move_turn_look_and_jump() -> None:
    game = DoomParkVector(1, level_seed=0, max_steps=50)
    try:
        obs0, f0 = game.reset([0])
        forward = game.step(np.array([ACT["forward"]]))
        heading = np.radians(f0[0, 2])
        moved = forward.features[0, :2] - f0[0, :2]
        assert moved @ np.array([np.cos(heading), np.sin(heading)]) > 5  # the first step moves
        turned = game.step(np.array([ACT["turn_left"]])).features[0, 2]
        assert (turned - f0[0, 2]) % 360 == pytest.approx(30, abs=1)
        before = game.step(np.array([ACT["turn_right"]])).obs[0]
        engine = game.copies[0].game  # height and pitch: no feature, asked of the engine
        up = game.step(np.array([ACT["look_up"]])).obs[0]
        assert engine.get_game_variable(vizdoom.GameVariable.PITCH) < -5  # Doom: negative is up
        assert not np.array_equal(up, before)
        game.step(np.array([ACT["look_down"]]))
        assert engine.get_game_variable(vizdoom.GameVariable.PITCH) == pytest.approx(0, abs=1)
        game.step(np.array([ACT["jump"]]))
        assert engine.get_game_variable(vizdoom.GameVariable.POSITION_Z) > 10
    finally:
        game.close()


def test_same_seed_and_actions_give_the_same_frames() -> None:
    actions = np.random.default_rng(1).integers(len(ACTIONS), size=30)

    def play() -> tuple[np.ndarray, np.ndarray]:
        game = DoomParkVector(1, level_seed=2, max_steps=30)
        try:
            obs, feats = game.reset([4])
            frames, features = [obs[0]], [feats[0]]
            for a in actions:
                step = game.step(np.array([a]))
                frames.append(step.obs[0])
                features.append(step.features[0])
            assert step.truncated[0]
        finally:
            game.close()
        return np.array(frames), np.array(features)

    (f1, p1), (f2, p2) = play(), play()
    np.testing.assert_array_equal(f1, f2)
    np.testing.assert_array_equal(p1, p2)
    assert f1.dtype == np.uint8 and f1.shape[1:] == (3, 120, 160) and f1.max() > f1.min()


def test_the_scene_camera_says_how_the_look_actions_tilt_the_view_and_where_it_stops() -> None:
    game = DoomParkVector(1, level_seed=0, max_steps=50)
    try:
        game.reset([0])
        camera, engine = game.scene.camera, game.copies[0].game
        tilt, estimate = np.array(camera.tilt), 0.0
        assert np.count_nonzero(tilt) == 2  # only looking up and down tilt the view
        for action in ["look_up"] * 6 + ["look_down"] * 12 + ["look_up"] * 2:  # past both stops
            game.step(np.array([ACT[action]]))
            estimate = float(np.clip(estimate + tilt[ACT[action]], *camera.tilt_range))
            assert engine.get_game_variable(vizdoom.GameVariable.PITCH) == pytest.approx(estimate, abs=0.5)
        assert estimate == camera.tilt_range[1] - 16  # it stopped down, then looked up twice
    finally:
        game.close()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_both_presets_load_with_their_map(preset: str) -> None:
    factory = GameFactory(name="doom_park", kwargs=(("max_steps", 5), ("preset", preset)))
    game = factory.make_vector(1)
    try:
        spec = game.game_spec
        obs, feats = game.reset([0])
        for _ in range(5):
            step = game.step(np.array([ACT["forward"]]))
        walls = game.render_map()
    finally:
        game.close()
    size = PRESETS[preset].size
    assert spec.feature_high[:2] == (size, size) and spec.feature_bins[:2] == (size // CELL,) * 2
    assert spec.n_actions == 9 and spec.obs_shape == (3, 120, 160) and obs.shape == (1, 3, 120, 160)
    assert walls.shape == spec.feature_bins[:2] and walls.sum() == (game.layout.terrain == ROCK).sum()
    assert walls[tuple(spec.buckets(step.features[0])[:2])] == 0
    assert step.truncated[0] and not step.errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "huge"}, "preset must be one of small, large, got 'huge'"),
        ({"level_seed": -1}, "level_seed must be a non-negative integer"),
        ({"level_seed": 1.5}, "level_seed must be a non-negative integer"),
        ({"resolution": "123x45"}, "resolution '123x45' is not a ViZDoom resolution"),
        ({"max_steps": 0}, "max_steps must be positive"),
        ({"labels": "yes"}, "labels must be true or false"),
    ],
)
def test_bad_kwargs_say_what_is_wrong(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DoomParkVector(1, **kwargs)
