"""An Unreal game over UnrealCV, against a server that speaks the plugin's wire protocol
(tests/games/unreal/server.py): Gymnasium conformance, seeded episodes that repeat, the vector
form agreeing with the scalar one, the frames, masks, boxes and depth the world really shows,
the action table, resets, frame times, and one-line errors for a wrong YAML."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from games import GameFactory, VectorGame
import games.unreal.connection as connection
from games.unreal.unreal_game import UnrealGame, UnrealVector
from tests.games.unreal.server import UnrealCVServer, serve_block
from tests.games.unreal.world import FRAME_MS, SLOW_S, World

START = [[100, 100, 150], [600, 100, 150, 0, 90, 0]]
# Default actions: 0 forward (+x), 1 back, 2 left (-y), 3 right (+y), 4 turn left, 5 turn right.
KW = {"width": 32, "height": 24, "starts": START[:1], "request_timeout_s": 2.0, "connect_timeout_s": 2.0}


@pytest.fixture
def server():
    s = UnrealCVServer().start()
    yield s
    s.die()


def episode(game: VectorGame, seed: int, actions: list[int]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    obs, features = game.reset([seed])
    observations, states = [obs[0]], [features[0]]
    for a in actions:
        out = game.step(np.array([a]))
        assert not out.errors, out.errors
        observations.append(out.obs[0])
        states.append(out.features[0])
    return observations, states


def test_passes_gymnasium_check_env(server: UnrealCVServer) -> None:
    env = UnrealGame(port=server.port, **KW)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_registered_with_its_vector_form_and_copies_on_their_own_ports() -> None:
    servers = serve_block(2)
    try:
        factory = GameFactory(name="unreal", kwargs=tuple({**KW, "port": servers[0].port, "max_steps": 5}.items()))
        game = factory.make_vector(2)
        try:
            assert isinstance(game, UnrealVector) and isinstance(game, VectorGame)
            spec = game.game_spec
            assert spec.obs_shape == (3, 24, 32) and spec.obs_dtype == "uint8" and spec.n_actions == 6
            assert spec.feature_names == ("x", "y", "z", "pitch", "yaw", "roll") and spec.max_steps == 5
            game.reset([0, 1])
            out = game.step(np.array([0, 3]))
            assert not out.errors
            np.testing.assert_allclose(out.features[:, :2], [[200, 100], [100, 200]])
        finally:
            game.close()
        # Each copy played its own game: both servers saw the handshake's command list request.
        assert all("vget /unrealcv/commands" in s.requests for s in servers)
        assert [s.world.location[:2] for s in servers] == [(200.0, 100.0), (100.0, 200.0)]
    finally:
        for s in servers:
            s.die()


def test_same_seed_and_actions_give_the_same_episode_in_both_forms(server: UnrealCVServer) -> None:
    actions = np.random.default_rng(0).integers(6, size=20).tolist()
    kw = {**KW, "starts": START}
    game = UnrealVector(1, port=server.port, **kw)
    try:
        first = episode(game, 3, actions)
        second = episode(game, 3, actions)
        other = episode(game, 1, [])
    finally:
        game.close()
    for a, b in zip(first[0] + first[1], second[0] + second[1]):
        np.testing.assert_array_equal(a, b)
    env = UnrealGame(port=server.port, **kw)
    try:
        obs, _ = env.reset(seed=3)
        scalar = [obs], [env.state_features(obs, {})]
        for a in actions:
            obs, *_, info = env.step(a)
            scalar[0].append(obs)
            scalar[1].append(env.state_features(obs, info))
    finally:
        env.close()
    for a, b in zip(first[0] + first[1], scalar[0] + scalar[1]):
        np.testing.assert_array_equal(a, b)
    # The seed draws the start: seeds 3 and 1 start at the two different places.
    assert {tuple(first[1][0][:2]), tuple(other[1][0][:2])} == {(100.0, 100.0), (600.0, 100.0)}


def _seen_from(x: float, y: float) -> World:
    world = World(32, 24)
    world.location = (x, y, 150.0)
    return world


EXPECTED = {
    "lit": lambda w: w.frame().transpose(2, 0, 1),
    "object_mask": lambda w: w.frame(mask=True).transpose(2, 0, 1),
    "depth": lambda w: w.depth()[None],
    "pose": lambda w: np.array([3, 1, 1.5, 0, 0, 0], dtype=np.float32),  # location / cell, angles / 180
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_observations_are_what_the_world_shows(kind: str, server: UnrealCVServer) -> None:
    game = UnrealVector(1, port=server.port, observation=kind, objects=True, **{**KW, "starts": [[300, 100, 150]]})
    try:
        obs, features = game.reset([0])
        boxes = game.boxes()[0]
        out = game.step(np.array([0]))  # forward: onto Cube_1's cell
    finally:
        game.close()
    np.testing.assert_array_equal(obs[0], EXPECTED[kind](_seen_from(300, 100)))
    np.testing.assert_array_equal(out.obs[0], EXPECTED[kind](_seen_from(400, 100)) if kind != "pose"
                                  else np.array([4, 1, 1.5, 0, 0, 0], dtype=np.float32))
    assert obs.dtype == (np.uint8 if kind in ("lit", "object_mask") else np.float32)
    np.testing.assert_array_equal(features[0], [300, 100, 150, 0, 0, 0])
    # The cube one cell east is in view, its box the disc the mask paints one cell right of the
    # middle (the view spans 5 cells, so the sphere further east shows too).
    x0, y0, x1, y1 = boxes["Cube_1"]
    assert (x0 + x1) / 2 == pytest.approx(16 + 32 / 5, abs=1) and (y0 + y1) / 2 == pytest.approx(12, abs=1)
    assert out.info["visible"][0] == ("Cube_1", "Sphere_2")


def test_the_action_table_sends_its_commands(server: UnrealCVServer) -> None:
    actions = [
        {"name": "north", "move": [0, -100, 0]},
        {"name": "turn", "turn": [0, -90, 0]},
        {"name": "jump", "commands": ["vset /action/keyboard space 0.1", "vget /object/Cube_1/location"]},
        {"name": "mark", "commands": ["vset /camera/0/location {x} {y} {z}"]},
    ]
    game = UnrealVector(1, port=server.port, actions=actions, **{**KW, "starts": [[100, 200, 150]]})
    try:
        game.reset([0])
        states = [game.step(np.array([a])).features[0] for a in (0, 1, 2, 3)]
        assert game.action_names == ("north", "turn", "jump", "mark")
    finally:
        game.close()
    np.testing.assert_allclose(states[0][:2], [100, 100])
    assert states[1][4] == 270.0  # -90 degrees of yaw, as a feature in [0, 360)
    assert "vset /action/keyboard space 0.1" in server.requests
    assert "vset /camera/0/location 100.0 100.0 150.0" in server.requests


def test_reset_can_reload_the_level(server: UnrealCVServer) -> None:
    game = UnrealVector(1, port=server.port, reset="level", level="Maze", **{**KW, "starts": None})
    try:
        game.reset([0])
        game.step(np.array([3]))
        _, features = game.reset([1])
    finally:
        game.close()
    assert server.requests.count("vset /action/game/level Maze") == 3  # one when the game is built
    np.testing.assert_allclose(features[0][:2], [100, 100])


def test_frame_time_is_the_games_own_or_measured_with_the_network(server: UnrealCVServer) -> None:
    to_slow = [0, 0, 0, 3, 0, 0, 0]  # east to (4,1), south, east onto the slow place L at (7,2)
    own = UnrealVector(1, port=server.port, frame_time_command="vget /evo/frame_ms", **KW)
    try:
        own.reset([0])
        times = [own.step(np.array([a])).frame_ms[0] for a in to_slow]
        assert server.world.here == "L"
    finally:
        own.close()
    assert times[:-1] == [FRAME_MS[0]] * 6 and times[-1] == FRAME_MS[1]
    measured = UnrealVector(1, port=server.port, **KW)
    try:
        measured.reset([0])
        times = [measured.step(np.array([a])).frame_ms[0] for a in to_slow]
    finally:
        measured.close()
    # On the slow place each of the step's 3 reads waited SLOW_S before its reply.
    assert times[-1] >= 3 * SLOW_S * 1000


@pytest.mark.parametrize("kwargs, words", [
    ({"prot": 1}, "unknown keys ['prot']"),
    ({"observation": "rgb"}, "observation is 'rgb'; expected one of lit"),
    ({"starts": []}, "starts is empty"),
    ({"actions": [{"name": "x"}]}, "actions[0] (x) does nothing"),
    ({"actions": [{"move": [1, 2]}]}, "actions[0].move must be three numbers"),
    ({"port": 0}, "port 0 picks a free port for a launched game"),
    ({"actions": [{"commands": ["vbp Door open {speed}"]}]}, "actions[0].commands[0] 'vbp Door open {speed}' names 'speed'"),
])
def test_a_wrong_setting_is_one_line_naming_it(kwargs: dict, words: str, server: UnrealCVServer) -> None:
    with pytest.raises(ValueError) as err:
        UnrealVector(1, **{**KW, "port": server.port, **kwargs})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_game_that_does_not_answer_at_start_is_one_line() -> None:
    port = serve_block(1)[0]
    port.die()
    with pytest.raises(ValueError, match=f"no UnrealCV game answered on 127.0.0.1:{port.port}"):
        UnrealVector(1, port=port.port, **{**KW, "connect_timeout_s": 0.3})


def test_a_wrong_resolution_says_what_the_game_renders(server: UnrealCVServer) -> None:
    with pytest.raises(ValueError, match="renders 32x24 frames but game.kwargs.width and height say 64x24"):
        UnrealVector(1, port=server.port, **{**KW, "width": 64})


def test_an_observation_the_game_refuses_is_one_line_at_start(server: UnrealCVServer) -> None:
    server.world.handle = lambda command: b"error Camera 0 not found" if "lit" in command else World.handle(
        server.world, command)
    with pytest.raises(ValueError, match="game unreal: vget /camera/0/lit: error Camera 0 not found"):
        UnrealVector(1, port=server.port, **KW)


def _refusing(server: UnrealCVServer, word: str) -> None:
    """The server answers ``error ...`` to every command containing ``word``."""
    server.world.handle = lambda command: (b"error Level not found" if word in command
                                           else World.handle(server.world, command))


def test_a_reset_the_game_refuses_is_one_line_at_start_and_a_crash_later(server: UnrealCVServer) -> None:
    kwargs = {**KW, "port": server.port, "reset": "level", "level": "Maze", "starts": None}
    _refusing(server, "Maze")
    with pytest.raises(ValueError, match="game unreal: vset /action/game/level: error Level not found"):
        UnrealVector(1, **kwargs)
    del server.world.handle  # the instance's own method again
    game = UnrealVector(1, **kwargs)
    try:
        _refusing(server, "Maze")  # the level went missing during the run
        game.reset([0])
        out = game.step(np.array([0]))
        del server.world.handle
        game.reset([0])
        again = game.step(np.array([0]))
    finally:
        game.close()
    assert out.errors[0].type == "UnrealRefused" and "error Level not found" in out.errors[0].message
    assert not again.errors


def test_an_error_reply_ends_the_episode_as_a_crash(server: UnrealCVServer) -> None:
    game = UnrealVector(1, port=server.port, actions=[{"name": "bad", "commands": ["vget /nothing/here"]}], **KW)
    try:
        game.reset([0])
        # The client checks commands against the list the server gave at the handshake, and
        # says so once a process.
        connection._told.clear()
        with pytest.warns(UserWarning, match="does not list the command 'vget /nothing/here'; it is sent anyway"):
            out = game.step(np.array([0]))
    finally:
        game.close()
    assert out.errors[0].type == "UnrealRefused" and "error Can not find a handler" in out.errors[0].message


def test_the_parks_pixel_pipeline_reads_its_frames() -> None:
    """The park's wrappers (its detector's masks, then its frame encoder) on the lit frames,
    at the park's 160x120; the object boxes come from the game's own mask beside them."""
    server = UnrealCVServer(width=160, height=120).start()
    kwargs = {**KW, "port": server.port, "width": 160, "height": 120, "starts": [[300, 100, 150]], "objects": True}
    game = GameFactory(name="unreal", kwargs=tuple(kwargs.items()), wrappers=(("detect", ()), ("encode", ())))
    try:
        vector = game.make_vector(1)
        try:
            obs, _ = vector.reset([0])
            out = vector.step(np.array([0]))
        finally:
            vector.close()
    finally:
        server.die()
    assert vector.game_spec.obs_shape == obs.shape[1:] == out.obs.shape[1:] and obs.dtype == np.float32
    assert {"detections", "visible"} <= set(out.info) and out.info["visible"][0] == ("Cube_1", "Sphere_2")
