"""What the objects oracle (:mod:`oracles.objects_tested`) adds to a run's report, read from
the run directory: its final counts for comparisons, the objects section of the run's page,
and its visits, traces and statuses on the scene map (:mod:`oracles.reporting`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from oracles.reporting import SCENE_MAP, ComponentRun, MapMarks, ReportSection

if TYPE_CHECKING:
    import pandas as pd

TABLE = "objects"
"""The oracle's table, ``objects.csv``."""
COLUMNS = ("preferred_coverage_total", "objects_seen", "objects_tested", "objects_reported")
"""Its counts at the end of a run that comparisons carry (``generations.csv``): PPGTA's
preferred-area coverage and objects tested, to compare testers of a scene."""
ANCHOR = "park"
"""The ``id`` of its section's heading: the park's, where it was first written."""


def _table(run: ComponentRun) -> "pd.DataFrame | None":
    """``objects.csv`` of the run, None where it has none (or an empty one)."""
    import pandas as pd

    path = run.path / f"{TABLE}.csv"
    return pd.read_csv(path) if path.is_file() and path.stat().st_size else None


def _covered(run: ComponentRun) -> float:
    """The preferred-area coverage of the run at its last generation (NaN without)."""
    gens = run.generations
    column = "preferred_coverage_total"
    return float(gens[column].iloc[-1]) if column in gens and len(gens) else float("nan")


def _reported(table: "pd.DataFrame") -> tuple[int, int, int]:
    """``(bugged objects, bugged reported, normal reported)``."""
    bugged = table["bugged"].astype(bool)
    reported = table["reported"].astype(bool)
    return int(bugged.sum()), int((reported & bugged).sum()), int((reported & ~bugged).sum())


def section(run: ComponentRun) -> ReportSection | None:
    """The objects section: the scene map, what was covered, and ``objects.csv`` (seen,
    tested, reported per object of interest); None for a run without the table."""
    table = _table(run)
    if table is None:
        return None
    covered = _covered(run)
    bugged, bugged_reported, normal_reported = _reported(table)
    degrees = float(run.kwargs.get("degrees", "nan"))
    radius = float(run.kwargs.get("radius", "nan"))
    text = (f"Preferred area covered: <strong>{covered:.1%}</strong> of its cells. " if not np.isnan(covered) else "")
    text += (
        f"Objects of interest seen {int(table['seen'].sum())}, tested {int(table['tested'].sum())} of "
        f"{len(table)} (tested: seen from directions covering at least {degrees:g} degrees, within "
        f"{radius:g} map units, in one episode); bugged objects reported {bugged_reported} of {bugged}; "
        f"normal objects reported (false reports) {normal_reported}."
    )
    return ReportSection(ANCHOR, "Objects of interest and the preferred area", text, SCENE_MAP, (TABLE,))


def marks(run: ComponentRun) -> MapMarks | None:
    """Each object coloured by what the run did with it (``objects.csv``), ringed when
    reported; the cells the run visited and the traces of its latest generation's best
    walkers (the oracle's state at the latest checkpoint); the counts as a caption."""
    table = _table(run)
    state: dict[str, Any] | None = run.load_state()
    if table is None and state is None:
        return None
    status: dict[int, str] = {}
    reported: frozenset[int] = frozenset()
    caption = ""
    if table is not None and "tested" in table:
        for row in table.itertuples():
            status[int(row.id)] = "tested" if bool(row.tested) else "seen" if bool(row.seen) else "never seen"
        reported = frozenset(int(i) for i in table.loc[table["reported"].astype(bool), "id"])
        if state is not None:
            bugged, bugged_reported, normal_reported = _reported(table)
            caption = (f"preferred area covered {_covered(run):.0%} · objects seen {int(table['seen'].sum())}, "
                       f"tested {int(table['tested'].sum())} of {len(table)} · bugged reported "
                       f"{bugged_reported} of {bugged}, normal reported {normal_reported}")
    if state is None:
        return MapMarks(status=status, reported=reported, caption=caption)
    traces = tuple(np.asarray(t, dtype=np.float64).reshape(-1, 2) for t in state["traces"])
    return MapMarks(np.asarray(state["visits"]) > 0, traces, status, reported, caption)
