"""The PPGTA study's figures: objects tested over episodes (PPGTA's Figure 8) and each agent's
walk over the park from above with its objects coloured by test status (its Figures 7 and 9),
drawn on matplotlib's Agg canvas."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from scipy.stats import hypergeom

from evo.report.scene_map import STATUS, TERRAIN, VISITED

OBJECT_STATUS = {"succeeded": STATUS["tested"], "failed": STATUS["never seen"], "missed": STATUS["not scored"]}
"""PPGTA's Figure 9: green where some test of the object succeeded, red where it was tested and
every test failed, grey where it was never tested."""

TRACES = 5
"""Episodes drawn as lines on each agent's map (all episodes shade the cells walked)."""


def objects_over_episodes(episodes: pd.DataFrame, column: str = "_tested") -> np.ndarray:
    """``[E]`` distinct objects tested after each episode (PPGTA's Figure 8), episodes in order
    (``column="_close"``: seen from within the test radius)."""
    seen: set[int] = set()
    out = []
    for tested in episodes[column]:
        seen.update(tested)
        out.append(len(seen))
    return np.array(out, dtype=np.int64)


def expected_over_episodes(episodes: pd.DataFrame, column: str = "_tested") -> np.ndarray:
    """``[E]`` distinct objects tested by any ``k`` of the episodes, on average over every choice
    of ``k`` episodes, for ``k = 1..E``.

    :func:`objects_over_episodes` reads the curve in one order, the protocol's, so its value at
    18 of 45 episodes depends on which episodes happen to come first. This is the same count
    without that luck: an object tested in ``m`` of the ``E`` episodes is missed by a random
    ``k`` of them with probability ``C(E - m, k) / C(E, k)``, so the expectation is exact, with
    no resampling. Its last value equals the in-order curve's.
    """
    counts: dict[int, int] = {}
    for tested in episodes[column]:
        for obj in set(tested):
            counts[obj] = counts.get(obj, 0) + 1
    k = np.arange(1, len(episodes) + 1)
    out = np.zeros(len(k), dtype=np.float64)
    for m in counts.values():  # missed: none of the object's m episodes among k drawn from E
        out += 1.0 - hypergeom.pmf(0, len(episodes), m, k)
    return out


def draw_objects_tested(episodes: pd.DataFrame, n_objects: int, path: Path) -> Path:
    """Distinct objects tested after each episode, one line per agent, against all objects; a
    dotted line of the agent's colour is the same count over any that many of its episodes
    (:func:`expected_over_episodes`)."""
    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for name, mine in episodes.groupby("agent", sort=False):
        over = objects_over_episodes(mine)
        x = np.arange(1, len(over) + 1)
        line, = ax.plot(x, over, marker="o", markersize=3, label=name)
        ax.plot(x, expected_over_episodes(mine), color=line.get_color(), linestyle=":", linewidth=1.2)
    ax.axhline(n_objects, color="grey", linestyle="--", linewidth=1, label=f"all {n_objects} objects")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("episode")
    ax.set_ylabel("objects tested (distinct, so far)")
    ax.plot([], [], color="grey", linestyle=":", linewidth=1.2, label="dotted: any k of its episodes, on average")
    ax.set_title("Objects of interest tested over episodes (PPGTA's Figure 8)", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=100)
    return path


def draw_maps(episodes: pd.DataFrame, objects_oracle, facts, path: Path) -> Path:  # oracle: oracles.objects_tested
    """One panel per agent: the park (pathways, rocks), the cells walked in any episode, the
    first episodes' traces, each object coloured by :data:`OBJECT_STATUS`."""
    names = list(dict.fromkeys(episodes["agent"]))
    spec = facts.spec
    extent = (spec.feature_low[0], spec.feature_high[0], spec.feature_low[1], spec.feature_high[1])
    terrain = objects_oracle.preferred.astype(np.int64)
    if facts.walls is not None and facts.walls.shape == terrain.shape:
        terrain = np.where(facts.walls > 0, 2, terrain)
    fig = Figure(figsize=(5.0 * len(names), 5.4), layout="constrained")
    for k, name in enumerate(names):
        mine = episodes[episodes["agent"] == name]
        ax = fig.add_subplot(1, len(names), k + 1)
        ax.imshow(terrain.T, origin="lower", extent=extent, cmap=TERRAIN, vmin=0, vmax=2, interpolation="nearest")
        walked = np.logical_or.reduce(list(mine["_cells"]))
        ax.imshow(np.where(walked, 1.0, np.nan).T, origin="lower", extent=extent, cmap=ListedColormap([VISITED]),
                  alpha=0.45, interpolation="nearest")
        for i, xy in enumerate(mine["_xy"].iloc[:TRACES]):
            ax.plot(xy[:, 0], xy[:, 1], color=f"C{i}", linewidth=0.8)
            ax.plot(xy[:1, 0], xy[:1, 1], "o", color=f"C{i}", markersize=3)
        tested, succeeded = set().union(*mine["_tested"]), set().union(*mine["_succeeded"])
        for o in objects_oracle.objects:
            status = "succeeded" if o.id in succeeded else "failed" if o.id in tested else "missed"
            ax.scatter([o.x], [o.y], s=30, color=OBJECT_STATUS[status], edgecolors="black", linewidths=0.5, zorder=3)
        ax.set_xlim(extent[0], extent[1])
        ax.set_ylim(extent[2], extent[3])
        ax.set_title(f"{name}: {len(tested)} of {len(objects_oracle.objects)} objects tested, "
                     f"{len(succeeded)} successfully", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.savefig(path, dpi=80)
    return path
