"""The yard: a held-out stand-in for an Unreal game with the UnrealCV plugin.

Written independently from UnrealCV's documentation (the command reference on unrealcv.org and
docs.unrealcv.org, and the ``unrealcv`` Python client's protocol), not from the project's own
test server (``tests/games/unreal/server.py``, ``world.py``), so that it catches assumptions that
stand-in shares with the engine.

Protocol: every message is a little-endian ``uint32`` magic ``0x9E2B83C1``, a ``uint32`` payload
length and the payload. The server greets a client with ``connected to YardGame``; a request is
``<id>:<command>`` and its reply ``<id>:<body>``. One client is served at a time: a second one
connects (the listen backlog) but is not greeted until the first leaves.

Commands (``vget /unrealcv/commands`` lists them as templates)::

    vget /unrealcv/status            vget /unrealcv/commands
    vget|vset /camera/0/location     "x y z", three decimals; vset replies "ok"
    vget|vset /camera/0/rotation     "pitch yaw roll", read back in (-180, 180] as Unreal does
    vset /camera/0/moveto x y z      moves unless blocked (the yard's walls, the stuck place)
    vget /camera/0/lit png           RGBA PNG, width x height, ray-cast from the camera's pose
    vget /camera/0/object_mask png   RGBA PNG, each object in its mask colour, the sky black
    vget /camera/0/depth npy         float32 .npy, height x width, distance from the camera
    vget /objects                    vget /object/NAME/color  "(R=..,G=..,B=..,A=255)"
    vset /action/game/level NAME     reloads: the camera is back at START, rotation 0 0 0
    anything else                    "error Can not find a handler for this command."

The world: a flat square yard, x and y from 0 to 1000 (ten 100-unit cells a side), walls at
its edges (a move beyond stops at the wall), the camera at height 150, starting at ``START``.
Four decorative objects stand at half-cell points (they never block a move along the grid).
Three planted faults, each a 100 x 100 square centred on a grid point (module constants):

- ``CRASH`` (900, 700): moving onto it (``moveto``) closes the connection without a reply; the
  class stops serving, the program exits with :data:`CRASH_EXIT`. 14 moves from the start.
- ``STUCK`` (300, 900): once the camera stands on it every ``moveto`` is ignored (the reply is
  still ``ok``); turning works, and a teleport (``vset .../location``) or a level reload gets out.
  10 moves from the start.
- ``SLOW`` (600, 600): while the camera stands on it every reply is delayed by 30 ms.
  10 moves from the start.

Two ways to run it: :class:`YardServer` in-process (``YardServer(port=0, width=32,
height=24).start()``, ``.port``, ``.die()``), or as a program standing in for a packaged game:
:func:`write_binary` writes an executable script that the engine's launcher starts as
``<binary> [level] -cvport=N -RenderOffScreen -ResX=W -ResY=H ...``; the program reads
``unrealcv.ini`` (``[UnrealCV.Core] Port= Width= Height=``) beside the script, ``-cvport``
overrides its port, and ``-ResX``/``-ResY`` are used only when the file gives no size.
"""

from __future__ import annotations

import configparser
import contextlib
import io
import math
import os
import re
import shlex
import socket
import struct
import sys
import threading
import time
import zlib
from pathlib import Path

import numpy as np

MAGIC = 0x9E2B83C1
PROJECT = "YardGame"
CELL = 100.0
SIZE = 1000.0
CAMERA_Z = 150.0
START = (100.0, 100.0, 150.0)
CRASH = (900.0, 700.0)
STUCK = (300.0, 900.0)
SLOW = (600.0, 600.0)
SLOW_S = 0.030
CRASH_EXIT = 3
"""Exit status of the program when its crash place is hit."""
ERROR = "error Can not find a handler for this command."
WALL_TOP, OBJECT_TOP, OBJECT_RADIUS, SKY_DEPTH = 300.0, 200.0, 30.0, 10000.0
OBJECTS: dict[str, tuple[float, float, tuple[int, int, int], tuple[int, int, int]]] = {
    # name: x, y, mask colour, lit colour
    "Crate": (450.0, 350.0, (255, 0, 0), (150, 100, 50)),
    "Barrel": (250.0, 650.0, (0, 255, 0), (60, 60, 160)),
    "Tree": (750.0, 250.0, (0, 0, 255), (40, 140, 40)),
    "Statue": (650.0, 850.0, (255, 255, 0), (200, 200, 200)),
}
MASK_COLORS = {"Floor": (0, 128, 255), "Wall": (255, 0, 255),
               **{name: o[2] for name, o in OBJECTS.items()}}
