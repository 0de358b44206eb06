"""The processes a game copy starts end with the copy (games/common/process_tree.py), whoever their
parent is by then: closed, broken and made again, or its worker process dead. The game here
starts its engine through a launch script that backgrounds a helper, and its own ``close``
ends only the engine, as packaged games do (tests/games/launcher_envs.py).

Before copies ended their processes, every episode of every copy left a helper running, in
this process and in isolated copies alike."""

from __future__ import annotations

import os
import sys
import time
import uuid
from multiprocessing import forkserver, resource_tracker

import numpy as np
import pytest

from games.adapter.vector_game import GymVectorGame
from tests.games.launcher_envs import CrashingLauncher, DyingLauncher, LaunchedEngine

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

TAG = "EVO_LAUNCHER_TEST"
SETTLE_S = 10.0
"""How long processes have to end once they should (a SIGKILLed one ends within milliseconds)."""
MODES = {"in-process": None, "isolated": 30.0}
"""``step_timeout_s`` of each way to run copies."""


def _cmdline(pid: str) -> list[bytes]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[:-1]
    except OSError:
        return []


def _alive(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] != b"Z"


def started(tag: str) -> dict[int, list[bytes]]:
    """Live processes started by this test: their environment holds its tag (this process
    set it after it started, so it is not one of them); pid -> command line."""
    needle = f"{TAG}={tag}".encode()
    found = {}
    # The fork server that isolated copies come from serves every copy of this process and
    # ends with it, not with a copy.
    server = getattr(forkserver._forkserver, "_forkserver_pid", None)
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == server:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
        except OSError:
            continue
        if _alive(pid):
            found[int(pid)] = _cmdline(pid)
    return found


def engines(procs: dict[int, list[bytes]]) -> int:
    """How many of ``procs`` the game started: engines and helpers, and the shells they are
    until they exec (not the Python processes of isolated copies)."""
    return sum(not os.path.basename(cmd[0]).startswith(b"python") for cmd in procs.values() if cmd)


def settled(tag: str, want: int, at_least: bool = False, exactly: bool = False) -> dict[int, list[bytes]]:
    """The test's processes once ``want`` game processes are left (once there are ``want`` with
    ``at_least``: a launch script forks and execs after Popen returns; with ``exactly``, once
    there are neither more nor fewer: a new game's helper may start after its old one's last
    process ended), or when time is up."""
    end = time.monotonic() + SETTLE_S
    while time.monotonic() < end:
        n = engines(procs := started(tag))
        if n == want if exactly else (n >= want) if at_least else (n <= want):
            break
        time.sleep(0.05)
    return procs


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch):
    """A tag every process this test starts inherits; whatever carries it is killed after."""
    value = uuid.uuid4().hex
    resource_tracker.ensure_running()  # this process's, not the game's: started untagged
    monkeypatch.setenv(TAG, value)
    # Isolated copies are forked from a fork server and get its environment: one started
    # now carries this test's tag (it is spared in the counts, see started).
    forkserver._forkserver._stop()
    yield value
    for pid in started(value):
        os.kill(pid, 9)
    forkserver._forkserver._stop()


@pytest.mark.parametrize("mode", list(MODES))
def test_closing_the_game_ends_every_process_its_copies_started(tag: str, mode: str) -> None:
    game = GymVectorGame(LaunchedEngine, 2, step_timeout_s=MODES[mode])
    try:
        for episode in range(3):
            game.reset([episode, 10 + episode])
            game.step(np.ones(2, dtype=np.int64))
        # Each copy: its engine, its helper, and the helpers of its 2 earlier episodes.
        assert engines(settled(tag, 8, at_least=True)) == 8
    finally:
        game.close()
    left = settled(tag, 0)
    assert left == {}, f"left after close: {left}"


@pytest.mark.parametrize("mode", list(MODES))
def test_a_broken_copy_made_again_leaves_nothing_of_its_old_game(tag: str, mode: str) -> None:
    with GymVectorGame(CrashingLauncher, 1, step_timeout_s=MODES[mode]) as game:
        game.reset([0])
        errors = {}
        for _ in range(4):
            errors.update(game.step(np.ones(1, dtype=np.int64)).errors)
        assert errors and errors[0].type == "RuntimeError"
        game.reset([1])  # a fresh game: the broken one closed, and what it started ended
        left = settled(tag, 2, exactly=True)
        assert engines(left) == 2, f"the new engine and its helper, and no more: {left}"


def test_a_dead_worker_takes_what_its_game_started_with_it(tag: str) -> None:
    with GymVectorGame(DyingLauncher, 1, step_timeout_s=MODES["isolated"]) as game:
        game.reset([0])
        game.reset([1])  # an engine and two helpers now
        errors = {}
        for _ in range(4):
            errors.update(game.step(np.ones(1, dtype=np.int64)).errors)
        assert errors and errors[0].type == "GameProcessDied"
        left = settled(tag, 0)
        assert left == {}, f"left after the copy's process died: {left}"
