"""The world behind the test UnrealCV server: a Block-Maze-like grid seen from above.

Test equipment (see :mod:`tests.games.unreal.server`). Cells of :data:`CELL` units; cell
``(col, row)`` has its centre at ``(col * CELL, row * CELL)``. The camera looks down from
above: the lit frame draws floor, walls and three objects, the object mask paints each object
in its own colour, depth is the distance from the camera. Bugs are planted at three places (the
letters of :data:`GRID`): ``C`` drops the connection when the camera moves onto it (a crash),
``X`` ignores every move and turn once entered (a stuck place; a teleport still works, as a
debug command does in a real game), ``L`` delays every reply while the camera is there (a
slow place, :data:`SLOW_S`).
"""

from __future__ import annotations

import io
import math

import cv2
import numpy as np

CELL = 100.0
"""World units per grid cell; cell (col, row) has its centre at ``(col * CELL, row * CELL)``."""
CAMERA_Z = 150.0
WALL_TOP = 100.0
OBJECT_TOP = 50.0
VIEW_CELLS = 5
"""How many cells the frame spans across."""
SLOW_S = 0.02
"""Delay of every reply while the camera stands on the slow place."""
FRAME_MS = (4.0, 40.0)
"""What ``vget /evo/frame_ms`` reports: the world's own frame time, elsewhere and on the slow
place (a game measuring itself, as a custom command of a real game would)."""

GRID = (
    "#########",
    "#S...#..#",
    "#.##...L#",
    "#..X.#..#",
    "##.###.##",
    "#C......#",
    "#########",
)
OBJECTS = {  # name: (col, row, lit colour, mask colour)
    "Cube_1": (4, 1, (200, 40, 40), (255, 0, 0)),
    "Sphere_2": (6, 3, (40, 40, 200), (0, 0, 255)),
    "Cone_3": (3, 5, (220, 200, 40), (255, 255, 0)),
}
COMMANDS = (
    "vget /unrealcv/commands", "vget /unrealcv/status",
    "vget /camera/[uint]/location", "vget /camera/[uint]/rotation",
    "vset /camera/[uint]/location [float] [float] [float]",
    "vset /camera/[uint]/moveto [float] [float] [float]",
    "vset /camera/[uint]/rotation [float] [float] [float]",
    "vget /camera/[uint]/lit [str]", "vget /camera/[uint]/object_mask [str]",
    "vget /camera/[uint]/depth [str]", "vget /objects", "vget /object/[str]/color",
    "vget /object/[str]/location", "vset /action/keyboard [str] [float]",
    "vset /action/game/level [str]", "vget /evo/frame_ms",
)


def cell_of(x: float, y: float) -> tuple[int, int]:
    """The ``(col, row)`` of the cell a world point lies in."""
    return int(math.floor(x / CELL + 0.5)), int(math.floor(y / CELL + 0.5))


