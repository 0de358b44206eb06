"""Game processes die with the process that holds the game, even when it is SIGKILLed and runs
no cleanup: an isolated copy hung in its step, a ViZDoom engine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SETTLE_S = 10.0

HUNG_COPY = """
import functools, multiprocessing as mp
from games.adapter.vector_game import GymVectorGame
from tests.games.faulty_envs import LineWalk
if __name__ == "__main__":
    game = GymVectorGame(functools.partial(LineWalk, fault="hang", at_position=1, n_actions=2), 1, step_timeout_s=600)
    game.reset([0])
    print(*[p.pid for p in mp.active_children()], flush=True)
    game.step([1])  # right, into the hang: this waits for the copy
    raise SystemExit("the copy did not hang")
"""

ENGINE = """
import numpy as np
from games.doom.engine import child_pids
from games.doom.vizdoom_game import VizDoomVector
game = VizDoomVector(num_envs=2, max_steps=50)
game.reset(np.array([0, 1]))
print(*child_pids("vizdoom"), flush=True)
input()
"""


def _alive(pid: int) -> bool:
    """A process that has this pid and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def _kill_holder_and_watch(script: str, settle_before_kill_s: float) -> tuple[list[int], list[int]]:
    """Run ``script``, read the pids it prints, SIGKILL it; the pids still alive after a while."""
    holder = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    pids: list[int] = []
    try:
        pids = [int(p) for p in holder.stdout.readline().split()]  # type: ignore[union-attr]
        time.sleep(settle_before_kill_s)
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        end = time.monotonic() + SETTLE_S
        while any(_alive(p) for p in pids) and time.monotonic() < end:
            time.sleep(0.1)
        return pids, [p for p in pids if _alive(p)]
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_an_isolated_copy_hung_in_its_step_dies_with_its_holder() -> None:
    # 1 s for the step to reach the copy; a hung copy never reads its pipe, so only the
    # kernel's signal ends it.
    pids, left = _kill_holder_and_watch(HUNG_COPY, 1.0)
    assert len(pids) == 1
    assert left == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_vizdoom_engine_dies_with_the_process_that_started_it() -> None:
    pytest.importorskip("vizdoom")
    pids, left = _kill_holder_and_watch(ENGINE, 0.0)
    assert len(pids) == 2
    assert left == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_engine_launcher_is_written_only_where_no_one_else_can_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from games.common.lifetime import engine_launcher

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    path = engine_launcher("/opt/engine/vizdoom")
    assert path is not None and Path(path).name == "vizdoom" and os.access(path, os.X_OK)
    assert "prctl" in Path(path).read_text() and "'/opt/engine/vizdoom'" in Path(path).read_text()
    (tmp_path / f"evo-{os.getuid()}").chmod(0o777)  # a folder others could plant a launcher in
    assert engine_launcher("/opt/engine/vizdoom") is None
