"""One registry for every kind of part: unknown names in one line, lazy parts imported when
first asked for, and parts of an installed package found through its entry-point group, so a
new objective, oracle or agent kind is one file with one register call."""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

import games.common.registry as registry_module
from games.common.registry import Registry, UnknownName


def test_an_unknown_name_is_one_line_listing_the_known_ones() -> None:
    shapes = Registry[int]("shape")
    shapes.add("circle", 1)
    shapes.add("square", 4)
    with pytest.raises(UnknownName) as caught:
        shapes["triangle"]
    assert str(caught.value) == "unknown shape 'triangle'; expected one of circle, square"
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, ValueError)
    assert shapes.get("triangle") is None and shapes["square"] == 4


def test_a_lazy_part_is_imported_the_first_time_it_is_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lazy_shapes.py").write_text("SIDES = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    shapes = Registry[int]("shape")
    shapes.add_lazy("triangle", "lazy_shapes:SIDES")
    shapes.add_lazy("hexagon", "lazy_shapes:MISSING")
    assert "triangle" in shapes and shapes.names() == ["hexagon", "triangle"]
    assert "lazy_shapes" not in sys.modules  # listed, not imported
    assert shapes["triangle"] == 3
    with pytest.raises(UnknownName, match=r"^shape 'hexagon' \(lazy_shapes:MISSING\) cannot be loaded: "
                                          r"'lazy_shapes' has no 'MISSING'$"):
        shapes["hexagon"]
    monkeypatch.delitem(sys.modules, "lazy_shapes")


SURVIVAL = '''
from objectives.base import Objective, ObjectiveConfig, register
from oracles import base as oracles

class SurvivalConfig(ObjectiveConfig):
    """Options (unknown keys are rejected)."""

@register("survival", SurvivalConfig)
class Survival(Objective):
    name, sense = "survival", "max"
    def __init__(self, spec, config, context): ...
    def score(self, rollouts):
        return float(sum(r.length for r in rollouts)) / len(rollouts)

class HighReturnConfig(oracles.OracleConfig):
    max_return: float = 100.0

@oracles.register("high_return", HighReturnConfig)
class HighReturnOracle(oracles.Oracle):
    name = "high_return"
    def __init__(self, spec, config, context): self.config = config
    def check(self, rollouts):
        return [oracles.Bug.at_step(r, r.length - 1, kind="logic", oracle=self.name,
                                    signature="high_return", message=f"return {r.episode_return}")
                for r in rollouts if r.episode_return > self.config.max_return]
'''
"""The objective and the oracle of the guides (docs/guides/add-an-objective.md,
add-an-oracle.md), in a package of their own."""


@pytest.fixture
def installed_survival(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package that declares ``survival = "my_tests_survival:Survival"`` in the
    ``evo.objectives`` entry-point group and ``high_return`` in ``evo.oracles``, as its
    ``pyproject.toml`` would."""
    (tmp_path / "my_tests_survival.py").write_text(textwrap.dedent(SURVIVAL))
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins = {"evo.objectives": [EntryPoint("survival", "my_tests_survival:Survival", "evo.objectives")],
               "evo.oracles": [EntryPoint("high_return", "my_tests_survival:HighReturnOracle", "evo.oracles")]}
    real = registry_module.entry_points
    monkeypatch.setattr(registry_module, "entry_points", lambda group: plugins.get(group) or real(group=group))
    from objectives import OBJECTIVES
    from oracles import ORACLES

    for parts in (OBJECTIVES, ORACLES):
        monkeypatch.setattr(parts, "_plugins_read", False)
    yield
    OBJECTIVES.pop("survival", None)
    ORACLES.pop("high_return", None)
    sys.modules.pop("my_tests_survival", None)


def test_an_installed_objective_and_oracle_run_by_their_names_alone(installed_survival: None, tiny_config: dict[str, Any],
                                                      tmp_path: Path) -> None:
    from evo.report.tables import load_run
    from evo.run.config import parse_experiment
    from evo.run.kinds.evolve import Evolve
    from objectives import OBJECTIVES

    assert "survival" in OBJECTIVES.names()
    tiny_config["objectives"] = [{"name": "survival"}, {"name": "coverage"}]
    tiny_config["oracles"] = [{"name": "high_return", "kwargs": {"max_return": -1.0}}]
    tiny_config["budget"] = {"generations": 2}
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    run = load_run(tmp_path / "run")
    assert (run.generations["survival_max"] > 0).all()
    assert run.bugs["oracle"].tolist() == ["high_return"]


def test_a_misspelt_objective_fails_before_the_run_naming_the_installed_ones(installed_survival: None,
                                                                            tiny_config: dict[str, Any]) -> None:
    from evo.run.config import ConfigError, parse_experiment, validate_names

    tiny_config["objectives"] = [{"name": "survial"}]
    with pytest.raises(ConfigError, match=r"^objectives\[0\]\.name: unknown objective 'survial'; expected one of "
                                          r"coverage, .*survival, winning$"):
        validate_names(parse_experiment(tiny_config))


EASTWARD = '''
from dataclasses import dataclass

import numpy as np

from evo.search.agents.base import register_kind

class Eastward:
    """Every copy steps east (the Block Maze's action 2), every step."""
    def __init__(self, gumbel):
        n, _, a = gumbel.shape
        self.probs = np.eye(a, dtype=np.float32)[np.full(n, 2)]
    def reset(self, seeds):
        pass
    def act(self, obs, features, infos, t):
        return np.full(len(self.probs), 2), self.probs

@dataclass(frozen=True)
class EastwardSpec:
    def build(self, episodes, gumbel):
        return Eastward(gumbel)

@dataclass(frozen=True)
class EastwardKind:
    evolves = False
    def init_genomes(self, n, rng):
        return np.empty((n, 0), dtype=np.float32)
    def spec(self, genomes, temperature=1.0):
        return EastwardSpec()

@register_kind("eastward")
def eastward(policy_spec, device="cpu"):
    return EastwardKind()
'''
"""An agent kind in a package of its own (docs/guides/add-an-agent.md): one file, one
``@register_kind``."""


def test_an_installed_agent_kind_plays_by_its_name_alone(tiny_config: dict[str, Any], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from evo.report.tables import load_run
    from evo.run.config import parse_experiment
    from evo.run.kinds.evolve import Evolve
    from evo.search.agents import AGENT_KINDS

    (tmp_path / "my_tests_eastward.py").write_text(textwrap.dedent(EASTWARD))
    monkeypatch.syspath_prepend(str(tmp_path))
    real = registry_module.entry_points
    plugin = [EntryPoint("eastward", "my_tests_eastward:eastward", "evo.agents")]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: plugin if group == "evo.agents" else real(group=group))
    monkeypatch.setattr(AGENT_KINDS, "_plugins_read", False)
    try:
        tiny_config["search"]["agent"] = "eastward"
        tiny_config["budget"] = {"generations": 2}
        tiny_config["finetune"] = {"algorithm": "none"}
        Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    finally:
        AGENT_KINDS.pop("eastward", None)
        sys.modules.pop("my_tests_eastward", None)
    run = load_run(tmp_path / "run")
    assert run.config["search"]["agent"] == "eastward"
    # Every episode walks the same cells east of the start, and no generation adds one.
    coverage = run.generations["coverage"].tolist()
    assert len(coverage) == 2 and coverage[0] == coverage[1] <= 3  # random play: dozens
