"""What a component adds to a run's report: the types its report hooks take and return.

``evo report`` and ``evo compare`` read run directories; they build no game and no component.
They ask each component *class* the run lists in ``config.yaml`` (its registered factory, a
:class:`games.core.component.Component`) what it adds, handing it the run as a
:class:`ComponentRun`:

- ``report_columns``: the columns of its ``metrics()`` whose last value a comparison carries
  into ``runs.csv`` and, as a mean over seeds, ``summary.csv``;
- ``report_section(run)``: a section of the run's HTML page (:class:`ReportSection`);
- ``map_marks(run)``: what it draws on the scene map, the game's scene from above
  (:class:`MapMarks`, :data:`SCENE_MAP`).

Nothing here imports ``evo``: the run is handed over as plain data, its game's facts typed
loosely (:class:`evo.run.game_facts.GameFacts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

SCENE_MAP = "park_map.png"
"""File name of the scene map among a run's figures (``plots/``): the name it had when only
the park had one, kept so that pages and scripts that link it still find it."""


def _no_state() -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class ComponentRun:
    """One run as a component's report hooks read it.

    Attributes:
        path: The run directory (the component's own tables are ``<name>.csv`` there).
        kwargs: The component's resolved settings, as ``config.yaml`` holds them.
        generations: ``generations.csv`` (its ``metrics()`` columns included).
        bugs: ``bugs.jsonl``, one row per bug.
        facts: The game's facts (``game.json``; never None): spec, ground truth, map, scene.
        load_state: The component's state at the run's latest checkpoint (what its
            ``state_dict`` returned), None without a checkpoint; loaded when called.
    """

    path: Path
    kwargs: Mapping[str, Any]
    generations: "pd.DataFrame"
    bugs: "pd.DataFrame"
    facts: Any
    load_state: Callable[[], dict[str, Any] | None] = _no_state


@dataclass(frozen=True)
class ReportSection:
    """A section of a run's HTML page, after the bugs.

    Attributes:
        anchor: The ``id`` of its heading (what a link to the section names).
        title: Its heading.
        text: One paragraph, HTML: escape what the component did not write itself.
        figure: File name of one of the run's figures (``plots/``) shown in the section,
            and then not again under "Figures"; None for none.
        tables: Stems of the run directory's tables (``<stem>.csv``) shown in the section, in
            order, and then not again among the components' tables.
    """

    anchor: str
    title: str
    text: str
    figure: str | None = None
    tables: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class MapMarks:
    """What a component draws on the scene map.

    Attributes:
        visited: 2-D bool, the cells the run visited, indexed like the scene's preferred
            area (the buckets of the first two state features); None: not drawn.
        traces: Paths to draw, each ``[T, 2]`` map positions.
        status: Object id -> ``"tested"``, ``"seen"`` or ``"never seen"``: what the run did
            with each object of interest (colours them); objects left out are not scored.
        reported: Ids of the objects a report of the run is about (ringed).
        caption: A line under the map's title.
    """

    visited: np.ndarray | None = None
    traces: tuple[np.ndarray, ...] = ()
    status: Mapping[int, str] = field(default_factory=dict)
    reported: frozenset[int] = frozenset()
    caption: str = ""
