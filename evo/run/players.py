"""The agent of a finished run, and how it plays fresh episodes: what any study of trained
agents starts from (RELINE's Table 1 in :mod:`evo.report.studies.reline`).

A run directory's agent is the policy of its final population that is best on one objective
(re-chosen on fresh episodes with :func:`rescore`, since the checkpoint's scores come from a
few episodes), or its whole Pareto front taking turns; a random-search run plays uniformly
random actions. Episodes are played in tasks of :data:`BATCH_EPISODES`, a wave of workers at
a time, with progress after each wave.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from evo.run import rundir
from evo.search.agents import AgentKind
from evo.run.built import Built
from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.config import load_experiment
from evo.run.device import on_this_machine
from evo.run.parallel import Executor
from evo.search.tasks import PlayTask, run_play
from games.core.record import RolloutBatch
from games.common.seeds import EPISODE_SEED_MAX

BATCH_EPISODES = 50
"""Episodes one task plays at once (the vector game's copies): large enough for one forward
pass to cover many episodes, small enough that a game with heavy copies (a ViZDoom engine
each) fits in memory."""


class EvaluationError(ValueError):
    """Bad input to :func:`evaluate`: one line naming what is wrong."""


@dataclass
class RunPlayer:
    """The player of an evaluated run: its directory, its agents (``kind.spec(genomes)``) and what they did.

    Its ``built`` is the caller's to close (``with player.built:``).
    """

    name: str
    run_dir: Path
    built: Built
    kind: AgentKind
    genomes: np.ndarray
    ids: np.ndarray
    temperature: float = 1.0
    rollouts: RolloutBatch | None = None
    seconds: float = 0.0
    candidates: tuple[np.ndarray, np.ndarray] | None = None



ProgressFn = Callable[[str], None]


def pick(built: Built, F: np.ndarray, select: str, objective: str | None) -> np.ndarray:
    """Indices of the final population that play: the best on one objective, or the front."""
    names = [o.name for o in built.objectives]
    senses = [o.sense for o in built.objectives]
    if select == "front":
        from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

        from evo.search.operators import to_minimisation

        return np.sort(NonDominatedSorting().do(to_minimisation(F, senses), only_non_dominated_front=True))
    name = objective or next((o.name for o in built.objectives if o.ranks_players), names[0])
    if name not in names:
        raise EvaluationError(f"--objective {name!r} is not an objective of this run ({', '.join(names)})")
    k = names.index(name)
    # Lexicographic: the chosen objective first, then the others in YAML order; the first
    # index wins ties, so the choice is the same on every machine.
    keys = [F[:, j] * (-1.0 if senses[j] == "max" else 1.0) for j in range(F.shape[1]) if j != k]
    order = np.lexsort((*reversed(keys), F[:, k] * (-1.0 if senses[k] == "max" else 1.0)))
    return order[:1]


def load_player(run_dir: Path, select: str = "best", objective: str | None = None) -> RunPlayer:
    """The player of a run directory: its config, game and chosen final policies."""
    if not (run_dir / rundir.CONFIG).is_file():
        raise EvaluationError(f"{run_dir}: not a run directory (no {rundir.CONFIG})")
    ckpt_path = latest_checkpoint(run_dir)
    if ckpt_path is None:
        raise EvaluationError(f"{run_dir}: no checkpoint (not one generation finished)")
    exp = on_this_machine(load_experiment(run_dir / rundir.CONFIG))
    built = Built.from_experiment(exp, cells_from=run_dir)
    with contextlib.ExitStack() as failing:  # closed here unless handed on with the player
        failing.enter_context(built)
        ckpt = load_checkpoint(ckpt_path)
        for obj, state in zip(built.objectives, ckpt.meta.get("objectives", [])):
            if state is not None:
                obj.load_state_dict(state)  # the thresholds the run had calibrated
        rows = pick(built, ckpt.F, select, objective) if built.agents.evolves else np.arange(1)  # random: all alike
        failing.pop_all()
    player = RunPlayer(exp.name, run_dir, built, built.agents, ckpt.genomes[rows], ckpt.policy_ids[rows])
    player.candidates = (ckpt.genomes, ckpt.policy_ids)
    return player


def rescore(agent: RunPlayer, executor: Executor, episodes: int, seed: int, objective: str | None,
            progress: ProgressFn | None = None) -> None:
    """Choose the ``best`` policy again on fresh episodes: every final policy plays
    ``episodes`` episodes and is scored by the run's objectives (with the thresholds the run
    calibrated). The checkpoint's scores come from the few episodes of the last generation,
    and a lucky one wins there; this is the validation step before the evaluation."""
    genomes, ids = agent.candidates
    if not agent.kind.evolves or len(ids) < 2 or episodes < 1:
        return
    rng = np.random.default_rng(seed)
    task = PlayTask(agent.built.factory, agent.kind.spec(genomes, agent.temperature), ids,
                    rng.integers(0, EPISODE_SEED_MAX, size=len(ids)), episodes)
    batch = play_tasks(executor, [task], progress, f"{agent.name}: choosing among {len(ids)} final policies")
    F = np.array([[obj.score(batch[p * episodes:(p + 1) * episodes]) for obj in agent.built.objectives]
                  for p in range(len(ids))])
    rows = pick(agent.built, F, "best", objective)
    agent.genomes, agent.ids = genomes[rows], ids[rows]


def load_baseline(run_dir: Path, select: str, objective: str | None, first: RunPlayer) -> RunPlayer:
    """The agent whose warm-up episodes calibrate the threshold: RELINE's RL baseline.

    It is chosen by the rules of the evaluated agents (``select``, ``objective``), and must
    play their game (the same factory): frame times of another game say nothing about
    which of this game's frames are slow.
    """
    base = load_player(run_dir, select, objective)
    with contextlib.ExitStack() as failing:  # closed here unless handed on with the player
        failing.enter_context(base.built)
        if base.built.factory.played() != first.built.factory.played():
            raise EvaluationError(f"baseline {run_dir} plays {base.built.factory!r}, expected "
                                  f"{first.built.factory!r} (the game of {first.name})")
        failing.pop_all()
    return base


def episode_tasks(agent: RunPlayer, episodes: int, seed: int) -> list[PlayTask]:
    """``episodes`` episodes of the agent's policies, taking turns, in batches."""
    rng = np.random.default_rng(seed)
    tasks = []
    start = 0
    while start < episodes:
        n = min(BATCH_EPISODES, episodes - start)
        # Policy i plays the batch's episodes i, i + P, ...: one task per policy that plays.
        for i in range(len(agent.ids)):
            count = len(range(i, n, len(agent.ids)))
            if count:
                tasks.append(PlayTask(
                    agent.built.factory, agent.kind.spec(agent.genomes[i : i + 1], agent.temperature),
                    agent.ids[i : i + 1], rng.integers(0, EPISODE_SEED_MAX, size=1), count,
                ))
        start += n
    return tasks


def play_tasks(executor: Executor, tasks: Sequence[PlayTask], progress: ProgressFn | None, label: str) -> RolloutBatch:
    """Play the tasks a wave of ``executor.parts`` at a time, telling progress after each."""
    out: list[RolloutBatch] = []
    total = sum(t.episodes for t in tasks)
    done = 0
    wave = max(executor.parts, 1)
    for i in range(0, len(tasks), wave):
        part = tasks[i : i + wave]
        out += [r.rollouts for r in executor.map(run_play, part)]
        done += sum(t.episodes for t in part)
        if progress is not None:
            progress(f"{label}: {done}/{total} episodes")
    return RolloutBatch.concat(out)
