"""Frames the scheduler stretched: how many trivial game steps read as slow (over the shipped
experiments' 1 ms floor) by wall time and by :class:`games.core.frame_cost.StepTimer`, on one CPU
shared with busy processes, as isolated copies share a small machine's cores.

    python benchmarks/step_timer.py [--steps 3000] [--hogs 2]

Prints one table. A step here is about 0.05 ms of arithmetic; steps that wait 6 ms (a sleep,
as for a GPU) and then compute are timed under the same contention; one 6 ms sleep last,
undisturbed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from games.core.frame_cost import StepTimer

HOG = "import os\nos.sched_setaffinity(0, {0})\nwhile True: pass"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="trivial steps timed")
    parser.add_argument("--hogs", type=int, default=2, help="busy processes sharing the CPU")
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
    try:
        time.sleep(0.5)
        timer, by_wall, by_timer = StepTimer(), 0, 0
        for _ in range(args.steps):
            began = time.perf_counter()
            timer.start()
            sum(range(2000))
            by_timer += timer.stop_ms() > 1.0
            by_wall += (time.perf_counter() - began) * 1e3 > 1.0
        waits = 300
        short = 0  # frames that waited 6 ms (a sleep) and then drew, read as shorter
        for _ in range(waits):
            timer.start()
            time.sleep(0.006)
            sum(range(20000))
            short += timer.stop_ms() < 6.0
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    timer.start()
    time.sleep(0.006)
    slept = timer.stop_ms()
    print(f"| {args.steps} trivial steps, 1 CPU, {args.hogs} busy processes | read over 1 ms |")
    print("|---|---:|")
    print(f"| wall time | {by_wall} |")
    print(f"| StepTimer | {by_timer} |")
    print(f"| {waits} steps that wait 6 ms, then draw, by StepTimer: read under 6 ms | {short} |")
    print(f"| a 6 ms sleep, undisturbed, by StepTimer | {slept:.2f} ms |")


if __name__ == "__main__":
    main()
