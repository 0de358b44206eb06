"""Text files that a kill at any moment leaves readable: append-only logs and whole rewrites.

``bugs.jsonl`` and ``generations.csv`` grow a line at a time while a run may be killed at any
moment. An append is one write, flushed to disk; a kill can cut at most the last line short,
and that line (one without its newline) is never read and is removed before the next append.
A file rewritten whole (a resume cutting the logs back to its checkpoint) is written to a
temporary file and renamed over the old one, so a kill leaves the old file or the new one.
"""

from __future__ import annotations

import os
from pathlib import Path


def complete_text(path: str | os.PathLike[str]) -> str:
    """The file's text up to its last newline: every complete line, none cut short.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
    """
    data = Path(path).read_bytes()
    return data[: data.rfind(b"\n") + 1].decode("utf-8")


def append_text(path: str | os.PathLike[str], text: str) -> None:
    """Append whole lines (``text`` ends with a newline) in one write, flushed to disk; a line
    a kill cut short at the end of the file is removed first."""
    if not text:
        return
    _drop_cut_line(path)
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def replace_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` as the whole file atomically: a temporary file, fsynced, renamed over it."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself
    finally:
        os.close(fd)


def _drop_cut_line(path: str | os.PathLike[str]) -> None:
    """Remove a last line left without its newline by a kill, so appends start clean."""
    try:
        f = open(path, "rb+")
    except FileNotFoundError:
        return
    with f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        f.seek(0)
        data = f.read()
        f.truncate(data.rfind(b"\n") + 1)
