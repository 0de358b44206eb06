"""The processes a game copy starts end with the copy, whoever their parent is by then.

A packaged game starts its engine through a launch script, and the script may background
helpers (a crash reporter, a log pump) and exit: those are orphans, adopted by init (or the
nearest subreaper), and no longer below the process that holds the game. A game's own
``close`` usually kills only the process it started itself. So the processes of a copy are
found by what they inherit, not by their parents: the copy puts a marker in the environment
(``EVO_GAME_COPY=<run token>/<copy id>``) around every call into the game (:meth:`CopyProcesses.marked`),
or, for an isolated copy, in the environment its worker process starts with. Every process the
game starts from then on inherits it, grandchildren and daemons included, and closing the copy
(:meth:`CopyProcesses.end`) SIGKILLs every process of this user that carries it.

Linux facts this relies on:

- ``/proc/<pid>/environ`` is the environment a process was given at ``execve`` (proc(5)), not
  what it changed since: the process that sets the marker in ``os.environ`` afterwards does
  not carry it, the processes it starts do.
- A process that has been sent SIGKILL can no longer fork: ``copy_process`` refuses to finish
  a fork while a fatal signal is pending (kernel/fork.c). So killing what a scan finds and
  scanning again until a scan finds nothing new ends a tree that is forking as it is killed,
  without waiting on a clock.
- ``PR_SET_CHILD_SUBREAPER`` (prctl(2)) makes orphans below a process its children rather
  than init's: an isolated copy's worker asks for it, so that what its game leaves running
  stays in its tree (counted by ``max_rss_mb``, and ended even if it cleared its environment).

Limits: a game that starts its processes with an environment of its own making (``env={}``)
escapes the marker; one that runs them as another user cannot be read or killed; processes
started through a service (systemd, dbus activation, a container runtime) are not the game's
descendants at all. Run-wide, what the copies of a run leave when the run dies is ended by the
watchdog of :mod:`evo.run.reaper`, which matches the run's token.

Standard library only: :mod:`evo.run.reaper` runs as ``python -I -S`` and loads this file by path.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import secrets
import select
import signal
import sys
from typing import Callable, Collection, Iterable, Iterator, Sequence

MARK = "EVO_GAME_COPY"
"""Environment variable that names the copy a process belongs to: ``<run token>/<copy id>``."""
RUN = "EVO_GAME_RUN"
"""Environment variable holding the run token; set once per run, inherited by its workers so
that every copy of the run, in any process, carries the same token."""
PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option from ``<linux/prctl.h>``: orphans below this process are reparented to it."""
REAP_WAIT_S = 1.0
"""How long a killed child of this process is awaited (on its pidfd) to be reaped, so that no
zombie is left; a process stuck in the kernel dies only when it leaves it."""


def new_token() -> str:
    """A fresh run token: no ``/`` in it, so that ``<token>/`` matches this run's copies only."""
    return secrets.token_hex(8)


def run_token() -> str:
    """This run's token: the one inherited from the process that started the run, or a new one
    put into ``os.environ`` so that processes started from now on inherit it."""
    token = os.environ.get(RUN)
    if not token:
        token = os.environ[RUN] = new_token()
    return token


def carriers(value: str | Collection[str], prefix: bool = False, spare: Iterable[int] = (),
             name: str = MARK) -> list[int]:
    """Live processes of this user whose environment holds ``name=value`` (any value starting
    with ``value`` when ``prefix``; any of several values, read in one pass over ``/proc``),
    except those in ``spare``; none without ``/proc``."""
    needles = tuple(f"{name}={v}".encode() for v in ([value] if isinstance(value, str) else value))
    skip = set(spare)
    uid = os.getuid()
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) in skip:
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != uid:
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
        except OSError:  # gone, or not ours to read
            continue
        # A zombie's environ reads empty: it has ended already.
        for var in env.split(b"\0"):
            if var in needles or (prefix and var.startswith(needles)):
                found.append(int(entry))
                break
    return found


