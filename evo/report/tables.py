"""Read run directories into pandas: the end-of-run summary, and tables that compare runs.

``load_run(path)`` is the entry point for notebooks: it returns the run's resolved config,
its ``generations.csv`` and ``bugs.jsonl`` as DataFrames, and its game's facts (``game.json``:
no live game is built to report a run). ``compare(run_dirs)`` and
``pairwise(run_dirs)`` are the ``summary.csv`` and ``pairwise.csv`` of ``evo compare``.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import yaml

from evo.report.components import known_report_columns, report_columns
from evo.run import rundir
from evo.run.rundir import RunDirError
from evo.run.game_facts import GameFacts, build_game_facts, read_game_facts
from evo.report.stats import cliffs_delta, delta_magnitude, holm, mann_whitney, time_to_fraction
from games.core.base import BUG_KINDS
from oracles.archive import injected_found
from oracles.journal import complete_text

BUG_COLUMNS = [
    "id", "kind", "oracle", "signature", "message", "generation", "env_steps", "wall_s",
    "policy", "seed", "step", "actions", "state", "next_state", "injected_id", "reproduced", "from_snapshot", "data",
]


@dataclass
class RunData:
    """One run directory, loaded.

    Attributes:
        path: The run directory.
        config: The resolved experiment config (``config.yaml``) as a dict.
        generations: One row per generation (``generations.csv``).
        bugs: One row per bug (``bugs.jsonl``).
        game: The game's facts (``game.json``); None for a run written without it.
    """

    path: Path
    config: dict[str, Any]
    generations: pd.DataFrame
    bugs: pd.DataFrame
    game: GameFacts | None = None


def _text(path: Path) -> str:
    """The complete lines of a run directory's text file."""
    try:
        return complete_text(path)
    except UnicodeDecodeError:
        raise RunDirError(f"{path}: not UTF-8 text") from None


