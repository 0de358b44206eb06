"""The watchdog of a local instance (evo/run/reaper.py): when the run ends, normally or SIGKILLed,
every process holding a file under the instance's folder is killed and the folder removed;
other processes are left alone. (tests/e2e/test_orphans.py does the same with a real Ray run.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evo.run.reaper import Reaper

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def gone(pid: int, within_s: float = 10.0) -> bool:
    """Whether ``pid`` has ended (exited or a zombie) within ``within_s``."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except FileNotFoundError:
            return True
        if stat[stat.rfind(")") + 2] == "Z":
            return True
        time.sleep(0.05)
    return False


def test_stop_kills_what_holds_a_file_in_the_folder_and_nothing_else(tmp_path: Path) -> None:
    reaper = Reaper(prefix="evo-test-")
    folder = Path(reaper.folder)
    with (folder / "worker.log").open("w") as log:
        holder = subprocess.Popen(["sleep", "60"], stdout=log)
    bystander = subprocess.Popen(["sleep", "60"], stdout=(tmp_path / "other.log").open("w"))
    try:
        reaper.stop()
        assert holder.wait(10) == -signal.SIGKILL
        assert bystander.poll() is None, "a process without files in the folder was killed"
        assert not folder.exists()
    finally:
        for proc in (holder, bystander):
            proc.kill()
            proc.wait()


def test_a_sigkilled_run_takes_the_instance_with_it(tmp_path: Path) -> None:
    # The "run": starts a watchdog and an "instance" process logging into its folder, then
    # waits to be killed. Nothing of the run's own cleanup can happen.
    run = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import subprocess, sys, time
        from evo.run.reaper import Reaper
        reaper = Reaper(prefix="evo-test-")
        with open(reaper.folder + "/raylet.out", "w") as log:
            instance = subprocess.Popen(["sleep", "60"], stdout=log)
        print(instance.pid, reaper.folder, flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.stdout is not None
    pid, folder = run.stdout.readline().split()
    try:
        assert not gone(int(pid), within_s=0.5)
        run.kill()
        run.wait()
        assert gone(int(pid)), "the instance outlived its SIGKILLed run"
        end = time.monotonic() + 5
        while Path(folder).exists() and time.monotonic() < end:
            time.sleep(0.05)
        assert not Path(folder).exists()
    finally:
        run.kill()
        run.wait()
        if not gone(int(pid), within_s=0):
            os.kill(int(pid), signal.SIGKILL)