def kill_all(find: Callable[[], list[int]]) -> list[int]:
    """SIGKILL what ``find`` returns, and again what it returns next, until it returns nothing
    not killed already (a killed process cannot fork any more, see above); the pids killed."""
    killed: set[int] = set()
    while new := [pid for pid in find() if pid not in killed]:
        for pid in new:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            killed.add(pid)
    return sorted(killed)


def reap(pids: Iterable[int]) -> None:
    """Wait until each of ``pids`` has ended (at most :data:`REAP_WAIT_S` each) and collect the
    exit status of those that are children of this process, so that none stays a zombie (an
    orphan adopted by a subreaper, or a game's own child). A game's ``subprocess.Popen`` whose
    child was reaped here reads exit status 0 from then on. A process that is not a child is
    waited for too: SIGKILL is delivered at once, but the process ends a moment later, and
    whoever looks right after must not find it still there."""
    for pid in pids:
        child = True
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                continue
        except ChildProcessError:
            child = False  # its own parent (or init) reaps it; it has still to end
        with contextlib.suppress(OSError):
            # Woken when it ends (pidfd_open(2), Linux 5.3), not on a clock.
            fd = os.pidfd_open(pid)
            try:
                select.select([fd], [], [], REAP_WAIT_S)
            finally:
                os.close(fd)
        if child:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def become_subreaper() -> bool:
    """Have orphans below this process reparented to it instead of to init (Linux only).

    Returns:
        True where it is set.
    """
    if not sys.platform.startswith("linux"):
        return False
    return _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, from ``/proc/<pid>/task/*/children`` (Linux 4.2)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            out.extend(children)
            todo.extend(children)
    return out


class CopyProcesses:
    """The processes of one game copy: marked while the copy calls into its game, ended with it.

    Args:
        value: The marker's value, ``<run token>/<copy id>``; None makes a new one.
        own_tree: This process *is* the copy (an isolated copy's worker): the processes below
            it are the copy's too, marked or not, and it is spared when the copy ends.
    """

    def __init__(self, value: str | None = None, own_tree: bool = False) -> None:
        self.value = value or f"{run_token()}/{os.getpid()}-{secrets.token_hex(4)}"
        self.own_tree = own_tree

    @classmethod
    def inherited(cls) -> "CopyProcesses":
        """The copy this process was started for (its environment holds a marker), or a new
        one if it holds none."""
        return cls(os.environ.get(MARK), own_tree=True)

    @contextlib.contextmanager
    def marked(self) -> Iterator[None]:
        """Put the marker in this process's environment for the duration, so that processes
        the game starts meanwhile inherit it. Not thread-safe: another thread that starts a
        process meanwhile marks it too (ended with this copy)."""
        before = os.environ.get(MARK)
        os.environ[MARK] = self.value
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(MARK, None)
            else:
                os.environ[MARK] = before

    def find(self) -> list[int]:
        """The copy's live processes: those that carry the marker, and with ``own_tree`` every
        process below this one."""
        me = os.getpid()
        found = carriers(self.value, spare={me})
        if self.own_tree:
            found.extend(pid for pid in _descendants(me) if pid not in found)
        return found

    def end(self, scan: bool = True) -> int:
        """SIGKILL every process of the copy and reap those that are children of this one;
        returns how many were killed. ``scan`` False (an isolated copy closing, whose worker
        ends its marked processes once it has exited): only the processes below this one,
        without reading every process's environment."""
        me = os.getpid()
        killed = kill_all(self.find if scan or not self.own_tree else lambda: _descendants(me))
        reap(killed)
        return len(killed)


def end_together(copies: Sequence[CopyProcesses]) -> int:
    """:meth:`CopyProcesses.end` for many copies (none ``own_tree``) in one pass over ``/proc``
    a round, not one per copy: a vector game of 60 copies closed in 3.4 s, scanning ``/proc``
    120 times among the processes its engines had left."""
    values = [c.value for c in copies]
    killed = kill_all(lambda: carriers(values, spare={os.getpid()})) if values else []
    reap(killed)
    return len(killed)
