"""Processes a run starts end with it: ``evo run`` with loky workers, SIGKILLed mid-run,
leaves no worker and no game process behind (ViZDoom engines, isolated game copies).

Every process the run starts inherits its environment, so a token put there finds them all,
whoever their parent is by then (an orphan is adopted by init)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.cli.test_cli import ROOT

MARKER = "EVO_ORPHAN_TEST"
SETTLE_S = 10.0
"""How long the processes have to end after the kill (a zombie counts as ended)."""
SMALL = (
    "search.population=4", "search.offspring=4", "search.episodes=1", "finetune.a2c.episodes=2",
    "parallel.backend=loky", "parallel.n_jobs=2", "budget.env_steps=100000000", "budget.wall_seconds=600",
)
RUNS = {
    # ViZDoom engines are children of the loky workers, started by the vizdoom library.
    "vizdoom": ("reline_vizdoom.yaml", ("game.kwargs.max_steps=100",), "vizdoom"),
    # A Gymnasium game with step_timeout_s: each copy in a process of its own under a worker.
    "isolated-copies": ("wuji_block_maze.yaml", (
        "game={entry_point: 'tests.games.plugin_envs:OwnFeatures', step_timeout_s: 30}",), "python"),
}
"""Experiment, overrides and the command name of the processes that play the game."""


def marked(token: str) -> dict[int, tuple[str, int]]:
    """Live (not zombie) processes whose environment holds the token: pid -> (command name,
    parent pid)."""
    found: dict[int, tuple[str, int]] = {}
    needle = f"{MARKER}={token}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:  # gone, or not ours to read
            continue
        state, ppid = stat[stat.rfind(")") + 2:].split()[:2]
        if state != "Z":
            found[int(entry)] = (stat[stat.find("(") + 1: stat.rfind(")")], int(ppid))
    return found


def _rows(run_dir: Path) -> int:
    try:
        return max(0, (run_dir / "generations.csv").read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("rows", [0, 1], ids=["first-evaluation", "after-generation-0"])
@pytest.mark.parametrize("game", list(RUNS))
def test_a_sigkilled_run_leaves_no_process_behind(tmp_path: Path, game: str, rows: int) -> None:
    experiment, overrides, player = RUNS[game]
    if game == "vizdoom":
        pytest.importorskip("vizdoom")
    token = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-m", "evo.cli", "run", str(ROOT / "experiments" / experiment), *SMALL, *overrides,
         "--out", "run", "--quiet"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), MARKER: token},
    )
    left: dict[int, tuple[str, int]] = {}
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            running = marked(token)
            # Games of the workers: the run's grandchildren, the last to be cleaned up.
            # (name.startswith: a venv made by `python3 -m venv` runs its processes as python3)
            players = sum(name.startswith(player) and running.get(ppid, ("", 0))[1] == proc.pid
                          for name, ppid in running.values())
            if _rows(tmp_path / "run") >= rows and players >= 4:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        before = marked(token)
        assert len([p for p in before if p != proc.pid]) >= 6, before  # 2 workers, 4 games
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        end = time.monotonic() + SETTLE_S
        while (left := marked(token)) and time.monotonic() < end:
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in marked(token):  # never leave them to the next test
            os.kill(pid, signal.SIGKILL)
    assert left == {}, f"orphans after the run was SIGKILLed: {left} (before the kill: {before})"