def _config(path: Path) -> dict[str, Any]:
    """``config.yaml`` read with ``yaml.safe_load``: a tag that would construct an object is
    refused, never run."""
    try:
        config = yaml.safe_load(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise RunDirError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise RunDirError(f"{path}: not valid YAML{'' if mark is None else f' at line {mark.line + 1}'}") from None
    if not isinstance(config, dict):
        raise RunDirError(f"{path}: expected a mapping of keys at the top level")
    return config


def _bug_records(path: Path) -> list[dict[str, Any]]:
    """``bugs.jsonl``'s records; a line that is not one is one line naming it."""
    records = []
    for number, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RunDirError(f"{path}: line {number} is not JSON ({exc.msg})") from None
        bug_id = record.get("id") if isinstance(record, dict) else None
        if not isinstance(bug_id, int) or isinstance(bug_id, bool):
            raise RunDirError(f"{path}: line {number} is not a bug record (expected an object with an integer id)")
        records.append(record)
    return records


def load_run(path: str | Path) -> RunData:
    """Load a run directory written by ``evo run``.

    Raises:
        FileNotFoundError: ``path`` is not a run directory.
        RunDirError: one of its files is not what it should be (names the file).
    """
    path = Path(path)
    config_file = path / rundir.CONFIG
    if not config_file.is_file():
        raise FileNotFoundError(f"{path}: not a run directory (no {rundir.CONFIG})")
    config = _config(config_file)
    # A run being written, or killed, may end either file with a line cut short: never read.
    gens_file = path / rundir.GENERATIONS
    gens_text = _text(gens_file) if gens_file.exists() else ""
    try:
        generations = pd.read_csv(io.StringIO(gens_text)) if gens_text else pd.DataFrame()
    except (pd.errors.ParserError, ValueError) as exc:
        raise RunDirError(f"{gens_file}: not a table of generations ({str(exc).splitlines()[0]})") from None
    bugs_file = path / rundir.BUGS
    records = _bug_records(bugs_file) if bugs_file.exists() else []
    bugs = pd.DataFrame(records, columns=BUG_COLUMNS if not records else None)
    if "injected_id" in bugs:
        bugs["injected_id"] = bugs["injected_id"].astype("Int64")
    return RunData(path, config, generations, bugs, read_game_facts(path))


def judged(bugs: pd.DataFrame, facts: GameFacts) -> pd.DataFrame:
    """The reports ground truth can call right or wrong: those of a kind the game seeds (on
    the park, visual reports; its crash and stuck reports are neither right nor wrong).
    ``precision`` and ``unmatched reports`` count these only."""
    if not len(bugs):
        return bugs
    return bugs[bugs["kind"].isin({b.kind for b in facts.injected})]


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
        seeded = len(judged(run.bugs, run.game)) if run.game is not None else len(run.bugs)
        rows += [
            ("injected", injected),
            ("injected found", injected_found(matched)),
            ("unmatched reports", int(seeded - len(matched))),
        ]
    return pd.DataFrame(rows, columns=["metric", "value"], dtype=object)


# --------------------------------------------------------------------------- comparing runs
# `evo compare` and notebooks: one row per run, then one row per strategy (the run's config
# `name`) and one per pair of strategies on the same game.

FRACTIONS: tuple[tuple[str, float], ...] = (("50", 0.5), ("90", 0.9), ("100", 1.0))
"""Shares of the injected bugs whose time to find is reported (column suffixes)."""


def game_facts(run: RunData) -> GameFacts:
    """The facts of a run's game: its ``game.json``, or for a run directory written before
    ``game.json`` existed, the game built once from its config."""
    return run.game if run.game is not None else build_game_facts(run.config)


def found_curve(run: RunData, facts: GameFacts | None = None) -> pd.DataFrame:
    """When the run's count of bugs found went up: columns env_steps, wall_s, found.

    Bugs found are distinct injected bugs when the game has ground truth, bug reports
    otherwise. The first row is the start (0, 0, 0).
    """
    facts = facts or game_facts(run)
    bugs = run.bugs
    rows = [(0.0, 0.0, 0)]
    seen: set[int] = set()
    for steps, wall, bug in zip(bugs.get("env_steps", []), bugs.get("wall_s", []), bugs.get("injected_id", [])):
        if facts.has_truth:
            if pd.isna(bug) or int(bug) in seen:
                continue
            seen.add(int(bug))
        rows.append((float(steps), float(wall), len(seen) if facts.has_truth else len(rows)))
    return pd.DataFrame(rows, columns=["env_steps", "wall_s", "found"])


def run_metrics(run: RunData) -> dict[str, Any]:
    """One row of :func:`runs_table`: what a run found, how fast, and at what cost."""
    facts = game_facts(run)
    bugs = run.bugs
    last = run.generations.iloc[-1] if len(run.generations) else None
    matched = bugs["injected_id"].dropna() if len(bugs) else pd.Series(dtype="Int64")
    row: dict[str, Any] = {
        "strategy": run.config["name"],
        "seed": int(run.config.get("seed", 0)),
        "game": facts.label,
        "injected": len(facts.injected) if facts.has_truth else np.nan,
        "bugs": injected_found(matched) if facts.has_truth else len(bugs),
        "reports": len(bugs),
    }
    for kind in BUG_KINDS:
        of_kind = bugs[bugs["kind"] == kind] if len(bugs) else bugs
        row[f"bugs_{kind}"] = (
            injected_found(of_kind["injected_id"].dropna()) if facts.has_truth else len(of_kind)
        )
    seeded = judged(bugs, facts)
    row["precision"] = len(matched) / len(seeded) if facts.has_truth and len(seeded) else np.nan
    row["coverage"] = int(last["coverage"]) if last is not None else np.nan
    row["hypervolume"] = float(last["hypervolume"]) if last is not None else np.nan
    row["env_steps"] = int(last["env_steps"]) if last is not None else 0
    row["wall_s"] = float(last["wall_s"]) if last is not None else 0.0
    row["generations"] = len(run.generations)
    for suffix, fraction in FRACTIONS:
        steps, seconds = (
            time_to_fraction(bugs["env_steps"].tolist(), bugs["wall_s"].tolist(),
                             bugs["injected_id"].tolist(), len(facts.injected), fraction)
            if facts.has_truth and len(bugs) else (np.nan, np.nan)
        )
        row[f"steps_to_{suffix}"] = steps
        row[f"seconds_to_{suffix}"] = seconds
    for column in report_columns(run.config):  # what the run's components have carried
        if last is not None and column in run.generations:
            row[column] = float(last[column])
    row["path"] = str(run.path)
    return row


def runs_table(run_dirs: Sequence[str | Path]) -> pd.DataFrame:
    """One row per run directory (see :func:`run_metrics`), in the order given."""
    return pd.DataFrame([run_metrics(load_run(d)) for d in run_dirs])


SUMMARY_COLUMNS = [
    "strategy", "game", "runs", "injected", "bugs_mean", "bugs_sd", "bugs_min", "bugs_max",
    *(f"bugs_{k}" for k in BUG_KINDS), "reports", "precision", "coverage", "hypervolume",
    "env_steps", "wall_s",
    *(f"{what}_{s}" for s, _ in FRACTIONS for what in ("steps_to", "seconds_to", "reached")),
]
"""Columns of :func:`compare`, i.e. of ``summary.csv``."""


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare` from a :func:`runs_table`: one row per strategy, in order of appearance.

    ``bugs_*`` are mean (and sd, min, max) over seeds of the bugs found; ``bugs_<kind>``,
    ``reports``, ``precision``, ``coverage``, ``hypervolume``, ``env_steps`` and ``wall_s``
    are means over seeds; ``steps_to_F`` and ``seconds_to_F`` are means over the seeds that
    found F% of the injected bugs, and ``reached_F`` says how many did. The columns the runs'
    components carried (``report_columns``, e.g. the objects oracle's objects tested) add
    their means.
    """
    extra = [c for c in runs.columns if c in known_report_columns()]
    rows = []
    for strategy, group in runs.groupby("strategy", sort=False):
        bugs = group["bugs"].astype(float)
        row: dict[str, Any] = {
            "strategy": strategy,
            "game": group["game"].iloc[0],
            "runs": len(group),
            "injected": group["injected"].iloc[0],
            "bugs_mean": bugs.mean(),
            "bugs_sd": bugs.std(ddof=1) if len(group) > 1 else np.nan,
            "bugs_min": bugs.min(),
            "bugs_max": bugs.max(),
        }
        for column in [f"bugs_{k}" for k in BUG_KINDS] + [
            "reports", "precision", "coverage", "hypervolume", "env_steps", "wall_s"
        ]:
            row[column] = group[column].astype(float).mean()
        for suffix, _ in FRACTIONS:
            steps = group[f"steps_to_{suffix}"].astype(float)
            row[f"steps_to_{suffix}"] = steps.mean()  # NaN-skipping: over the seeds that got there
            row[f"seconds_to_{suffix}"] = group[f"seconds_to_{suffix}"].astype(float).mean()
            row[f"reached_{suffix}"] = int(steps.notna().sum())
        for column in extra:
            row[column] = group[column].astype(float).mean()
        rows.append(row)
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS + extra)


PAIRWISE_COLUMNS = [
    "game", "a", "b", "n_a", "n_b", "bugs_a", "bugs_b", "U", "p", "p_holm", "delta", "magnitude",
    "significant",
]
"""Columns of :func:`pairwise`, i.e. of ``pairwise.csv``."""


def pairwise_tests(runs: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """:func:`pairwise` from a :func:`runs_table`.

    For every pair (a, b) of strategies on the same game: mean bugs found of each, the
    two-sided Mann-Whitney U of a's bugs found against b's and its p-value, the p-value
    Holm-adjusted over all pairs of that game, Cliff's delta (positive: a finds more) and its
    magnitude, and whether ``p_holm <= alpha``.
    """
    rows = []
    for game, on_game in runs.groupby("game", sort=False):
        samples = {s: g["bugs"].astype(float).to_numpy() for s, g in on_game.groupby("strategy", sort=False)}
        family = []
        for a, b in combinations(samples, 2):
            x, y = samples[a], samples[b]
            u, p = mann_whitney(x, y)
            delta = cliffs_delta(x, y)
            family.append({
                "game": game, "a": a, "b": b, "n_a": len(x), "n_b": len(y),
                "bugs_a": x.mean(), "bugs_b": y.mean(), "U": u, "p": p,
                "delta": delta, "magnitude": delta_magnitude(delta),
            })
        for row, adjusted in zip(family, holm([r["p"] for r in family])):
            row["p_holm"] = adjusted
            row["significant"] = bool(adjusted <= alpha)
        rows += family
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS)


def compare(run_dirs: Sequence[str | Path]) -> pd.DataFrame:
    """The ``summary.csv`` of ``evo compare``: one row per strategy over its run directories.

    A strategy is a run's config ``name``; its runs are usually the same experiment with
    different seeds. Columns: :data:`SUMMARY_COLUMNS` (see :func:`summarize`).
    """
    return summarize(runs_table(run_dirs))


def pairwise(run_dirs: Sequence[str | Path], alpha: float = 0.05) -> pd.DataFrame:
    """The ``pairwise.csv`` of ``evo compare`` (see :func:`pairwise_tests`)."""
    return pairwise_tests(runs_table(run_dirs), alpha)
