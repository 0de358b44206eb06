"""The generation loop: seeded runs repeat, killed runs resume as if never stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evo.run.config import parse_experiment
from evo.report.tables import load_run
from evo.run.rundir import MEASURED
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve

# Columns that measure this machine rather than the search.
TIMING = list(MEASURED)


def run(config: dict[str, Any], out: Path, **kwargs: Any) -> Evolve:
    search = Evolve(parse_experiment(config), out, **kwargs)
    search.run()
    return search


def comparable_bugs(run_dir: Path) -> pd.DataFrame:
    bugs = load_run(run_dir).bugs
    return bugs[["id", "kind", "signature", "generation", "env_steps", "policy", "seed", "actions", "injected_id"]]


def comparable_generations(run_dir: Path) -> pd.DataFrame:
    return load_run(run_dir).generations.drop(columns=TIMING)


def test_run_writes_the_run_directory(tiny_config, tmp_path: Path) -> None:
    out = tmp_path / "run"
    search = run(tiny_config, out)
    data = load_run(out)
    assert (out / "config.yaml").is_file()
    assert list(data.generations["generation"]) == [0, 1, 2, 3]
    for column in ["env_steps", "winning_mean", "winning_max", "coverage_mean", "coverage_max",
                   "coverage", "bugs_total", "bugs_crash", "bugs_stuck", "bugs_logic",
                   "bugs_performance", "hypervolume", "injected_found"]:
        assert column in data.generations
    assert data.generations["env_steps"].is_monotonic_increasing
    # The run's own resident memory per generation, in MiB: at least the Python and torch it
    # imported; the tiny config plays serially, so it started no process to count.
    assert (data.generations["rss_mb"] > 50).all()
    assert (data.generations["rss_children_mb"] >= 0).all()
    assert len(data.bugs) == data.generations["bugs_total"].iloc[-1] > 0
    assert data.bugs["signature"].is_unique
    # checkpoint.keep (3): the newest three of the four generations.
    assert sorted(p.name for p in (out / "checkpoints").glob("*")) == [
        "gen_00001.pt", "gen_00002.pt", "gen_00003.pt"]
    assert search.population is not None and len(search.population.ids) == 6


def test_same_seed_same_results(tiny_config, tmp_path: Path) -> None:
    run(tiny_config, tmp_path / "a")
    run(tiny_config, tmp_path / "b")
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "a"), comparable_generations(tmp_path / "b"))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "a"), comparable_bugs(tmp_path / "b"))


def test_other_seed_other_results(tiny_config, tmp_path: Path) -> None:
    run(tiny_config, tmp_path / "a")
    tiny_config["seed"] = 4
    run(tiny_config, tmp_path / "b")
    a, b = comparable_generations(tmp_path / "a"), comparable_generations(tmp_path / "b")
    assert not a.equals(b)


class Kill(Exception):
    pass


def test_killed_run_resumes_as_if_uninterrupted(tiny_config, tmp_path: Path) -> None:
    run(tiny_config, tmp_path / "whole")

    def kill_after_generation_1(report: GenerationReport) -> None:
        if report.generation == 1:
            raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        run(tiny_config, killed, progress=kill_after_generation_1)
    # A kill can land after bugs of the next generation were written: they must be redone.
    first = json.loads((killed / "bugs.jsonl").read_text().splitlines()[0])
    with (killed / "bugs.jsonl").open("a") as fh:
        fh.write(json.dumps({**first, "id": 999, "generation": 2, "signature": "later"}) + "\n")
        fh.write('{"id": 1000, "generation": 2, "ki')  # a line cut by the kill

    Evolve(parse_experiment(tiny_config), killed).run(resume=True)
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))


def test_env_step_budget_stops_the_run(tiny_config, tmp_path: Path) -> None:
    tiny_config["budget"] = {"env_steps": 1500}
    run(tiny_config, tmp_path / "r")
    gens = load_run(tmp_path / "r").generations
    assert gens["env_steps"].iloc[-1] >= 1500
    assert (gens["env_steps"].iloc[:-1] < 1500).all()


def test_random_policy_baseline_runs(tiny_config, tmp_path: Path) -> None:
    tiny_config["search"]["agent"] = "random"
    tiny_config["finetune"] = {"algorithm": "none"}
    run(tiny_config, tmp_path / "r")
    data = load_run(tmp_path / "r")
    assert len(data.generations) == 4 and data.generations["coverage"].iloc[-1] > 1


def test_a_crashing_gymnasium_game_is_a_finding(tiny_config, tmp_path: Path) -> None:
    tiny_config["game"] = {
        "entry_point": "tests.games.faulty_envs:LineWalk",
        "kwargs": {"fault": "raise", "at_position": 2},
    }
    tiny_config["oracles"] = [{"name": "crash"}]
    run(tiny_config, tmp_path / "r")
    data = load_run(tmp_path / "r")
    assert list(data.bugs["kind"]) == ["crash"]  # one bug, found once, the search went on
    assert len(data.generations) == 4


def test_parents_are_scored_again_when_an_objective_learns(tiny_config, tmp_path: Path) -> None:
    """An objective whose scores fall as it learns (RND novelty) would let the first
    generation's scores outrank every later child for good; with ``rescores_parents`` the
    survivors play again each generation, so the population's scores are this generation's."""
    import objectives.base as objectives_base
    from objectives.base import ObjectiveConfig
    from games.core.component import ComponentEntry
    from objectives.base import Objective

    class Fading(Objective):
        name, sense, rescores_parents = "fading", "max", True

        def __init__(self, spec, config, context) -> None:  # noqa: ANN001
            self.updates = 0

        def score(self, rollouts) -> float:  # noqa: ANN001
            return 100.0 / (1 + self.updates) + 0.001 * float(rollouts.rewards.sum())

        def update(self, rollouts) -> None:  # noqa: ANN001
            self.updates += 1

    objectives_base.OBJECTIVES["fading"] = ComponentEntry(ObjectiveConfig, Fading)
    try:
        tiny_config["objectives"] = [{"name": "fading"}]
        tiny_config["budget"] = {"generations": 3}
        tiny_config["search"]["hv_ref"] = [0]
        run(tiny_config, tmp_path / "run")
    finally:
        del objectives_base.OBJECTIVES["fading"]
    maxima = load_run(tmp_path / "run").generations["fading_max"].tolist()
    # Generation g is scored after g updates: 100, 50, 33; a stale parent would keep 100.
    assert maxima[0] > 99 and maxima[1] < 51 and maxima[2] < 34, maxima


@pytest.mark.parametrize("fault, confirm, reported", [
    ("slow", 5, True), ("hiccup", 5, False), ("hiccup", 0, True)])
def test_a_slow_frame_is_reported_where_its_replays_are_slow_again(
        tiny_config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, confirm: int,
        reported: bool) -> None:
    """A place slow at every visit is reported, with its replays; a hiccup that does not come
    back (the first arrivals of the run, slow, then never) is dropped once its replays are
    ordinary, and reported without them (``confirm_replays: 0``, RELINE's rule alone)."""
    from tests.games import faulty_envs

    monkeypatch.setitem(faulty_envs._hiccups, "left", faulty_envs.HICCUPS)
    tiny_config["game"] = {"entry_point": "tests.games.faulty_envs:LineWalk", "isolated": False,
                           "kwargs": {"fault": fault, "at_position": 3, "frame_ms": 1.0, "slip": 0.3}}
    tiny_config["oracles"] = [{"name": "performance", "kwargs": {"confirm_replays": confirm}}]
    tiny_config["finetune"] = {"algorithm": "none"}
    # The hiccups are the first arrivals in this process: bug_replays auto's check would play them
    # before the run does.
    tiny_config["bug_replays"] = 0
    run(tiny_config, tmp_path / "r")
    bugs = load_run(tmp_path / "r").bugs
    assert len(bugs) == int(reported)
    if reported:
        assert bugs["message"][0].endswith("slow again in 5 of 5 replays") == (confirm == 5)
