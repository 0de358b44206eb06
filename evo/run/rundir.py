"""The run directory: ``config.yaml``, ``game.json``, ``generations.csv``, ``bugs.jsonl``,
the components' tables (``low_fps_points.csv``...), ``checkpoints/``.

Files are appended as the run goes, one generation or bug at a time, so that whatever is
killed keeps what was already found; ``--resume`` cuts the files back to the last
checkpoint and goes on. Appends and rewrites go through :mod:`oracles.journal`: a kill leaves
at most a last line cut short, which is never read.
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from evo.run.config import ConfigError
from evo.run.game_facts import GameFacts, write_game_facts
from games.common.process_memory import children_rss_mb, rss_mb
from oracles.archive import ArchivedBug, BugArchive, append_jsonl, to_record
from oracles.journal import append_text, complete_text, replace_text

CONFIG = "config.yaml"
GENERATIONS = "generations.csv"
BUGS = "bugs.jsonl"
SNAPSHOTS = "snapshots"
"""Where a bug's snapshot is kept, ``bug-<id>.bin``: the state its episode was in at its last
snapshot before the bug, in a game that does not replay (:mod:`evo.run.rates`)."""
MEASURED = ("wall_s", "rss_mb", "rss_children_mb")
"""Columns of ``generations.csv`` that measure this machine, not the search: the same
experiment and seed give the same rows but for these."""



class RunDirError(ConfigError):
    """A run directory's file that cannot be read as what it should hold; one line naming it
    (the CLI prints it with exit code 2, as any bad input), and nothing is written."""


if TYPE_CHECKING:
    import pandas as pd


def new_run_dir(runs_dir: str | Path, experiment: str, seed: int) -> Path:
    """``runs/<experiment>/<stamp>-seed<k>/``, unique even for runs started in one second."""
    base = Path(runs_dir) / experiment
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = base / f"{stamp}-seed{seed}"
    n = 1
    while path.exists():
        n += 1
        path = base / f"{stamp}-{n}-seed{seed}"
    return path


def start(run_dir: Path, config_yaml: str, game: GameFacts, *, again: bool = False) -> None:
    """Create the run directory with its resolved config, its game's facts (``game.json``)
    and an empty bug file.

    Args:
        again: Start over a run killed before its first checkpoint: what it wrote is dropped.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    if again:
        for name in (GENERATIONS, BUGS):
            (run_dir / name).unlink(missing_ok=True)
    elif (run_dir / GENERATIONS).exists() or (run_dir / BUGS).exists():
        raise FileExistsError(f"{run_dir} already holds a run; use --resume or another --out")
    replace_text(run_dir / CONFIG, config_yaml)
    write_game_facts(run_dir, game)
    (run_dir / BUGS).touch()


def memory_row() -> dict[str, float | None]:
    """The run's memory now, for its generation's row: ``rss_mb``, the resident memory of the
    ``evo`` process itself (the search, archives, oracles' state), and ``rss_children_mb``,
    that of every process it started (parallel workers, isolated game copies, game engines),
    MiB; empty where there is no ``/proc``. A leak shows as a rising column over a long run."""
    own, children = rss_mb(), children_rss_mb()
    return {"rss_mb": None if own is None else round(own, 1),
            "rss_children_mb": None if children is None else round(children, 1)}


def append_generation(run_dir: Path, row: dict[str, Any]) -> None:
    """Append one row to ``generations.csv`` (with the header, if the file is new).

    A row with columns the header lacks (a run resumed by a version of the engine that
    writes more columns) first rewrites the file, atomically, under a header that has them
    all, the old rows blank there: the header always names every value below it."""
    path = run_dir / GENERATIONS
    text = complete_text(path) if path.exists() else ""
    header = next(csv.reader(io.StringIO(text)), []) if text else []
    buffer = io.StringIO()
    if header and set(row) - set(header):
        fields = header + [k for k in row if k not in header]
        writer = csv.DictWriter(buffer, fieldnames=fields, restval="")
        writer.writeheader()
        writer.writerows(csv.DictReader(io.StringIO(text)))
        writer.writerow(row)
        replace_text(path, buffer.getvalue())
        return
    writer = csv.DictWriter(buffer, fieldnames=header or list(row), restval="")
    if not header:
        writer.writeheader()
    writer.writerow(row)
    append_text(path, buffer.getvalue())


