"""The component contract: factories get a context with a seed of their own."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Sequence

import pytest

import objectives
import oracles
from games.core.component import Component, ComponentEntry, Context
from games.core.base import GameSpec
from games.core.record import Rollout
from objectives.base import Objective, ObjectiveConfig
from oracles.base import Bug, Oracle, OracleConfig

SPEC = GameSpec(obs_shape=(2,), n_actions=4, feature_names=("x", "y"), feature_low=(0.0, 0.0),
                feature_high=(4.0, 4.0), feature_bins=(4, 4), max_steps=10)


class RecorderConfig(ObjectiveConfig):
    """No options."""


class Recorder(Objective):
    """An objective that keeps the context it was built with."""

    name = "recorder"
    sense: Literal["max", "min"] = "max"

    def __init__(self, spec: GameSpec, config: RecorderConfig, context: Context) -> None:
        self.context = context

    def score(self, rollouts: Sequence[Rollout]) -> float:
        return 0.0


class WatcherConfig(OracleConfig):
    """No options."""


class Watcher(Oracle):
    """An oracle that keeps the context it was built with."""

    name = "watcher"

    def __init__(self, spec: GameSpec, config: WatcherConfig, context: Context) -> None:
        self.context = context

    def check(self, rollouts: Sequence[Rollout]) -> list[Bug]:
        return []


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(objectives.OBJECTIVES, "recorder", ComponentEntry(RecorderConfig, Recorder))
    monkeypatch.setitem(oracles.ORACLES, "watcher", ComponentEntry(WatcherConfig, Watcher))


def seeds(entries: list[str], seed: int) -> list[int]:
    built = objectives.build_objectives([(n, {}) for n in entries], SPEC, Context(seed=seed))
    return [o.context.seed for o in built if isinstance(o, Recorder)]


def test_each_component_gets_its_own_seed_and_the_same_one_for_the_same_experiment_seed() -> None:
    first, second = seeds(["recorder", "recorder"], seed=7)
    assert first != second  # two components of one name: two streams
    assert seeds(["recorder", "recorder"], seed=7) == [first, second]  # repeats per seed
    assert set(seeds(["recorder", "recorder"], seed=8)).isdisjoint({first, second})
    assert 0 <= first < 2**63 and 0 <= second < 2**63


def test_adding_a_component_leaves_the_others_seeds_as_they_were() -> None:
    alone = seeds(["recorder"], seed=7)
    assert seeds(["winning", "coverage", "recorder"], seed=7) == alone
    assert seeds(["recorder", "winning", "recorder"], seed=7)[0] == alone[0]


def test_oracles_get_seeds_device_and_run_dir_from_the_experiment_context(tmp_path: Path) -> None:
    context = Context(seed=7, device="cuda:1", run_dir=tmp_path)
    built = oracles.build_oracles([("crash", {}), ("watcher", {})], SPEC, context)
    watcher = built[1]
    assert isinstance(watcher, Watcher)
    assert watcher.context.device == "cuda:1" and watcher.context.run_dir == tmp_path
    assert watcher.context.seed != 7
    (objective,) = objectives.build_objectives([("recorder", {})], SPEC, context)
    assert objective.context.seed != watcher.context.seed  # sections are separate streams


def test_every_built_component_has_the_hooks_the_loop_calls() -> None:
    built = [*objectives.build_objectives([("winning", {}), ("coverage", {}), ("fps_drop", {})], SPEC),
             *oracles.build_oracles([("crash", {}), ("logic", {}), ("stuck", {}), ("performance", {})], SPEC)]
    for component in built:
        assert isinstance(component, Component)
        assert isinstance(component.tables(), dict) and isinstance(component.state_dict(), dict)
    assert list(built[-1].tables()) == ["low_fps_points"]


def test_a_factory_that_makes_no_component_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Bare:
        name = "bare"

        def __init__(self, spec: GameSpec, config: WatcherConfig, context: Context) -> None:
            pass

    monkeypatch.setitem(oracles.ORACLES, "bare", ComponentEntry(WatcherConfig, Bare))
    with pytest.raises(TypeError, match="oracle 'bare' built a Bare, which does not derive from"):
        oracles.build_oracles([("bare", {})], SPEC)
