"""A fault of the game's process (a hang, a death, a kill for memory) is in ``bugs.jsonl`` and
told the moment a worker meets it, not when its generation's episodes are all over; an
exception the game raises stays with its batch. The worker's side writes a folder of the run
directory (:mod:`evo.search.faults`), the run reads it while it waits (:mod:`evo.run.early_faults`)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from evo.run import rundir
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from evo.search.faults import FaultReader
from games.core.base import GameError

LINE = "tests.games.faulty_envs:LineWalk"


def _tell(reader: FaultReader, errors: dict[int, GameError], step: int = 2) -> None:
    n, horizon = 3, 5
    actions = np.arange(horizon * n).reshape(horizon, n)
    features = np.arange((horizon + 1) * n, dtype=float).reshape(horizon + 1, n, 1)
    reader.log.tell(errors, step, np.array([10, 11, 12]), np.array([7, 8, 9]), actions, features,
                    np.full(n, step + 1))


def test_a_worker_tells_each_fault_of_its_game_process_once_and_no_exception(tmp_path: Path) -> None:
    reader = FaultReader(tmp_path / "faults")
    hang = GameError("GameHang", "step did not return within the step timeout")
    _tell(reader, {0: GameError("RuntimeError", "boom", "game.py:step:3"), 1: hang})
    _tell(reader, {2: hang}, step=4)  # the same fault again, from another copy
    [fault] = reader.new()
    assert fault.error == hang and (fault.policy, fault.episode_seed, fault.step) == (11, 8, 2)
    assert fault.actions == (1, 4, 7) and (fault.state, fault.next_state) == ((7.0,), (10.0,))
    assert (fault.played, fault.copies) == (9, 3)
    assert reader.new() == []  # read once
    died = GameError("GameProcessDied", "game process exited with code 3")
    _tell(reader, {0: died})
    assert [f.error for f in reader.new()] == [died]
    again = FaultReader(tmp_path / "faults")  # a run started again in the same folder hears it anew
    _tell(again, {1: hang})
    assert [f.error for f in again.new()] == [hang]


def test_a_game_process_that_dies_is_in_bugs_jsonl_while_its_generation_still_plays(tiny_config, tmp_path: Path) -> None:
    config = {**tiny_config, "budget": {"generations": 1}, "finetune": {"algorithm": "none"},
              "parallel": {"backend": "loky", "n_jobs": 2},
              "game": {"entry_point": LINE, "isolated": True,
                       # 5 ms a step: the other copies play on well after the death
                       # (without it a fast machine's generation could end within the fault's delivery)
                       "kwargs": {"fault": "die", "at_position": 3, "length": 12, "max_steps": 60,
                                  "step_delay_s": 0.005}},
              "oracles": [{"name": "crash"}],
              "search": {**tiny_config["search"], "episodes": 4}}
    run_dir = tmp_path / "run"
    told: list[tuple[float, list[str], bool, list[str]]] = []

    def on_bugs(bugs) -> None:
        written = [r["signature"] for r in rundir.bug_records(run_dir)]
        told.append((time.perf_counter(), [b.bug.signature for b in bugs], rundir.rows_written(run_dir) > 0, written))

    search = Evolve(parse_experiment(config), run_dir, on_bugs=on_bugs)
    start, returned = search.executor.start, []

    def timed(fn, tasks):
        results = start(fn, tasks)

        def wait(timeout=None):
            out = results(timeout)
            returned.append(time.perf_counter())
            return out

        return wait

    search.executor.start = timed  # type: ignore[method-assign]
    search.run()
    assert len(told) == 1, told
    when, [signature], had_row, written = told[0]
    assert signature.startswith("crash:GameProcessDied:") and written == [signature] and not had_row
    assert when < returned[0]  # before the workers' results came back
    records = rundir.bug_records(run_dir)
    assert [r["signature"] for r in records] == [signature]  # the batch's own report of it is the same bug
    assert records[0]["generation"] == 0
    assert not (run_dir / "faults").exists()
