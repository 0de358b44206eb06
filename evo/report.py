"""Read run directories into pandas, and the end-of-run summary table.

``load_run(path)`` is the entry point for notebooks: it returns the run's resolved config and
its ``generations.csv`` and ``bugs.jsonl`` as DataFrames.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from evo import rundir

BUG_COLUMNS = [
    "id", "kind", "oracle", "signature", "message", "generation", "env_steps", "wall_s",
    "policy", "seed", "step", "actions", "state", "next_state", "injected_id", "data",
]


@dataclass
class RunData:
    """One run directory, loaded.

    Attributes:
        path: The run directory.
        config: The resolved experiment config (``config.yaml``) as a dict.
        generations: One row per generation (``generations.csv``).
        bugs: One row per bug (``bugs.jsonl``).
    """

    path: Path
    config: dict[str, Any]
    generations: pd.DataFrame
    bugs: pd.DataFrame


def load_run(path: str | Path) -> RunData:
    """Load a run directory written by ``evo run``.

    Raises:
        FileNotFoundError: ``path`` is not a run directory.
    """
    path = Path(path)
    config_file = path / rundir.CONFIG
    if not config_file.is_file():
        raise FileNotFoundError(f"{path}: not a run directory (no {rundir.CONFIG})")
    config = yaml.safe_load(config_file.read_text())
    gens_file = path / rundir.GENERATIONS
    generations = pd.read_csv(gens_file) if gens_file.exists() and gens_file.stat().st_size else pd.DataFrame()
    records = []
    bugs_file = path / rundir.BUGS
    if bugs_file.exists():
        records = [json.loads(line) for line in bugs_file.read_text().splitlines() if line.strip()]
    bugs = pd.DataFrame(records, columns=BUG_COLUMNS if not records else None)
    if "injected_id" in bugs:
        bugs["injected_id"] = bugs["injected_id"].astype("Int64")
    return RunData(path, config, generations, bugs)


def summary(run: RunData, injected: int | None = None) -> pd.DataFrame:
    """The end-of-run table: bugs by kind, coverage, objectives, and ground-truth scoring.

    Args:
        run: A loaded run.
        injected: Number of bugs seeded into the game, when it has ground truth.

    Returns:
        A two-column DataFrame ``(metric, value)``.
    """
    rows: list[tuple[str, Any]] = []
    last = run.generations.iloc[-1] if len(run.generations) else None
    if last is not None:
        rows += [("generations", int(last["generation"]) + 1), ("env_steps", int(last["env_steps"])),
                 ("wall_s", float(last["wall_s"]))]
    rows.append(("bugs", len(run.bugs)))
    kinds = run.bugs["kind"].value_counts() if len(run.bugs) else pd.Series(dtype=int)
    for kind, count in sorted(kinds.items()):
        rows.append((f"bugs: {kind}", int(count)))
    if last is not None:
        rows.append(("coverage", int(last["coverage"])))
        for col in run.generations.columns:
            if col.endswith("_mean") or col.endswith("_max"):
                rows.append((col, round(float(last[col]), 4)))
        rows.append(("hypervolume", round(float(last["hypervolume"]), 4)))
    if injected is not None:
        matched = run.bugs["injected_id"].dropna() if len(run.bugs) else pd.Series(dtype="Int64")
        rows += [
            ("injected", injected),
            ("injected found", int(matched.nunique())),
            ("unmatched reports", int(len(run.bugs) - len(matched))),
        ]
    return pd.DataFrame(rows, columns=["metric", "value"], dtype=object)
