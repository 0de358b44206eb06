"""The rich tables the ``evo`` commands print: a run's metrics, ``evo compare``'s summary and
pairwise tables, ``evo evaluate``'s RELINE table. The CSV files hold every column; these show
the columns that fit a line. DataFrames arrive from the commands (pandas is not imported here).
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def _fmt(value: object, digits: int = 1) -> str:
    """A table cell: ``-`` for a missing value, thousands separators, ``digits`` decimals."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _count(value: float) -> str:
    """Env steps in a few characters: 950, 12.3k, 1.52M."""
    if value != value:
        return "-"
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.0f}"


def print_whole(console: Console, table: Table) -> None:
    """Print a table at its natural width even where the terminal is narrower (the terminal
    wraps the lines), so that no cell is cut short and a saved log shows it whole."""
    width = Console(width=1000).measure(table).maximum
    Console(file=console.file, highlight=False, soft_wrap=True, width=max(console.width, width)).print(table)


def summary_table(rows, game: str) -> Table:  # rows: a pandas.DataFrame, imported lazily
    """summary.csv of one game, the columns that fit a line (the CSV has them all)."""
    from rich import box
    from rich.markup import escape

    from games.core.base import BUG_KINDS

    kinds = [k for k in BUG_KINDS if rows[f"bugs_{k}"].fillna(0).any()]
    table = Table(title=f"summary: {game}", box=box.SIMPLE_HEAD,
                  caption="bugs: injected bugs found (bug reports without ground truth), mean over "
                  "runs; 50% (n): mean env steps to find half of the injected bugs, over the n runs that did")
    short = {"performance": "perf"}
    for col in ["strategy", "runs", escape("bugs ± sd [min-max]"), *(short.get(k, k) for k in kinds), "prec.",
                "coverage", "env steps", "50% (n)", "90% (n)", "100% (n)"]:
        table.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
    for r in rows.to_dict("records"):
        table.add_row(
            escape(r["strategy"]), str(r["runs"]),
            escape(f"{r['bugs_mean']:.1f} ± {_fmt(r['bugs_sd'])} [{r['bugs_min']:.0f}-{r['bugs_max']:.0f}]"),
            *(_fmt(r[f"bugs_{k}"]) for k in kinds), _fmt(r["precision"], 2), _fmt(r["coverage"], 0),
            _count(r["env_steps"]),
            *(f"{_count(r[f'steps_to_{s}'])} ({r[f'reached_{s}']})" for s in ("50", "90", "100")),
        )
    return table


def pairwise_table(rows, game: str) -> Table:
    """pairwise.csv of one game."""
    from rich import box
    from rich.markup import escape

    table = Table(title=f"pairwise: {game}", box=box.SIMPLE_HEAD,
                  caption="Mann-Whitney U (two-sided) on bugs found, p Holm-adjusted over the pairs "
                  "(* <= 0.05); Cliff's delta > 0: a finds more")
    for col in ["a", "b", "bugs a", "bugs b", "U", "p", "p Holm", "delta", "magnitude"]:
        table.add_column(col, justify="left" if col in ("a", "b", "magnitude") else "right", no_wrap=True)
    for r in rows.to_dict("records"):
        mark = " *" if r["significant"] else ""
        table.add_row(escape(r["a"]), escape(r["b"]), _fmt(r["bugs_a"]), _fmt(r["bugs_b"]), _fmt(r["U"]),
                      f"{r['p']:.3g}", f"{r['p_holm']:.3g}{mark}", f"{r['delta']:+.2f}", r["magnitude"])
    return table


def evaluation_table(result) -> Table:  # result: evo.report.studies.reline.Evaluation
    """evaluation.csv: RELINE's Table 1 (episodes with at least n bugs spotted) per agent."""
    from rich import box
    from rich.markup import escape

    t = result.table
    table = Table(title=f"evaluation: {int(t['episodes'].iloc[0])} episodes per agent", box=box.SIMPLE_HEAD,
                  caption=f"slow frame: over {result.threshold_ms:.3g} ms; "
                  "n>=k: episodes in which at least k injected bugs were spotted" + _actions(t))
    cols = [f"at_least_{n}" for n in range(1, result.injected + 1)]
    for col in ["agent", "return", *(f"n>={c.rsplit('_', 1)[1]}" for c in cols), "slow frames",
                "low-FPS points", "median ms there", "seconds"]:
        table.add_column(col, justify="left" if col == "agent" else "right", no_wrap=True)
    for r in t.to_dict("records"):
        table.add_row(escape(r["agent"]), _fmt(r["mean_return"]), *(str(r[c]) for c in cols),
                      str(r["slow_frames"]), str(r["low_fps_points"]), _fmt(r["median_ms_at_low_fps"], 2),
                      _fmt(r["seconds"]))
    return table


def _actions(table) -> str:  # table: evaluation.csv
    """How the policy agents chose their actions, when not as trained."""
    temps = table["temperature"].dropna()
    if temps.empty or (temps == 1.0).all():
        return ""
    t = float(temps.iloc[0])
    return "; policies played greedily" if t == 0 else f"; policies sampled at temperature {t:g}"


def evaluation_pairs(rows) -> Table:  # rows: pairwise.csv of evo evaluate
    from rich import box
    from rich.markup import escape

    table = Table(title="agents compared", box=box.SIMPLE_HEAD,
                  caption="Mann-Whitney U (two-sided), p Holm-adjusted per metric (* <= 0.05); "
                  "Cliff's delta > 0: a higher")
    for col in ["metric", "a", "b", "median a", "median b", "p Holm", "delta", "magnitude"]:
        table.add_column(col, justify="left" if col in ("metric", "a", "b", "magnitude") else "right", no_wrap=True)
    for r in rows.to_dict("records"):
        mark = " *" if r["significant"] else ""
        table.add_row(escape(r["metric"]), escape(r["a"]), escape(r["b"]), _fmt(r["median_a"], 2),
                      _fmt(r["median_b"], 2), f"{r['p_holm']:.3g}{mark}", _fmt(r["delta"], 2), r["magnitude"])
    return table


def metric_table(table, title: str) -> Table:
    """A ``(metric, value)`` DataFrame of :func:`evo.report.tables.summary` as a rich table."""
    out = Table(title=title)
    out.add_column("metric")
    out.add_column("value", justify="right")
    for metric, value in table.itertuples(index=False):
        out.add_row(str(metric), f"{value:,}" if isinstance(value, int) else str(value))
    return out
