"""Play action scripts from a bug's episode seed and ask the bug's oracle whether it showed.

What ``evo replay`` and trace shrinking (:mod:`evo.bugs.shrink`) share: the run's game and the
bug's oracle, with the thresholds it had at the end of the run (from the last checkpoint),
judging each script on its own evidence. Scripts of one call are played as one batch of
copies, grouped by length, so a copy never plays past its script.

Statistical oracles (performance) judge across copies: a script is played in as many copies
as one worker stepped in the run (at least ``repeats``), on its own, so that its frames are
measured under the run's load and against the run's threshold.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from evo.run import rundir
from evo.search.agents.script import ScriptAgent
from evo.run.built import Built
from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.config import load_experiment
from evo.run.device import on_this_machine
from evo.run.chunks import run_batch
from evo.search.play import play
from games.core.base import VectorGame
from games.core.record import RolloutBatch
from oracles.base import Bug, same_fault, shown_alone

MAX_COPIES = 256
"""Most copies of the game one play steps at once."""
BUILD_UP_ROUNDS = 8
"""Times a script of a fault that builds up across episodes (:func:`builds_up`) is played in
the same copies before it is said not to reproduce."""


def builds_up(record: Mapping[str, Any]) -> bool:
    """Whether the bug is a fault that builds up in a game's process across its episodes: a copy
    killed for its memory. The episode that crossed the bound may have begun with what earlier
    episodes of its process left (a leak that resets do not free): played once in a fresh
    process, it stays under the bound; played again in the same copies, it crosses it."""
    return str(record.get("signature", "")).startswith("crash:GameOutOfMemory:")


def find_bug(run_dir: Path, bug_id: int) -> dict[str, Any]:
    """The ``bugs.jsonl`` record with this id.

    Raises:
        KeyError: no bug has that id.
    """
    path = run_dir / rundir.BUGS
    if not path.exists():
        raise FileNotFoundError(f"{run_dir}: no {rundir.BUGS}")
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1].decode("utf-8", errors="replace")  # a line cut short: unread
    for number, line in enumerate(complete.splitlines(), 1):
        if line.strip():
            try:
                record = json.loads(line)
                if int(record["id"]) == bug_id:
                    return record
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise rundir.RunDirError(f"{path}: line {number} is not a bug record") from None
    raise KeyError(f"{run_dir}: no bug with id {bug_id} in {rundir.BUGS}")


@dataclass(frozen=True)
class Replayed:
    """A script played in its copies and judged: the bug's reports and the episodes."""

    bugs: list[Bug]
    episodes: RolloutBatch


