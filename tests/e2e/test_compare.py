"""End to end: ``evo compare`` on two tiny experiments with two seeds, and ``evo report``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from evo.report.tables import PAIRWISE_COLUMNS, SUMMARY_COLUMNS, compare, pairwise

ROOT = Path(__file__).resolve().parents[2]
PLOTS = ["bugs_over_steps.png", "bugs_over_seconds.png", "pareto_fronts.png", "coverage_maps.png"]


def evo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evo.cli", *args],
        cwd=cwd, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"},
    )


def _experiment(name: str, objectives: list[str], finetune: str) -> dict[str, Any]:
    from tests.conftest import TINY

    config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(TINY))
    config.update(name=name, objectives=[{"name": o} for o in objectives])
    config["budget"]["generations"] = 2
    if finetune == "none":
        config["finetune"] = {"algorithm": "none"}
    return config


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``evo compare wuji.yaml single.yaml --seeds 2 --jobs 2``, run once for the module."""
    folder = tmp_path_factory.mktemp("compare")
    (folder / "wuji.yaml").write_text(yaml.safe_dump(_experiment("tiny_wuji", ["winning", "coverage"], "a2c")))
    (folder / "single.yaml").write_text(yaml.safe_dump(_experiment("tiny_ea_single", ["winning"], "none")))
    result = evo("compare", "wuji.yaml", "single.yaml", "--seeds", "2", "--jobs", "2", "--out", "out", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder / "out", result


def test_compare_writes_tables_plots_and_progress(compared: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, result = compared
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary.columns) == SUMMARY_COLUMNS
    assert list(summary["strategy"]) == ["tiny_wuji", "tiny_ea_single"]
    assert list(summary["runs"]) == [2, 2] and list(summary["injected"]) == [25, 25]
    assert (summary["bugs_min"] <= summary["bugs_mean"]).all() and (summary["bugs_mean"] <= summary["bugs_max"]).all()
    assert summary["precision"].between(0, 1).all()

    pairs = pd.read_csv(out / "pairwise.csv")
    assert list(pairs.columns) == PAIRWISE_COLUMNS
    assert len(pairs) == 1 and {"p", "p_holm", "delta", "magnitude"} <= set(pairs.columns)
    assert pairs.loc[0, "magnitude"] in {"negligible", "small", "medium", "large"}

    for seed in (0, 1):
        for name in ("tiny_wuji", "tiny_ea_single"):
            config = yaml.safe_load((out / "runs" / name / f"seed{seed}" / "config.yaml").read_text())
            assert config["seed"] == seed
    for name in PLOTS:
        path = out / "plots" / name
        assert path.is_file() and path.stat().st_size > 5_000, name

    progress = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert len(progress) == 4 and all(" bugs" in line and line.endswith(" s") for line in progress)
    assert "summary: block_maze" in result.stdout and "pairwise: block_maze" in result.stdout


def test_reading_run_dirs_gives_the_same_summary(
    compared: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    out, _ = compared
    written = pd.read_csv(out / "summary.csv").set_index("strategy").sort_index()
    runs = sorted(out.glob("runs/*/seed*"))
    from_python = compare(runs).set_index("strategy").sort_index()
    pd.testing.assert_frame_equal(from_python, written, check_dtype=False)
    assert len(pairwise(runs)) == 1

    result = evo("compare", str(out / "runs"), "--out", "again", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    again = pd.read_csv(tmp_path / "again" / "summary.csv").set_index("strategy").sort_index()
    pd.testing.assert_frame_equal(again, written)


def test_report_prints_the_summary_and_writes_plots(
    compared: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    run = compared[0] / "runs" / "tiny_wuji" / "seed0"
    result = evo("report", str(run), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "injected found" in result.stdout and "hypervolume" in result.stdout
    for name in ["bugs_over_steps.png", "bugs_over_seconds.png", "objectives.png", "coverage_map.png"]:
        path = run / "plots" / name
        assert path.is_file() and path.stat().st_size > 5_000, name
    # The run directory's size, as a user checking the disk would add it up.
    size = re.search(r"run directory: ([\d.]+) MB on disk \(([\d.]+) MB in (\d+) checkpoints\)", result.stdout)
    assert size is not None, result.stdout
    files = [p for p in run.rglob("*") if p.is_file()]
    assert float(size[1]) == pytest.approx(sum(p.stat().st_size for p in files) / 1e6, abs=0.01)
    checkpoints = list((run / "checkpoints").glob("gen_*.pt"))
    assert int(size[3]) == len(checkpoints) > 0
    assert float(size[2]) == pytest.approx(sum(p.stat().st_size for p in checkpoints) / 1e6, abs=0.01)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["compare", "missing.yaml"], "missing.yaml: no such experiment file or run directory"),
        (["compare", "exp.yaml", "--seeds", "0"], "--seeds must be at least 1"),
        (["compare", "exp.yaml", "--jobs", "0"], "--jobs must be at least 1"),
        (["compare", "empty"], "empty: not a run directory and holds none"),
        (["compare", "exp.yaml", "exp.yaml"], "experiment name 'tiny_maze' is also the name in"),
        (["compare", "exp.yaml", "search.population=3"], "search.population=3: no such experiment file"),
        (["report", "empty"], "empty: not a run directory"),
        (["report", "missing"], "missing: not a run directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(bad_input, tmp_path: Path, args: list[str], expected: str) -> None:
    (tmp_path / "empty").mkdir()
    assert expected in bad_input(args)
    assert not (tmp_path / "compare").exists()  # nothing started


def test_a_bad_yaml_key_fails_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from evo.cli.main import main
    from tests.conftest import TINY

    bad = yaml.safe_load(yaml.safe_dump(TINY))
    bad["search"]["populaton"] = 3
    (tmp_path / "good.yaml").write_text(yaml.safe_dump({**TINY, "name": "good"}))
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    monkeypatch.chdir(tmp_path)
    assert main(["compare", "good.yaml", "bad.yaml", "--out", "out"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["evo: error: bad.yaml: search.populaton: unknown key"]
    assert not (tmp_path / "out").exists()
