"""Live scalars: ``logging: {tensorboard: true}`` writes each generation's row as TensorBoard events."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from evo.cli.main import main
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve

pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")


def _config(tensorboard: bool) -> dict[str, Any]:
    from tests.conftest import TINY

    config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(TINY))
    config["budget"]["generations"] = 3
    config["logging"] = {"tensorboard": tensorboard}
    return config


def _bugs(run_dir: Path) -> list[dict[str, Any]]:
    out = []
    for line in (run_dir / "bugs.jsonl").read_text().splitlines():
        bug = json.loads(line)
        bug.pop("wall_s")
        if bug["kind"] == "performance":  # measured frame times differ run to run
            bug.pop("data"), bug.pop("message")
        out.append(bug)
    return out


def test_every_generation_is_a_scalar_event_and_results_do_not_change(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logged, plain = tmp_path / "logged", tmp_path / "plain"
    Evolve(parse_experiment(_config(True)), logged).run()
    Evolve(parse_experiment(_config(False)), plain).run()
    assert not (plain / "tensorboard").exists()
    events = EventAccumulator(str(logged / "tensorboard"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"objectives/winning_mean", "objectives/coverage_max", "search/coverage", "search/hypervolume",
            "bugs/bugs_total", "bugs/bugs_crash", "bugs/injected_found", "rl/entropy",
            "seconds/evaluation"} <= tags
    gens = pd.read_csv(logged / "generations.csv")
    for tag, column in (("objectives/winning_mean", "winning_mean"), ("bugs/bugs_total", "bugs_total")):
        scalars = events.Scalars(tag)
        assert [s.step for s in scalars] == gens["generation"].tolist()
        assert [s.value for s in scalars] == pytest.approx(gens[column].tolist())
    assert _bugs(logged) == _bugs(plain)  # logging draws nothing: the same bugs


def test_without_tensorboard_installed_a_run_stops_at_start(
    tmp_path: Path, write_yaml, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    out = tmp_path / "run"
    assert main(["run", str(write_yaml(_config(True))), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "logging.tensorboard" in err and "[tensorboard]" in err
    assert not out.exists()
