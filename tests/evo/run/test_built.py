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
