"""Scoring a park run against its ground truth: precision and unmatched reports count the
reports of the kinds the game seeds (visual), not its crash or stuck reports; the objects
oracle's final counts (its ``report_columns``) reach the comparison tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from evo.run.game_facts import GameFacts
from evo.report.tables import RunData, run_metrics, summarize, summary
from games.core.base import GameSpec
from games.doom.park.layout import park_layout
from games.doom.park.scene import park_scene
from games.doom.park.truth import injected_bugs
from oracles.objects_tested import ObjectsTested

SPEC = GameSpec(obs_shape=(3, 8, 8), n_actions=9, feature_names=("x", "y", "angle"),
                feature_low=(0.0, 0.0, 0.0), feature_high=(2048.0, 2048.0, 360.0),
                feature_bins=(32, 32, 8), max_steps=500, obs_dtype="uint8")


def test_precision_counts_visual_reports_only_on_the_park() -> None:
    layout = park_layout("small", 0)
    truth = tuple(injected_bugs(layout.oois))
    facts = GameFacts("doom_park()", SPEC, True, truth, None, park_scene(layout))
    bugs = pd.DataFrame({
        "id": [0, 1, 2, 3], "kind": ["visual", "visual", "stuck", "visual"],
        "injected_id": pd.array([truth[0].id, None, None, truth[0].id], dtype="Int64"),
        "env_steps": [10, 20, 30, 40], "wall_s": [1.0, 2.0, 3.0, 4.0],
    })
    gens = pd.DataFrame({"generation": [0], "env_steps": [40], "wall_s": [4.0], "coverage": [3],
                         "hypervolume": [1.0], "preferred_coverage_total": [0.25], "objects_seen": [9],
                         "objects_tested": [2], "objects_reported": [1]})
    config = {"name": "park", "seed": 0, "oracles": [{"name": "objects"}]}
    run = RunData(Path("run"), config, gens, bugs, facts)
    row = run_metrics(run)
    assert row["precision"] == 2 / 3  # the stuck report is neither right nor wrong
    assert row["bugs"] == row["bugs_visual"] == 1 and row["injected"] == len(truth) == 8
    table = dict(zip(*summary(run, len(truth)).T.values))
    assert table["unmatched reports"] == 1 and table["injected found"] == 1
    assert row["preferred_coverage_total"] == 0.25 and row["objects_tested"] == 2
    other = {**row, "seed": 1, "preferred_coverage_total": 0.75, "objects_tested": 4}
    table = summarize(pd.DataFrame([row, other]))
    carried = ObjectsTested.report_columns  # the objects oracle's final counts
    assert list(table.columns[-len(carried):]) == list(carried)
    assert table["preferred_coverage_total"].iloc[0] == 0.5 and table["objects_tested"].iloc[0] == 3