class Reproducer:
    """The run's game and oracles, ready to judge action scripts against the run's bugs.

    Args:
        run_dir: The run directory.
        repeats: Copies each script is played in (statistical oracles: at least the run's).
        game_kwargs: Keyword arguments that replace the run's ``game.kwargs`` entries: another
            build of the game (``evo regress``).

    Raises:
        ValueError: ``game_kwargs`` that the game does not take.
    """

    def __init__(self, run_dir: str | Path, repeats: int = 3,
                 game_kwargs: Mapping[str, Any] | None = None) -> None:
        self.run_dir = Path(run_dir)
        exp = on_this_machine(load_experiment(self.run_dir / rundir.CONFIG))
        self._games: dict[int, VectorGame] = {}
        built = Built.from_experiment(exp, cells_from=self.run_dir)
        with contextlib.ExitStack() as failing:  # closed here unless this reproducer is made
            failing.enter_context(built)
            if game_kwargs:
                kwargs = {**dict(built.factory.kwargs), **dict(game_kwargs)}
                built = replace(built, factory=replace(built.factory, kwargs=tuple(sorted(kwargs.items()))))
                try:
                    built.factory.validate()
                except Exception as exc:
                    raise ValueError(str(exc)) from exc
            self._names = [o.name for o in exp.oracles]
            self._states: list[Any] = [None] * len(self._names)
            ckpt = latest_checkpoint(self.run_dir)
            if ckpt is not None:
                self._states = list(load_checkpoint(ckpt).meta["oracles"])
            failing.pop_all()
        self.built = built
        """The run's game and components, this reproducer's to close."""
        self._loaded: set[int] = set()
        self.repeats = repeats
        self._run_batch = run_batch(exp)

    def bug(self, bug_id: int) -> dict[str, Any]:
        """Bug ``bug_id``'s ``bugs.jsonl`` record.

        Raises:
            KeyError: no such bug, or its oracle is not in the run's config.
        """
        record = find_bug(self.run_dir, bug_id)
        self._index(record)
        return record

    def _index(self, record: Mapping[str, Any]) -> int:
        """Where the record's oracle is in the run's config.

        Raises:
            KeyError: the record's oracle is not in the run's config.
        """
        if record["oracle"] not in self._names:
            raise KeyError(f"bug {int(record['id'])} came from oracle {record['oracle']!r}, not in the run's config")
        return self._names.index(record["oracle"])

    def oracle(self, record: Mapping[str, Any]) -> Any:
        """The record's oracle, with the state it had at the end of the run (what a bug
        exported as a plan is judged by)."""
        return self._oracle(record)

    def _oracle(self, record: Mapping[str, Any]) -> Any:
        """The record's oracle, with the state it had at the end of the run."""
        k = self._index(record)
        oracle = self.built.oracles[k]
        if k not in self._loaded and self._states[k] is not None:
            oracle.load_state_dict(self._states[k])
        self._loaded.add(k)
        return oracle

    def _game(self, n: int) -> VectorGame:
        if n not in self._games:
            self._games[n] = self.built.factory.make_vector(n)
        return self._games[n]

    def _play(self, record: Mapping[str, Any], scripts: Sequence[Sequence[int]]) -> RolloutBatch:
        """One episode per script (all of one length), from the bug's seed.

        The batch is padded to a power of two with copies of the first script, left out of
        what is returned: shrinking plays batches of many sizes, and a game of each size is
        kept, a process per copy for an isolated game (shrinking a 107-step stuck bug of
        ``tests.games.glide_envs:Glide``: 23 games of 276 processes, padded 6 of 63, in the
        same time)."""
        n = len(scripts)
        size = 1 << (n - 1).bit_length()
        padded = [*scripts, *[scripts[0]] * (size - n)]
        result = play(
            self._game(size), [int(record["seed"])] * size, [int(record["policy"])] * size,
            ScriptAgent(padded, self.built.spec.n_actions), max_steps=len(scripts[0]),
            columns=self.built.columns,  # a replay's probs are the script's (one-hot)
        )
        if result.game_broken:
            self._games.pop(size).close()
        return result.rollouts[:n]

    def copies(self, record: Mapping[str, Any]) -> int:
        """Copies each script of this bug is played in: a statistical oracle's
        (:attr:`oracles.base.Oracle.statistical`) as many as one worker stepped in the run."""
        return max(self.repeats, self._run_batch) if self._statistical(record) else self.repeats

    def _statistical(self, record: Mapping[str, Any]) -> bool:
        return bool(self.built.oracles[self._index(record)].statistical)

    def found(self, record: Mapping[str, Any], scripts: Sequence[Sequence[int]]) -> list[list[Bug]]:
        """For each script, the reports of the bug that its copies gave (empty: none)."""
        out: list[list[Bug]] = [[] for _ in scripts]
        for i, replayed in self._judged(record, scripts):
            out[i] = replayed.bugs
        return out

    def replay(self, record: Mapping[str, Any]) -> Replayed:
        """The bug's own actions played in :meth:`copies` copies, and what its oracle saw."""
        actions = [int(a) for a in record["actions"]]
        judged = dict(self._judged(record, [actions]))
        return judged.get(0, Replayed([], RolloutBatch.from_rollouts([])))

    def showed(self, record: Mapping[str, Any], replayed: Replayed) -> int | None:
        """In how many of the replayed copies the bug showed, each judged alone: a game that
        does not replay (sticky inputs, physics on threads) shows it in some. None for an
        oracle that judges across copies (:attr:`oracles.base.Oracle.statistical`, or one
        that sees nothing in a single episode)."""
        if not replayed.bugs or self._statistical(record):
            return None
        return shown_alone(self._oracle(record), replayed.episodes, record["signature"]) or None

    def replay_from(self, record: Mapping[str, Any], snapshot: bytes, at: int) -> tuple[int, int]:
        """``(showed, played)``: the bug's actions after step ``at`` played from ``snapshot``
        (its episode's state there, :mod:`evo.run.rates`) in :meth:`copies` copies, each judged
        alone."""
        actions = [int(a) for a in record["actions"]]
        n = self.copies(record)
        size = 1 << (n - 1).bit_length()
        result = play(
            self._game(size), [int(record["seed"])] * size, [int(record["policy"])] * size,
            ScriptAgent([actions[at:]] * size, self.built.spec.n_actions), max_steps=len(actions) - at,
            columns=self.built.columns, starts=[snapshot] * size, heads=[np.asarray(actions[:at], np.int64)] * size,
        )
        if result.game_broken:
            self._games.pop(size).close()
        return shown_alone(self._oracle(record), result.rollouts[:n], record["signature"]), n

    def _judged(self, record: Mapping[str, Any],
                scripts: Sequence[Sequence[int]]) -> Iterator[tuple[int, Replayed]]:
        """Each script (its index) with its copies' reports of the bug; empty scripts are
        played by no copy (no step, no bug)."""
        oracle, repeats = self._oracle(record), self.copies(record)
        by_length: dict[int, list[int]] = {}
        for i, script in enumerate(scripts):
            by_length.setdefault(len(script), []).append(i)
        per_play = 1 if self._statistical(record) else max(1, MAX_COPIES // repeats)
        rounds = BUILD_UP_ROUNDS if builds_up(record) else 1
        for length, rows in sorted(by_length.items()):
            if length == 0:
                continue  # no step, no bug
            for start in range(0, len(rows), per_play):
                chunk = rows[start : start + per_play]
                judged: dict[int, Replayed] = {}
                for _ in range(rounds):  # the same copies again: what the last round left builds up
                    batch = self._play(record, [list(scripts[i]) for i in chunk for _ in range(repeats)])
                    for j, i in enumerate(chunk):
                        mine = batch[j * repeats : (j + 1) * repeats]
                        oracle.forget_visits()  # each script judged on its own evidence
                        bugs = [b for b in oracle.check(mine) if same_fault(b.signature, record["signature"])]
                        if bugs or i not in judged:
                            judged[i] = Replayed(bugs, mine)
                    if all(judged[i].bugs for i in chunk):
                        break
                yield from judged.items()

    def reproduces(self, record: Mapping[str, Any], scripts: Sequence[Sequence[int]]) -> list[bool]:
        """For each script, whether the bug showed in any of its copies."""
        return [bool(bugs) for bugs in self.found(record, scripts)]

    def first_step(self, record: Mapping[str, Any], script: Sequence[int]) -> int | None:
        """The earliest step at which ``script`` shows the bug, or None if it does not."""
        bugs = self.found(record, [script])[0]
        return min(b.step for b in bugs) if bugs else None

    def close(self) -> None:
        """Close the games played and the run's ground-truth instance."""
        for game in self._games.values():
            game.close()
        self._games.clear()
        self.built.close()

    def __enter__(self) -> "Reproducer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

