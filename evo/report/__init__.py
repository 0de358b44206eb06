"""Reports of runs: pandas tables (:mod:`evo.report.tables`, with :func:`load_run` for
notebooks), statistics (:mod:`evo.report.stats`), figures (:mod:`evo.report.plots`,
:mod:`evo.report.scene_map`), HTML pages (:mod:`evo.report.html`), replay videos
(:mod:`evo.report.video`), comparisons over seeds (:mod:`evo.report.compare`) and the studies
that reproduce a paper's tables (:mod:`evo.report.studies`)."""

from evo.report.tables import (
    BUG_COLUMNS, PAIRWISE_COLUMNS, SUMMARY_COLUMNS, RunData, compare, found_curve, game_facts, judged, load_run,
    pairwise, pairwise_tests, run_metrics, runs_table, summarize, summary,
)

__all__ = [
    "BUG_COLUMNS", "PAIRWISE_COLUMNS", "SUMMARY_COLUMNS", "RunData", "compare", "found_curve", "game_facts", "judged",
    "load_run", "pairwise", "pairwise_tests", "run_metrics", "runs_table", "summarize", "summary",
]
