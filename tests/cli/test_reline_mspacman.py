"""End to end: RELINE's MsPacman experiments, as shipped, on tiny budgets, then evaluated."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tests.cli.test_cli import ROOT, evo

SMALL = ["budget.generations=1", "search.population=2", "search.episodes=1", "parallel.backend=serial",
         "game.kwargs.max_steps=120"]


def test_three_agents_run_and_the_reline_agent_is_evaluated(tmp_path: Path) -> None:
    for name, extra in (("reline_mspacman", ["search.offspring=2"]), ("reline_mspacman_rl", []),
                        ("reline_mspacman_random", ["search.offspring=2"])):
        result = evo("run", str(ROOT / "experiments" / f"{name}.yaml"), *SMALL, *extra, "--quiet", "--out", name,
                     cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        bugs = [json.loads(line) for line in (tmp_path / name / "bugs.jsonl").read_text().splitlines()]
        # Every report is a performance report at a tunnel mouth, or a crash/logic finding.
        assert all(b["injected_id"] is not None for b in bugs if b["kind"] == "performance")
    result = evo("evaluate", "reline_mspacman", "reline_mspacman_random", "--episodes", "4", "--warmup", "2",
                 "--jobs", "1", "--out", "eval", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(tmp_path / "eval" / "evaluation.csv")
    assert [f"at_least_{n}" for n in range(1, 5)] == [c for c in table.columns if c.startswith("at_least_")]
