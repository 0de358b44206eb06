"""Replay a reported bug from its episode seed and actions, and say whether it showed again.

The script agent plays the recorded actions in fresh copies of the game, as the run did,
and hands the episodes to the same oracle with the thresholds it had at the end of the run.
Statistical oracles (performance) judge across the copies: a replay of a slow frame is
played in several copies and must be slow in most of them. Those copies are as many as one
worker stepped at once in the run (at least ``repeats``): a game with real frame times
renders each frame slower with more copies sharing the cores and caches (ViZDoom's engines
do), so the replay measures the frame under the run's load, against the run's threshold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.run import rundir
from evo.search.agents.script import ScriptAgent
from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.config import load_experiment
from evo.search.play import play
from evo.run.built import Built


@dataclass(frozen=True)
class ReplayResult:
    reproduced: bool
    bug: dict[str, Any]
    message: str


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


def run_batch(exp: Any) -> int:
    """Copies one worker of the run stepped at once: the larger of the population's and the
    offspring's episodes, cut into the run's chunks."""
    episodes = max(exp.search.population, exp.search.offspring) * exp.search.episodes
    parts = 1 if exp.parallel.backend == "serial" else exp.parallel.n_jobs
    return -(-episodes // parts)


def replay(run_dir: str | Path, bug_id: int, repeats: int = 3) -> ReplayResult:
    """Replay bug ``bug_id`` of a run ``repeats`` times and re-check it with its oracle."""
    run_dir = Path(run_dir)
    record = find_bug(run_dir, bug_id)
    exp = load_experiment(run_dir / rundir.CONFIG)
    built = Built.from_experiment(exp, cells_from=run_dir)
    try:
        oracle_names = [o.name for o in exp.oracles]
        if record["oracle"] not in oracle_names:
            raise KeyError(f"bug {bug_id} came from oracle {record['oracle']!r}, not in the run's config")
        k = oracle_names.index(record["oracle"])
        oracle = built.oracles[k]
        ckpt = latest_checkpoint(run_dir)
        if ckpt is not None:
            state = load_checkpoint(ckpt).meta["oracles"][k]
            if state is not None:
                oracle.load_state_dict(state)
        oracle.forget_visits()  # judge the replays on their own evidence
        actions = [int(a) for a in record["actions"]]
        if record["kind"] == "performance":
            repeats = max(repeats, run_batch(exp))
        game = built.factory.make_vector(repeats)
        try:
            result = play(
                game,
                [int(record["seed"])] * repeats,
                [int(record["policy"])] * repeats,
                ScriptAgent([actions] * repeats, built.spec.n_actions),
                max_steps=len(actions),
                columns=built.columns,  # a replay's probs are the script's (one-hot)
            )
        finally:
            game.close()
        short = [r for r in result.rollouts if r.length < len(actions)]
        found = [b for b in oracle.check(result.rollouts) if b.signature == record["signature"]]
    finally:
        built.close()
    if found:
        return ReplayResult(True, record, f"bug {bug_id} reproduced: {found[0].message}")
    why = f"; {len(short)} of {repeats} replays ended early" if short else ""
    return ReplayResult(False, record, f"bug {bug_id} did not reproduce ({record['signature']}){why}")
