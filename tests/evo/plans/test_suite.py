"""``evo plan suite DIR``: every plan of a folder run, one line and one table row each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evo.cli.main import main

PLANS = Path(__file__).resolve().parents[3] / "plans" / "dungeon"


def test_a_suite_that_passes_exits_0_and_writes_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tables" / "suite.csv"
    assert main(["plan", "suite", str(PLANS), "--out", str(out)]) == 0
    table = pd.read_csv(out, keep_default_na=False)
    assert list(table.columns) == ["plan", "passed", "steps", "failure"]
    assert list(table["plan"]) == ["article.yaml", "rules.yaml", "rules_only.yaml", "validations.yaml"]
    assert table["passed"].all() and (table["steps"] > 0).all() and (table["failure"] == "").all()
    printed = capsys.readouterr().out
    assert "PASSED article.yaml" in printed and "4 of 4 plans passed" in printed


def test_a_build_with_a_bug_fails_the_plans_that_meet_it_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "suite.csv"
    assert main(["plan", "suite", str(PLANS), "--kwarg", "bugs=[moved_switch]", "--out", str(out)]) == 1
    table = pd.read_csv(out, keep_default_na=False).set_index("plan")
    steps = table.drop(index="rules_only.yaml")  # rules alone never go to the switch
    assert not steps["passed"].any()  # every plan of steps starts at the switch
    assert steps["failure"].str.contains("interact on switch_1").all()
    assert table.loc["rules_only.yaml", "passed"]
    assert "1 of 4 plans passed" in capsys.readouterr().out


@pytest.mark.parametrize("make, expected", [
    (lambda d: d / "missing", "no such plan folder"),
    (lambda d: d, "no plan YAML"),
    (lambda d: (d / "bad.yaml").write_text("nodes: []\n") and d, "bad.yaml"),
])
def test_a_folder_it_cannot_run_is_one_line_exit_2(make: Any, expected: str, bad_input: Any, tmp_path: Path) -> None:
    folder = tmp_path / "plans"
    folder.mkdir()
    target = make(folder)
    assert expected in bad_input(["plan", "suite", str(target)])
