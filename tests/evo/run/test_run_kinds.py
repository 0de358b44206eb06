"""Run kinds: a new kind of run is one file with one ``@RUN_KINDS.register``, found through
its package's ``evo.runs`` entry point and run by ``run: <name>`` alone; it combines the run's
parts (state, evaluator, recorder) and gets the run directory every run has."""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import games.common.registry as registry_module

HILL_CLIMB = '''
import numpy as np

from evo.run.kinds import RUN_KINDS
from evo.run.kinds.base import Run
from evo.search.operators import Population


@RUN_KINDS.register("hill_climb")
class HillClimb(Run):
    """(1+1) search: one policy; each generation a mutated copy plays, and replaces it where
    it scores at least as well on every objective."""

    def run(self, resume: bool = False) -> Population:
        state, evaluate, recorder = self.state, self.evaluator.evaluate, self.recorder
        signs = np.array([1.0 if o.sense == "max" else -1.0 for o in self.built.objectives])
        with self.running():
            pop = recorder.restore() if resume else None
            if pop is None:
                recorder.start(again=resume)
                pop = evaluate(self.built.agents.init_genomes(1, state.rng_init), state.new_ids(1))
                done = recorder.finish(pop, *self.evaluator.take())
            else:
                done = state.done()
            while not done:
                state.counters.generation += 1
                noise = state.rng_vary.normal(0.0, self.exp.search.mutation_sigma, pop.genomes.shape)
                child = evaluate((pop.genomes + noise).astype(np.float32), state.new_ids(1))
                if np.all(child.F * signs >= pop.F * signs):
                    pop = child
                done = recorder.finish(pop, *self.evaluator.take())
        self.population = pop
        return pop
'''
"""The run kind of the guide (docs/guides/add-a-run-kind.md), in a package of its own."""


@pytest.fixture
def installed_hill_climb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package that declares ``hill_climb = "my_tests_hill_climb:HillClimb"`` in the
    ``evo.runs`` entry-point group, as its ``pyproject.toml`` would."""
    from evo.run.kinds import RUN_KINDS

    (tmp_path / "my_tests_hill_climb.py").write_text(textwrap.dedent(HILL_CLIMB))
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin = [EntryPoint("hill_climb", "my_tests_hill_climb:HillClimb", "evo.runs")]
    real = registry_module.entry_points
    monkeypatch.setattr(registry_module, "entry_points", lambda group: plugin if group == "evo.runs" else real(group=group))
    monkeypatch.setattr(RUN_KINDS, "_plugins_read", False)
    yield
    RUN_KINDS.pop("hill_climb", None)
    sys.modules.pop("my_tests_hill_climb", None)


def test_an_installed_run_kind_runs_by_its_name_alone_and_resumes(installed_hill_climb: None,
                                                                   tiny_config: dict[str, Any], tmp_path: Path) -> None:
    from evo.report.tables import load_run
    from evo.run.config import parse_experiment
    from evo.run.kinds.base import run_for

    tiny_config.update(run="hill_climb", budget={"generations": 6})
    run_for(parse_experiment(tiny_config), tmp_path / "run").run()
    run = load_run(tmp_path / "run")
    assert run.config["run"] == "hill_climb"
    generations = run.generations
    assert list(generations["generation"]) == list(range(6))
    assert np.all(np.diff(generations["env_steps"]) > 0)  # every generation played
    for objective in ("winning", "coverage"):  # the kept policy never scores worse
        assert np.all(np.diff(generations[f"{objective}_max"]) >= 0)
    assert len(run.bugs) > 0  # the oracles watched its episodes

    tiny_config["budget"] = {"generations": 3}
    run_for(parse_experiment(tiny_config), tmp_path / "killed").run()
    tiny_config["budget"] = {"generations": 6}
    run_for(parse_experiment(tiny_config), tmp_path / "killed").run(resume=True)
    resumed = load_run(tmp_path / "killed").generations
    columns = ["generation", "env_steps", "winning_max", "coverage_max", "bugs_total"]
    assert resumed[columns].equals(generations[columns])


def test_a_run_of_one_agent_is_refused_unless_it_is_one_agent_trained_by_ppo(tiny_config: dict[str, Any],
                                                                              tmp_path: Path) -> None:
    from evo.run.config import ConfigError, parse_experiment
    from evo.run.kinds.base import run_for

    tiny_config["run"] = "single_agent"
    tiny_config["objectives"] = [{"name": "coverage"}]
    with pytest.raises(ConfigError, match=r"^run single_agent trains on preference_kl's reward: list it in "
                                          r"objectives \(got coverage\)$"):
        run_for(parse_experiment(tiny_config), tmp_path / "run")
    assert not (tmp_path / "run").exists()
