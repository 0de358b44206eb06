"""How much memory a process and the processes it started hold, read from Linux's ``/proc``.

Two users: the isolated game copies (:mod:`games.adapter.process_runner`) are killed when they hold more
than ``game.max_rss_mb``, and every generation of a run records the run's own resident memory
(``generations.csv``'s ``rss_mb`` and ``rss_children_mb``), which is how a leak over an
overnight run shows. Resident set size (RSS) is what the kernel's OOM killer weighs, so it is
what is bounded and recorded; virtual size counts reservations that cost nothing (torch and
ViZDoom reserve gigabytes they never touch). Where there is no ``/proc`` every reading is
None and nothing is bounded.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
MB = 1024 * 1024
"""One mebibyte: RSS figures are MiB, as ``ps`` and ``top`` count them."""


def _page_size() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return 4096


PAGE = _page_size()


def rss_mb(pid: int | None = None) -> float | None:
    """Resident memory of one process in MiB (``/proc/<pid>/statm``), None if it cannot be read
    (the process is gone, or there is no ``/proc``)."""
    try:
        fields = (PROC / str(os.getpid() if pid is None else pid) / "statm").read_bytes().split()
        return int(fields[1]) * PAGE / MB
    except (OSError, IndexError, ValueError):
        return None


def children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from one pass over ``/proc/<pid>/stat``."""
    out: dict[int, list[int]] = {}
    try:
        entries = os.listdir(PROC)
    except OSError:
        return out
    for name in entries:
        if not name.isdigit():
            continue
        try:
            stat = (PROC / name / "stat").read_bytes()
            # The command name (field 2) may hold spaces and ')': the fields after its last ')'.
            ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        out.setdefault(ppid, []).append(int(name))
    return out


def descendants(pid: int, tree: dict[int, list[int]] | None = None) -> list[int]:
    """Every process below ``pid``: its children, theirs, and so on (not ``pid`` itself)."""
    tree = children_by_parent() if tree is None else tree
    out: list[int] = []
    todo = list(tree.get(pid, ()))
    while todo:
        child = todo.pop()
        out.append(child)
        todo.extend(tree.get(child, ()))
    return out


def tree_rss_mb(pid: int, tree: dict[int, list[int]] | None = None) -> float | None:
    """Resident memory of ``pid`` and every process below it, in MiB; None when ``pid`` itself
    cannot be read. Pages shared between them (a forked parent's) count once per process, as
    the OOM killer counts them."""
    own = rss_mb(pid)
    if own is None:
        return None
    return own + sum(r for r in map(rss_mb, descendants(pid, tree)) if r is not None)


def children_rss_mb() -> float | None:
    """Resident memory of every process below this one (workers, game copies, engines), MiB;
    None without ``/proc``."""
    if rss_mb() is None:
        return None
    return sum(r for r in map(rss_mb, descendants(os.getpid())) if r is not None)


def machine_mb() -> tuple[float, float] | None:
    """``(MemTotal, MemAvailable)`` of this machine in MiB (``/proc/meminfo``); None without it.
    Available is what the kernel can hand out without swapping: below it runs the OOM killer."""
    try:
        fields = dict(line.split(":", 1) for line in (PROC / "meminfo").read_text().splitlines() if ":" in line)
        return int(fields["MemTotal"].split()[0]) / 1024, int(fields["MemAvailable"].split()[0]) / 1024
    except (OSError, KeyError, ValueError, IndexError):
        return None


def peak_mb() -> float:
    """The highest resident memory this process has held so far, MiB (``getrusage``: a
    microsecond, cheap enough to read around every step of a game)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
