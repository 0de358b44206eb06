"""Figures of runs and comparisons, one function per figure, each returning the PNG it wrote.

Every function takes loaded runs (:class:`evo.report.tables.RunData`) and draws one panel per game
they were played on, so one call covers a comparison that spans several games (a small and a
large maze, say). Within a panel a strategy is a run's config ``name``; its colour is its
position among the strategies of that game, so the same ablation gets the same colour on
every game. Figures are drawn on matplotlib's Agg canvas (``Figure`` without pyplot): no
display, no global state, safe in worker processes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Sequence

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure

from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.game_facts import GameFacts
from evo.search.operators import to_minimisation
from evo.report.scene_map import scene_map
from evo.report.tables import RunData, found_curve, game_facts
from objectives import OBJECTIVES
from oracles.reporting import SCENE_MAP

KIND_COLOURS = {
    "crash": "tab:red",
    "stuck": "tab:orange",
    "logic": "tab:purple",
    "performance": "tab:green",
    "balance": "tab:brown",
}
# Light to mid blue, so that the bug markers stay visible on cells every run visited.
VISITED = LinearSegmentedColormap.from_list("visited", ["#e3eef9", "#4a90c8"])
X_LABELS = {"env_steps": "env steps", "wall_s": "wall seconds"}
GRID_POINTS = 400


def _by_game(runs: Sequence[RunData]) -> dict[str, dict[str, list[RunData]]]:
    """game label -> strategy -> runs, both in order of first appearance."""
    out: dict[str, dict[str, list[RunData]]] = {}
    for run in runs:
        out.setdefault(game_facts(run).label, {}).setdefault(run.config["name"], []).append(run)
    return out


def _colour(i: int) -> str:
    return f"C{i % 10}"


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


def bugs_over(runs: Sequence[RunData], x: Literal["env_steps", "wall_s"], path: str | Path) -> Path:
    """Bugs found over env steps or wall seconds: mean over seeds and a min-max band (Wuji's
    figure of bugs over time).

    Each run's count is a step function (it rises when a bug is found), read on a common grid
    from 0 to the longest run of the game; after a run ended its count is held. Bugs found
    are distinct injected bugs when the game has ground truth, bug reports otherwise.
    """
    games = _by_game(runs)
    fig = Figure(figsize=(7.0 * len(games), 4.5), layout="constrained")
    axes = fig.subplots(1, len(games), squeeze=False)[0]
    for ax, (label, strategies) in zip(axes, games.items()):
        ends = [float(r.generations[x].iloc[-1]) for rs in strategies.values() for r in rs if len(r.generations)]
        grid = np.linspace(0.0, max(ends + [1.0]), GRID_POINTS)
        truth = False
        for i, (name, group) in enumerate(strategies.items()):
            curves = []
            for run in group:
                curve = found_curve(run)
                truth = game_facts(run).has_truth
                at = np.searchsorted(curve[x].to_numpy(), grid, side="right") - 1
                curves.append(curve["found"].to_numpy()[np.clip(at, 0, None)])
            stack = np.vstack(curves).astype(float)
            ax.plot(grid, stack.mean(axis=0), color=_colour(i), drawstyle="steps-post",
                    label=f"{name} (n={len(group)})")
            ax.fill_between(grid, stack.min(axis=0), stack.max(axis=0), color=_colour(i),
                            alpha=0.15, step="post", linewidth=0)
        if truth:
            injected = len(game_facts(next(iter(strategies.values()))[0]).injected)
            ax.axhline(injected, color="grey", linestyle=":", linewidth=1, label=f"injected ({injected})")
        ax.set_title(label, fontsize=10)
        ax.set_xlabel(X_LABELS[x])
        ax.set_ylabel("injected bugs found" if truth else "bug reports")
        ax.set_xlim(0, grid[-1])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"Bugs found over {X_LABELS[x]} (mean over seeds, band: min to max)")
    return _save(fig, path)


def _final_F(run: RunData) -> np.ndarray | None:
    ckpt = latest_checkpoint(run.path)
    return None if ckpt is None else load_checkpoint(ckpt).F


def _front(F: np.ndarray, senses: Sequence[str]) -> np.ndarray:
    """The non-dominated rows of ``F`` (pymoo's sorting), ordered along the first objective."""
    from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

    best = NonDominatedSorting().do(to_minimisation(F, senses), only_non_dominated_front=True)
    front = F[best]
    return front[np.argsort(front[:, 0])]


def pareto_fronts(runs: Sequence[RunData], path: str | Path) -> Path:
    """Final populations in the plane of the first two objectives, one colour per strategy.

    Dots are every policy of the last checkpoint of every seed; the line joins the
    non-dominated ones of all seeds pooled. Only strategies whose first two objectives are
    those of the panel (the first such strategy's) are drawn: a strategy with one objective
    has no value of the second for its policies (the run's coverage column counts the whole
    run, not a policy), so it is skipped and named under the panel.
    """
    games = _by_game(runs)
    fig = Figure(figsize=(7.0 * len(games), 5.0), layout="constrained")
    axes = fig.subplots(1, len(games), squeeze=False)[0]
    for ax, (label, strategies) in zip(axes, games.items()):
        axis_names: list[str] | None = None
        skipped = []
        for i, (name, group) in enumerate(strategies.items()):
            objectives = group[0].config["objectives"]
            names = [o["name"] for o in objectives[:2]]
            if len(objectives) < 2 or (axis_names is not None and names != axis_names):
                skipped.append(name)
                continue
            axis_names = names
            finals = [F for F in (_final_F(r) for r in group) if F is not None and len(F)]
            if not finals:
                skipped.append(name)
                continue
            F = np.concatenate([f[:, :2] for f in finals])
            senses = [OBJECTIVES[n].factory.sense for n in names]
            ax.scatter(F[:, 0], F[:, 1], s=10, alpha=0.35, color=_colour(i))
            front = _front(F, senses)
            ax.plot(front[:, 0], front[:, 1], color=_colour(i), marker="o", markersize=4,
                    drawstyle="steps-pre" if senses == ["max", "max"] else "default",
                    label=f"{name} (n={len(finals)})")
        ax.set_title(label, fontsize=10)
        if axis_names is not None:
            ax.set_xlabel(axis_names[0])
            ax.set_ylabel(axis_names[1])
            # Winning spans a few units of step penalties and, on games with a score bug,
            # a jump of a thousand: symlog keeps both readable.
            ax.set_xscale("symlog", linthresh=10)
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no strategy with two objectives", ha="center", transform=ax.transAxes)
        if skipped:
            ax.annotate(f"not drawn (fewer than two objectives): {', '.join(skipped)}",
                        (0.0, -0.16), xycoords="axes fraction", fontsize=8, color="grey")
        ax.grid(alpha=0.3)
    fig.suptitle("Final populations and their Pareto front (seeds pooled)")
    return _save(fig, path)


def _visited_cells(coverage: dict, facts: GameFacts) -> np.ndarray:
    """The coverage tracker's map cells ``[K, 2]`` (row, column) of the first two features
    (others projected away). Runs from before bucket keys were hashed kept only mixed-radix
    keys over ``feature_bins``; those are decoded instead."""
    radix = np.asarray(facts.spec.feature_bins, dtype=np.int64)
    if "cells" in coverage:
        cells = np.asarray(coverage["cells"], dtype=np.int64).reshape(-1, min(len(radix), 2))
    else:
        rest = np.asarray(list(coverage["visited"]), dtype=np.int64)
        cells = np.zeros((len(rest), len(radix)), dtype=np.int64)
        for j in range(len(radix) - 1, -1, -1):
            cells[:, j] = rest % radix[j]
            rest = rest // radix[j]
    if len(radix) >= 2:
        return cells[:, :2]
    return np.stack([np.zeros(len(cells), dtype=np.int64), cells[:, 0]], axis=1)


def coverage_maps(runs: Sequence[RunData], path: str | Path) -> Path | None:
    """Bird's-eye map per strategy: visited cells, walls, and where each bug was found.

    The map is the grid of the first two state features' buckets (the coverage buckets).
    Shading is the share of the strategy's runs that visited a cell (from the coverage
    tracker of the last checkpoint); walls are drawn in black when the game offers
    ``render_map()``; each bug found is a dot at the state it was reported in, coloured by
    kind; an injected bug no run found is a grey ring. One row per game, one panel per
    strategy. A game whose state features are its frame's cells (``coarse_features``) has no
    map from above and gets no panel.

    Returns:
        The PNG written, or None when no run has a checkpoint to read coverage from.
    """
    games = _by_game(runs)
    n_cols = max(len(s) for s in games.values())
    fig = Figure(figsize=(max(3.6 * n_cols + 1.0, 6.0), 3.8 * len(games)), layout="constrained")
    axes = fig.subplots(len(games), n_cols, squeeze=False)
    drawn = False
    for row, (label, strategies) in zip(axes, games.items()):
        image = None
        for ax in row[len(strategies):]:
            ax.set_axis_off()
        for ax, (name, group) in zip(row, strategies.items()):
            facts = game_facts(group[0])
            if facts.spec.coarse_features:  # its frame's cells: there is no "from above"
                ax.set_axis_off()
                continue
            visited = [_visited_cells(load_checkpoint(ckpt).meta["coverage"], facts)
                       for ckpt in map(latest_checkpoint, (run.path for run in group)) if ckpt is not None]
            if not visited:
                ax.set_axis_off()
                continue
            found: dict[tuple[str, tuple[int, int]], None] = {}
            for run in group:
                for kind, state in zip(run.bugs.get("kind", []), run.bugs.get("state", [])):
                    found[(kind, tuple(int(v) for v in facts.map_cells(state)))] = None
            injected = facts.map_cells([b.location for b in facts.injected]).reshape(-1, 2)
            origin, shape = facts.map_frame(np.concatenate([*visited, injected, np.array([c for _, c in found]).reshape(-1, 2)]))
            share = np.zeros(shape)
            for cells in visited:
                grid = np.zeros(shape, dtype=bool)
                grid[cells[:, 0] - origin[0], cells[:, 1] - origin[1]] = True
                share += grid
            share /= len(group)
            extent = (origin[1] - 0.5, origin[1] + shape[1] - 0.5, origin[0] + shape[0] - 0.5, origin[0] - 0.5)
            image = ax.imshow(np.where(share > 0, share, np.nan), cmap=VISITED, vmin=0, vmax=1,
                              interpolation="nearest", extent=extent)
            if facts.walls is not None and facts.walls.shape == share.shape and origin == (0, 0):
                walls = np.where(facts.walls > 0, 1.0, np.nan)
                ax.imshow(walls, cmap="Greys", vmin=0, vmax=1.2, alpha=0.9, interpolation="nearest", extent=extent)
            if len(injected):
                ax.scatter(injected[:, 1], injected[:, 0], s=30, facecolors="none", edgecolors="grey",
                           linewidths=0.8, label="injected")
            for kind, colour in KIND_COLOURS.items():
                cells = np.array([c for k, c in found if k == kind])
                if len(cells):
                    ax.scatter(cells[:, 1], cells[:, 0], s=14, color=colour, label=kind,
                               edgecolors="white", linewidths=0.4)
            ax.set_title(f"{name} (n={len(group)})", fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
        row[0].set_ylabel(label, fontsize=8)
        if image is not None:
            drawn = True
            fig.colorbar(image, ax=list(row), shrink=0.8, label="share of runs visiting")
            handles, labels = row[0].get_legend_handles_labels()
            by_label = dict(zip(labels, handles))
            row[0].legend(by_label.values(), by_label.keys(), fontsize=7, loc="upper left",
                          bbox_to_anchor=(0.0, -0.02), ncol=3, frameon=False)
    if not drawn:
        return None
    fig.suptitle("Visited cells and bugs found, from above")
    return _save(fig, path)


def objectives_per_generation(run: RunData, path: str | Path) -> Path:
    """Each objective's population mean and max per generation, and the hypervolume."""
    gens = run.generations
    names = [o["name"] for o in run.config["objectives"]]
    panels = names + (["hypervolume"] if "hypervolume" in gens else [])
    fig = Figure(figsize=(4.5 * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, name in zip(axes, panels):
        if name == "hypervolume":
            ax.plot(gens["generation"], gens["hypervolume"], color="C2")
        else:
            ax.plot(gens["generation"], gens[f"{name}_mean"], color="C0", label="mean")
            ax.plot(gens["generation"], gens[f"{name}_max"], color="C1", label="max")
            ax.legend(fontsize=8)
        ax.set_title(name)
        ax.set_xlabel("generation")
        ax.grid(alpha=0.3)
    fig.suptitle(f"{run.config['name']} (seed {run.config.get('seed', 0)}): objectives per generation")
    return _save(fig, path)


def run_figures(run: RunData, folder: str | Path) -> list[Path]:
    """Every figure of one run (``evo report``): bugs over env steps and over seconds,
    objectives per generation, the coverage map where the run has a checkpoint, and the scene
    map where its game's scene places objects of interest (:mod:`evo.report.scene_map`), with
    what the run's components mark on it."""
    folder = Path(folder)
    written = [
        bugs_over([run], "env_steps", folder / "bugs_over_steps.png"),
        bugs_over([run], "wall_s", folder / "bugs_over_seconds.png"),
        objectives_per_generation(run, folder / "objectives.png"),
        coverage_maps([run], folder / "coverage_map.png"),
        scene_map(run, folder / SCENE_MAP),
    ]
    return [p for p in written if p is not None]


def frame_time_violins(frames: dict[str, np.ndarray], threshold_ms: float, path: str | Path) -> Path:
    """RELINE's figure: per agent, a violin of the frame times at its low-FPS points.

    Args:
        frames: agent name -> frame times (ms) of every visit to one of its low-FPS points.
        threshold_ms: the slow-frame threshold, drawn as a dashed line.
        path: where the PNG goes.

    An agent that found no low-FPS point gets an empty slot labelled "none found".
    """
    names = list(frames)
    fig = Figure(figsize=(1.8 + 1.6 * len(names), 4.0), layout="constrained")
    ax = fig.add_subplot()
    for i, name in enumerate(names):
        data = np.asarray(frames[name], dtype=np.float64)
        if data.size >= 2 and np.ptp(data) > 0:
            parts = ax.violinplot(data, positions=[i], showmedians=True, widths=0.8)
            for body in parts["bodies"]:
                body.set_facecolor(_colour(i))
                body.set_alpha(0.6)
        elif data.size:
            ax.scatter([i] * data.size, data, color=_colour(i), s=12)
        else:
            ax.text(i, threshold_ms, "none found", ha="center", va="bottom", fontsize=8)
    ax.axhline(threshold_ms, color="grey", linestyle="--", linewidth=1, label=f"threshold {threshold_ms:.3g} ms")
    ax.set_xticks(range(len(names)), [f"{n}\n({len(frames[n])} frames)" for n in names], fontsize=8)
    ax.set_yscale("log")  # a few frames the machine delayed a lot would flatten the rest
    ax.set_ylabel("frame time at low-FPS points (ms, log scale)")
    ax.set_title("frame times of the low-FPS points each agent found")
    ax.legend(loc="upper right", fontsize=8)
    return _save(fig, path)