WALL_LIT = ((200, 80, 80), (80, 200, 80), (80, 80, 200), (200, 200, 80))
SKY_LIT = (135, 190, 235)
COMMANDS = (
    "vget /unrealcv/status", "vget /unrealcv/commands", "vget /objects", "vget /object/[str]/color",
    "vget /camera/[uint]/location", "vset /camera/[uint]/location [float] [float] [float]",
    "vget /camera/[uint]/rotation", "vset /camera/[uint]/rotation [float] [float] [float]",
    "vset /camera/[uint]/moveto [float] [float] [float]", "vget /camera/[uint]/lit png",
    "vget /camera/[uint]/object_mask png", "vget /camera/[uint]/depth npy", "vset /action/game/level [str]")
_CAMERA = re.compile(r"/camera/(\d+)/(\w+)")
_OBJECT = re.compile(r"/object/([^/\s]+)/color")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def on_place(x: float, y: float, place: tuple[float, float]) -> bool:
    """Whether ``(x, y)`` lies in the 100 x 100 square centred on ``place``."""
    return (math.floor((x + CELL / 2) / CELL), math.floor((y + CELL / 2) / CELL)) == (
        round(place[0] / CELL), round(place[1] / CELL))


def png(rgba: np.ndarray) -> bytes:
    """A minimal PNG (8-bit RGBA, one IDAT) of an ``[H, W, 4]`` uint8 array."""
    h, w, _ = rgba.shape
    rows = np.concatenate([np.zeros((h, 1), np.uint8), rgba.reshape(h, w * 4)], axis=1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes())) + chunk(b"IEND", b""))


def _normalized(angle: float) -> float:
    """An angle in (-180, 180], as Unreal's rotators come back from a transform."""
    a = math.fmod(angle, 360.0)
    a = a - 360.0 if a > 180.0 else a + 360.0 if a <= -180.0 else a
    return 0.0 if a == 0 else a


