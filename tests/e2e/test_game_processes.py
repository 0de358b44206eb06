"""Nothing a game starts outlives the run, however the run ends: ``evo run`` of the default
experiment on a game whose ``reset`` starts its engine through a launch script that
backgrounds a helper, and whose ``close`` ends the engine alone (tests/games/launcher_envs.py),
leaves none of the game's processes after a normal end and after a SIGKILL, with copies in
the run's workers or its own process, in-process or isolated.

Before copies ended what their games started, such a run left one helper per episode played:
hundreds after three generations of this small run."""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from tests.e2e.test_orphans import Procs, _rows, end_run, marked, start_run

ENTRY = "tests.games.launcher_envs:LaunchedEngine"
GAMES: dict[str, dict[str, Any]] = {
    "in-process": {"isolated": False},
    "isolated": {},  # the default for a game given by its entry point
}
"""Game settings of each way to run copies besides the entry point."""
BACKENDS = {"loky": "parallel.backend=loky", "serial": "parallel.backend=serial"}


def _game(mode: str, entry: str = ENTRY) -> str:
    return "game=" + yaml.safe_dump({"entry_point": entry, **GAMES[mode]}, default_flow_style=True).strip()


def launched(procs: Procs) -> Procs:
    """The game's own processes among ``procs``: engines, helpers and their shells."""
    return {pid: info for pid, info in procs.items() if info[0] in ("sh", "sleep")}


def settle(token: str, within_s: float = 10.0) -> Procs:
    """The run's processes still alive (carrying the token) once none is, or when time is up."""
    end = time.monotonic() + within_s
    while (left := marked(token)) and time.monotonic() < end:
        time.sleep(0.2)
    return left


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "entry"), [
    ("loky", ENTRY),
    # The engine started as the game is made (the copy the run keeps for ground truth too)
    # and at every reset, as LaunchedEngine starts it: the serial backend's case of both.
    ("serial", "tests.games.launcher_envs:EngineWhenMade"),
], ids=["loky", "serial-engine-when-made"])
@pytest.mark.parametrize("mode", list(GAMES))
def test_a_finished_run_leaves_no_process_of_its_game(tmp_path: Path, mode: str, backend: str, entry: str) -> None:
    token = uuid.uuid4().hex
    proc = start_run(tmp_path, token, "wuji_block_maze.yaml", BACKENDS[backend], _game(mode, entry),
                     "budget.generations=3")
    try:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()[-3000:]
        assert _rows(tmp_path / "run") == 3
        left = settle(token)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in marked(token):  # never leave them to the next test
            os.kill(pid, signal.SIGKILL)
    assert launched(left) == {}, f"the game's processes left after the run: {launched(left)}"
    assert left == {}, f"processes left after the run: {left}"


@pytest.mark.slow
@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("mode", list(GAMES))
def test_a_sigkilled_run_leaves_no_process_of_its_game(tmp_path: Path, mode: str, backend: str) -> None:
    token = uuid.uuid4().hex
    proc = start_run(tmp_path, token, "wuji_block_maze.yaml", BACKENDS[backend], _game(mode))

    def ready(running: Procs) -> bool:
        # After generation 0, while engines run: their helpers and earlier ones are orphans.
        return _rows(tmp_path / "run") >= 1 and len(launched(running)) >= 4

    before, left = end_run(proc, token, ready, least=4)
    assert launched(left) == {}, f"the game's processes left after the SIGKILL: {launched(left)}"
    assert left == {}, f"processes left after the SIGKILL: {left} (before it: {before})"


KILL_SEED = 59
"""Seed of the moments :func:`test_a_run_sigkilled_at_moments_of_its_start_leaves_no_process`
kills at."""


@pytest.mark.slow
def test_a_run_sigkilled_at_moments_of_its_start_leaves_no_process(tmp_path: Path) -> None:
    """SIGKILLs at moments drawn from a seed over a run's first 10 s, while its workers import,
    start the game's copies and the copies launch engines. A worker still importing when its
    run died went on to run its task under init, and 138 copies and engines were left 10 s
    after a kill 8 s in; the watchdog swept once, before they were started."""
    for k, at in enumerate(np.random.default_rng(KILL_SEED).uniform(0.0, 10.0, size=3)):
        token = uuid.uuid4().hex
        (tmp_path / str(k)).mkdir()
        proc = start_run(tmp_path / str(k), token, "block_maze.yaml", BACKENDS["loky"], _game("isolated"))
        started = time.monotonic()
        _, left = end_run(proc, token, lambda _: time.monotonic() - started >= at, least=0)
        assert left == {}, f"processes left after a SIGKILL {at:.1f} s in: {left}"
