"""Play action scripts from a bug's episode seed and ask the bug's oracle whether it showed.

What ``evo replay`` and trace shrinking (:mod:`evo.shrink`) share: the run's game and the
bug's oracle, with the thresholds it had at the end of the run (from the last checkpoint),
judging each script on its own evidence. Scripts of one call are played as one batch of
copies, grouped by length, so a copy never plays past its script.

Statistical oracles (performance) judge across copies: a script is played in as many copies
as one worker stepped in the run (at least ``repeats``), on its own, so that its frames are
measured under the run's load and against the run's threshold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from evo import rundir
from evo.agents.script import ScriptAgent
from evo.built import Built
from evo.checkpoint import latest_checkpoint, load_checkpoint
from evo.config import load_experiment
from evo.replay import find_bug, run_batch
from evo.rollout import play
from games.base import VectorGame
from games.rollout import RolloutBatch
from oracles.base import Bug

MAX_COPIES = 256
"""Most copies of the game one play steps at once."""


class Reproducer:
    """The run's game and bug ``bug_id``'s oracle, ready to judge action scripts.

    Args:
        run_dir: The run directory.
        bug_id: The bug's id in ``bugs.jsonl``.
        repeats: Copies each script is played in (statistical oracles: at least the run's).

    Raises:
        KeyError: no such bug, or its oracle is not in the run's config.
    """

    def __init__(self, run_dir: str | Path, bug_id: int, repeats: int = 3) -> None:
        run_dir = Path(run_dir)
        self.record = find_bug(run_dir, bug_id)
        exp = load_experiment(run_dir / rundir.CONFIG)
        self.built = Built.from_experiment(exp)
        self._games: dict[int, VectorGame] = {}
        try:
            names = [o.name for o in exp.oracles]
            if self.record["oracle"] not in names:
                raise KeyError(f"bug {bug_id} came from oracle {self.record['oracle']!r}, not in the run's config")
            k = names.index(self.record["oracle"])
            self.oracle = self.built.oracles[k]
            ckpt = latest_checkpoint(run_dir)
            if ckpt is not None:
                state = load_checkpoint(ckpt).meta["oracles"][k]
                if state is not None:
                    self.oracle.load_state_dict(state)
        except BaseException:
            self.close()
            raise
        self.statistical = self.record["kind"] == "performance"
        self.repeats = max(repeats, run_batch(exp)) if self.statistical else repeats

    def _game(self, n: int) -> VectorGame:
        if n not in self._games:
            self._games[n] = self.built.factory.make_vector(n)
        return self._games[n]

    def _play(self, scripts: Sequence[Sequence[int]]) -> RolloutBatch:
        """One episode per script (all of one length), from the bug's seed."""
        n = len(scripts)
        result = play(
            self._game(n), [int(self.record["seed"])] * n, [int(self.record["policy"])] * n,
            ScriptAgent(scripts, self.built.spec.n_actions), max_steps=len(scripts[0]),
            columns=self.built.columns,  # a replay's probs are the script's (one-hot)
        )
        if result.game_broken:
            self._games.pop(n).close()
        return result.rollouts

    def _judge(self, batch: RolloutBatch) -> list[Bug]:
        self.oracle.forget_visits()  # judged on their own evidence
        return [b for b in self.oracle.check(batch) if b.signature == self.record["signature"]]

    def found(self, scripts: Sequence[Sequence[int]]) -> list[list[Bug]]:
        """For each script, the reports of the bug its ``repeats`` copies gave (empty: none)."""
        out: list[list[Bug]] = [[] for _ in scripts]
        by_length: dict[int, list[int]] = {}
        for i, script in enumerate(scripts):
            by_length.setdefault(len(script), []).append(i)
        per_play = 1 if self.statistical else max(1, MAX_COPIES // self.repeats)
        for length, rows in sorted(by_length.items()):
            if length == 0:
                continue  # no step, no bug
            for start in range(0, len(rows), per_play):
                chunk = rows[start : start + per_play]
                copies = [list(scripts[i]) for i in chunk for _ in range(self.repeats)]
                batch = self._play(copies)
                for j, i in enumerate(chunk):
                    out[i] = self._judge(batch[j * self.repeats : (j + 1) * self.repeats])
        return out

    def reproduces(self, scripts: Sequence[Sequence[int]]) -> list[bool]:
        """For each script, whether the bug showed in any of its copies."""
        return [bool(bugs) for bugs in self.found(scripts)]

    def first_step(self, script: Sequence[int]) -> int | None:
        """The earliest step at which ``script`` shows the bug, or None if it does not."""
        bugs = self.found([script])[0]
        return min(b.step for b in bugs) if bugs else None

    def close(self) -> None:
        """Close the games played and the run's ground-truth instance."""
        for game in self._games.values():
            game.close()
        self._games.clear()
        if self.built.truth is not None:
            self.built.truth.close()

    def __enter__(self) -> "Reproducer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
