"""HTML pages of a run (``evo report RUN_DIR --html``) and of a comparison (``evo compare --html``).

One self-contained page each, made from the Jinja2 templates in ``evo/templates/``: the
figures are inlined as base64 PNGs, tables come from pandas, and a few lines of plain
JavaScript sort any table by a click on its header and filter the bugs by kind, so the page
works offline and can be mailed as one file. Bug videos are the one thing kept beside the
page (``videos/bug-<id>.mp4`` in the run directory, made by ``--videos`` or by ``evo replay
... --video``): a clip is too large to inline.
"""

from __future__ import annotations

import base64
import shlex
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from evo.report.components import component_runs
from evo.run import rundir
from evo.report.tables import RunData, game_facts, summary
from evo.run.extras import require
from oracles.describe import describe_state

RUN_PAGE = "report.html"
COMPARE_PAGE = "compare.html"
VIDEOS = "videos"


def check_installed() -> None:
    """Raise :class:`evo.run.extras.MissingExtra` now when pages cannot be written (Jinja2 is
    missing), before a long command runs."""
    require("an HTML report", "jinja2")


def _environment() -> Any:
    require("an HTML report", "jinja2")
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("evo.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def inline_png(path: Path) -> dict[str, str]:
    """A figure for a template: its name and its PNG as a ``data:`` URI."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return {"name": Path(path).stem.replace("_", " "), "src": f"data:image/png;base64,{data}"}


def table_html(table: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a sortable HTML table (pandas escapes the cells)."""
    return table.to_html(index=False, border=0, classes="sortable", na_rep="-",
                         float_format=lambda v: f"{v:.{digits}g}")


def video_path(run_dir: Path, bug_id: int) -> Path:
    """Where a bug's video lives beside the run's page."""
    return run_dir / VIDEOS / f"bug-{bug_id}.mp4"


def _place(state: Sequence[float], run: RunData) -> str:
    """Where a bug showed: its state features by name, and its cell on the coverage map.

    A game whose features are its frame's cells has no map: its place is the cells that
    differ from the rest (:func:`oracles.describe.describe_state`).
    """
    spec = game_facts(run).spec
    if len(spec.feature_names) <= 4:
        values = ", ".join(f"{n} {float(v):g}" for n, v in zip(spec.feature_names, state))
    else:
        values = describe_state(spec, state)
    if spec.coarse_features:
        return values
    cell = spec.buckets(np.asarray(state, dtype=np.float64))[:2]
    return f"{values} (cell {tuple(int(c) for c in cell)})"


def _reproduced(bug: dict[str, Any]) -> dict[str, Any]:
    """The bug's reproduction rate as the run measured it ("7 of 10", and from its snapshot),
    and the share that sorts it; empty for a run that did not measure it."""
    rate, there = bug.get("reproduced"), bug.get("from_snapshot")
    if not isinstance(rate, list):
        return {"reproduced": "", "reproduced_share": -1}
    text = f"{rate[0]} of {rate[1]}"
    if isinstance(there, dict):
        text += f"; {there['reproduced'][0]} of {there['reproduced'][1]} from step {there['step']}"
    return {"reproduced": text, "reproduced_share": rate[0] / max(rate[1], 1)}


def _bug_rows(run: RunData) -> list[dict[str, Any]]:
    rows = []
    for bug in run.bugs.to_dict("records"):
        bug_id = int(bug["id"])
        video = video_path(run.path, bug_id)
        rows.append({
            "id": bug_id, "kind": bug["kind"], "oracle": bug["oracle"], "message": bug["message"],
            "generation": int(bug["generation"]), "env_steps": int(bug["env_steps"]),
            "step": int(bug["step"]), "place": _place(bug["state"], run),
            "injected": "" if pd.isna(bug["injected_id"]) else int(bug["injected_id"]),
            **_reproduced(bug),
            "video": f"{VIDEOS}/{video.name}" if video.is_file() else None,
            "replay": shlex.join(["evo", "replay", str(run.path), str(bug_id)]),
            "record": shlex.join(["evo", "replay", str(run.path), str(bug_id), "--video", str(video)]),
        })
    return rows


def _component_tables(run_dir: Path, shown: frozenset[str] = frozenset()) -> list[dict[str, str]]:
    """The tables the run's objectives and oracles handed over (``<name>.csv``), e.g. the
    performance oracle's low-FPS points; ``shown``: file names a section of their own shows."""
    out = []
    for path in sorted(run_dir.glob("*.csv")):
        if path.name == rundir.GENERATIONS or path.name in shown or not path.stat().st_size:
            continue
        out.append({"name": path.stem.replace("_", " "), "html": table_html(pd.read_csv(path))})
    return out


def _sections(run: RunData, figures: Sequence[Path]) -> list[dict[str, Any]]:
    """The sections the run's components add (:meth:`games.core.component.Component.report_section`),
    in the config's order, their figure inlined and their tables rendered."""
    by_name = {Path(p).name: p for p in figures}
    out = []
    for cls, view in component_runs(run, game_facts(run)):
        section = cls.report_section(view)
        if section is None:
            continue
        tables = [(stem, run.path / f"{stem}.csv") for stem in section.tables]
        out.append({
            "anchor": section.anchor, "title": section.title, "text": section.text,
            "figure": inline_png(by_name[section.figure]) if section.figure in by_name else None,
            "figure_name": section.figure,
            "tables": [{"name": stem.replace("_", " "), "file": path.name, "html": table_html(pd.read_csv(path))}
                       for stem, path in tables if path.is_file() and path.stat().st_size],
        })
    return out


def make_videos(run: RunData, on_video: Callable[[str], None] | None = None) -> list[Path]:
    """A video for every bug of the run that has none yet (:func:`evo.report.video.write_video`)."""
    from evo.report.video import write_video

    made = []
    for bug_id in run.bugs["id"].astype(int).tolist() if len(run.bugs) else []:
        path = video_path(run.path, bug_id)
        if path.is_file():
            continue
        video = write_video(run.path, bug_id, path)
        made.append(path)
        if on_video is not None:
            on_video(f"video of bug {bug_id}: {video.frames} frames -> {path}")
    return made


def run_page(run: RunData, figures: Sequence[Path], injected: int | None) -> Path:
    """Write ``report.html`` into the run directory and return it.

    Args:
        run: The loaded run.
        figures: PNGs to inline (those of :func:`evo.report.plots.run_figures`); one that a
            component's section shows (the scene map, in the objects oracle's) goes there.
        injected: Injected bugs of the game, for the summary's ground-truth rows.
    """
    env = _environment()
    bugs = _bug_rows(run)
    sections = _sections(run, figures)
    # A figure or a table that a section shows is not shown again.
    figures = [p for p in figures if Path(p).name not in {s["figure_name"] for s in sections}]
    shown = frozenset(t["file"] for s in sections for t in s["tables"])
    page = env.get_template("run.html.j2").render(
        title=f"{run.config['name']} (seed {run.config.get('seed', 0)})",
        run_dir=str(run.path),
        game=game_facts(run).label,
        summary=table_html(summary(run, injected)),
        figures=[inline_png(p) for p in figures],
        bugs=bugs,
        kinds=sorted({b["kind"] for b in bugs}),
        tables=_component_tables(run.path, shown),
        sections=sections,
    )
    path = run.path / RUN_PAGE
    path.write_text(page, encoding="utf-8")
    return path


def compare_page(summary_table: pd.DataFrame, pairwise: pd.DataFrame, runs: pd.DataFrame,
                 figures: Sequence[Path], out: Path) -> Path:
    """Write ``compare.html`` into a comparison's folder and return it: the summary per
    strategy, the pairwise statistics, one row per run, and the figures."""
    env = _environment()
    page = env.get_template("compare.html.j2").render(
        title=f"comparison of {summary_table['strategy'].nunique()} strategies over {len(runs)} runs",
        out=str(out),
        summary=table_html(summary_table),
        pairwise=table_html(pairwise) if len(pairwise) else None,
        runs=table_html(runs),
        figures=[inline_png(p) for p in figures],
    )
    path = out / COMPARE_PAGE
    path.write_text(page, encoding="utf-8")
    return path
