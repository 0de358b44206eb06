"""generations.csv: its header names every value below it, whatever a resumed run adds."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from evo.run.rundir import GENERATIONS, append_generation


def test_rows_follow_the_header_and_new_columns_widen_it(tmp_path: Path) -> None:
    append_generation(tmp_path, {"generation": 0, "env_steps": 10, "bugs_total": 1})
    append_generation(tmp_path, {"bugs_total": 2, "generation": 1, "env_steps": 20})  # other order
    # A newer engine resumes the run and writes more columns.
    append_generation(tmp_path, {"generation": 2, "env_steps": 30, "rss_mb": 300.5, "bugs_total": 3})
    table = pd.read_csv(tmp_path / GENERATIONS)
    assert list(table.columns) == ["generation", "env_steps", "bugs_total", "rss_mb"]
    assert table["bugs_total"].tolist() == [1, 2, 3] and table["env_steps"].tolist() == [10, 20, 30]
    assert table["rss_mb"].isna().tolist() == [True, True, False]
    append_generation(tmp_path, {"generation": 3, "env_steps": 40, "bugs_total": 4})  # fewer: blank
    assert pd.read_csv(tmp_path / GENERATIONS)["rss_mb"].isna().tolist() == [True, True, False, True]
