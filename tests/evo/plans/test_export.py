"""Every bug of a run exported as a minimal plan, and the plans re-run on another build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evo.cli.main import main
from evo.run.config import parse_experiment
from evo.plans import load_plan
from evo.report.tables import load_run
from evo.run.kinds.evolve import Evolve


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import TINY

    run = tmp_path_factory.mktemp("export") / "run"
    Evolve(parse_experiment(json.loads(json.dumps(TINY))), run).run()
    assert main(["plan", "export", str(run)]) == 0
    return run


def test_every_bug_of_the_tiny_block_maze_run_exports_to_a_plan_that_reproduces_it(exported: Path) -> None:
    table = pd.read_csv(exported / "plans" / "export.csv")
    bugs = load_run(exported).bugs
    assert list(table["id"]) == list(bugs["id"]) and set(table["kind"]) >= {"crash", "logic", "stuck", "performance"}
    assert table["reproduces"].all()
    assert (table["shrunk"] <= table["original"]).all() and table["shrunk"].sum() < table["original"].sum()
    for row in table.itertuples():
        plan = load_plan(exported / "plans" / row.plan)
        assert plan.bug is not None and plan.bug.signature == row.signature
        assert plan.max_steps == row.shrunk and len(plan.nodes) == row.nodes <= row.recorded_nodes <= row.shrunk
    assert table["nodes"].sum() < table["recorded_nodes"].sum()  # nodes the bug does not need are dropped
    crash = table.query("kind == 'crash'").iloc[0]
    assert crash.nodes == 1  # walk there and make the move that crashes


def test_an_exported_plan_fails_while_its_bug_remains(exported: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stuck = load_run(exported).bugs.query("kind == 'stuck'").iloc[0]
    path = exported / "plans" / f"bug-{int(stuck['id'])}.yaml"
    capsys.readouterr()
    assert main(["plan", "run", str(path)]) == 1
    assert f"FAILED bug {stuck['signature']} remains" in capsys.readouterr().out
    assert main(["plan", "run", str(path), "--kwarg", f"fixed_bugs=[{int(stuck['injected_id'])}]"]) == 0


def test_regress_with_plans_reports_exactly_the_removed_bugs_as_fixed(exported: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    bugs = load_run(exported).bugs
    removed = bugs.iloc[::2]
    fixed_ids = sorted(int(v) for v in removed["injected_id"])
    capsys.readouterr()
    code = main(["regress", str(exported), "--plans", "--kwarg", f"fixed_bugs={fixed_ids}"])
    assert code == 1  # some remain
    out = capsys.readouterr().out
    assert f"{len(removed)} of {len(bugs)} bugs fixed" in out
    assert main(["regress", str(exported), "--plans", "--kwarg", f"fixed_bugs={sorted(bugs['injected_id'].astype(int))}"]) == 0


def test_regress_plans_table_names_each_bug(exported: Path) -> None:
    from evo.cli.plans import game_factory
    from evo.plans.export import regress_plans

    bugs = load_run(exported).bugs
    first = bugs.iloc[0]
    table = regress_plans(exported / "plans", lambda plan: game_factory(plan, None, [f"fixed_bugs=[{int(first['injected_id'])}]"]))
    assert list(table["id"]) == list(bugs["id"])
    assert dict(zip(table["id"], table["status"])) == {int(i): ("fixed" if i == first["id"] else "remains") for i in bugs["id"]}


def test_regress_without_exported_plans_is_one_line_exit_2(bad_input: Any, tmp_path: Path, exported: Path) -> None:
    assert "no exported bug plans" in bad_input(["regress", str(exported), "--plans", str(tmp_path / "none")])
