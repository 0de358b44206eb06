"""Replay a reported bug from its episode seed and actions, and say whether it showed again.

The script agent plays the recorded actions in fresh copies of the game, as the run did,
and hands the episodes to the same oracle with the thresholds it had at the end of the run.
Statistical oracles (performance) judge across the copies: a replay of a slow frame is
played in several copies and must be slow in most of them. Those copies are as many as one
worker stepped at once in the run (at least ``repeats``): a game with real frame times
renders each frame slower with more copies sharing the cores and caches (ViZDoom's engines
do), so the replay measures the frame under the run's load, against the run's threshold.
Every other bug is judged in each copy alone as well, and the message says in how many it
showed ("reproduced in 7 of 10 replays"): a game that does not replay exactly shows it in some.
Where the run kept a snapshot of the bug's episode before it (``from_snapshot``,
:mod:`evo.run.rates`) and not every replay from the reset showed it, its actions after the
snapshot are played from there too, and the message says in how many it showed ("in 4 of 10
from its snapshot at step 10"); a bug shown only from there is reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.bugs.reproduce import Reproducer, find_bug, run_batch
from evo.run.rundir import bug_snapshot


@dataclass(frozen=True)
class ReplayResult:
    """Whether the bug showed again, and in how many of the replays it showed (``showed`` of
    ``played``; None where its oracle judges the replays together)."""

    reproduced: bool
    bug: dict[str, Any]
    message: str
    showed: int | None = None
    played: int = 0


def replay(run_dir: str | Path, bug_id: int, repeats: int = 3) -> ReplayResult:
    """Replay bug ``bug_id`` of a run ``repeats`` times and re-check it with its oracle
    (:class:`evo.bugs.reproduce.Reproducer`).

    Raises:
        KeyError: no bug has that id, or its oracle is not in the run's config.
    """
    run_dir = Path(run_dir)
    record = find_bug(run_dir, bug_id)  # a bug that is not there is said before the game is built
    there, kept = record.get("from_snapshot"), bug_snapshot(run_dir, bug_id)
    with Reproducer(run_dir, repeats) as reproducer:
        replayed = reproducer.replay(record)
        copies = reproducer.copies(record)
        showed = reproducer.showed(record, replayed)
        also = ""
        if there and kept.is_file() and (showed or 0) < copies:
            shown, played = reproducer.replay_from(record, kept.read_bytes(), int(there["step"]))
            also = f"; in {shown} of {played} from its snapshot at step {there['step']} ({kept})"
            if shown and not replayed.bugs:
                return ReplayResult(True, record, f"bug {bug_id} reproduced in 0 of {copies} replays from the reset{also}",
                                    0, copies)
    if replayed.bugs:
        rate = f"in {showed} of {copies} replays" if showed is not None else f"judged over {copies} replays"
        return ReplayResult(True, record, f"bug {bug_id} reproduced {rate}{also}: {replayed.bugs[0].message}",
                            showed, copies)
    short = [r for r in replayed.episodes if r.length < len(record["actions"])]
    why = f"; {len(short)} of {copies} replays ended early" if short else ""
    return ReplayResult(False, record, f"bug {bug_id} did not reproduce in {copies} replays ({record['signature']}){why}{also}",
                        0, copies)


__all__ = ["ReplayResult", "find_bug", "replay", "run_batch"]
