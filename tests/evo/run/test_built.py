"""What an experiment builds once closes what it opened: the game copy kept for its ground
truth, and the processes that copy's game started."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from evo.run.built import Built
from evo.run.config import parse_experiment
from tests.games.launcher_envs import EngineWhenMade


class EngineWithTruth(EngineWhenMade):
    """A game that starts its engine when made and knows its injected bugs (none): the run
    keeps one copy of it for ``match``."""

    injected_bugs: tuple[Any, ...] = ()

    def match(self, bug: Any) -> int | None:
        return None


def test_the_ground_truth_copys_engine_ends_with_the_with_block(tiny_config: dict[str, Any]) -> None:
    tiny_config["game"] = {"entry_point": f"{__name__}:EngineWithTruth", "isolated": False}
    with Built.from_experiment(parse_experiment(tiny_config)) as built:
        assert built.truth is not None and built.processes is not None
        assert built.processes.find(), "the kept copy's engine should be running"
        with pytest.raises(dataclasses.FrozenInstanceError):
            built.factory = built.factory  # type: ignore[misc]
        variant = dataclasses.replace(built, factory=dataclasses.replace(built.factory, kwargs=()))
        assert variant.truth is built.truth  # another build of the game shares what this one opened
    assert built.processes.find() == []


def test_a_run_whose_workers_do_not_start_leaves_no_engine(tiny_config: dict[str, Any], tmp_path: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster that does not start fails the run after its game was built: the kept copy's
    engine ends with it."""
    import evo.run.kinds.base as base
    from evo.run.kinds.evolve import Evolve

    def no_cluster(*_: Any) -> None:
        raise RuntimeError("scheduler at tcp://10.0.0.1:8786 did not answer")

    tiny_config["game"] = {"entry_point": f"{__name__}:EngineWithTruth", "isolated": False}
    started: list[Built] = []
    build = Built.from_experiment

    def kept(*args: Any, **kwargs: Any) -> Built:
        started.append(build(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(base, "Executor", no_cluster)
    monkeypatch.setattr(base.Built, "from_experiment", kept)
    with pytest.raises(RuntimeError, match="did not answer"):
        Evolve(parse_experiment(tiny_config), tmp_path / "run")
    assert started and started[0].processes is not None
    assert started[0].processes.find() == []
