"""Surviving the network: a dropped connection, a reply that never comes, a server that dies,
a game that serves another client, a binary that is launched, killed and launched again.
Every failure ends the episode as a crash error, and the next reset plays again."""

from __future__ import annotations

import configparser
import os
import signal
import socket
import time
from pathlib import Path

import numpy as np
import pytest

from games.unreal.connection import Connection
from games.unreal.launcher import free_port
from games.unreal.unreal_game import UnrealVector
from tests.games.unreal.server import UnrealCVServer, launched_pids, running, serve_block, write_binary

KW = {"width": 32, "height": 24, "starts": [[100, 100, 150]], "request_timeout_s": 1.0, "connect_timeout_s": 1.0}
TO_CRASH = [3, 3, 0, 3, 3, 1]  # down to (1,3), east, down to (2,5), west onto C at (1,5)


@pytest.fixture
def server():
    s = UnrealCVServer().start()
    yield s
    s.die()


def play(game: UnrealVector, actions: list[int]):
    """The steps up to the first error: ``(steps played, the error or None)``."""
    for t, a in enumerate(actions):
        out = game.step(np.array([a]))
        if out.errors:
            return t, out.errors[0]
    return len(actions), None


def test_a_dropped_connection_is_a_crash_at_once_and_the_next_episode_plays(server: UnrealCVServer) -> None:
    game = UnrealVector(1, port=server.port, **KW)
    try:
        game.reset([0])
        t, error = play(game, TO_CRASH)
        after = game.step(np.array([0]))  # the copy is done until the next reset
        _, features = game.reset([0])
        assert play(game, [0, 0]) == (2, None)
    finally:
        game.close()
    assert (t, error.type) == (len(TO_CRASH) - 1, "UnrealLost")
    # Seen as a dropped connection, not waited out as a timeout (nor as the 1.3.2 client's ~55 s
    # of retries on the dead socket).
    assert "vset /camera/0/moveto: the connection dropped" in error.message
    assert not after.errors and after.reward[0] == 0 and server.world.dropped == 1
    np.testing.assert_allclose(features[0][:2], [100, 100])


def test_a_reply_that_never_comes_times_out_and_a_new_client_plays_on(server: UnrealCVServer) -> None:
    game = UnrealVector(1, port=server.port, **KW)
    try:
        game.reset([0])
        server.silent = True
        start = time.monotonic()
        t, error = play(game, [0])
        waited = time.monotonic() - start
        old_client = game.copies[0].instance.connection
        server.silent = False
        game.reset([0])
        assert play(game, [0, 3]) == (2, None)
        new_client = game.copies[0].instance.connection
    finally:
        game.close()
    assert error.type == "UnrealTimeout" and "no reply within 1 s" in error.message
    assert waited >= KW["request_timeout_s"]
    # The late reply is never read by the next request: that one went through a new client.
    assert new_client is not old_client and old_client is not None and not old_client.is_open


def test_a_server_that_dies_is_a_crash_and_then_one_at_each_reset() -> None:
    server = serve_block(1)[0]
    game = UnrealVector(1, port=server.port, **{**KW, "connect_timeout_s": 0.3})
    try:
        game.reset([0])
        server.die()
        t, error = play(game, [0])
        game.reset([0])  # nothing to connect to: the episode's first step reports it
        t2, error2 = play(game, [0])
    finally:
        game.close()
    assert (t, error.type) == (0, "UnrealLost")
    assert (t2, error2.type) == (0, "UnrealLost") and "no UnrealCV game answered" in error2.message


def test_the_game_serves_one_client_at_a_time(server: UnrealCVServer) -> None:
    first = Connection("127.0.0.1", server.port, 1.0)
    first.open(1.0)
    second = Connection("127.0.0.1", server.port, 1.0)
    try:
        with pytest.raises(ConnectionError, match="another client holds it"):
            second.open(0.3)
        assert server.refused >= 1 and first.request("vget /camera/0/location") == "100.000 100.000 150.000"
    finally:
        first.close()


def test_a_game_that_accepts_and_never_greets_is_not_waited_for_forever() -> None:
    """The plugin leaves a second client waiting without the handshake; the 1.3.2 client's
    connect has no deadline for it."""
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)  # the kernel completes connections; nothing ever accepts or writes
        connection = Connection("127.0.0.1", mute.getsockname()[1], 0.2)
        with pytest.raises(ConnectionError, match="no UnrealCV game answered"):
            connection.open(0.5)


