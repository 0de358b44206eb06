"""PPGTA's evaluation of park testers: many episodes from random starts on a level no model saw.

PPGTA (Section VI, ``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) plays 45
episodes of 2000 steps with each agent on the large park, each from a uniformly random start,
and reports per agent the preferred-area coverage, the objects tested over the episodes
(Figure 8) and the success of the executed tests. ``evo study ppgta`` does that for run
directories:

1. **Agents.** Each input is one agent: a run of PPGTA's agent (``run: single_agent``,
   ``experiments/ppgta_park.yaml``) plays its kept actor (``policy.pt``); a run of an evolved
   population plays its final Pareto front, the members taking turns (one member for a
   single-objective run such as ``ppgta_park_novelty.yaml``); a random-search run, or the word
   ``random``, plays uniformly random actions. As in PPGTA (and Inspector before it), an agent
   whose game has the ``detect`` wrapper executes object tests: when the detector sees an
   object close, the object-test imitation policy (``--tests-weights``) takes over for a test
   and then hands back (:mod:`evo.search.agents.tester`). Random play executes none.
2. **The level.** Every agent plays its own run's game and wrappers, with the park's kwargs
   replaced by the study's: ``preset`` (large), ``level_seed``, ``max_steps`` and
   ``start: random``. Episode ``i`` has the same seed, so the same start, for every agent.
3. **Metrics**, from the state features and the objects in view (ground truth, never a
   policy's input), by the objects oracle's rules (its ``radius``, ``sectors``, ``degrees``):
   the share of the preferred area's cells visited, in an episode and over all of them; the
   objects tested (:func:`oracles.executed_tests.executed_tests`), per episode and over the
   episodes (``objects_tested_18`` after the first 18 of them, ``objects_tested_any_18`` after
   any 18, on average: the same count without the luck of which episodes come first); each
   executed test's Jensen-Shannon divergence from the demonstrated object tests' action
   distribution, a success when at most the threshold the object-test imitation policy
   set (``js_threshold`` and ``demonstrated`` in its weights' meta, ``--tests-weights``).
   PPGTA's success rate is "the ratio of correctly tested OOIs over the total OOIs" (Section
   VI-B; Inspector's 16% is its 40 of 247 objects tested): ``objects_succeeded_share``, the
   objects with at least one successful test over the episodes. ``test_success``, the share of
   executed tests that succeed, is stricter: an object passed many times counts every time.
4. **Explorer or tester.** For a tester, the objects it came close to (seen from within the
   radius; ``objects_close``, ``objects_close_18``) and what each test it started came to
   (``tests_new``, ``tests_repeated``, ``tests_failed``; :func:`oracles.executed_tests.start_outcomes`):
   an agent that comes close to most objects but tests few needs a better test policy or
   trigger, not a better explorer. ``test_steps_mean``: how long its tests played (a test
   ends when the test policy's end head says done, :mod:`games.perception.object_test_end`).

Outputs (``--out``): ``table.csv`` (one row per agent), ``episodes.csv`` (one row per
episode), ``tests.csv`` (one row per executed test), ``pairwise.csv`` (Mann-Whitney U,
Holm-adjusted, and Cliff's delta between agents on the per-episode metrics),
``objects_tested.png`` (PPGTA's Figure 8) and ``maps.png`` (each agent's walk from above).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from evo.report.stats import pairwise_table
from evo.report.studies.ppgta_figures import (draw_maps, draw_objects_tested, expected_over_episodes,
                                             objects_over_episodes)
from evo.run import rundir
from evo.run.built import Built
from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.config import Experiment, load_experiment
from evo.run.players import EvaluationError, pick
from evo.run.kinds.single_agent import POLICY
from evo.search.agents import AgentSpec, UniformSpec
from evo.search.agents.imitation import ImitationSpec
from evo.search.agents.tester import TesterSpec
from evo.search.play import draw_episodes, play
from games.core.record import RolloutBatch
from games.perception.imitation import OBJECT_TEST_WEIGHTS, load_policy
from games.perception.object_test_end import load_end
from oracles.executed_tests import (FAILED, NEW, REPEATED, close_views, execution_divergences, executed_tests,
                                    start_outcomes)

RANDOM = "random"
"""The input that names the uniform random agent without a run directory."""
IMITATION = "imitation"
"""The input that names the shipped path-following imitation policy (PPO's starting point in
``ppgta_park``), played on the game of the first run, whose observations must be frames."""
KEYWORDS = (IMITATION, RANDOM)

ProgressFn = Callable[[str], None]


@dataclass(frozen=True)
class StudyConfig:
    """The protocol (PPGTA's: 45 episodes of 2000 steps on the large park)."""

    episodes: int = 45
    steps: int = 2000
    preset: str = "large"
    level_seed: int = 100
    seed: int = 0
    batch: int = 5
    """Game copies played at once (each a ViZDoom engine)."""
    tests_weights: str | None = None
    """The object-test imitation policy: it executes the tests, and its meta sets the test
    success (None: the shipped policy)."""
    tester: bool = True
    """Agents whose game has the ``detect`` wrapper execute object tests (False: they only explore)."""
    near: int = TesterSpec.near
    test_steps: int = TesterSpec.test_steps
    cooldown: int = TesterSpec.cooldown
    learned_end: bool = TesterSpec.learned_end
    """The tester's trigger, longest test, cool-down and whether the test policy's end head ends
    tests (:class:`evo.search.agents.tester.TesterSpec`)."""


@dataclass
class StudyAgent:
    """One evaluated agent: how to build its players, on which game, and what it did."""

    name: str
    built: Built
    specs: list[AgentSpec]
    """Players taking turns: episode ``i`` is played by ``specs[i % len(specs)]``."""
    rollouts: list[RolloutBatch] = field(default_factory=list)
    started: list[list[list[int]] | None] = field(default_factory=list)
    """Per batch of rollouts, the steps at which a tester started object tests in each episode
    (None: not a tester)."""
    ended: list[list[list[int]] | None] = field(default_factory=list)
    """Per batch, the steps after each test's last action (a test the episode cut has none)."""
    seconds: float = 0.0


@dataclass
class Study:
    """Everything ``evo study ppgta`` writes, as DataFrames, and the files."""

    table: pd.DataFrame
    episodes: pd.DataFrame
    tests: pd.DataFrame
    pairwise: pd.DataFrame
    files: list[Path]


def _on_study_level(exp: Experiment, cfg: StudyConfig) -> Experiment:
    if exp.game.name != "doom_park":
        raise EvaluationError(f"{exp.name}: the PPGTA study plays the park (doom_park), not {exp.game.name}")
    kwargs = {**exp.game.kwargs, "preset": cfg.preset, "level_seed": cfg.level_seed, "max_steps": cfg.steps,
              "start": "random"}
    return exp.model_copy(update={"game": exp.game.model_copy(update={"kwargs": kwargs})})


def load_agent(source: str, cfg: StudyConfig, like: Experiment | None = None) -> StudyAgent:
    """The agent of a run directory (or ``random`` or ``imitation``, on the game of ``like``), on
    the study's level."""
    if source in KEYWORDS:
        if like is None:
            raise EvaluationError(f"{source} plays the game of a run directory: give at least one")
        exp = _on_study_level(like, cfg).model_copy(update={"name": source})
        if source == RANDOM:
            # Random play sees no frames: no wrappers, and so no detections for the visual
            # oracle to judge (the study scores by the objects oracle alone).
            exp = exp.model_copy(update={"game": exp.game.model_copy(update={"wrappers": []}),
                                         "oracles": [o for o in exp.oracles if o.name != "visual"]})
            return StudyAgent(RANDOM, Built.from_experiment(exp), [UniformSpec()])
        built = Built.from_experiment(exp)
        if len(built.spec.obs_shape) != 3:
            built.close()
            raise EvaluationError(f"imitation plays frames, and the first run ({like.name}) observes "
                                  f"{tuple(built.spec.obs_shape)}: give a run of ppgta_park first")
        return StudyAgent(IMITATION, built, _testers([ImitationSpec(tuple(built.spec.obs_shape))], exp, built, cfg))
    run_dir = Path(source)
    if not (run_dir / rundir.CONFIG).is_file():
        raise EvaluationError(f"{run_dir}: not a run directory (no {rundir.CONFIG}) and not one of "
                              f"{', '.join(map(repr, KEYWORDS))}")
    exp = _on_study_level(load_experiment(run_dir / rundir.CONFIG), cfg)
    built = Built.from_experiment(exp)
    with contextlib.ExitStack() as failing:  # closed here unless handed on with the agent
        failing.enter_context(built)
        if exp.run == "single_agent":
            if not (run_dir / POLICY).is_file():
                raise EvaluationError(f"{run_dir}: no {POLICY} (not one update finished)")
            specs: list[AgentSpec] = [ImitationSpec(tuple(built.spec.obs_shape), str(run_dir / POLICY))]
        elif not built.agents.evolves:
            specs = [UniformSpec()]
        else:
            path = latest_checkpoint(run_dir)
            if path is None:
                raise EvaluationError(f"{run_dir}: no checkpoint (not one generation finished)")
            ckpt = load_checkpoint(path)
            specs = [built.agents.spec(ckpt.genomes[i: i + 1]) for i in pick(built, ckpt.F, "front", None)]
        failing.pop_all()
    return StudyAgent(exp.name, built, _testers(specs, exp, built, cfg))


def _testers(specs: list[AgentSpec], exp: Experiment, built: Built, cfg: StudyConfig) -> list[AgentSpec]:
    """The players as testers where the game has the ``detect`` wrapper (and tests are on)."""
    if not cfg.tester or not any(w.name == "detect" for w in exp.game.wrappers):
        return specs
    frames = tuple(built.spec.obs_shape) if len(built.spec.obs_shape) == 3 else None
    camera = None if built.facts.scene is None else built.facts.scene.camera
    tilt = {} if camera is None else {"tilt": tuple(camera.tilt), "tilt_range": tuple(camera.tilt_range)}
    return [TesterSpec(s, frames, cfg.tests_weights, cfg.near, cfg.test_steps, cfg.cooldown,  # type: ignore[arg-type]
                       learned_end=cfg.learned_end, **tilt) for s in specs]


def _play(agent: StudyAgent, cfg: StudyConfig, progress: ProgressFn | None) -> None:
    """The agent's episodes, ``cfg.batch`` copies at a time; episode i seeded alike for every agent."""
    spec = agent.built.spec
    draws = draw_episodes([cfg.seed], cfg.episodes, spec.max_steps, spec.n_actions, stable_prefix=True)
    seeds, gumbel = draws.seeds.reshape(-1), draws.gumbel
    columns = frozenset({"info.visible"})
    start = time.perf_counter()
    games: dict[int, object] = {}
    try:
        for who, player in enumerate(agent.specs):
            mine = np.arange(who, cfg.episodes, len(agent.specs))
            for a in range(0, len(mine), cfg.batch):
                rows = mine[a: a + cfg.batch]
                if len(rows) not in games:
                    games[len(rows)] = agent.built.factory.make_vector(len(rows))
                game = games[len(rows)]
                acting = player.build(len(rows), gumbel[rows])
                batch = play(game, seeds[rows], [int(r) for r in rows], acting, columns=columns).rollouts
                agent.rollouts.append(batch)
                agent.started.append(getattr(acting, "starts", None))
                agent.ended.append(getattr(acting, "ends", None))
                if progress is not None:
                    progress(f"{agent.name}: {sum(len(b) for b in agent.rollouts)}/{cfg.episodes} episodes")
    finally:
        for game in games.values():
            game.close()  # type: ignore[attr-defined]
    agent.seconds = time.perf_counter() - start


def _objects_oracle(built: Built):  # -> oracles.objects_tested.ObjectsTested
    for oracle in built.oracles:
        if oracle.name == "objects":
            return oracle
    raise EvaluationError(f"{built.exp.name}: the study scores by the objects oracle; add it to the run's oracles")


def _episodes(agent: StudyAgent, demonstrated: np.ndarray, threshold: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per episode (in episode order) and one per executed test."""
    oracle = _objects_oracle(agent.built)
    cfg, preferred = oracle.config, oracle.preferred
    rows, tests = [], []
    for batch, started, ended in zip(agent.rollouts, agent.started, agent.ended):
        visible = batch.info["visible"]
        for i in range(len(batch)):
            n, episode = int(batch.lengths[i]), int(batch.policy[i])
            xy = batch.features[i, 1: n + 1, :2]
            cells = agent.built.spec.buckets(batch.features[i, : n + 1])[:, :2]
            walked = np.zeros(preferred.shape, dtype=bool)
            walked[cells[:, 0], cells[:, 1]] = True
            done = executed_tests(xy, visible[i, :n], oracle.index, oracle.xy, cfg.radius, cfg.sectors, cfg.degrees)
            views = list(close_views(xy, visible[i, :n], oracle.index, oracle.xy, cfg.radius, cfg.sectors))
            lengths = None if started is None or ended is None else _test_lengths(started[i], ended[i], n)
            outcomes = None if lengths is None else start_outcomes(started[i], done, views, lengths)
            js = execution_divergences(batch.actions[i, :n], done, demonstrated)
            for test, d in zip(done, js):
                tests.append({"agent": agent.name, "episode": episode, "object": oracle.objects[test.object].id,
                              "start": test.start, "end": test.end, "js": float(d), "success": bool(d <= threshold)})
            rows.append({"agent": agent.name, "episode": episode, "steps": n,
                         "start_x": float(batch.features[i, 0, 0]), "start_y": float(batch.features[i, 0, 1]),
                         "preferred_coverage": float((walked & preferred).sum() / preferred.sum()),
                         "objects_close": len({k for _, k, _ in views}),
                         "objects_tested": len(done), "tests_started": -1 if outcomes is None else len(outcomes),
                         **{f"tests_{kind}": -1 if outcomes is None else outcomes.count(kind)
                            for kind in (NEW, REPEATED, FAILED)},
                         "steps_testing": -1 if lengths is None else int(sum(lengths)),
                         "tests_succeeded": int((js <= threshold).sum()),
                         "test_success": float((js <= threshold).mean()) if len(js) else np.nan,
                         "_cells": walked,
                         "_tested": [oracle.objects[t.object].id for t in done],
                         "_close": [oracle.objects[k].id for k in {k for _, k, _ in views}],
                         "_succeeded": [oracle.objects[t.object].id for t, d in zip(done, js) if d <= threshold],
                         "_xy": batch.features[i, : n + 1, :2]})
    episodes = pd.DataFrame(rows).sort_values("episode", kind="stable").reset_index(drop=True)
    return episodes, pd.DataFrame(tests, columns=["agent", "episode", "object", "start", "end", "js", "success"])


def _test_lengths(starts: list[int], ends: list[int], steps: int) -> list[int]:
    """Steps each started test played in an episode of ``steps`` (a test the episode cut: to its end)."""
    return [e - s for s, e in zip(starts, ends)] + [steps - s for s in starts[len(ends):]]


def _summary(agent: StudyAgent, episodes: pd.DataFrame, tests: pd.DataFrame, n_objects: int,
             preferred: np.ndarray) -> dict:
    over, close = objects_over_episodes(episodes), objects_over_episodes(episodes, "_close")
    union = np.logical_or.reduce(list(episodes["_cells"])) & preferred
    within = over[min(17, len(over) - 1)]
    expected = expected_over_episodes(episodes)[min(17, len(over) - 1)]
    succeeded = len(set().union(*episodes["_succeeded"]))
    tester = bool((episodes["tests_started"] >= 0).all())
    return {
        "agent": agent.name, "episodes": len(episodes), "steps": int(episodes["steps"].sum()),
        "seconds": round(agent.seconds, 1),
        "preferred_coverage": float(union.sum() / preferred.sum()),
        "preferred_coverage_episode": float(episodes["preferred_coverage"].mean()),
        "objects": n_objects, "objects_tested": int(over[-1]),
        "objects_tested_share": float(over[-1] / n_objects),
        "objects_tested_18": int(within), "objects_tested_18_share": float(within / n_objects),
        "objects_tested_any_18": float(expected), "objects_tested_any_18_share": float(expected / n_objects),
        "objects_close": int(close[-1]), "objects_close_18": int(close[min(17, len(close) - 1)]),
        **{f"tests_{kind}": int(episodes[f"tests_{kind}"].sum()) if tester else np.nan
           for kind in ("started", NEW, REPEATED, FAILED)},
        "test_steps_mean": float(episodes["steps_testing"].sum() / max(1, episodes["tests_started"].sum()))
        if tester else np.nan,
        "tests": len(tests), "tests_succeeded": int(tests["success"].sum()) if len(tests) else 0,
        "test_success": float(tests["success"].mean()) if len(tests) else np.nan,
        "objects_succeeded": succeeded, "objects_succeeded_share": float(succeeded / n_objects),
    }


def study(sources: Sequence[str], cfg: StudyConfig, out: Path, progress: ProgressFn | None = None) -> Study:
    """Play and score every agent (see the module) and write the outputs to ``out``.

    Raises:
        EvaluationError: an input that is neither a run directory nor ``random``, a run of
            another game, a run without its agent, or bad settings.
    """
    if cfg.episodes < 1 or cfg.steps < 1 or cfg.batch < 1:
        raise EvaluationError(f"episodes, steps and batch must be at least 1, got {cfg.episodes}, {cfg.steps}, "
                              f"{cfg.batch}")
    if cfg.near < 1 or cfg.test_steps < 1 or cfg.cooldown < 0:
        raise EvaluationError(f"--near and --test-steps must be at least 1 and --cooldown at least 0, got "
                              f"{cfg.near}, {cfg.test_steps}, {cfg.cooldown}")
    try:
        _, meta = load_policy(cfg.tests_weights or OBJECT_TEST_WEIGHTS)
    except ValueError as exc:
        raise EvaluationError(f"--tests-weights: {exc}") from None
    if cfg.tester and cfg.learned_end and load_end(cfg.tests_weights) is None:
        raise EvaluationError(f"--tests-weights: {cfg.tests_weights} has no test end (add one: evo vision train "
                              f"test-end --weights {cfg.tests_weights} --demos DIR; or give --fixed-end)")
    demonstrated, threshold = np.asarray(meta["demonstrated"], dtype=np.float64), float(meta["js_threshold"])
    runs = [s for s in sources if s not in KEYWORDS]
    if len(set(sources)) != len(sources):
        raise EvaluationError("each agent once: an input is given twice")
    agents: list[StudyAgent] = []
    try:
        like = None
        for source in [*runs, *(s for s in sources if s in KEYWORDS)]:
            agents.append(load_agent(source, cfg, like))
            like = like or agents[0].built.exp
        names = [a.name for a in agents]
        if len(set(names)) != len(names):
            raise EvaluationError(f"two agents share a name ({', '.join(names)}): give runs of different experiments")
        per_episode, per_test, rows = [], [], []
        for agent in agents:
            _play(agent, cfg, progress)
            episodes, tests = _episodes(agent, demonstrated, threshold)
            oracle = _objects_oracle(agent.built)
            rows.append(_summary(agent, episodes, tests, len(oracle.objects), oracle.preferred))
            per_episode.append(episodes)
            per_test.append(tests)
        scene = _objects_oracle(agents[0].built)
    finally:
        for agent in agents:
            agent.built.close()
    episodes = pd.concat(per_episode, ignore_index=True)
    tests = pd.concat(per_test, ignore_index=True)
    samples = {metric: {a: episodes.loc[episodes["agent"] == a, metric].dropna().to_numpy() for a in names}
               for metric in ("preferred_coverage", "objects_tested", "test_success")}
    hidden = ["_cells", "_tested", "_close", "_succeeded", "_xy"]
    result = Study(pd.DataFrame(rows), episodes.drop(columns=hidden), tests,
                   pairwise_table(samples), [])
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in (("table", result.table), ("episodes", result.episodes), ("tests", result.tests),
                        ("pairwise", result.pairwise)):
        frame.to_csv(out / f"{name}.csv", index=False)
        result.files.append(out / f"{name}.csv")
    result.files.append(draw_objects_tested(episodes, len(scene.objects), out / "objects_tested.png"))
    result.files.append(draw_maps(episodes, scene, agents[0].built.facts, out / "maps.png"))
    return result
