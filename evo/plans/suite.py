"""A suite of plans: every plan YAML of a folder run as a test, one row each.

``evo plan suite DIR`` is what a QA engineer runs after a build: each plan passes or fails
on its own (one failure does not stop the others), and the table says which failed and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pandas as pd

from evo.run.config import ConfigError
from evo.plans.agent import PlanResult
from evo.plans.base import Plan
from evo.plans.load import load_plan
from evo.plans.run import run_plan
from games.core.navigation import Navigator
from games.registry import GameFactory

SUITE_COLUMNS = ["plan", "passed", "steps", "failure"]


def suite_files(folder: str | Path) -> list[Path]:
    """The plan YAMLs of ``folder``, sorted by name.

    Raises:
        ConfigError: no such folder, or no ``*.yaml`` / ``*.yml`` in it.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such plan folder")
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    if not files:
        raise ConfigError(f"{folder}: no plan YAML (*.yaml) in it")
    return files


def run_suite(folder: str | Path, factory_of: Callable[[Plan], GameFactory],
              on_result: Callable[[Path, PlanResult], None] | None = None,
              navigator: Navigator | None = None) -> pd.DataFrame:
    """Run every plan of ``folder`` (:func:`suite_files`), each on ``factory_of(plan)``.

    Every plan is read and checked before any runs, so a bad file is one error at the start
    and not a table cut short. Returns one row per plan: its file name, whether it passed,
    the steps it played and its failure (empty when it passed). ``navigator`` replaces the
    games' own (a learned one).
    """
    plans = [(path, load_plan(path)) for path in suite_files(folder)]
    factories = [factory_of(plan) for _, plan in plans]
    rows = []
    for (path, plan), factory in zip(plans, factories):
        result = run_plan(plan, factory, navigator=navigator)
        rows.append([path.name, result.passed, result.steps, result.failure or ""])
        if on_result is not None:
            on_result(path, result)
    return pd.DataFrame(rows, columns=SUITE_COLUMNS)
