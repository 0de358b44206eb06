"""Evaluate trained agents as RELINE does: many fresh episodes, then count what they spotted.

RELINE (Tufano et al., Table 1) plays 1000 evaluation episodes with each trained agent and
counts the episodes in which it spotted at least n of the injected performance bugs; in its
case study it compares the frame times of the low-FPS points each agent found with
Mann-Whitney U and Cliff's delta. ``evo evaluate`` does the same for run directories:

1. **Agents.** Each run directory is one agent: the policy of its final population that is
   best on ``fps_drop`` (or on ``--objective``, default the first objective) or, with
   ``--select front``, its whole Pareto front taking turns; a random-search run plays
   uniformly random actions.
2. **One threshold for all agents.** ``t = mean + 5 sd`` (of the normal frames, with the
   performance oracle's ``floor_ms``) of the frame times of ``warmup`` episodes, measured in
   this command under the load the agents are then measured under. RELINE plays them with
   its RL baseline (the agent that only plays to win): ``--baseline RUN_DIR`` does that with
   the run's agent, chosen as the evaluated agents are. Without it the warm-up is uniformly
   random play, which serves where random play renders frames like a trained agent's; on
   ViZDoom it does not: turning on the spot shows far more varied views than a trained agent
   sees and puts ``t`` above nearly every frame the agents render.
   ``--threshold-ms`` gives ``t`` instead. A frame slower than ``t`` is slow; the
   ``calibration`` column of ``evaluation.csv`` says where ``t`` came from.
3. **Actions.** Policies sample their actions, as they were trained to; ``--temperature``
   plays them from ``softmax(logits / T)`` instead, 0 being greedy (RELINE's DQN agents take
   the argmax of their Q-values but for a small exploration rate). All policy agents of one
   evaluation, the baseline's included, play at the same temperature; a random agent stays
   uniform. On a deterministic game a greedy agent plays only as many different episodes as
   the game's own randomness allows (MsPacman: 31 no-op starts); a temperature between 0
   and 1 keeps every episode its own.
4. **Spotted.** An injected bug is spotted in an episode when a slow frame ended in its
   place (the game's ``match``). Episodes with at least n spotted bugs are Table 1.
5. **Low-FPS points.** Steps are bucketed into points as the performance oracle does; a
   point is low-FPS when more than half of its visits (and at least ``min_visits``) were slow.

Outputs (``--out``): ``evaluation.csv`` (one row per agent: Table 1 and the low-FPS summary),
``episodes.csv`` (one row per episode), ``low_fps_points.csv`` (per agent and point),
``pairwise.csv`` (Mann-Whitney U, Holm-adjusted, and Cliff's delta between agents, on bugs
spotted per episode and on frame times at low-FPS points) and ``frame_times.png`` (violins
of the frame times at each agent's low-FPS points).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from evo.search.agents import RandomTesting
from evo.run.built import Built
from evo.run.parallel import Executor, ParallelConfig
from evo.run.players import (
    EvaluationError, ProgressFn, RunPlayer, episode_tasks, load_baseline, load_player, play_tasks, rescore,
)
from evo.report.stats import pairwise_table
from evo.run.user_paths import check_out_folder
from oracles.frame_threshold import slow_threshold
from oracles.performance import PerformanceConfig, is_low_fps, point_bounds


@dataclass
class Evaluation:
    """Everything ``evo evaluate`` writes, as DataFrames, and the files."""

    table: pd.DataFrame
    episodes: pd.DataFrame
    points: pd.DataFrame
    pairwise: pd.DataFrame
    threshold_ms: float
    calibration: str
    """Where ``threshold_ms`` came from: ``random play (100 episodes)``, ``<baseline agent>
    (100 episodes)`` or ``given``."""
    injected: int
    files: list[Path]


def _performance_config(built: Built) -> PerformanceConfig:
    for oracle in built.oracles:
        if oracle.name == "performance":
            return oracle.config
    return PerformanceConfig()


def _steps(agent: RunPlayer, bins: Sequence[int], t_ms: float) -> pd.DataFrame:
    """One row per step played: episode, point key, frame time, slow."""
    batch = agent.rollouts
    assert batch is not None
    taken = batch.valid & np.isfinite(batch.frame_ms)
    ep, step = np.nonzero(taken)
    keys = batch.state_keys(agent.built.spec, bins)[:, 1:][ep, step]
    ms = batch.frame_ms[ep, step]
    return pd.DataFrame({"episode": ep, "step": step, "key": keys, "frame_ms": ms, "slow": ms > t_ms})


def _point_of(agent: RunPlayer, steps: pd.DataFrame, bins: Sequence[int], key: int) -> tuple[int, ...]:
    """Bucket indices of the point with ``key``, from the state of its first visit (keys
    are not decoded: large bucket spaces are hashed)."""
    first = steps.index[steps["key"].to_numpy() == key][0]
    ep, step = int(steps.at[first, "episode"]), int(steps.at[first, "step"])
    buckets = agent.built.spec.buckets(agent.rollouts.features[ep, step + 1], bins)  # type: ignore[union-attr]
    return tuple(int(v) for v in buckets)


def _spotted(agent: RunPlayer, steps: pd.DataFrame) -> list[set[int]]:
    """Per episode, the injected bugs whose place a slow frame ended in."""
    batch = agent.rollouts
    assert batch is not None
    found: list[set[int]] = [set() for _ in range(len(batch))]
    if agent.built.truth is None:
        return found
    slow = steps[steps["slow"]]
    for ep, step in zip(slow["episode"].to_numpy(), slow["step"].to_numpy()):
        feats = batch.features[ep]
        # A report as a Bug reads to a game's match: the actions up to the step included.
        report = SimpleNamespace(kind="performance", state=tuple(feats[step]), next_state=tuple(feats[step + 1]),
                                 actions=tuple(int(a) for a in batch.actions[ep, :step + 1]))
        bug = agent.built.match(report)
        if bug is not None:
            found[int(ep)].add(int(bug))
    return found


def _points(agent: RunPlayer, steps: pd.DataFrame, bins: Sequence[int], cfg: PerformanceConfig, t_ms: float) -> pd.DataFrame:
    """Per point with a slow frame: visits, slow visits, confidence, median and max frame time."""
    slow_keys = steps.loc[steps["slow"], "key"].unique()
    mine = steps[steps["key"].isin(slow_keys)]
    g = mine.groupby("key")
    table = pd.DataFrame({
        "visits": g.size(), "slow": g["slow"].sum(), "median_ms": g["frame_ms"].median(),
        "max_ms": g["frame_ms"].max(),
    }).reset_index()
    spec = agent.built.spec
    rows = []
    for r in table.to_dict("records"):
        point = _point_of(agent, mine, bins, int(r["key"]))
        rows.append({
            "agent": agent.name, "point": " ".join(map(str, point)), **point_bounds(spec, bins, point),
            "visits": int(r["visits"]), "slow": int(r["slow"]), "confidence": r["slow"] / r["visits"],
            "median_ms": r["median_ms"], "max_ms": r["max_ms"], "threshold_ms": t_ms,
            "low_fps": is_low_fps(int(r["visits"]), int(r["slow"]), cfg.min_visits, cfg.slow_share),
            "key": int(r["key"]),
        })
    out = pd.DataFrame(rows, columns=None if rows else ["agent", "point", "visits", "slow", "confidence",
                                                        "median_ms", "max_ms", "threshold_ms", "low_fps", "key"])
    return out.sort_values(["low_fps", "confidence", "median_ms"], ascending=False, kind="stable")


def _unique_names(agents: Sequence[RunPlayer]) -> None:
    """Agents are named after their experiment; two runs of one experiment get their folder."""
    counts: dict[str, int] = {}
    for a in agents:
        counts[a.name] = counts.get(a.name, 0) + 1
    for a in agents:
        if counts[a.name] > 1:
            a.name = f"{a.name}/{a.run_dir.name}"


def evaluate(
    run_dirs: Sequence[str | Path],
    episodes: int = 1000,
    *,
    out: str | Path,
    select: Literal["best", "front"] = "best",
    objective: str | None = None,
    warmup: int = 100,
    choose_episodes: int = 10,
    threshold_ms: float | None = None,
    baseline: str | Path | None = None,
    temperature: float = 1.0,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: ProgressFn | None = None,
) -> Evaluation:
    """Play ``episodes`` episodes with each run's agent and write RELINE's tables.

    Args:
        run_dirs: One run directory per agent; all on the same game.
        episodes: Evaluation episodes per agent (RELINE: 1000).
        out: Folder for the outputs.
        select: ``best``: the final policy best on ``objective``; ``front``: the final
            Pareto front, its policies taking turns.
        objective: The objective ``best`` ranks by (default ``fps_drop`` if the run has
            it, else its first objective).
        warmup: Episodes that calibrate the slow-frame threshold, played by
            ``baseline``'s agent or at random.
        choose_episodes: With ``best``, fresh episodes each final policy plays to choose
            the best (:func:`rescore`); 0 takes the checkpoint's scores.
        threshold_ms: Use this threshold instead of calibrating one.
        baseline: A run directory (on the agents' game) whose agent plays the warm-up
            episodes, as RELINE calibrates on its RL baseline; default random play.
        temperature: Of every policy agent's action sampling: 1 as trained, lower is
            surer, 0 greedy.
        seed: Seed of the evaluation episodes (the same for every agent).
        n_jobs: Workers (default: the first run's ``parallel.n_jobs``); always local loky
            processes, or this process with ``n_jobs=1``.
        progress: Called with a line of progress now and then.
    """
    _check_options(run_dirs, episodes, warmup, threshold_ms, baseline, temperature)
    check_out_folder(Path(out))  # before the episodes, not after them
    with contextlib.ExitStack() as stack:  # every player's game closed, the executor first
        agents = []
        for d in run_dirs:
            agents.append(load_player(Path(d), select, objective))
            stack.enter_context(agents[-1].built)
        _unique_names(agents)
        first = agents[0]
        labels = {a.name: a.built.factory.played() for a in agents}
        if len(set(labels.values())) > 1:
            odd = next(n for n, lab in labels.items() if lab != labels[first.name])
            raise EvaluationError(f"{odd} plays another game than {first.name}; agents must share one game")
        base = None if baseline is None else load_baseline(Path(baseline), select, objective, first)
        if base is not None:
            stack.enter_context(base.built)
        for a in [*agents, *([base] if base is not None else [])]:
            a.temperature = temperature
        # The evaluated runs' performance oracle (sd_factor, floor_ms) turns the baseline's frame
        # times into t: an RL baseline has no performance oracle of its own.
        cfg = _performance_config(first.built)
        bins = first.built.spec.resolve_bins(cfg.bins, "performance.bins")
        jobs = n_jobs or first.built.exp.parallel.n_jobs
        local = ParallelConfig(backend="serial" if jobs == 1 else "loky", n_jobs=jobs)
        executor = stack.enter_context(Executor(local, first.built.exp.torch_threads))
        calibration = "given"
        if threshold_ms is None:
            player = base if base is not None else RunPlayer(
                "random play", first.run_dir, first.built, RandomTesting(), first.genomes[:1, :0], first.ids[:1])
            if base is not None and select == "best":
                rescore(base, executor, choose_episodes, seed + 2, objective, progress)
            warm = play_tasks(executor, episode_tasks(player, warmup, seed + 1), progress, f"warm-up ({player.name})")
            threshold_ms = slow_threshold(warm.frame_ms[warm.valid], cfg.sd_factor, cfg.floor_ms)
            calibration = f"{player.name} ({warmup} episodes)"
        for agent in agents:
            start = time.perf_counter()
            if select == "best":
                rescore(agent, executor, choose_episodes, seed + 2, objective, progress)
            agent.rollouts = play_tasks(executor, episode_tasks(agent, episodes, seed), progress, agent.name)
            agent.seconds = time.perf_counter() - start
        return _write(agents, float(threshold_ms), calibration, cfg, bins, Path(out))


def _check_options(run_dirs: Sequence[str | Path], episodes: int, warmup: int, threshold_ms: float | None,
                   baseline: str | Path | None, temperature: float) -> None:
    """EvaluationError (one line) for options that cannot be evaluated, before anything is played."""
    if episodes < 1:
        raise EvaluationError(f"--episodes must be at least 1, got {episodes}")
    if warmup < 1 and threshold_ms is None:
        raise EvaluationError(f"--warmup must be at least 1, got {warmup}")
    if not run_dirs:
        raise EvaluationError("give at least one run directory")
    if baseline is not None and threshold_ms is not None:
        raise EvaluationError("--baseline and --threshold-ms both set the slow-frame threshold; give one")
    if not temperature >= 0:  # also refuses nan
        raise EvaluationError(f"--temperature must be at least 0 (0: greedy, 1: as trained), got {temperature}")


def _write(agents: Sequence[RunPlayer], t_ms: float, calibration: str, cfg: PerformanceConfig, bins: Sequence[int],
           out: Path) -> Evaluation:
    """Score every agent's episodes and write the tables and the figure."""
    out.mkdir(parents=True, exist_ok=True)
    injected = len(agents[0].built.injected)
    table_rows, episode_frames, point_frames = [], [], []
    samples: dict[str, dict[str, np.ndarray]] = {"bugs spotted per episode": {}, "frame ms at low-FPS points": {}}
    violins: dict[str, np.ndarray] = {}
    for agent in agents:
        batch = agent.rollouts
        assert batch is not None
        steps = _steps(agent, bins, t_ms)
        spotted = _spotted(agent, steps)
        counts = np.array([len(s) for s in spotted], dtype=np.int64)
        episode_frames.append(pd.DataFrame({
            "agent": agent.name, "episode": np.arange(len(batch)), "policy": batch.policy,
            "seed": batch.episode_seed, "return": batch.rewards.sum(axis=1), "length": batch.lengths,
            "slow_frames": steps.groupby("episode")["slow"].sum().reindex(np.arange(len(batch)), fill_value=0).to_numpy(),
            "bugs_spotted": counts, "spotted": [" ".join(map(str, sorted(s))) for s in spotted],
        }))
        points = _points(agent, steps, bins, cfg, t_ms)
        point_frames.append(points.drop(columns="key"))
        low = points.loc[points["low_fps"], "key"].to_numpy()
        at_low = steps.loc[steps["key"].isin(low), "frame_ms"].to_numpy()
        violins[agent.name] = at_low
        samples["frame ms at low-FPS points"][agent.name] = at_low
        samples["bugs spotted per episode"][agent.name] = counts.astype(np.float64)
        row: dict[str, Any] = {
            "agent": agent.name, "run_dir": str(agent.run_dir), "policies": len(agent.ids),
            "temperature": agent.temperature if agent.kind.evolves else np.nan,
            "episodes": len(batch), "mean_return": float(batch.rewards.sum(axis=1).mean()),
            "mean_length": float(batch.lengths.mean()), "threshold_ms": t_ms, "calibration": calibration,
            "slow_frames": int(steps["slow"].sum()), "low_fps_points": int(len(low)),
            "median_ms_at_low_fps": float(np.median(at_low)) if at_low.size else np.nan,
        }
        for n in range(1, injected + 1):
            row[f"at_least_{n}"] = int((counts >= n).sum())
        row["seconds"] = round(agent.seconds, 1)
        table_rows.append(row)
    if not injected:
        del samples["bugs spotted per episode"]
    table = pd.DataFrame(table_rows)
    episodes_df = pd.concat(episode_frames, ignore_index=True)
    points_df = pd.concat(point_frames, ignore_index=True)
    pairwise = pairwise_table(samples)
    files = [out / "evaluation.csv", out / "episodes.csv", out / "low_fps_points.csv", out / "pairwise.csv"]
    for df, path in zip((table, episodes_df, points_df, pairwise), files):
        df.to_csv(path, index=False)
    from evo.report.plots import frame_time_violins

    files.append(frame_time_violins(violins, t_ms, out / "frame_times.png"))
    return Evaluation(table, episodes_df, points_df, pairwise, t_ms, calibration, injected, files)