def rows_written(run_dir: Path) -> int:
    """Complete rows of ``generations.csv`` (0 if there is none)."""
    path = run_dir / GENERATIONS
    return max(0, complete_text(path).count("\n") - 1) if path.exists() else 0


def bug_records(run_dir: Path) -> list[dict[str, Any]]:
    """The run's ``bugs.jsonl`` records, in order (none before the first bug).

    Raises:
        ValueError: ``run_dir`` is no run directory (no ``config.yaml``).
    """
    if not (run_dir / CONFIG).is_file():
        raise ValueError(f"{run_dir}: not a run directory (no {CONFIG})")
    path = run_dir / BUGS
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def bug_snapshot(run_dir: Path, bug_id: int) -> Path:
    """Where bug ``bug_id``'s snapshot is kept (:data:`SNAPSHOTS`)."""
    return run_dir / SNAPSHOTS / f"bug-{int(bug_id)}.bin"


def append_bugs(run_dir: Path, bugs: Sequence[ArchivedBug]) -> None:
    """Append bugs to ``bugs.jsonl``, each one's snapshot written first."""
    for bug in bugs:
        if bug.reproduced is not None and bug.reproduced.snapshot is not None:
            path = bug_snapshot(run_dir, bug.id)
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(bug.reproduced.snapshot)
    append_jsonl(run_dir / BUGS, bugs)


def truncate_to_generation(run_dir: Path, generation: int) -> BugArchive:
    """Drop rows and bugs written after ``generation`` (and a line a kill cut short); return
    the archive as it was then. Each file is replaced atomically, so a kill here loses nothing.

    Raises:
        RunDirError: ``bugs.jsonl`` or ``generations.csv`` holds a line that is not what it
            should be; both are read before either is replaced, so nothing is changed.
    """
    gens, bugs = run_dir / GENERATIONS, run_dir / BUGS
    try:
        kept = [b for b in BugArchive.from_jsonl(bugs) if b.generation <= generation] if bugs.exists() else []
        rows = list(csv.DictReader(io.StringIO(complete_text(gens)))) if gens.exists() else None
        keep_rows = [r for r in rows if int(r["generation"]) <= generation] if rows else []
    except (ValueError, TypeError, KeyError, UnicodeDecodeError) as exc:
        raise RunDirError(f"{run_dir}: cannot resume: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    if rows is not None:
        buffer = io.StringIO()
        if rows:
            writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(keep_rows)
        replace_text(gens, buffer.getvalue())
    replace_text(bugs, "".join(json.dumps(to_record(b)) + "\n" for b in kept))
    return BugArchive.from_records(to_record(b) for b in kept)


def disk_usage(run_dir: Path) -> tuple[int, int]:
    """Bytes of every file under the run directory, and of those in ``checkpoints/``."""
    total = ckpts = 0
    for path in run_dir.rglob("*"):
        if path.is_file() and not path.is_symlink():
            size = path.stat().st_size
            total += size
            if path.parent.name == "checkpoints":
                ckpts += size
    return total, ckpts


def write_tables(run_dir: Path, tables: Sequence[Mapping[str, "pd.DataFrame"]]) -> None:
    """Rewrite each component's tables as ``<name>.csv``, each atomically.

    Args:
        run_dir: The run directory.
        tables: Per component, what its ``tables()`` returned.

    Raises:
        ValueError: two components handed over a table of one name.
    """
    seen: set[str] = set()
    for named in tables:
        for name, table in named.items():
            if name in seen:
                raise ValueError(f"two components write the table {name!r}; names must be unique")
            seen.add(name)
            path = run_dir / f"{name}.csv"
            tmp = path.with_suffix(".tmp")
            table.to_csv(tmp, index=False)
            tmp.replace(path)
