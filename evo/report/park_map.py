"""The park from above, with what the run did in it: PPGTA's Figures 7 and 9 for one run.

PPGTA (``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) shows a tester where
its agents walked (Figure 7: trajectories over the park, pathways highlighted) and which
objects of interest they tested (Figure 9). ``plots/park_map.png`` is both for a run on a
game with objects of interest and a preferred area (the park, :class:`evo.run.game_facts.GameFacts`
``objects`` and ``preferred``):

- grass, the pathways (preferred area) and the rocks (``render_map``), cells visited by the
  run shaded;
- the traces of the latest generation's episodes that walked the most pathway (kept by the
  objects oracle, :mod:`oracles.objects_tested`, in its checkpointed state);
- each OOI coloured tested / seen / never seen, ringed when a visual bug was reported on it
  (``objects.csv``), drawn as a star when it is bugged in truth; visual reports as crosses at
  the place they name.

A run without the objects oracle still gets the map, its OOIs as placed and bugged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.report.tables import RunData, game_facts

OBJECTS = "objects"
"""The objects oracle's registered name and table (``objects.csv``)."""
TERRAIN = ListedColormap(["#cfe8b4", "#d9b98c", "#6e6e6e"])
"""Grass, pathway, rock."""
VISITED = "#4a90c8"
STATUS = {"tested": "#1a9850", "seen": "#fdae61", "never seen": "#d73027", "not scored": "#bdbdbd"}


def _oracle_state(run: RunData) -> dict[str, Any] | None:
    """The objects oracle's state at the run's latest checkpoint, None without either."""
    names = [o["name"] for o in run.config.get("oracles", [])]
    ckpt = latest_checkpoint(run.path)
    if OBJECTS not in names or ckpt is None:
        return None
    states = load_checkpoint(ckpt).meta.get("oracles", [])
    k = names.index(OBJECTS)
    return states[k] if k < len(states) else None


def _objects(run: RunData) -> pd.DataFrame:
    """``objects.csv`` of the run, or the game's objects as placed (no status) without it."""
    path = run.path / f"{OBJECTS}.csv"
    if path.is_file() and path.stat().st_size:
        return pd.read_csv(path)
    facts = game_facts(run)
    return pd.DataFrame({"id": [o.id for o in facts.objects], "type": [o.type for o in facts.objects],
                         "x": [o.x for o in facts.objects], "y": [o.y for o in facts.objects],
                         "bugged": [o.bugged for o in facts.objects]})


def _status(row: pd.Series) -> str:
    if "tested" not in row:
        return "not scored"
    return "tested" if bool(row["tested"]) else "seen" if bool(row["seen"]) else "never seen"


def park_map(run: RunData, path: str | Path) -> Path | None:
    """Draw ``path`` (see the module); None for a game without objects or preferred area."""
    facts = game_facts(run)
    if not facts.objects or facts.preferred is None:
        return None
    low, high = facts.spec.feature_low, facts.spec.feature_high
    extent = (low[0], high[0], low[1], high[1])
    terrain = facts.preferred.astype(np.int64)
    if facts.walls is not None and facts.walls.shape == terrain.shape:
        terrain = np.where(facts.walls > 0, 2, terrain)
    fig = Figure(figsize=(8.0, 8.4), layout="constrained")
    ax = fig.add_subplot()
    # Grids are [x cell, y cell]: transposed, y up, as seen from above.
    ax.imshow(terrain.T, origin="lower", extent=extent, cmap=TERRAIN, vmin=0, vmax=2, interpolation="nearest")
    state = _oracle_state(run)
    if state is not None:
        visited = np.asarray(state["visits"]) > 0
        ax.imshow(np.where(visited, 1.0, np.nan).T, origin="lower", extent=extent,
                  cmap=ListedColormap([VISITED]), alpha=0.3, interpolation="nearest")
        for i, trace in enumerate(state["traces"]):
            xy = np.asarray(trace, dtype=np.float64).reshape(-1, 2)
            ax.plot(xy[:, 0], xy[:, 1], color=f"C{i % 10}", linewidth=1.0, alpha=0.8)
            ax.plot(xy[:1, 0], xy[:1, 1], "o", color=f"C{i % 10}", markersize=3)
    table = _objects(run)
    for _, row in table.iterrows():
        bugged = bool(row["bugged"])
        ax.scatter([row["x"]], [row["y"]], marker="*" if bugged else "o", s=220 if bugged else 90,
                   color=STATUS[_status(row)], edgecolors="black", linewidths=0.8, zorder=3)
        if bool(row.get("reported", False)):
            ax.scatter([row["x"]], [row["y"]], marker="o", s=420, facecolors="none", edgecolors="#2b6cb0",
                       linewidths=2.0, zorder=4)
        ax.annotate(f"{row['type']} {int(row['id'])}", (row["x"], row["y"]), xytext=(6, 6),
                    textcoords="offset points", fontsize=7)
    reports = [d for k, d in zip(run.bugs.get("kind", []), run.bugs.get("data", [])) if k == "visual"]
    places = np.array([(d["x"], d["y"]) for d in reports if isinstance(d, dict) and "x" in d and "y" in d])
    if len(places):
        ax.scatter(places[:, 0], places[:, 1], marker="x", s=40, color="#2b6cb0", zorder=5)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_xlabel("x (map units)")
    ax.set_ylabel("y (map units)")
    ax.legend(handles=_legend(state is not None, len(places) > 0), fontsize=7, loc="upper left",
              bbox_to_anchor=(0.0, -0.07), ncol=4, frameon=False)
    ax.set_title(_title(run, table, state), fontsize=10)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


def _title(run: RunData, table: pd.DataFrame, state: dict[str, Any] | None) -> str:
    head = f"{run.config['name']} (seed {run.config.get('seed', 0)}): the park from above"
    if state is None or "tested" not in table:
        return head
    gens = run.generations
    covered = gens["preferred_coverage_total"].iloc[-1] if "preferred_coverage_total" in gens and len(gens) else np.nan
    bugged = table["bugged"].astype(bool)
    return (f"{head}\npathways covered {covered:.0%} · objects seen {int(table['seen'].sum())}, tested "
            f"{int(table['tested'].sum())} of {len(table)} · bugged reported "
            f"{int((table['reported'] & bugged).sum())} of {int(bugged.sum())}, normal reported "
            f"{int((table['reported'] & ~bugged).sum())}")


def _legend(scored: bool, reports: bool) -> list[Line2D]:
    terrain = [Line2D([], [], marker="s", linestyle="", color=c, markersize=9, label=n)
               for n, c in zip(("grass", "pathway (preferred)", "rock"), TERRAIN.colors)]
    statuses = ("tested", "seen", "never seen") if scored else ("not scored",)
    objects = [Line2D([], [], marker="o", linestyle="", color=STATUS[s], markeredgecolor="black", label=s)
               for s in statuses]
    objects.append(Line2D([], [], marker="*", linestyle="", color="white", markeredgecolor="black",
                          markersize=12, label="bugged in truth"))
    if scored:
        terrain.append(Line2D([], [], marker="s", linestyle="", color=VISITED, alpha=0.5, markersize=9,
                              label="visited (the run)"))
        objects.append(Line2D([], [], marker="o", linestyle="", markerfacecolor="none",
                              markeredgecolor="#2b6cb0", markeredgewidth=2, markersize=12, label="reported"))
        objects.append(Line2D([], [], color="C0", label="traces (latest generation)"))
    if reports:
        objects.append(Line2D([], [], marker="x", linestyle="", color="#2b6cb0", label="visual report"))
    return terrain + objects
