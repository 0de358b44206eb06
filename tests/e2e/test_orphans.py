"""Processes a run starts end with it: ``evo run`` SIGKILLed mid-run leaves no worker and no
game process behind (ViZDoom engines, isolated game copies), and nothing of a local Ray or Dask
instance it started (Ray's raylet, GCS, agents and workers; Dask's workers).

Every process the run starts inherits its environment, so a token put there finds them all,
whoever their parent is by then (an orphan is adopted by init). Not all of them keep it
readable: Ray's agents and workers write their process titles over it. So the run's process
tree is also taken just before the kill, and each of those processes must be gone after it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable

import pytest

from tests.cli.test_cli import ROOT

MARKER = "EVO_ORPHAN_TEST"
SETTLE_S = 10.0
"""How long the processes have to end after the kill (a zombie counts as ended). Ray's agents,
left to themselves, take 60 s."""
SMALL = (
    "search.population=4", "search.offspring=4", "search.episodes=1", "finetune.a2c.episodes=2",
    "parallel.n_jobs=2", "budget.env_steps=100000000", "budget.wall_seconds=600",
)
RUNS = {
    # ViZDoom engines are children of the loky workers, started by the vizdoom library.
    "vizdoom": ("reline_vizdoom.yaml", ("game.kwargs.max_steps=100",), "vizdoom"),
    # A Gymnasium game with step_timeout_s: each copy in a process of its own under a worker.
    "isolated-copies": ("wuji_block_maze.yaml", (
        "game={entry_point: 'tests.games.plugin_envs:OwnFeatures', step_timeout_s: 30}",), "python"),
}
"""Experiment, overrides and the command name of the processes that play the game."""

Procs = dict[int, tuple[str, int, int]]
"""pid -> (command name, parent pid, start time in clock ticks since boot)."""


def _stat(pid: str) -> tuple[str, str, int, int] | None:
    """(command name, state, parent pid, start time) of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return stat[stat.find("(") + 1: stat.rfind(")")], fields[0], int(fields[1]), int(fields[19])


def live() -> Procs:
    """Every live (not zombie) process."""
    found: Procs = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(entry)) is not None and stat[1] != "Z":
            found[int(entry)] = (stat[0], stat[2], stat[3])
    return found


def marked(token: str) -> Procs:
    """Live processes whose environment holds the token."""
    needle = f"{MARKER}={token}".encode()
    found: Procs = {}
    for pid, info in live().items():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found[pid] = info
        except OSError:  # gone, or not ours to read
            continue
    return found


def family(token: str, root: int) -> Procs:
    """The run's processes: marked ones and every live descendant of ``root``."""
    procs = live()
    found = marked(token)
    todo, seen = [root], {root}
    while todo:
        parent = todo.pop()
        for pid, info in procs.items():
            if info[1] == parent and pid not in seen:
                seen.add(pid)
                found[pid] = info
                todo.append(pid)
    return found


def _depth(procs: Procs, pid: int, root: int) -> int:
    """How many generations below ``root`` a process is (0: not below it)."""
    depth = 0
    while pid in procs and pid != root:
        pid, depth = procs[pid][1], depth + 1
    return depth if pid == root else 0


def still_there(token: str, before: Procs) -> Procs:
    """Processes of ``before`` alive now (same pid and start time), and marked ones."""
    now = live()
    left = {pid: now[pid] for pid, info in before.items() if pid in now and now[pid][2] == info[2]}
    return {**left, **marked(token)}


def _rows(run_dir: Path) -> int:
    try:
        return max(0, (run_dir / "generations.csv").read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


def start_run(tmp_path: Path, token: str, experiment: str, *overrides: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "evo.cli", "run", str(ROOT / "experiments" / experiment), *SMALL, *overrides,
         "--out", "run", "--quiet"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), MARKER: token},
    )


def end_run(proc: subprocess.Popen[bytes], token: str, ready: Callable[[Procs], bool],
            sig: int = signal.SIGKILL, least: int = 6) -> tuple[Procs, Procs]:
    """Wait until ``ready(the run's processes)``, send ``sig``, let them settle; returns the
    processes before the signal and those left after it (the ones left are then killed)."""
    left: Procs = {}
    try:
        deadline = time.monotonic() + 300
        before = family(token, proc.pid)
        while time.monotonic() < deadline and proc.poll() is None and not ready(before):
            time.sleep(0.1)
            before = family(token, proc.pid)  # the very snapshot that was ready: a second read
            # could miss an engine whose episode ended in between
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert len([p for p in before if p != proc.pid]) >= least, before
        proc.send_signal(sig)
        proc.wait(60)
        end = time.monotonic() + SETTLE_S
        while (left := still_there(token, before)) and time.monotonic() < end:
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in left:  # never leave them to the next test
            os.kill(pid, signal.SIGKILL)
    return before, left


@pytest.mark.slow
@pytest.mark.parametrize("rows", [0, 1], ids=["first-evaluation", "after-generation-0"])
@pytest.mark.parametrize("game", list(RUNS))
def test_a_sigkilled_run_leaves_no_process_behind(tmp_path: Path, game: str, rows: int) -> None:
    experiment, overrides, player = RUNS[game]
    if game == "vizdoom":
        pytest.importorskip("vizdoom")
    token = uuid.uuid4().hex
    proc = start_run(tmp_path, token, experiment, "parallel.backend=loky", *overrides)

    def ready(running: Procs) -> bool:
        # Games of the workers, the last to be cleaned up: below the run's children (an
        # isolated copy comes from a fork server that a worker started).
        # (name.startswith: a venv made by `python3 -m venv` runs its processes as python3)
        players = sum(name.startswith(player) and _depth(running, pid, proc.pid) >= 2
                      for pid, (name, _, _) in running.items())
        return _rows(tmp_path / "run") >= rows and players >= 4

    before, left = end_run(proc, token, ready)  # 2 workers, 4 games
    assert left == {}, f"orphans after the run was SIGKILLed: {left} (before the kill: {before})"


INSTANCES = {
    # The raylet's two agents and two pool workers, besides the GCS and the monitors.
    "ray": ("ray", lambda procs: sum(name.startswith("ray::") for name, _, _ in procs.values()) >= 4),
    # Two worker processes (the scheduler and the nannies live in the run).
    "dask": ("distributed", lambda procs: len(procs) >= 3),
}


@pytest.mark.slow
@pytest.mark.parametrize("backend", list(INSTANCES))
def test_a_sigkilled_run_leaves_nothing_of_its_local_instance(tmp_path: Path, backend: str) -> None:
    module, up = INSTANCES[backend]
    pytest.importorskip(module)
    token = uuid.uuid4().hex
    proc = start_run(tmp_path, token, "wuji_block_maze.yaml", f"parallel.backend={backend}")
    # After generation 0 the instance is up and the next generation's tasks are on it.
    before, left = end_run(proc, token, lambda procs: _rows(tmp_path / "run") >= 1 and up(procs), least=2)
    assert left == {}, f"{backend} processes after the run was SIGKILLed: {left} (before the kill: {before})"
