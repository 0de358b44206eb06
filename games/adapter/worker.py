"""One isolated game copy: the worker process that holds it, and the parent's handle on it.

:class:`games.adapter.process_runner.ProcessRunner` keeps one :class:`Worker` per copy. The worker runs
:func:`_worker_main`: one :class:`games.adapter.game_copy.GameCopy` driven by ``(command, argument)``
messages over a ``Pipe``. Workers are forked from a fork server that imported numpy and
gymnasium once (:func:`copy_context`), so a copy starts in milliseconds, neither importing
them again nor inheriting the engine's threads; they die with their parent
(:func:`games.common.lifetime.die_with_parent`), and so does everything their game starts
(:mod:`games.common.process_tree`).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import signal
import time
from multiprocessing import forkserver, resource_tracker
from typing import Any, Callable, Sequence

import gymnasium as gym

from games.core.base import GameError, GameSpec
from games.adapter.game_copy import GAME_FAULTS, GameCopy, game_error
from games.common.lifetime import die_with_parent, startable
from games.common.process_memory import descendants, rss_mb
from games.common.process_tree import MARK, CopyProcesses, become_subreaper, end_together

CLOSE_GRACE_S = 1.0
STOPPED = "stopped"
"""The reply to ``("stop", None)``: the copy plays no more of the steps it was sent ahead."""
"""How long ``close`` waits for a worker to exit on its own before killing it."""


def _worker_main(conn: mp_connection.Connection, make_env: Callable[[], gym.Env],
                 info_keys: Sequence[str] = (), spec: GameSpec | None = None, first_seed: int = 0,
                 marker: str | None = None) -> None:
    """Body of a worker process: one game copy driven by ``(command, argument)`` messages.

    Replies are ``("ok", result)`` or ``("error", GameError)``; the GameError is computed
    here, where the traceback is. The first reply answers the start: ``("ok", GameSpec)``,
    after ``("made", None)`` once ``make_env`` has returned: a start that times out after
    that hung in the game's first reset, not in its making.
    """
    # Ctrl-C reaches the whole process group; the parent decides when workers stop. A
    # parent SIGKILLed decides nothing: the kernel ends the worker then.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _leave_fork_server()
    die_with_parent()
    # A forked copy's environment is the fork server's, not its parent's: the copy's marker
    # comes as an argument, and every process the game starts from now on inherits it.
    if marker is not None:
        os.environ[MARK] = marker
    # What the game leaves running stays below this process, so that it is counted against
    # max_rss_mb and ended with the copy even without the marker it was started with.
    become_subreaper()
    copy: GameCopy | None = None
    said = False

    def make_and_say() -> gym.Env:
        nonlocal said
        env = make_env()
        if not said:  # the first game only: a broken one made again later says nothing
            said = True
            conn.send(("made", None))
        return env

    try:
        try:
            copy = GameCopy.tracked(make_and_say, info_keys, CopyProcesses(marker, own_tree=True), spec, first_seed)
            conn.send(("ok", copy.spec))
        except GAME_FAULTS as exc:
            conn.send(("error", game_error(exc)))
            return
        while True:
            command, arg = conn.recv()
            if command == "close":
                return
            if command == "steps":
                _play_planned(conn, copy, arg)
                continue
            if command == "stop":  # what is left of a plan is not wanted: said once it is over
                conn.send(("ok", STOPPED))
                continue
            try:
                if command == "render":
                    result = copy.render()
                elif command == "restore":  # (snapshot, snapshot_every)
                    result = copy.restore(*arg)
                else:  # reset: (seed, snapshot_every)
                    result = copy.step(arg) if command == "step" else copy.reset(*arg)
                reply: tuple[str, Any] = ("ok", result)
            except GAME_FAULTS as exc:
                reply = ("error", game_error(exc))
            conn.send(reply)
    except (EOFError, OSError):
        pass  # the parent closed the pipe or died: nothing left to serve
    finally:
        if copy is not None:
            copy.close()
        conn.close()


def _play_planned(conn: mp_connection.Connection, copy: GameCopy, actions: Sequence[int]) -> None:
    """Step ``actions`` one after another, each step's reply sent as soon as it is known, until
    they run out or the episode ends (an error, ``terminated`` or ``truncated``): the parent
    reads them as the steps of one ``step`` each, and never waits for a round trip between
    two steps of an agent that chose them in advance. A message waiting between two steps
    (``stop``, or ``close``) ends the plan there."""
    for action in actions:
        if conn.poll():
            return
        try:
            result = copy.step(action)
        except GAME_FAULTS as exc:
            conn.send(("error", game_error(exc)))
            return
        conn.send(("ok", result))
        if result.terminated or result.truncated:
            return


def _leave_fork_server() -> None:
    """Drop the fork server's liveness pipe that a forked copy inherits.

    The fork server exits when the last holder of that pipe's write end is gone; every
    process it forks holds one, so that it can fork more. A copy forks none, and holding it
    would keep the server alive after the engine died, and the server would keep the copy
    alive (its death signal, :func:`games.common.lifetime.die_with_parent`, fires when the server
    exits): a hung copy would outlive a SIGKILLed run.
    """
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None  # type: ignore[union-attr]


PRELOAD = ["numpy", "gymnasium", "games.adapter.game_copy"]
"""What the fork server imports once, so that a copy's process starts in milliseconds
instead of importing them again (about 0.4 s of CPU each)."""


def start_slots() -> int:
    """Copies that start at once: one per core this process may run on (its CPU affinity), at
    least 1. More would only share those cores, each start slower than the deadline expects."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this system
        return max(1, os.cpu_count() or 1)


