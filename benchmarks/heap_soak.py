"""Where the main process's memory goes during a run: live objects, or heap that glibc keeps.

The one-hour soak (benchmarks/soak.py) shows the ``evo`` process's resident memory creeping
by about 20 MiB/h. This runs ``evo run`` (Wuji's Block Maze experiment) inside this process for
``--minutes`` and samples, every ``--every`` seconds, the resident memory, glibc's heap
(``mallinfo2``: bytes in use by live allocations, and free bytes it keeps), and the number
of Python objects the garbage collector tracks. At the end it samples again after
``gc.collect()`` and after ``malloc_trim(0)`` (which hands free heap back to the system).
Flat "in use" and objects with a rising "free" mean the creep is the allocator keeping freed
memory, not a leak. Linux with glibc only. Nothing here asserts a figure.

    nice -n 10 python benchmarks/heap_soak.py --minutes 12 --every 60
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


_LIBC = ctypes.CDLL("libc.so.6")
_LIBC.mallinfo2.restype = _MallInfo2


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _generations(run_dir: Path) -> int:
    try:
        return max(0, (run_dir / "generations.csv").read_text().count("\n") - 1)
    except OSError:
        return 0


def _row(what: str, start: float, run_dir: Path) -> str:
    info = _LIBC.mallinfo2()
    mib = 2.0 ** 20
    return (f"{what:>18} {(time.monotonic() - start) / 60:8.1f} {_generations(run_dir):>6} {_rss_mb():8.1f} "
            f"{info.uordblks / mib:12.1f} {info.fordblks / mib:10.1f} {info.hblkhd / mib:9.1f} {len(gc.get_objects()):>9,}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", nargs="?", default=str(ROOT / "experiments" / "wuji_block_maze.yaml"))
    parser.add_argument("--minutes", type=float, default=12.0, help="wall time of the run")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    args = parser.parse_args()
    from evo.cli.main import main as evo

    run_dir = Path(tempfile.mkdtemp(prefix="heap-soak-")) / "run"
    start = time.monotonic()
    print(f"{'':>18} {'minutes':>8} {'gens':>6} {'rss_mb':>8} {'heap_used_mb':>12} {'heap_free':>10} "
          f"{'mmap_mb':>9} {'objects':>9}", flush=True)

    def sample() -> None:
        while True:
            time.sleep(args.every)
            print(_row("run", start, run_dir), flush=True)

    threading.Thread(target=sample, daemon=True).start()
    code = evo(["run", args.experiment, "budget.generations=100000000", f"budget.wall_seconds={args.minutes * 60:g}",
                "--out", str(run_dir), "--quiet"])
    print(_row("end", start, run_dir))
    gc.collect()
    print(_row("after gc.collect", start, run_dir))
    _LIBC.malloc_trim(0)
    print(_row("after malloc_trim", start, run_dir))
    print(f"run directory {run_dir}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
