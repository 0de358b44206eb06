"""End to end: RELINE's CartPole experiment, as shipped, on a tiny budget: both objectives in
the tables, injected performance bugs found and replayed."""

from __future__ import annotations

import json
from pathlib import Path

from evo.report import load_run
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
