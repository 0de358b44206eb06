"""Processes a run starts end with it: ``evo run`` on ViZDoom with loky workers, SIGKILLed
mid-run, leaves no worker and no engine behind.

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

pytest.importorskip("vizdoom")

MARKER = "EVO_ORPHAN_TEST"
SETTLE_S = 10.0
"""How long the processes have to end after the kill (a zombie counts as ended)."""
SHORT = (
    "search.population=4", "search.offspring=4", "search.episodes=1", "finetune.a2c.episodes=2",
    "game.kwargs.max_steps=100", "parallel.backend=loky", "parallel.n_jobs=2",
    "budget.env_steps=100000000", "budget.wall_seconds=600",
)


def marked(token: str) -> dict[int, str]:
    """Live (not zombie) processes whose environment holds the token: pid -> command name."""
    found: dict[int, str] = {}
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
        if stat[stat.rfind(")") + 2] != "Z":
            found[int(entry)] = stat[stat.find("(") + 1: stat.rfind(")")]
    return found


def _rows(run_dir: Path) -> int:
    try:
        return max(0, (run_dir / "generations.csv").read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("rows", [0, 1], ids=["first-evaluation", "after-generation-0"])
def test_a_sigkilled_vizdoom_run_leaves_no_process_behind(tmp_path: Path, rows: int) -> None:
    token = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-m", "evo.cli", "run", str(ROOT / "experiments" / "reline_vizdoom.yaml"), *SHORT,
         "--out", "run", "--quiet"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), MARKER: token},
    )
    left: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            running = marked(token)
            engines = sum(name == "vizdoom" for name in running.values())
            if _rows(tmp_path / "run") >= rows and engines >= 2:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        before = marked(token)
        assert sum(name == "vizdoom" for name in before.values()) >= 2, before
        assert len([p for p in before if p != proc.pid]) >= 4, before  # loky workers and their engines
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
