"""The network's share of a measured Unreal frame: what one UnrealCV request costs over
loopback through :class:`games.unreal.connection.Connection` (the ``unrealcv`` 1.3.x client),
against the test server of ``tests/games/unreal`` (whose own work per request is small but not
nothing: it draws and encodes the frames in numpy and OpenCV).

    PYTHONPATH=. python benchmarks/unreal_requests.py [--repeat 300]

Prints one table: per request, the median and 90th percentile of its round trip in ms, and a
whole step of the example experiment (a move, the pose, the lit frame and the object mask).
A real game adds its own time to render and encode each frame; a game on another machine adds
the network's latency to every request of a step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from games.unreal.connection import Connection
from games.unreal.unreal_game import UnrealVector
from tests.games.unreal.server import UnrealCVServer

REQUESTS = (
    ("vget /camera/0/location", "text"),
    ("vset /camera/0/rotation 0 0 0", "ok"),
    ("vget /camera/0/lit png", "PNG"),
    ("vget /camera/0/object_mask png", "PNG"),
    ("vget /camera/0/depth npy", "npy"),
)


def _times(call, repeat: int) -> np.ndarray:
    out = np.empty(repeat)
    for i in range(repeat):
        t0 = time.perf_counter()
        call()
        out[i] = (time.perf_counter() - t0) * 1000.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    rows = []
    for width, height in ((32, 24), (320, 240)):
        server = UnrealCVServer(width=width, height=height).start()
        connection = Connection("127.0.0.1", server.port, 10.0)
        connection.open(5.0)
        for command, kind in REQUESTS:
            t = _times(lambda c=command: connection.request(c), args.repeat)
            rows.append((f"{width}x{height}", command, kind, t))
        connection.close()
        game = UnrealVector(1, port=server.port, width=width, height=height, objects=True,
                            starts=[[100, 100, 150]], actions=[{"name": "stay", "move": [0, 0, 0]}])
        game.reset([0])
        t = _times(lambda: game.step(np.array([0])), args.repeat)
        rows.append((f"{width}x{height}", "a step: moveto, pose, lit, object_mask", "", t))
        game.close()
        server.die()
    print(f"{'frame':>8}  {'request':<42} {'reply':<5} {'median ms':>9} {'p90 ms':>7}")
    for size, command, kind, t in rows:
        print(f"{size:>8}  {command:<42} {kind:<5} {np.median(t):9.3f} {np.percentile(t, 90):7.3f}")


if __name__ == "__main__":
    main()