def copy_context() -> Any:
    """Where copies' processes come from: a fork server (Linux), a single-threaded process
    that imported :data:`PRELOAD` and forks each copy from itself, so a copy neither pays for
    those imports nor inherits the engine's threads (forking the engine itself could copy a
    lock held by a torch or loky thread); ``spawn`` where there is none."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


class Worker:
    """One worker process and the parent's end of its pipe; restarted in place."""

    def __init__(self, ctx: Any, make_env: Callable[[], gym.Env], index: int,
                 info_keys: Sequence[str] = ()) -> None:
        self._ctx = ctx
        self._make_env = make_env
        self._info_keys = tuple(info_keys)
        self.spec: GameSpec | None = None
        """The game's spec once known: a restarted worker takes it instead of deriving it."""
        self.first_seed = 0
        self._index = index
        self.process: Any = None
        self.conn: mp_connection.Connection | None = None
        self.processes: CopyProcesses | None = None
        """The copy's processes, this worker process first: they all start with its marker."""

    @property
    def running(self) -> bool:
        return self.process is not None

    def rss_mb(self, tree: dict[int, list[int]]) -> float:
        """Resident memory of the worker and of every process below it in ``tree``, MiB."""
        pid = self.process.pid if self.process is not None else None
        if pid is None:
            return 0.0
        return sum(r or 0.0 for r in map(rss_mb, [pid, *descendants(pid, tree)]))

    def start(self) -> None:
        # The worker is given the copy's marker, and so is every process its game starts.
        # Not multiprocessing's resource tracker or the fork server, which the first copy
        # starts: they serve every copy, and would end with this one (a forked copy's
        # environment is the fork server's).
        resource_tracker.ensure_running()
        if self._ctx.get_start_method() == "forkserver":
            forkserver.ensure_running()
        self.processes = CopyProcesses()
        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=_worker_main,
            args=(child, self._make_env, self._info_keys, self.spec, self.first_seed, self.processes.value),
            name=f"game-copy-{self._index}",
            # Daemonic so that multiprocessing's own exit handler terminates it if
            # everything else failed; a game may still start subprocesses, just not
            # multiprocessing children.
            daemon=True,
        )
        try:
            with startable(self._make_env), self.processes.marked():
                process.start()
        except BaseException:
            parent.close()
            child.close()
            self.processes.end()
            raise
        child.close()  # only the worker holds it now, so its death reads as EOF here
        self.process, self.conn = process, parent

    def send(self, message: tuple[str, Any]) -> bool:
        """Send, or return False if the worker is gone."""
        if self.conn is None:
            return False
        try:
            self.conn.send(message)
            return True
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            return False

    def died(self) -> GameError:
        """Reap a worker whose pipe reads EOF and say how it ended."""
        code = None
        if self.process is not None:
            self.process.join(CLOSE_GRACE_S)
            if self.process.is_alive():  # closed its pipe but lingers: finish it
                self.process.kill()
                self.process.join()
            code = self.process.exitcode
        self.kill()
        if code is not None and code < 0:  # a signal: -11 is a segfault in the game's C code
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            why = " (not by the engine: the kernel's out-of-memory killer, or another process)" if name == "SIGKILL" else ""
            return GameError(type="GameProcessDied", message=f"game process was killed by {name}{why}")
        return GameError(type="GameProcessDied", message=f"game process exited with code {code}")

    def kill(self, end_processes: bool = True) -> CopyProcesses | None:
        """SIGKILL and reap, so no zombie remains, with every process the copy started (a
        worker killed mid-step leaves its game's processes to init); the worker restarts on
        the next reset. ``end_processes`` False: those are left to the caller, and returned."""
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
            self.process.close()
        if self.conn is not None:
            self.conn.close()
        processes = self.processes
        if processes is not None and end_processes:
            processes.end()
        self.process, self.conn, self.processes = None, None, None
        return processes

    def stop(self) -> None:
        """Ask the worker to exit; :meth:`kill` it if it has not within the grace time."""
        if self.process is None:
            return
        self.send(("close", None))
        self.process.join(CLOSE_GRACE_S)
        self.kill()


def stop_workers(workers: list[Worker]) -> None:
    """Stop every worker: close first (they exit in parallel), then reap or kill each."""
    for w in workers:
        if w.running:
            w.send(("close", None))
    deadline = time.monotonic() + CLOSE_GRACE_S
    left = []
    for w in workers:
        if w.process is not None:
            w.process.join(max(deadline - time.monotonic(), 0.0))
        left.append(w.kill(end_processes=False))
    end_together([p for p in left if p is not None])
