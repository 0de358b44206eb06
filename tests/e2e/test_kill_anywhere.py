"""Kill anywhere, resume, same result: ``evo run`` SIGKILLed at seeded moments and resumed each
time ends with the bugs and generations of the run that was never stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from evo.run.rundir import MEASURED
from tests.conftest import TINY

ROOT = Path(__file__).resolve().parents[2]
GENERATIONS = 6
KILLS = 3


def _evo(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "evo.cli", *args, "--quiet"], cwd=cwd,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _rows(run_dir: Path) -> int:
    """Complete generation rows written so far."""
    try:
        text = (run_dir / "generations.csv").read_bytes()
    except FileNotFoundError:
        return 0
    return max(0, text.count(b"\n") - 1)


def _finish(proc: subprocess.Popen[bytes]) -> None:
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()


def comparable(run_dir: Path) -> tuple[pd.DataFrame, list[dict]]:
    """generations.csv and bugs.jsonl without what measures this machine: wall-clock columns,
    and the measured frame times in a performance bug's message and data."""
    gens = pd.read_csv(run_dir / "generations.csv").drop(columns=list(MEASURED))
    bugs = [json.loads(line) for line in (run_dir / "bugs.jsonl").read_text().splitlines()]
    for bug in bugs:
        bug.pop("wall_s")
        if bug["kind"] == "performance":
            bug.pop("data"), bug.pop("message")
    return gens, bugs


@pytest.mark.slow
def test_a_run_sigkilled_at_seeded_moments_resumes_to_the_same_results(tmp_path: Path) -> None:
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump({**TINY, "budget": {"generations": GENERATIONS}}))
    _finish(_evo("run", "exp.yaml", "--out", "whole", cwd=tmp_path))

    rng = np.random.default_rng(16)
    # Each kill comes once the run has written a seeded number of rows, then a seeded delay
    # into the next generation (about half a second each); the first as soon as the run
    # directory appears, before its first checkpoint.
    targets = [0, *np.sort(rng.choice(np.arange(1, GENERATIONS - 1), size=KILLS - 1, replace=False))]
    killed, landed = tmp_path / "killed", []
    proc = _evo("run", "exp.yaml", "--out", "killed", cwd=tmp_path)
    try:
        for target in targets:
            while proc.poll() is None and (_rows(killed) < target or not (killed / "bugs.jsonl").exists()):
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.5) if target else 0.0)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                landed.append((int(target), _rows(killed), len(list(killed.glob("checkpoints/*.pt")))))
            proc = _evo("run", "--resume", "killed", cwd=tmp_path)
        _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    print("kills (target rows, rows then, checkpoints then):", landed)
    assert len(landed) == KILLS, f"kills that came before the run ended: {landed}"
    whole_gens, whole_bugs = comparable(tmp_path / "whole")
    gens, bugs = comparable(killed)
    pd.testing.assert_frame_equal(gens, whole_gens)
    assert bugs == whole_bugs
    assert len(list((killed / "checkpoints").glob("gen_*.pt"))) == 3