class Yard:
    """The world behind the server: the camera's pose, the faults, the frames."""

    def __init__(self, width: int, height: int, port: int = 0) -> None:
        self.width, self.height, self.port, self.level = int(width), int(height), port, ""
        self.location, self.rotation = list(START), [0.0, 0.0, 0.0]

    def on(self, place: tuple[float, float]) -> bool:
        """Whether the camera stands on ``place``."""
        return on_place(self.location[0], self.location[1], place)

    def handle(self, command: str) -> str | bytes | None:
        """The reply to ``command``; None: the game crashed (no reply, connection closed)."""
        words = command.split()
        if len(words) < 2 or words[0] not in ("vget", "vset"):
            return ERROR
        verb, path, args = words[0], words[1], words[2:]
        numbers = [float(a) for a in args] if all(_NUMBER.fullmatch(a) for a in args) else []
        if verb == "vget" and not args and path in ("/unrealcv/status", "/unrealcv/commands", "/objects"):
            return {"/unrealcv/status": self._status(), "/unrealcv/commands": "\n".join(COMMANDS),
                    "/objects": " ".join(MASK_COLORS)}[path]
        if verb == "vset" and path == "/action/game/level" and len(args) == 1:
            self.level, self.location, self.rotation = args[0], list(START), [0.0, 0.0, 0.0]
            return "ok"
        if (match := _OBJECT.fullmatch(path)) and verb == "vget" and not args:
            if match[1] not in MASK_COLORS:
                return f"error Can not find object {match[1]}"
            r, g, b = MASK_COLORS[match[1]]
            return f"(R={r},G={g},B={b},A=255)"
        if (match := _CAMERA.fullmatch(path)) is None:
            return ERROR
        if match[1] != "0":
            return f"error Camera {match[1]} can not be found"
        what = match[2]
        if verb == "vget" and not args and what in ("location", "rotation"):
            return "%.3f %.3f %.3f" % tuple(self.location if what == "location" else self.rotation)
        if verb == "vget" and args in (["png"], ["npy"]):
            if (what, args[0]) in (("lit", "png"), ("object_mask", "png")):
                return png(self.render(what))
            if (what, args[0]) == ("depth", "npy"):
                out = io.BytesIO()
                np.save(out, self.render("depth")[:, :, 0], allow_pickle=False)
                return out.getvalue()
        if verb == "vset" and len(numbers) == 3 and what in ("location", "rotation", "moveto"):
            if what == "location":
                self.location = numbers
            elif what == "rotation":
                self.rotation = [_normalized(a) for a in numbers]
            elif not self.on(STUCK):
                self.location = [min(max(numbers[0], 0.0), SIZE), min(max(numbers[1], 0.0), SIZE), numbers[2]]
                if self.on(CRASH):
                    return None
            return "ok"
        return ERROR

    def _status(self) -> str:
        return (f"Is Listening\nClient Connected\n{self.port}\nConfiguration\nConfig file: unrealcv.ini\n"
                f"Port: {self.port}\nWidth: {self.width}\nHeight: {self.height}\nFOV: 90.000000\n"
                "EnableInput: true\nEnableRightEye: false\n")

    def render(self, mode: str) -> np.ndarray:
        """``lit`` or ``object_mask``: ``[H, W, 4]`` uint8; ``depth``: ``[H, W, 1]`` float32.

        A pinhole camera with a 90 degree horizontal field of view; per column a ray meets the
        nearest object (a cylinder) or wall, per row the height says surface, floor or sky."""
        w, h = self.width, self.height
        x, y, z = self.location
        pitch, yaw = math.radians(self.rotation[0]), math.radians(self.rotation[1])
        focal = w / 2.0
        angle = yaw + np.arctan((np.arange(w) + 0.5 - w / 2.0) / focal)
        dx, dy = np.cos(angle), np.sin(angle)
        with np.errstate(divide="ignore", invalid="ignore"):  # distances to the walls along each ray
            tx = np.where(dx > 1e-9, (SIZE - x) / dx, np.where(dx < -1e-9, -x / dx, np.inf))
            ty = np.where(dy > 1e-9, (SIZE - y) / dy, np.where(dy < -1e-9, -y / dy, np.inf))
        t_wall = np.maximum(np.minimum(tx, ty), 1.0)
        wall = np.where(tx <= ty, np.where(dx > 0, 0, 2), np.where(dy > 0, 1, 3))
        t_obj, obj = np.full(w, np.inf), np.full(w, -1)
        for k, (ox, oy, _, _) in enumerate(OBJECTS.values()):
            along = (ox - x) * dx + (oy - y) * dy
            across2 = (ox - x) ** 2 + (oy - y) ** 2 - along ** 2
            with np.errstate(invalid="ignore"):
                t = np.where((along > 0) & (across2 < OBJECT_RADIUS ** 2),
                             np.maximum(along - np.sqrt(np.maximum(OBJECT_RADIUS ** 2 - across2, 0)), 1.0), np.inf)
            nearer = t < t_obj
            t_obj, obj = np.where(nearer, t, t_obj), np.where(nearer, k, obj)
        elev = (np.arctan((h / 2.0 - np.arange(h) - 0.5) / focal) + pitch)[:, None]
        tan_e = np.tan(np.clip(elev, -1.5, 1.5))
        z_obj, z_wall = z + t_obj[None, :] * tan_e, z + t_wall[None, :] * tan_e
        hit_obj = np.isfinite(z_obj) & (z_obj >= 0) & (z_obj <= OBJECT_TOP)
        hit_wall = ~hit_obj & (z_wall >= 0) & (z_wall <= WALL_TOP)
        floor = ~hit_obj & ~hit_wall & (tan_e < 0)
        if mode == "depth":
            cos_e = np.cos(np.clip(elev, -1.5, 1.5))
            with np.errstate(divide="ignore", invalid="ignore"):
                d = np.where(hit_obj, t_obj[None, :] / cos_e, np.where(
                    hit_wall, t_wall[None, :] / cos_e, np.where(floor, z / np.abs(np.sin(elev)), SKY_DEPTH)))
            return np.minimum(d, SKY_DEPTH).astype(np.float32)[:, :, None]
        out = np.zeros((h, w, 4), np.uint8)
        out[:, :, 3] = 255
        if mode == "object_mask":
            out[floor, :3] = MASK_COLORS["Floor"]
            out[hit_wall, :3] = MASK_COLORS["Wall"]
            for k, name in enumerate(OBJECTS):
                out[hit_obj & (obj == k)[None, :], :3] = MASK_COLORS[name]
            return out
        out[:, :, :3] = SKY_LIT
        cx, cy = math.floor((x + CELL / 2) / CELL), math.floor((y + CELL / 2) / CELL)
        out[floor, :3] = ((40 + 23 * cx) % 256, (60 + 37 * cy) % 256, 90)
        shade_wall = 1.0 / (1.0 + t_wall / 800.0)
        for k in range(4):
            cols = (wall == k)[None, :] & hit_wall
            colour = (np.array(WALL_LIT[k])[None, :] * shade_wall[:, None]).astype(np.uint8)
            out[:, :, :3] = np.where(cols[:, :, None], colour[None, :, :], out[:, :, :3])
        for k, (_, _, _, lit) in enumerate(OBJECTS.values()):
            cols = (obj == k)[None, :] & hit_obj
            colour = (np.array(lit)[None, :] / (1.0 + np.where(obj == k, t_obj, 0)[:, None] / 800.0)).astype(np.uint8)
            out[:, :, :3] = np.where(cols[:, :, None], colour[None, :, :], out[:, :, :3])
        return out


