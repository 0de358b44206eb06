"""The bug archive: the first report of each bug, with when the search found it.

Oracles may report one bug many times (every policy that walks into the same trap); the
archive keeps the first report of each signature, numbered in order of discovery, with the
generation, env steps and wall seconds at which it came. Those three are what time-to-bug
curves and the comparison tables are made of. ``bugs.jsonl`` in a run directory is this
archive, one line per bug.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from oracles.base import Bug
from oracles.journal import append_text

RECORD_KEYS = (
    "id", "kind", "oracle", "signature", "message", "generation", "env_steps", "wall_s",
    "policy", "seed", "step", "actions", "state", "next_state", "injected_id", "reproduced", "from_snapshot",
    "data",
)
"""The keys of one line of ``bugs.jsonl``, in the order they are written."""


@dataclass(frozen=True)
class Reproduction:
    """How often a bug showed again when its actions were played again.

    Attributes:
        showed: Replays from the reset (its seed, all its actions) that showed it.
        played: Replays from the reset played.
        at: In a game that does not replay, the step from the reset of the last snapshot its
            episode took before it, where the bug was played from there too (None: not).
        showed_there: Replays from that snapshot (its actions after ``at``) that showed it.
        played_there: Replays from that snapshot played.
        snapshot: The snapshot's bytes (kept beside ``bugs.jsonl``, not in it).
    """

    showed: int
    played: int
    at: int | None = None
    showed_there: int = 0
    played_there: int = 0
    snapshot: bytes | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ArchivedBug:
    """A bug the archive kept, and when it was found.

    Attributes:
        id: Order of discovery, from 0.
        bug: The first report of its signature.
        generation: Generation in which it was reported.
        env_steps: Environment steps spent by the search when it was reported.
        wall_s: Wall seconds since the run started.
        injected_id: Id of the injected bug it matches in a benchmark game, or ``None``
            (no ground truth, or a bug nobody seeded).
        reproduced: In how many of the replays the run played the bug showed again
            (:mod:`evo.run.rates`); None where the run did not replay it.
    """

    id: int
    bug: Bug
    generation: int
    env_steps: int
    wall_s: float
    injected_id: int | None = None
    reproduced: Reproduction | None = None


def injected_found(injected_ids: Iterable[int | None]) -> int:
    """How many distinct injected bugs the reports found: the ``injected_id`` of each report,
    None for one that matched no injected bug. The one count behind ``injected_found`` in
    ``generations.csv``, the budget's ``until_all_found``, and the tables' "injected found"."""
    return len({int(i) for i in injected_ids if i is not None})


def _jsonable(value: Any) -> Any:
    """Plain JSON types for oracle data that may hold numpy scalars, arrays or tuples."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def to_record(archived: ArchivedBug) -> dict[str, Any]:
    """One line of ``bugs.jsonl``: exactly the keys of :data:`RECORD_KEYS`, JSON types only.
    ``reproduced`` is ``[showed, played]`` from the reset; ``from_snapshot`` is ``{"step": at,
    "reproduced": [showed, played]}`` where the bug was played from its episode's last snapshot
    before it too."""
    bug, rate = archived.bug, archived.reproduced
    return {
        "id": int(archived.id),
        "kind": bug.kind,
        "oracle": bug.oracle,
        "signature": bug.signature,
        "message": bug.message,
        "generation": int(archived.generation),
        "env_steps": int(archived.env_steps),
        "wall_s": float(archived.wall_s),
        "policy": int(bug.policy),
        "seed": int(bug.episode_seed),
        "step": int(bug.step),
        "actions": [int(a) for a in bug.actions],
        "state": [float(x) for x in bug.state],
        "next_state": [float(x) for x in bug.next_state],
        "injected_id": None if archived.injected_id is None else int(archived.injected_id),
        "reproduced": None if rate is None else [int(rate.showed), int(rate.played)],
        "from_snapshot": None if rate is None or rate.at is None else {
            "step": int(rate.at), "reproduced": [int(rate.showed_there), int(rate.played_there)]},
        "data": _jsonable(bug.data),
    }


def from_record(record: dict[str, Any]) -> ArchivedBug:
    """The inverse of :func:`to_record`."""
    bug = Bug(
        kind=str(record["kind"]),
        oracle=str(record["oracle"]),
        signature=str(record["signature"]),
        message=str(record["message"]),
        step=int(record["step"]),
        state=tuple(float(x) for x in record["state"]),
        next_state=tuple(float(x) for x in record["next_state"]),
        policy=int(record["policy"]),
        episode_seed=int(record["seed"]),
        actions=tuple(int(a) for a in record["actions"]),
        data=dict(record.get("data") or {}),
    )
    injected, rate, there = record.get("injected_id"), record.get("reproduced"), record.get("from_snapshot")
    return ArchivedBug(
        id=int(record["id"]),
        bug=bug,
        generation=int(record["generation"]),
        env_steps=int(record["env_steps"]),
        wall_s=float(record["wall_s"]),
        injected_id=None if injected is None else int(injected),
        reproduced=None if rate is None else Reproduction(
            int(rate[0]), int(rate[1]), *((int(there["step"]), *map(int, there["reproduced"])) if there else ())),
    )


