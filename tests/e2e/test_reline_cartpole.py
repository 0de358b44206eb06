"""End to end: RELINE's CartPole experiment, as shipped, on a tiny budget: both objectives in
the tables, injected performance bugs found and replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from evo.report.tables import load_run
from tests.cli.test_cli import ROOT, evo


def test_reline_cartpole_finds_and_replays_a_slow_region(tmp_path: Path) -> None:
    result = evo(
        "run", str(ROOT / "experiments" / "reline_cartpole.yaml"), "budget.generations=4",
        "parallel.backend=serial", "--out", "run", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    run = load_run(tmp_path / "run")
    assert {"winning_max", "fps_drop_max", "injected_found"} <= set(run.generations.columns)
    bugs = [json.loads(line) for line in (tmp_path / "run" / "bugs.jsonl").read_text().splitlines()]
    found = [b for b in bugs if b["injected_id"] is not None]
    assert found and all(b["kind"] == "performance" for b in found)
    replay = evo("replay", "run", str(found[0]["id"]), cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_rl_and_random_variants_run_and_evaluate_against_reline(tmp_path: Path) -> None:
    """The three agents of RELINE's Table 1, on tiny budgets, then `evo evaluate` on all three."""
    for name in ("reline_cartpole", "reline_cartpole_rl", "reline_cartpole_random"):
        result = evo(
            "run", str(ROOT / "experiments" / f"{name}.yaml"), "budget.generations=2",
            "game.kwargs.max_steps=200", "parallel.backend=serial", "--quiet", "--out", name, cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
    result = evo("evaluate", "reline_cartpole", "reline_cartpole_rl", "reline_cartpole_random",
                 "--episodes", "20", "--warmup", "5", "--jobs", "1", "--out", "eval", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "n>=2" in result.stdout and "agents compared" in result.stdout
    table = pd.read_csv(tmp_path / "eval" / "evaluation.csv")
    assert list(table["agent"]) == ["reline_cartpole", "reline_cartpole_rl", "reline_cartpole_random"]
    assert list(table["episodes"]) == [20, 20, 20]
    assert (tmp_path / "reline_cartpole" / "low_fps_points.csv").is_file()