class World:
    """The grid, the camera on it, and the frames it shows.

    Args:
        width: Frame width in pixels.
        height: Frame height in pixels.
    """

    def __init__(self, width: int = 32, height: int = 24) -> None:
        self.width, self.height = width, height
        self.lists_commands = True
        """False: ``vget /unrealcv/commands`` is an error, as before plugin 1.1.0."""
        self.grid = np.array([list(row) for row in GRID])
        start = np.argwhere(self.grid == "S")[0]
        self.start = (float(start[1] * CELL), float(start[0] * CELL), CAMERA_Z)
        self.location = self.start
        self.rotation = (0.0, 0.0, 0.0)
        self.dropped = 0
        """How many times the crash place dropped the connection."""

    def letter(self, x: float, y: float) -> str:
        col, row = cell_of(x, y)
        if not (0 <= row < self.grid.shape[0] and 0 <= col < self.grid.shape[1]):
            return "#"
        return str(self.grid[row, col])

    @property
    def here(self) -> str:
        return self.letter(*self.location[:2])

    def handle(self, command: str) -> bytes | None:
        """The reply body to ``command``; None to drop the connection (the crash place)."""
        words = command.split()
        if len(words) < 2 or words[0] not in ("vget", "vset"):
            return b"error Can not find a handler for this command."
        verb, path, args = words[0], words[1], words[2:]
        parts = path.strip("/").split("/")
        try:
            if path == "/unrealcv/commands":
                return "\n".join(COMMANDS).encode() if self.lists_commands else b"error Can not find a handler for this command."
            if path == "/unrealcv/status":
                return f"Is Listening\nClient Connected\nConfig\nWidth: {self.width}\nHeight: {self.height}".encode()
            if parts[0] == "camera" and len(parts) == 3:
                return self._camera(verb, parts[2], args)
            if path == "/evo/frame_ms" and verb == "vget":
                return b"%.3f" % FRAME_MS[self.here == "L"]
            if path == "/objects" and verb == "vget":
                return " ".join(OBJECTS).encode()
            if parts[0] == "object" and len(parts) == 3:
                return self._object(parts[1], parts[2])
            if path == "/action/keyboard" and verb == "vset" and len(args) == 2:
                float(args[1])
                return b"ok"
            if path == "/action/game/level" and verb == "vset":
                self.location, self.rotation = self.start, (0.0, 0.0, 0.0)
                return b"ok"
        except (ValueError, IndexError) as exc:
            return f"error {exc}".encode()
        return b"error Can not find a handler for this command."

    def _camera(self, verb: str, what: str, args: list[str]) -> bytes | None:
        if verb == "vget":
            if what == "location":
                return ("%.3f %.3f %.3f" % self.location).encode()
            if what == "rotation":
                return ("%.3f %.3f %.3f" % self.rotation).encode()
            fmt = args[0] if args else ""
            if what in ("lit", "object_mask") and fmt == "png":
                return png(self.frame(mask=what == "object_mask"))
            if what == "depth" and fmt == "npy":
                out = io.BytesIO()
                np.save(out, self.depth())
                return out.getvalue()
            return f"error Unsupported format {fmt!r} for {what}".encode()
        values = tuple(float(a) for a in args[:3])
        if len(values) != 3:
            return b"error Expect three numbers"
        if what == "location":  # a teleport: works even on the stuck place
            self.location = values
            return b"ok"
        if self.here == "X":  # the stuck place ignores every move and turn
            return b"ok"
        if what == "rotation":
            self.rotation = values
            return b"ok"
        if what == "moveto":
            if self.letter(*values[:2]) != "#":  # a wall blocks the move
                self.location = values
            if self.here == "C":
                self.dropped += 1
                return None
            return b"ok"
        return b"error Can not find a handler for this command."

    def _object(self, name: str, what: str) -> bytes:
        if name not in OBJECTS:
            return f"error Can not find object {name}".encode()
        col, row, _, (r, g, b) = OBJECTS[name]
        if what == "color":
            return f"(R={r},G={g},B={b},A=255)".encode()
        if what == "location":
            return ("%.3f %.3f %.3f" % (col * CELL, row * CELL, OBJECT_TOP)).encode()
        return b"error Can not find a handler for this command."

    def _points(self) -> tuple[np.ndarray, np.ndarray]:
        """World ``x, y`` under each pixel: the view turns with the camera's yaw."""
        scale = VIEW_CELLS * CELL / self.width
        u = (np.arange(self.width) - self.width / 2 + 0.5) * scale
        v = (np.arange(self.height) - self.height / 2 + 0.5) * scale
        uu, vv = np.meshgrid(u, v)
        yaw = math.radians(self.rotation[1])
        x = self.location[0] + uu * math.cos(yaw) - vv * math.sin(yaw)
        y = self.location[1] + uu * math.sin(yaw) + vv * math.cos(yaw)
        return x, y

    def _layers(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        x, y = self._points()
        cols = np.floor(x / CELL + 0.5).astype(int)
        rows = np.floor(y / CELL + 0.5).astype(int)
        inside = (rows >= 0) & (rows < self.grid.shape[0]) & (cols >= 0) & (cols < self.grid.shape[1])
        wall = ~inside | (self.grid[np.clip(rows, 0, self.grid.shape[0] - 1),
                                    np.clip(cols, 0, self.grid.shape[1] - 1)] == "#")
        shapes = {name: (np.hypot(x - c * CELL, y - r * CELL) < 0.3 * CELL) & ~wall
                  for name, (c, r, _, _) in OBJECTS.items()}
        checker = (cols + rows) % 2 == 0
        return wall, checker, shapes

    def frame(self, mask: bool = False) -> np.ndarray:
        """``[H, W, 3]`` uint8 RGB: the lit view, or the object mask."""
        wall, checker, shapes = self._layers()
        img = np.zeros((self.height, self.width, 3), dtype=np.uint8)
        if not mask:
            img[:] = (60, 140, 60)
            img[checker & ~wall] = (70, 150, 70)
            img[wall] = (90, 90, 90)
        for name, shape in shapes.items():
            img[shape] = OBJECTS[name][3 if mask else 2]
        return img

    def depth(self) -> np.ndarray:
        """``[H, W]`` float32 distance from the camera to what each pixel shows."""
        wall, _, shapes = self._layers()
        depth = np.full((self.height, self.width), self.location[2], dtype=np.float32)
        depth[wall] = self.location[2] - WALL_TOP
        for shape in shapes.values():
            depth[shape] = self.location[2] - OBJECT_TOP
        return depth


def png(rgb: np.ndarray) -> bytes:
    """An RGBA PNG of an RGB frame, as the plugin sends ``vget /camera/N/lit png``."""
    bgra = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGRA)
    ok, data = cv2.imencode(".png", bgra)
    assert ok
    return data.tobytes()
