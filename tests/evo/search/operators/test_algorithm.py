"""Operators chosen in the YAML: defaults, bad names, and whole runs with NSGA-III and lexicase."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch

from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.config import ConfigError, parse_experiment
from evo.search.operators import Operators, Population
from evo.search.operators.selection import Lexicase, Tournament
from evo.search.operators.survival import NSGA2Survival, NSGA3Survival
from evo.report.tables import load_run
from evo.run.rundir import MEASURED
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve


def with_operators(config: dict[str, Any], **operators: Any) -> dict[str, Any]:
    """The tiny experiment with ``search.operators`` set, 3 generations, no fine-tuning."""
    config["search"]["operators"] = operators
    config["budget"] = {"generations": 3}
    config["finetune"] = {"algorithm": "none"}
    return config


def generations(run_dir: Path) -> pd.DataFrame:
    return load_run(run_dir).generations.drop(columns=list(MEASURED))


def bugs(run_dir: Path) -> pd.DataFrame:
    return load_run(run_dir).bugs[["id", "signature", "generation", "env_steps", "policy", "seed", "actions"]]


def run(config: dict[str, Any], out: Path, **kwargs: Any) -> Evolve:
    search = Evolve(parse_experiment(config), out, **kwargs)
    search.run()
    return search


def test_defaults_are_wujis_operators(tiny_config) -> None:
    ops = parse_experiment(tiny_config).search.operators
    names = (ops.survival, ops.selection, ops.crossover, ops.mutation)
    assert names == ("nsga2", "tournament", "single_point", "gaussian")
    built = Operators.from_search(parse_experiment(tiny_config).search, n_obj=2)
    assert isinstance(built.survival, NSGA2Survival) and isinstance(built.selection, Tournament)
    assert not built.needs_cases


@pytest.mark.parametrize(
    ("key", "value", "known"),
    [
        ("survival", "spea2", "nsga2, nsga3"),
        ("selection", "roulette", "lexicase, tournament"),
        ("crossover", "uniform", "single_point"),
        ("mutation", "polynomial", "gaussian"),
    ],
)
def test_an_unknown_operator_is_one_line_naming_the_key_and_the_known_ones(
    tiny_config, key: str, value: str, known: str
) -> None:
    tiny_config["search"]["operators"] = {key: value}
    with pytest.raises(ConfigError) as err:
        parse_experiment(tiny_config)
    message = str(err.value)
    assert message == f"search.operators.{key}: unknown {key} operator {value!r}; expected one of {known}"


def test_bad_operator_keys_through_the_cli(bad_input) -> None:
    line = bad_input(["run", "exp.yaml", "search.operators.survival=nsga4"])
    assert "search.operators.survival" in line and "nsga3" in line
    assert "search.operators.partitions" in bad_input(["run", "exp.yaml", "search.operators.partitions=0"])
    assert "search.operators: partitions are NSGA-III's" in bad_input(
        ["run", "exp.yaml", "search.operators.partitions=4"]
    )
    assert "search.operators.elitism: unknown key" in bad_input(["run", "exp.yaml", "search.operators.elitism=1"])


def test_nsga3_run_repeats_and_keeps_the_population_size(tiny_config, tmp_path: Path) -> None:
    config = with_operators(tiny_config, survival="nsga3", partitions=4)
    a = run(config, tmp_path / "a")
    run(config, tmp_path / "b")
    assert isinstance(a.operators.survival, NSGA3Survival) and a.operators.survival.ref_dirs.shape == (5, 2)
    assert a.population is not None and len(a.population.ids) == config["search"]["population"]
    assert a.population.cases is None
    assert generations(tmp_path / "a")["generation"].tolist() == [0, 1, 2]
    pd.testing.assert_frame_equal(generations(tmp_path / "a"), generations(tmp_path / "b"))
    pd.testing.assert_frame_equal(bugs(tmp_path / "a"), bugs(tmp_path / "b"))


def test_lexicase_run_repeats_and_checkpoints_the_per_episode_scores(tiny_config, tmp_path: Path) -> None:
    config = with_operators(tiny_config, selection="lexicase")
    a = run(config, tmp_path / "a")
    run(config, tmp_path / "b")
    pd.testing.assert_frame_equal(generations(tmp_path / "a"), generations(tmp_path / "b"))
    pd.testing.assert_frame_equal(bugs(tmp_path / "a"), bugs(tmp_path / "b"))
    assert isinstance(a.operators.selection, Lexicase)
    pop = a.population
    assert pop is not None and pop.cases is not None
    assert pop.cases.shape == (6, 2, config["search"]["episodes"])  # policies, objectives, episodes
    # The first objective (winning: mean episode return) is the mean of its cases.
    np.testing.assert_allclose(pop.cases[:, 0].mean(axis=1), pop.F[:, 0])
    ckpt = load_checkpoint(latest_checkpoint(tmp_path / "a"))
    np.testing.assert_array_equal(ckpt.cases, pop.cases)
    assert set(torch.load(latest_checkpoint(tmp_path / "a"), weights_only=True)) >= {"cases", "F", "meta"}


def test_lexicase_differs_from_tournament(tiny_config, tmp_path: Path) -> None:
    run(with_operators(tiny_config), tmp_path / "tournament")
    run(with_operators(tiny_config, selection="lexicase"), tmp_path / "lexicase")
    assert not generations(tmp_path / "tournament").equals(generations(tmp_path / "lexicase"))


class Kill(Exception):
    pass


@pytest.mark.parametrize("operators", [{"selection": "lexicase"}, {"survival": "nsga3", "selection": "lexicase"}])
def test_killed_lexicase_run_resumes_as_if_uninterrupted(tiny_config, tmp_path: Path, operators: dict) -> None:
    config = with_operators(tiny_config, **operators)
    config["budget"] = {"generations": 4}
    run(config, tmp_path / "whole")

    def kill_after_generation_1(report: GenerationReport) -> None:
        if report.generation == 1:
            raise Kill

    with pytest.raises(Kill):
        run(config, tmp_path / "killed", progress=kill_after_generation_1)
    Evolve(parse_experiment(config), tmp_path / "killed").run(resume=True)
    pd.testing.assert_frame_equal(generations(tmp_path / "whole"), generations(tmp_path / "killed"))
    pd.testing.assert_frame_equal(bugs(tmp_path / "whole"), bugs(tmp_path / "killed"))


def test_population_concat_and_take_keep_cases_aligned() -> None:
    a = Population(np.zeros((2, 3), np.float32), np.array([0, 1]), np.zeros((2, 1)), np.zeros((2, 1, 2)))
    b = Population(np.ones((1, 3), np.float32), np.array([7]), np.ones((1, 1)), np.ones((1, 1, 2)))
    both = a.concat(b).take(np.array([2, 0]))
    assert both.ids.tolist() == [7, 0]
    assert both.cases is not None and both.cases[:, 0, 0].tolist() == [1.0, 0.0]
    assert a.concat(Population(b.genomes, b.ids, b.F)).cases is None
