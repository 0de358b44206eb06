"""The oracles check a batch on a thread of their own while the objectives score and learn
from it, and the run is the one it would be without the thread."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest

from evo.run import checks
from games.core.record import RolloutBatch
from evo.run.checks import Checks, background_safe
from games.core.component import Component
from tests.evo.run.test_loop import comparable_bugs, comparable_generations, run


def test_a_run_with_the_oracles_on_their_thread_is_the_run_without(tiny_config, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    check_each = checks.check_each

    def recorded(oracles, rollouts):
        threads.append(threading.current_thread().name)
        return check_each(oracles, rollouts)

    monkeypatch.setattr(checks, "check_each", recorded)
    run(tiny_config, tmp_path / "thread")
    assert threads and all(name.startswith("evo-oracles") for name in threads)
    monkeypatch.setattr("evo.run.kinds.base.background_safe", lambda objectives: False)
    threads.clear()
    run(tiny_config, tmp_path / "here")
    assert threads and all(name == threading.main_thread().name for name in threads)
    bugs = comparable_bugs(tmp_path / "thread")
    assert len(bugs) > 0
    pd.testing.assert_frame_equal(bugs, comparable_bugs(tmp_path / "here"), check_exact=True)
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "thread"),
                                  comparable_generations(tmp_path / "here"), check_exact=True)


class Listening(Component):
    def found(self, bugs) -> None:  # an objective that reacts to bugs as they are found
        pass


def test_the_thread_waits_where_an_objective_listens_for_bugs() -> None:
    assert background_safe([Component()])
    assert not background_safe([Component(), Listening()])


def test_an_oracles_error_comes_out_where_its_bugs_are_taken() -> None:
    class Broken(Component):
        def check(self, rollouts):
            raise RuntimeError("the oracle broke")

    pending = Checks([Broken()], background=True)
    pending.submit(RolloutBatch.from_rollouts([]), 0)  # the error stays on the thread until the bugs are asked for
    with pytest.raises(RuntimeError, match="the oracle broke"):
        pending.settle()
    pending.close()
