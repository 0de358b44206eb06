"""The game's scene from above, with what the run did in it: PPGTA's Figures 7 and 9 for one run.

PPGTA (``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) shows a tester where
its agents walked (Figure 7: trajectories over the park, pathways highlighted) and which
objects of interest they tested (Figure 9). The scene map (:data:`oracles.reporting.SCENE_MAP`
under ``plots/``) is both, for a run on any game whose scene places objects of interest
(:class:`games.core.scene.Scene`, kept in ``game.json``):

- the ground, the preferred area (the park's pathways) and what no one can stand on
  (``render_map``);
- each object of interest where it stands, drawn as a star when an injected bug is on it
  (ground truth); visual reports as crosses at the place they name;
- what the run's components mark on it (:meth:`games.core.component.Component.map_marks`): the
  objects oracle shades the cells the run visited, draws the traces of the latest
  generation's best walkers, colours each object tested / seen / never seen and rings those
  a visual bug was reported on.

A run whose components mark nothing still gets the map, its objects as placed and bugged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from evo.report.components import component_runs
from evo.report.tables import RunData, game_facts
from games.core.scene import objects_with_bugs, report_place
from oracles.reporting import MapMarks

TERRAIN = ListedColormap(["#cfe8b4", "#d9b98c", "#6e6e6e"])
"""Ground, preferred area, blocked."""
VISITED = "#4a90c8"
STATUS = {"tested": "#1a9850", "seen": "#fdae61", "never seen": "#d73027", "not scored": "#bdbdbd"}


def _marks(run: RunData) -> MapMarks:
    """What the run's components mark, merged (a later component's status of an object wins)."""
    visited, traces, status, reported, captions = None, [], {}, set(), []
    for cls, view in component_runs(run, game_facts(run)):
        marks = cls.map_marks(view)
        if marks is None:
            continue
        if marks.visited is not None:
            visited = marks.visited if visited is None else visited | marks.visited
        traces += marks.traces
        status.update(marks.status)
        reported |= marks.reported
        if marks.caption:
            captions.append(marks.caption)
    return MapMarks(visited, tuple(traces), status, frozenset(reported), "\n".join(captions))


def scene_map(run: RunData, path: str | Path) -> Path | None:
    """Draw ``path`` (see the module); None for a game whose scene places no objects."""
    facts = game_facts(run)
    scene = facts.scene
    if scene is None or not scene.objects:
        return None
    low, high = facts.spec.feature_low, facts.spec.feature_high
    extent = (low[0], high[0], low[1], high[1])
    bins = tuple(facts.spec.feature_bins[:2])
    terrain = np.zeros(bins, dtype=np.int64) if scene.preferred is None else scene.preferred.astype(np.int64)
    if facts.walls is not None and facts.walls.shape == terrain.shape:
        terrain = np.where(facts.walls > 0, 2, terrain)
    fig = Figure(figsize=(8.0, 8.4), layout="constrained")
    ax = fig.add_subplot()
    # Grids are [x cell, y cell]: transposed, y up, as seen from above.
    ax.imshow(terrain.T, origin="lower", extent=extent, cmap=TERRAIN, vmin=0, vmax=2, interpolation="nearest")
    marks = _marks(run)
    if marks.visited is not None:
        ax.imshow(np.where(marks.visited, 1.0, np.nan).T, origin="lower", extent=extent,
                  cmap=ListedColormap([VISITED]), alpha=0.3, interpolation="nearest")
    for i, xy in enumerate(marks.traces):
        ax.plot(xy[:, 0], xy[:, 1], color=f"C{i % 10}", linewidth=1.0, alpha=0.8)
        ax.plot(xy[:1, 0], xy[:1, 1], "o", color=f"C{i % 10}", markersize=3)
    bugged = objects_with_bugs(scene.objects, facts.injected)
    for o in scene.objects:
        star = o.id in bugged
        ax.scatter([o.x], [o.y], marker="*" if star else "o", s=220 if star else 90,
                   color=STATUS[marks.status.get(o.id, "not scored")], edgecolors="black", linewidths=0.8, zorder=3)
        if o.id in marks.reported:
            ax.scatter([o.x], [o.y], marker="o", s=420, facecolors="none", edgecolors="#2b6cb0",
                       linewidths=2.0, zorder=4)
        ax.annotate(f"{o.type} {o.id}", (o.x, o.y), xytext=(6, 6), textcoords="offset points", fontsize=7)
    places = [report_place(b) for b in run.bugs.itertuples()] if len(run.bugs) else []
    crosses = np.array([p[1:] for p in places if p is not None], dtype=np.float64).reshape(-1, 2)
    if len(crosses):
        ax.scatter(crosses[:, 0], crosses[:, 1], marker="x", s=40, color="#2b6cb0", zorder=5)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_xlabel("x (map units)")
    ax.set_ylabel("y (map units)")
    ax.legend(handles=_legend(marks, scene.preferred is not None, len(crosses) > 0), fontsize=7,
              loc="upper left", bbox_to_anchor=(0.0, -0.07), ncol=4, frameon=False)
    head = f"{run.config['name']} (seed {run.config.get('seed', 0)}): the scene from above"
    ax.set_title(f"{head}\n{marks.caption}" if marks.caption else head, fontsize=10)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


def _legend(marks: MapMarks, preferred: bool, reports: bool) -> list[Line2D]:
    names = ("ground", "preferred area", "blocked") if preferred else ("ground", None, "blocked")
    terrain = [Line2D([], [], marker="s", linestyle="", color=c, markersize=9, label=n)
               for n, c in zip(names, TERRAIN.colors) if n is not None]
    statuses = ("tested", "seen", "never seen") if marks.status else ("not scored",)
    objects = [Line2D([], [], marker="o", linestyle="", color=STATUS[s], markeredgecolor="black", label=s)
               for s in statuses]
    objects.append(Line2D([], [], marker="*", linestyle="", color="white", markeredgecolor="black",
                          markersize=12, label="bugged in truth"))
    if marks.visited is not None:
        terrain.append(Line2D([], [], marker="s", linestyle="", color=VISITED, alpha=0.5, markersize=9,
                              label="visited (the run)"))
    if marks.reported or marks.status:
        objects.append(Line2D([], [], marker="o", linestyle="", markerfacecolor="none",
                              markeredgecolor="#2b6cb0", markeredgewidth=2, markersize=12, label="reported"))
    if marks.traces:
        objects.append(Line2D([], [], color="C0", label="traces (latest generation)"))
    if reports:
        objects.append(Line2D([], [], marker="x", linestyle="", color="#2b6cb0", label="visual report"))
    return terrain + objects
