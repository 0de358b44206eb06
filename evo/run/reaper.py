"""Watchdogs that end what a run started when the run ends, however it ends: every process of a
local Ray instance, and every process the run's game copies started.

Ray ties the head's own processes (GCS, raylet, monitors) to the process that calls ``ray.init``
with ``PR_SET_PDEATHSIG``, and its workers leave when their raylet does, but not the agents the
raylet starts: after a SIGKILLed run the dashboard and runtime-env agents see their raylet gone,
then wait 60 s to report it to the GCS, dead too, before they exit (Ray 2.60,
``process_watcher.report_raylet_error_logs``). Their process titles overwrite their
environment, so nothing inherited names them either.

What every process of an instance does hold open is its log files, under the temporary folder
the instance was given (``ray.init(_temp_dir=...)``). The watchdog (:class:`Reaper`) is a small
stdlib-only process that the run starts before the instance and that is told that folder. When
the run ends (it closes the watchdog's stdin, or dies and the watchdog is no longer its child),
the watchdog SIGKILLs every process of this user other than the run that holds a file under
the folder, until none is left, then removes the folder. A cluster given by ``address`` belongs
to the user and gets no watchdog.

The processes a game starts (an engine, what its launch script backgrounds) carry the run's
token in their environment (:mod:`games.common.process_tree`); each copy ends its own when it is
closed, but a SIGKILLed run closes nothing, and a worker killed with its copies inside leaves
theirs to init. The games' watchdog (:meth:`Reaper.for_games`) SIGKILLs every process of this
user that carries the run's token when the run ends, in the same way.

Run as a script (``python -I -S evo/run/reaper.py RUN_PID FOLDER``, or ``... RUN_PID --games
TOKEN``) so that it starts in a few milliseconds without importing the engine. Linux only, as
is ``/proc``; elsewhere the watchdog only removes the folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from types import ModuleType
from typing import Callable

POLL_S = 0.1
"""How often the watchdog checks that the run is still its parent."""


def holders(folder: str, spare: set[int]) -> list[int]:
    """Processes of this user, not in ``spare``, with a file under ``folder`` open (none
    where there is no ``/proc`` to read: there the watchdog only removes the folder)."""
    if not os.path.isdir("/proc"):
        return []
    prefix = os.path.join(os.path.realpath(folder), "")
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in spare:
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != os.getuid():
                continue
            fds = os.listdir(f"/proc/{entry}/fd")
        except OSError:  # gone, or not ours to read
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{entry}/fd/{fd}")
            except OSError:
                continue
            if target.startswith(prefix):
                found.append(int(entry))
                break
    return found


def own_fds(folder: str) -> list[int]:
    """This process's file descriptors open on files under ``folder``."""
    prefix = os.path.join(os.path.realpath(folder), "")
    fds = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").startswith(prefix):
                fds.append(int(fd))
    return fds


def process_tree() -> ModuleType:
    """:mod:`games.common.process_tree`, loaded from its file: standard library only, so the watchdog
    can use it without the ``games`` package (and its imports) or ``site-packages``."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "games", "common", "process_tree.py")
    spec = importlib.util.spec_from_file_location("evo_reaper_process_tree", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reap(find: Callable[[], list[int]], quiet_s: float = 0.5, give_up_s: float = 30.0) -> int:
    """SIGKILL what ``find`` returns until it has returned nothing for ``quiet_s`` (a dying
    raylet may still be starting a process, a dying worker a game), or for at most
    ``give_up_s`` (a process stuck in the kernel dies only when it leaves it); returns how
    many were killed."""
    killed: set[int] = set()
    start = quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < quiet_s and time.monotonic() - start < give_up_s:
        found = find()
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        if found:
            quiet_since = time.monotonic()
        time.sleep(POLL_S)
    return len(killed)


def watch(run_pid: int, folder: str | None, games: str | None = None) -> None:
    """The watchdog's life: wait for the run to end, then reap the instance and its folder, or
    the processes of the run's games (those carrying ``games``, the run's token)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group
    while os.getppid() == run_pid:
        ready, _, _ = select.select([sys.stdin], [], [], POLL_S)
        if ready and not os.read(sys.stdin.fileno(), 64):
            break  # the run closed the pipe: it has stopped the instance, or is ending
    died = os.getppid() != run_pid
    spare = {run_pid, os.getpid()}
    if games is not None:
        tree = process_tree()

        def leftovers() -> list[int]:
            # A run that died may have left workers that still start copies (one killed
            # while its workers imported): every process of the run goes, not only games'.
            mine = tree.carriers(games, spare=spare, name=tree.RUN) if died else []
            return mine + tree.carriers(f"{games}/", prefix=True, spare=spare)

        reap(leftovers)
    if folder is not None:
        reap(lambda: holders(folder, spare))
        shutil.rmtree(folder, ignore_errors=True)


class Reaper:
    """The run's side: makes the instance's folder and starts the watchdog over it.

    Start it before the instance so that no moment of the instance's life is uncovered;
    :meth:`stop` once the instance is shut down (the watchdog then reaps what is left of it
    and removes the folder).
    """

    def __init__(self, prefix: str | None = None, games: str | None = None) -> None:
        self.folder: str | None = None
        self.games = games
        """The run token whose processes are reaped (:meth:`for_games`), or None."""
        self._env: tuple[str, str | None] | None = None
        """The environment variable :meth:`for_games` set and its value before, put back by stop."""
        what = [] if games is None else ["--games", games]
        if prefix is not None:
            # Short and in /tmp, as Ray's own: the instance's Unix sockets live under it, and a
            # socket path may not be longer than 107 bytes.
            root = "/tmp" if sys.platform.startswith("linux") and os.path.isdir("/tmp") else None
            self.folder = tempfile.mkdtemp(prefix=prefix, dir=root)
            what = [self.folder, *what]
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            # -I: stdlib only, not the modules beside this file; -S: no site-packages to import.
            [sys.executable, "-I", "-S", os.path.abspath(__file__), str(os.getpid()), *what],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, close_fds=True,
        )

    @classmethod
    def for_games(cls) -> "Reaper":
        """The watchdog of the processes the run's game copies start. Gives this run a token of
        its own (``EVO_GAME_RUN``: its workers and their copies inherit it), replacing one the
        run may have inherited from another, so that runs never reap each other's games.

        Start it before any game copy is made; :meth:`stop` once every copy is closed.
        """
        from games.common.process_tree import RUN, new_token

        before = os.environ.get(RUN)
        token = os.environ[RUN] = new_token()
        reaper = cls(games=token)
        reaper._env = (RUN, before)
        return reaper

    def seal(self) -> None:
        """Keep this process's own files under the folder (Ray's driver logs) out of the
        programs it starts from now on (``FD_CLOEXEC``), so that only the instance holds any."""
        assert self.folder is not None
        for fd in own_fds(self.folder):
            with contextlib.suppress(OSError):
                os.set_inheritable(fd, False)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Tell the watchdog the run is done with the instance and wait for it to finish; the
        run's token leaves the environment (``main`` called from Python leaves it as it was)."""
        if self._env is not None:
            (name, before), self._env = self._env, None
            if before is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = before
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:  # still reaping; it ends by itself
            pass

    def __enter__(self) -> "Reaper":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":
    args = sys.argv[2:]
    games = args[args.index("--games") + 1] if "--games" in args else None
    watch(int(sys.argv[1]), None if args[0] == "--games" else args[0], games)