def _ini(folder: Path) -> dict[str, str]:
    ini = configparser.ConfigParser()
    ini.read(folder / "unrealcv.ini")
    return dict(ini["UnrealCV.Core"])


def test_a_launched_binary_is_launched_again_when_it_dies(tmp_path: Path) -> None:
    binary = write_binary(tmp_path)
    game = UnrealVector(2, binary=str(binary), port=0, level="Maze", **{**KW, "connect_timeout_s": 20.0})
    try:
        game.reset([0, 1])
        assert len(launched_pids(tmp_path)) == 2  # one game per copy
        launched = [c.instance.launched for c in game.copies]
        # The ini beside the binary holds what the last launch wrote; -cvport overrides its port.
        assert _ini(tmp_path) == {"port": str(launched[1].port), "width": "32", "height": "24"}
        args = Path(f"/proc/{launched[0].process.pid}/cmdline").read_bytes().split(b"\0")
        assert f"-cvport={launched[0].port}".encode() in args and b"-RenderOffScreen" in args and b"Maze" in args
        os.kill(launched[0].process.pid, signal.SIGKILL)
        launched[0].process.wait(timeout=10)
        out = game.step(np.array([0, 0]))
        assert set(out.errors) == {0} and out.errors[0].type == "UnrealDied"
        assert out.errors[0].message.endswith("the game binary died (killed by signal 9)")
        game.reset([0, 1])
        assert play_both(game) and len(launched_pids(tmp_path)) == 3
        # Killed between two episodes: the next episode's first step is the crash.
        os.kill(launched[1].process.pid, signal.SIGKILL)
        launched[1].process.wait(timeout=10)
        game.reset([0, 1])
        first = game.step(np.array([0, 0]))
        assert set(first.errors) == {1} and first.errors[1].type == "UnrealDied"
        game.reset([0, 1])
        assert play_both(game) and len(launched_pids(tmp_path)) == 4
        alive = [p for p in launched_pids(tmp_path) if running(p)]
    finally:
        game.close()
    assert len(alive) == 2
    assert not any(running(p) for p in launched_pids(tmp_path))  # closing the game ended its binaries


def play_both(game: UnrealVector) -> bool:
    return not game.step(np.array([0, 3])).errors


def test_launch_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not an executable file"):
        UnrealVector(1, binary=str(tmp_path / "nothing"), **KW)
    taken = UnrealCVServer().start()
    try:
        with pytest.raises(ValueError, match=f"port {taken.port} on 127.0.0.1 is taken"):
            UnrealVector(1, binary=str(write_binary(tmp_path)), port=taken.port, **KW)
    finally:
        taken.die()
    broken = tmp_path / "Broken.sh"
    broken.write_text("#!/bin/sh\necho missing shared library libUE.so\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(ValueError) as err:
        UnrealVector(1, binary=str(broken), port=free_port("127.0.0.1"), **{**KW, "connect_timeout_s": 20.0})
    assert "exited with code 3" in str(err.value) and "missing shared library libUE.so" in str(err.value)


def test_a_plugin_too_old_to_list_its_commands_is_said_once_however_often_the_run_connects(
    server: UnrealCVServer,
) -> None:
    import warnings

    import games.unreal.connection as connection

    server.world.lists_commands = False
    connection._told.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):  # a run connects again after every lost connection
            link = Connection("127.0.0.1", server.port, 1.0)
            link.open(1.0)
            link.request("vget /camera/0/location")
            link.close()
    told = [str(w.message) for w in caught if "UnrealCV" in str(w.message)]
    assert told == ["the UnrealCV server does not list its commands (plugin older than 1.1.0): requests go unchecked"]


def test_connect_mode_with_fewer_games_than_copies_is_one_line_at_start() -> None:
    """Two games running for three copies: before, the third copy was a crash bug in every
    episode and cost two connection waits a generation."""
    block = serve_block(2)
    try:
        port = block[0].port
        with pytest.raises(ValueError) as caught:
            UnrealVector(3, port=port, **KW)
        assert str(caught.value) == (
            f"game unreal: 1 of 3 copies have no game: nothing listens on 127.0.0.1 port {port + 2} (copy i "
            f"plays on port + i); start a game on each of ports {port}..{port + 2}, or play fewer copies at once")
        UnrealVector(2, port=port, **KW).close()  # as many games as copies: it plays
    finally:
        for s in block:
            s.die()
