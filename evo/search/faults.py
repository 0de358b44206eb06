"""Faults of a game's process told as they happen, not when the batch that met them is over.

A generation's episodes come back from the workers when all of them are over, and its bugs are
archived then. A game that hangs, dies or leaks makes that late: its copies are waited for,
killed and started again, and on a game whose every episode hangs the first generation took
the whole wall budget, so the fault a tester wanted to hear about at once reached
``bugs.jsonl`` only at the run's end. The fault itself is known the moment a copy meets it.

So a worker writes each fault of a game process (:data:`PROCESS_FAULTS`: a hang, a process
that died, one killed for its memory) to a folder of the run directory as it happens
(:class:`FaultLog`), with what the crash oracle needs to report it and replay it: the
episode's policy, seed and actions, and the states around the step. The run reads the folder
while it waits for its workers (:class:`FaultReader`) and archives each new fault at once;
when the batch comes back, its crash report of the same fault is the one already archived.

Only faults of the process are told early. An exception the game raises is deterministic and
cheap, and stays with its batch, so that its bug's id and counts are the same on any number of
workers. A worker that cannot write the folder (a cluster on other machines) tells nothing
early; its faults are archived with their batch, as before.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from games.core.base import GameError

PROCESS_FAULTS = frozenset({"GameHang", "GameProcessDied", "GameOutOfMemory"})
"""The :class:`games.core.base.GameError` types of a game process that failed as a whole."""


@dataclass(frozen=True)
class FaultSeen:
    """One fault met by one copy, with its replay handle.

    Attributes:
        error: What the copy's step ended with.
        step: The step that ended with it.
        state, next_state: State features before and after that step.
        policy, episode_seed: The episode's policy and seed.
        actions: The actions from the reset up to and including ``step``.
        played: Steps the worker's batch had played when the fault came (its copies together).
        copies: Copies in the worker's batch.
        time: When the fault came (``time.time()``).
    """

    error: GameError
    step: int
    state: tuple[float, ...]
    next_state: tuple[float, ...]
    policy: int
    episode_seed: int
    actions: tuple[int, ...]
    played: int
    copies: int
    time: float


@dataclass(frozen=True)
class FaultLog:
    """Where the workers of a run write the faults of their game's processes.

    Attributes:
        folder: The folder (``faults/`` of the run directory): one file per process and thread.
    """

    folder: str
    token: str = ""
    """The reading run's own mark: a process that served an earlier run tells its faults again."""

    def tell(self, errors: dict[int, GameError], step: int, policy_ids: np.ndarray, seeds: np.ndarray,
             actions: np.ndarray, features: np.ndarray, lengths: np.ndarray,
             heads: Sequence[np.ndarray] | None = None) -> None:
        """Write each process fault among ``errors`` (copy -> error at ``step``), once per fault
        and process; ``actions`` ``[T, N]`` and ``features`` ``[T + 1, N, F]`` are play's
        time-major buffers, ``lengths`` what each copy had played, ``heads`` the actions before
        a copy's first state where it went on from a snapshot."""
        seen = _told.setdefault(self.token, set())
        lines = []
        for i, err in errors.items():
            key = (err.type, err.where, err.message)
            if err.type not in PROCESS_FAULTS or key in seen:
                continue
            seen.add(key)
            head = () if heads is None else tuple(int(a) for a in heads[i])
            fault = FaultSeen(
                error=err, step=len(head) + step, state=tuple(float(x) for x in features[step, i]),
                next_state=tuple(float(x) for x in features[step + 1, i]), policy=int(policy_ids[i]),
                episode_seed=int(seeds[i]), actions=head + tuple(int(a) for a in actions[: step + 1, i]),
                played=int(lengths.sum()), copies=len(lengths), time=time.time(),
            )
            lines.append(json.dumps(asdict(fault)) + "\n")
        if not lines:
            return
        path = Path(self.folder) / f"{os.getpid()}-{threading.get_ident()}.jsonl"
        try:
            with open(path, "a", encoding="utf-8") as f:
                f.write("".join(lines))
        except OSError:  # a worker on another machine: its faults come with their batch
            return


_told: dict[str, set[tuple[str, str, str]]] = {}
"""Per run (:attr:`FaultLog.token`), the faults this process has written (one line per fault is enough)."""


class FaultReader:
    """The faults the workers wrote since the last read, in the order they came.

    Args:
        folder: The run's fault folder; made empty here (what a killed run wrote in it is
            played again on resume).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        for old in self.folder.glob("*.jsonl"):
            old.unlink(missing_ok=True)
        self._read: dict[Path, int] = {}
        self.log = FaultLog(str(self.folder), uuid.uuid4().hex)

    def new(self) -> list[FaultSeen]:
        """Every complete line written since the last call, the earliest first."""
        faults = []
        for path in sorted(self.folder.glob("*.jsonl")):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            start, end = self._read.get(path, 0), data.rfind(b"\n") + 1
            for line in data[start:end].decode("utf-8").splitlines():
                raw = json.loads(line)
                raw["error"] = GameError(**raw["error"])
                for key in ("state", "next_state", "actions"):
                    raw[key] = tuple(raw[key])
                faults.append(FaultSeen(**raw))
            self._read[path] = max(start, end)
        return sorted(faults, key=lambda f: f.time)