def append_jsonl(path: str | os.PathLike[str], archived: Iterable[ArchivedBug]) -> None:
    """Append bugs to a ``bugs.jsonl`` file, one JSON object per line.

    The lines are written in one call and flushed to disk, so a run killed mid-way leaves at
    most its last line cut short (which :meth:`BugArchive.from_jsonl` skips).
    """
    append_text(path, "".join(json.dumps(to_record(a)) + "\n" for a in archived))


class BugArchive:
    """The first bug of each signature, in order of discovery."""

    def __init__(self) -> None:
        self._bugs: dict[str, ArchivedBug] = {}  # insertion order = discovery order
        self._next_id = 0

    def add(
        self, bugs: Sequence[Bug], *, generation: int, env_steps: int, wall_s: float,
        match: Callable[[Bug], int | None] | None = None,
        when: Callable[[Bug], tuple[int, float] | None] | None = None,
        rate: Callable[[Bug], Reproduction | None] | None = None,
    ) -> list[ArchivedBug]:
        """Keep the bugs whose signature is new; return only those.

        Ids follow the order of ``bugs``, so the same reports in the same order give the same
        ids. A signature repeated within ``bugs`` keeps its first report.

        Args:
            bugs: reports from the oracles, duplicates allowed.
            generation: generation in which they were reported.
            env_steps: environment steps spent so far.
            wall_s: wall seconds since the run started.
            match: the benchmark game's ``match(bug) -> injected id | None``, used only to
                score the run; called once per new bug.
            when: ``(env_steps, wall_s)`` of the step that showed a bug, where play timed
                it (None: ``env_steps`` and ``wall_s`` above).
            rate: How often a new bug showed again when played again, or None; called once
                per new bug.
        """
        new: list[ArchivedBug] = []
        for bug in bugs:
            if bug.signature in self._bugs:
                continue
            injected = match(bug) if match is not None else None
            at = when(bug) if when is not None else None
            steps_at, wall_at = (env_steps, wall_s) if at is None else at
            archived = ArchivedBug(
                id=self._next_id, bug=bug, generation=int(generation),
                env_steps=int(steps_at), wall_s=float(wall_at),
                injected_id=None if injected is None else int(injected),
                reproduced=rate(bug) if rate is not None else None,
            )
            self._next_id += 1
            self._bugs[bug.signature] = archived
            new.append(archived)
        return new

    def __len__(self) -> int:
        return len(self._bugs)

    def __iter__(self) -> Iterator[ArchivedBug]:
        return iter(list(self._bugs.values()))

    def __contains__(self, signature: object) -> bool:
        return signature in self._bugs

    @property
    def signatures(self) -> frozenset[str]:
        """Signatures of every bug kept."""
        return frozenset(self._bugs)

    def injected_found(self) -> int:
        """Distinct injected bugs among the bugs kept (:func:`injected_found`)."""
        return injected_found(a.injected_id for a in self._bugs.values())

    def by_kind(self) -> dict[str, int]:
        """Number of distinct bugs per kind, kinds in order of first discovery."""
        counts: dict[str, int] = {}
        for a in self._bugs.values():
            counts[a.bug.kind] = counts.get(a.bug.kind, 0) + 1
        return counts

    def to_records(self) -> list[dict[str, Any]]:
        """Every bug as a ``bugs.jsonl`` record (for checkpoints)."""
        return [to_record(a) for a in self._bugs.values()]

    @classmethod
    def from_records(cls, records: Iterable[dict[str, Any]]) -> "BugArchive":
        """An archive holding these records; new ids continue after the largest one."""
        archive = cls()
        for record in records:
            archive._keep(from_record(record))
        return archive

    def _keep(self, archived: ArchivedBug) -> None:
        """Keep an already numbered bug (restoring); the first of a signature wins."""
        if archived.bug.signature in self._bugs:
            return
        self._bugs[archived.bug.signature] = archived
        self._next_id = max(self._next_id, archived.id + 1)

    @classmethod
    def from_jsonl(cls, path: str | os.PathLike[str]) -> "BugArchive":
        """Restore an archive from ``bugs.jsonl`` (to resume a run or report on it).

        A last line that does not parse is a write cut short by a kill and is skipped; a bad
        line anywhere else is an error.

        Raises:
            FileNotFoundError: if ``path`` does not exist.
            ValueError: naming the file and line, for a malformed line before the last.
        """
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        archive = cls()
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if i == len(lines) - 1:
                    break
                raise ValueError(f"{path}:{i + 1}: not a JSON bug record ({exc.msg})") from exc
            try:
                archive._keep(from_record(record))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{i + 1}: not a bug record ({exc!r})") from exc
        return archive