def _recv_exact(conn: socket.socket, n: int) -> bytes | None:
    data = b""  # None: the peer closed
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def receive(conn: socket.socket) -> bytes | None:
    """One message's payload; None when the peer closed or sent no magic."""
    if (head := _recv_exact(conn, 8)) is None or struct.unpack("<I", head[:4])[0] != MAGIC:
        return None
    return _recv_exact(conn, struct.unpack("<I", head[4:])[0])


def send(conn: socket.socket, payload: bytes) -> None:
    """One message: magic, length, payload."""
    conn.sendall(struct.pack("<II", MAGIC, len(payload)) + payload)


class YardServer:
    """The yard served over UnrealCV's protocol, one client at a time, in a daemon thread.

    Args:
        port: Where to listen (0: a free port; :attr:`port` says which).
        width: Frame width.
        height: Frame height.
        host: Where to listen.
        exit_on_crash: Exit the process at the crash place (the program); else stop serving.
    """

    def __init__(self, port: int = 0, width: int = 320, height: int = 240, host: str = "127.0.0.1",
                 exit_on_crash: bool = False) -> None:
        self._listener = socket.create_server((host, port), backlog=8)
        self.port: int = self._listener.getsockname()[1]
        self.yard = Yard(width, height, self.port)
        self.exit_on_crash = exit_on_crash
        self.crashed, self.requests = False, 0
        self._client: socket.socket | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=f"yard-{self.port}", daemon=True)

    def start(self) -> YardServer:
        self._thread.start()
        return self

    def wait(self) -> None:
        """Until the server stops (a crash or :meth:`die`)."""
        self._thread.join()

    def die(self) -> None:
        """Stop serving: the listener and any client are closed (safe to call twice)."""
        self._stopped.set()
        for sock in (self._listener, self._client):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:  # not from a crash
            self._thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self._client = conn
            try:
                self._session(conn)
            except OSError:  # the client left
                pass
            finally:
                self._client = None
                with contextlib.suppress(OSError):
                    conn.close()

    def _session(self, conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        send(conn, f"connected to {PROJECT}".encode())
        while not self._stopped.is_set():
            if (payload := receive(conn)) is None:
                return
            if (match := re.fullmatch(rb"(\d+):(.*)", payload, re.DOTALL)) is None:
                continue  # no id to answer to: ignored
            self.requests += 1
            reply = self.yard.handle(match[2].decode("utf-8", errors="replace"))
            if reply is None:
                self._crash(conn)
                return
            if self.yard.on(SLOW):
                time.sleep(SLOW_S)
            send(conn, match[1] + b":" + (reply.encode() if isinstance(reply, str) else reply))

    def _crash(self, conn: socket.socket) -> None:
        self.crashed = True
        if self.exit_on_crash:
            print(f"yard: Fatal error: the game crashed at {CRASH}", flush=True)
            os._exit(CRASH_EXIT)  # the kernel closes the connection, no reply is sent
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)  # no reply: the connection just closes
        self.die()


def write_binary(folder: Path) -> Path:
    """Write ``folder/YardGame.sh``, an executable that runs this module as a packaged game
    (with this interpreter, the project's root on ``PYTHONPATH``, its arguments passed on)."""
    root = Path(__file__).resolve().parents[3]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{PROJECT}.sh"
    path.write_text(
        "#!/bin/sh\n# A stand-in for a packaged Unreal game with UnrealCV: tests/games/unreal/yard_server.py\n"
        'YARD_BINARY_DIR="$(cd "$(dirname "$0")" && pwd)"\nexport YARD_BINARY_DIR\n'
        f'PYTHONPATH={shlex.quote(str(root))}"${{PYTHONPATH:+:$PYTHONPATH}}"\nexport PYTHONPATH\n'
        f'exec {shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).resolve()))} "$@"\n')
    path.chmod(0o755)
    return path


def main(argv: list[str]) -> int:
    """Serve as a packaged game would: ``unrealcv.ini`` beside the binary, then the arguments."""
    ini = configparser.ConfigParser(strict=False)
    ini.read(Path(os.environ.get("YARD_BINARY_DIR", os.getcwd())) / "unrealcv.ini")
    core = ini["UnrealCV.Core"] if ini.has_section("UnrealCV.Core") else {}
    port = int(core.get("port", 9000))
    width, height = core.get("width"), core.get("height")
    level = ""
    for arg in argv:
        key, _, value = arg.partition("=")
        if key.lower() == "-cvport":
            port = int(value)
        elif key.lower() == "-resx" and width is None:
            width = value
        elif key.lower() == "-resy" and height is None:
            height = value
        elif not arg.startswith("-") and not level:
            level = arg
    server = YardServer(port=port, width=int(width or 640), height=int(height or 480), host="0.0.0.0",
                        exit_on_crash=True)
    server.yard.level = level
    print(f"yard: UnrealCV listening on port {server.port}, {server.yard.width}x{server.yard.height}, "
          f"level {level!r}", flush=True)
    server.start().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
