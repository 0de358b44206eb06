"""Processes that die with the process that started them, however it ends.

A run SIGKILLed (by a scheduler, the OOM killer, a user) runs no cleanup, so whatever it
started must end by itself: once 180 ViZDoom engines were found orphaned on one machine. On
Linux a process asks the kernel for a signal when its parent dies (``PR_SET_PDEATHSIG``); the
engine's worker processes ask for SIGKILL when they start (:func:`die_with_parent`). A ViZDoom
engine is started by the vizdoom library, so it is started through a launcher
(:func:`engine_launcher`) that asks for the same signal and then becomes the engine: the
request survives ``execve``. Elsewhere these do nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import multiprocessing as mp
import os
import pickle
import signal
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

PR_SET_PDEATHSIG = 1
"""``prctl`` option from ``<linux/prctl.h>``: the signal this process gets when its parent dies."""
OWNER = "EVO_ENGINE_OWNER"
"""Environment variable holding the pid that starts an engine, which its launcher checks."""


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Have the kernel send ``sig`` to this process when its parent dies.

    Note: the kernel watches the parent *thread* that started this process; the engines' and
    workers' starting threads live as long as their process does.

    Returns:
        True where it is set (Linux), False elsewhere.
    """
    if not sys.platform.startswith("linux"):
        return False
    return _libc().prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


_LAUNCHER = """\
#!{python} -S
# Written by evo (games/common/lifetime.py): start the ViZDoom engine so that it dies with its parent.
import ctypes, os, sys
ctypes.CDLL(None).prctl({option}, {signal}, 0, 0, 0)
owner = os.environ.get("{owner}")
if owner is not None and os.getppid() != int(owner):
    sys.exit("evo: the process that started this engine is gone")
os.execv({engine!r}, [{engine!r}, *sys.argv[1:]])
"""


def engine_launcher(engine: str) -> str | None:
    """A launcher for the engine binary ``engine`` that sets ``PR_SET_PDEATHSIG`` and then
    executes it with its arguments; its path, or None where there is none to be had (not
    Linux, an interpreter path a ``#!`` line cannot hold, no writable or executable temporary
    folder).

    Set :data:`OWNER` to this process's pid before the engine starts, so that an engine whose
    parent died before it could ask for the signal exits at once.
    """
    python = sys.executable
    if not sys.platform.startswith("linux") or not python or any(c.isspace() for c in python):
        return None
    text = _LAUNCHER.format(python=python, option=PR_SET_PDEATHSIG, signal=int(signal.SIGKILL),
                            owner=OWNER, engine=engine)
    # A folder only we can write to: in a shared /tmp another user must not be able to
    # put their own launcher where ours would run.
    root = Path(tempfile.gettempdir()) / f"evo-{os.getuid()}"
    folder = root / f"launcher-{hashlib.sha1(text.encode()).hexdigest()[:12]}"
    path = folder / "vizdoom"  # the engine keeps its name for `ps` and child_pids("vizdoom")
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(root)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
        if not path.is_file() or path.read_text() != text:
            folder.mkdir(exist_ok=True)
            tmp = folder / f".vizdoom.{os.getpid()}.tmp"
            tmp.write_text(text)
            tmp.chmod(0o755)
            os.replace(tmp, path)
    except OSError:
        return None
    # A temporary folder mounted noexec would keep the engine from starting at all.
    return str(path) if os.access(path, os.X_OK) else None


@contextlib.contextmanager
def startable(target: Callable[..., Any]) -> Iterator[None]:
    """Let a child process that runs ``target`` (a game copy, a rendering process) start from
    inside a worker of the parallel backend, without the engine's main module.

    Three of multiprocessing's rules are for children of plain programs. A child runs the
    parent's main module again before anything else, so that what it unpickles can come from
    there: for ``evo`` that is the command line, which imports torch (a second of CPU and
    over 100 MiB in every child); a child needs it only when ``target`` comes from there (a
    user's script), so otherwise the child is not told of it. A spawned child sets the
    parent's *default* start method when it boots (inside a loky worker that default is
    ``"loky"``, which a plain child cannot set: "cannot find context for 'loky'"). And a
    daemonic process may not start children (Dask's workers are daemonic), since it is ended
    at exit without cleaning up after them; a child dies with its parent
    (:func:`die_with_parent`). So while a child starts, the main module is
    hidden unless needed, the default start method is ``"spawn"`` and the daemonic flag is lifted.
    """
    current = mp.get_start_method(allow_none=True)
    standard = current in (None, "spawn", "fork", "forkserver")
    if not standard:
        mp.set_start_method("spawn", force=True)
    config = mp.current_process()._config  # type: ignore[attr-defined]
    daemonic = config.get("daemon", False)
    config["daemon"] = False
    main = sys.modules["__main__"]
    hidden = {} if b"__main__" in pickle.dumps(target) else {
        name: main.__dict__[name] for name in ("__spec__", "__file__") if name in main.__dict__
    }
    if hidden:  # what multiprocessing reads to find the main module (spawn.get_preparation_data)
        main.__spec__ = None
        main.__dict__.pop("__file__", None)
    try:
        yield
    finally:
        main.__dict__.update(hidden)
        config["daemon"] = daemonic
        if not standard:
            mp.set_start_method(current, force=True)
