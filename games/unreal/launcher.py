"""Start a packaged Unreal game with the UnrealCV plugin, the way gym-unrealcv does.

gym-unrealcv (``gym_unrealcv/envs/utils/unrealcv_basic.py`` and its launcher) writes an
``unrealcv.ini`` beside the binary (``[UnrealCV.Core] Port= Width= Height=``) and starts
``<binary> <map> -cvport=N -RenderOffScreen``; the plugin reads the file when the game starts
and ``-cvport`` overrides its port. Its users' most common troubles are binaries that do not
start, connections refused, hangs, and ports left taken after a crash (``shared/ANCHORS.md``),
so here: a port that is taken is one clear line before anything starts, a binary that exits
before it listens is one line naming its log, and every process the binary starts (a launch
script's children included) ends with the copy (:class:`games.common.process_tree.CopyProcesses`)
or with this process (``PR_SET_PDEATHSIG``, :mod:`games.common.lifetime`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from games.common.lifetime import die_with_parent
from games.common.process_tree import CopyProcesses

INI_NAME = "unrealcv.ini"


def free_port(host: str) -> int:
    """A port nothing listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_taken(host: str, port: int) -> bool:
    """Whether something already listens on ``host:port`` (a game left from a crashed run)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def write_ini(binary: Path, port: int, width: int, height: int) -> Path:
    """Write ``unrealcv.ini`` beside ``binary``, as the plugin reads it at start."""
    path = binary.parent / INI_NAME
    path.write_text(f"[UnrealCV.Core]\nPort={port}\nWidth={width}\nHeight={height}\n")
    return path


@dataclass
class LaunchedGame:
    """A binary started for one copy, and what it leaves to be cleaned up."""

    process: subprocess.Popen
    port: int
    log_path: Path
    processes: CopyProcesses
    _log: IO[bytes] | None = field(default=None, repr=False)

    def exited(self) -> str | None:
        """Why the binary is not running, or None while it runs."""
        code = self.process.poll()
        if code is None:
            return None
        tail = ""
        with contextlib.suppress(OSError):
            tail = self.log_path.read_text(errors="replace").strip().splitlines()[-1:][0][-200:]
        return (f"the game binary exited with code {code} before serving UnrealCV on port "
                f"{self.port} (log {self.log_path}{': ' + tail if tail else ''})")

    def end(self) -> None:
        """Kill the binary and everything it started (safe to call twice). The log of a binary
        that was still running is removed; one that exited on its own keeps its log."""
        running = self.process.poll() is None
        with contextlib.suppress(OSError):
            self.process.kill()
        self.processes.end()
        with contextlib.suppress(Exception):
            self.process.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None
        if running:
            with contextlib.suppress(OSError):
                self.log_path.unlink()


def launch(binary: str, level: str, host: str, port: int, width: int, height: int,
           args: tuple[str, ...]) -> LaunchedGame:
    """Start ``binary`` serving UnrealCV on ``port`` (0: a free one), its output in a log file.

    Raises:
        ValueError: one line: the binary is missing or not executable, or the port is taken.
    """
    path = Path(binary).expanduser().resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ValueError(f"game.kwargs.binary {binary!r} is not an executable file")
    if port == 0:
        port = free_port(host)
    elif port_taken(host, port):
        raise ValueError(
            f"port {port} on {host} is taken (another program, or a game left from a crashed "
            "run); set game.kwargs.port: 0 to pick a free one, or end what holds it")
    write_ini(path, port, width, height)
    log_path = Path(tempfile.mkstemp(prefix=f"unreal-{port}-", suffix=".log")[1])
    log = open(log_path, "wb")  # noqa: SIM115 - closed in LaunchedGame.end
    command = [str(path), *([level] if level else []), f"-cvport={port}", "-RenderOffScreen",
               f"-ResX={width}", f"-ResY={height}", *args]
    processes = CopyProcesses()
    with processes.marked():
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, cwd=path.parent,
                                   preexec_fn=die_with_parent)
    return LaunchedGame(process, port, log_path, processes, log)
