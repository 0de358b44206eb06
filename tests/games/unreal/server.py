"""A test server that speaks UnrealCV's wire protocol, with a small world behind it.

Test equipment, not a product path: it stands in for an Unreal Engine game with the UnrealCV
plugin so that :mod:`games.unreal` is exercised end to end without an Unreal binary.

What it reproduces of the plugin (checked against the 1.3.2 client in
``unrealcv/__init__.py`` and the plugin's documented commands, ``shared/ANCHORS.md``):

- Frames in both directions: ``uint32 0x9E2B83C1``, ``uint32 payload length``, little-endian,
  then the payload.
- On connect the server sends ``connected to <project>``; one client at a time: a second
  connection is closed without a handshake while the first is served.
- Requests ``<id>:<command>``, answered in order as ``<id>:<body>``: ``ok``, ``error <message>``,
  text (``"%.3f %.3f %.3f"`` for locations and rotations, names separated by spaces for
  ``vget /objects``, ``(R=..,G=..,B=..,A=..)`` for an object's mask colour), an RGBA PNG, or a
  float32 ``npy``.

The world is :class:`tests.games.unreal.world.World`, a Block-Maze-like grid seen from above
with a crash, a stuck and a slow place planted in it. Faults a test can switch on:
:attr:`UnrealCVServer.silent` (requests are read and never answered) and
:meth:`UnrealCVServer.die` (the server stops, as a crashed game does).

Run as a program it is a stand-in for a packaged game binary: it reads ``unrealcv.ini``
(``[UnrealCV.Core] Port= Width= Height=``) from ``--ini`` and takes ``-cvport=N`` over it,
the conventions gym-unrealcv launches binaries with.
"""

from __future__ import annotations

import argparse
import configparser
import os
import random
import socket
import struct
import sys
import threading
import time
from pathlib import Path

from tests.games.unreal.world import SLOW_S, World

MAGIC = 0x9E2B83C1
PROJECT = "evo_test_world"


def send_frame(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack("<II", MAGIC, len(payload)) + payload)


def recv_frame(sock: socket.socket) -> bytes | None:
    """One frame's payload; None when the connection closed or spoke another protocol."""
    head = _recv_exact(sock, 8)
    if head is None:
        return None
    magic, length = struct.unpack("<II", head)
    if magic != MAGIC:
        return None
    return _recv_exact(sock, length)


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        try:
            chunk = sock.recv(left)
        except OSError:
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class UnrealCVServer:
    """The world served on ``127.0.0.1:port`` (0: a free port), one client at a time.

    Args:
        port: TCP port; 0 picks a free one (read :attr:`port`).
        width: Frame width.
        height: Frame height.
    """

    def __init__(self, port: int = 0, width: int = 32, height: int = 24) -> None:
        self.world = World(width, height)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.client: socket.socket | None = None
        self.silent = False
        """Read requests and never answer them (a game that hangs)."""
        self.requests: list[str] = []
        self.refused = 0
        """Connections closed because another client was being served."""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def start(self) -> "UnrealCVServer":
        self._thread.start()
        return self

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # died
            # An accepted socket takes the process's default timeout, and the client's
            # handshake deadline sets one (games/unreal/connection.py) in this very process: a
            # real game's server lives in another. Without this, a silent server's connection
            # closed itself after that deadline, racing the client's own request timeout.
            conn.settimeout(None)
            with self._lock:
                busy = self.client is not None
                if not busy:
                    self.client = conn
            if busy:
                self.refused += 1
                conn.close()
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            send_frame(conn, f"connected to {PROJECT}".encode())
            while True:
                payload = recv_frame(conn)
                if payload is None:
                    return
                head, _, command = payload.partition(b":")
                text = command.decode("utf-8", "replace")
                self.requests.append(text)
                if self.silent:
                    continue
                body = self.world.handle(text)
                if body is None:
                    return  # the crash place: the connection drops without a reply
                if self.world.here == "L":
                    time.sleep(SLOW_S)
                send_frame(conn, head + b":" + body)
        except OSError:
            return
        finally:
            with self._lock:
                if self.client is conn:
                    self.client = None
            _close(conn)

    def die(self) -> None:
        """Stop at once, as a crashed game does: the listener and the client's connection close."""
        _close(self.listener)
        with self._lock:
            client, self.client = self.client, None
        if client is not None:
            _close(client)


def serve_block(n: int, width: int = 32, height: int = 24) -> list[UnrealCVServer]:
    """``n`` servers on consecutive ports (connect mode: copy ``i`` plays on ``port + i``)."""
    for _ in range(50):
        base = random.randrange(20000, 60000 - n)
        servers: list[UnrealCVServer] = []
        try:
            for i in range(n):
                servers.append(UnrealCVServer(base + i, width, height))
        except OSError:
            for server in servers:
                server.die()
            continue
        return [server.start() for server in servers]
    raise RuntimeError(f"no {n} consecutive free ports found")


def write_binary(folder: Path) -> Path:
    """A stand-in for a packaged game: a launch script that starts this server, reading
    ``unrealcv.ini`` beside it and ``-cvport=N``, writing ``<pid>.pid`` files into ``folder``."""
    root = Path(__file__).resolve().parents[3]
    path = folder / "TestGame.sh"
    path.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="{root}" exec "{sys.executable}" -m tests.games.unreal.server '
        f'--ini "$(dirname "$0")/unrealcv.ini" --pid-dir "{folder}" "$@"\n')
    path.chmod(0o755)
    return path


def launched_pids(folder: Path) -> list[int]:
    """The pids of the stand-in binaries :func:`write_binary`'s script started, oldest first."""
    return [int(p.stem) for p in sorted(folder.glob("*.pid"), key=lambda p: p.stat().st_mtime)]


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def main(argv: list[str] | None = None) -> None:
    """Serve as a packaged game would: ``unrealcv.ini`` beside it, ``-cvport=N`` over it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ini", required=True)
    parser.add_argument("--pid-dir", default="")
    args, rest = parser.parse_known_args(argv)
    ini = configparser.ConfigParser()
    ini.read(args.ini)
    core = ini["UnrealCV.Core"] if "UnrealCV.Core" in ini else {}
    port = int(core.get("Port", 9000))
    for arg in rest:
        if arg.startswith("-cvport="):
            port = int(arg.split("=", 1)[1])
    server = UnrealCVServer(port, int(core.get("Width", 32)), int(core.get("Height", 24))).start()
    if args.pid_dir:
        with open(os.path.join(args.pid_dir, f"{os.getpid()}.pid"), "w") as f:
            f.write(f"{server.port}\n")
    server._thread.join()


if __name__ == "__main__":
    main()
