"""Return, then explore: returns land in the archived cell, bugs found after a return replay,
a game that does not replay is caught, and go_explore runs resume as if uninterrupted."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import pytest

from evo.search.agents import UniformSpec
from evo.run.config import ConfigError, parse_experiment
from evo.search.explore.frontier import Frontier, Plan
from evo.bugs.replay import replay
from evo.search.play import draw_episodes, play
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve
from games.core.base import GameSpec, VecStep
from games.maze.block_maze import BlockMazeVector
from games.core.record import RolloutBatch
from games.common.seeds import Stream, stream_rng
from tests.evo.run.test_loop import comparable_bugs, comparable_generations


def explore(game: Any, frontier: Frontier | None, policies: int, episodes: int, seed: int) -> tuple[RolloutBatch, Plan | None]:
    """One batch of uniform random play, returning where the frontier plans it."""
    spec = game.game_spec
    draws = draw_episodes(list(range(seed, seed + policies)), episodes, spec.max_steps, spec.n_actions)
    plan = None if frontier is None else frontier.plan(policies, episodes)
    agent_spec = UniformSpec() if plan is None else plan.spec(UniformSpec(), slice(None))
    seeds = draws.seeds if plan is None else np.where(plan.seeds >= 0, plan.seeds, draws.seeds)
    batch = play(game, seeds, np.zeros(len(seeds), dtype=np.int64), agent_spec.build(episodes, draws.gumbel)).rollouts
    return batch, plan


def test_a_return_lands_in_the_archived_cell_on_block_maze() -> None:
    game = BlockMazeVector(12, preset="small", maze_seed=0, inject_bugs=False)
    frontier = Frontier(game.game_spec, 0.5, stream_rng(0, Stream.EXPLORE))
    first, _ = explore(game, frontier, 3, 4, seed=0)
    frontier.observe(first, 0, first.env_steps)
    batch, plan = explore(game, frontier, 3, 4, seed=10)
    assert plan is not None and plan.copies.tolist() == [2, 3, 6, 7, 10, 11]  # the last 2 of each policy's 4
    archive = frontier.archive
    assert archive.landed(batch, plan.rows, plan.copies).all()
    for copy, row in zip(plan.copies, plan.rows):
        length = int(archive.columns["length"][row])
        np.testing.assert_array_equal(batch.actions[copy, :length], archive.prefixes[row])  # the prefix played
        np.testing.assert_array_equal(batch.features[copy, length], archive.features[row])  # the cell reached
        assert batch.episode_seed[copy] == archive.columns["seed"][row]
        assert batch.lengths[copy] == game.game_spec.max_steps  # exploring went on after the prefix
    assert frontier.observe(batch, 1, first.env_steps + batch.env_steps, plan) >= len(archive)
    assert frontier.replays and archive.columns["chosen"].sum() == 6


class DriftingLine:
    """A walk on a line that starts 10 to the right on every second reset, whatever the
    seed: the same seed and actions do not lead to the same place (not deterministic)."""

    def __init__(self, n: int) -> None:
        self.num_envs = n
        self.game_spec = GameSpec((1,), 2, ("x",), (-20.0,), (20.0,), (40,), 8)
        self.resets = 0
        self.x = np.zeros(n)

    def _obs(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x[:, None].astype(np.float32), self.x[:, None].copy()

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        self.x = np.full(self.num_envs, 10.0 * (self.resets % 2))
        self.resets += 1
        return self._obs()

    def step(self, actions: np.ndarray) -> VecStep:
        self.x = self.x + np.where(np.asarray(actions) == 1, 1.0, -1.0)
        obs, features = self._obs()
        n = self.num_envs
        return VecStep(obs, np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), features)

    def close(self) -> None:
        pass


class SlippingLine(DriftingLine):
    """The line, where the first copy's reset slips one step to the right, whatever the seed:
    some returns miss their cell by one, as in a game with sticky inputs."""

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        self.x = np.zeros(self.num_envs)
        self.x[0] = 1.0
        return self._obs()


def test_returns_that_miss_now_and_then_explore_from_where_they_landed(caplog: pytest.LogCaptureFixture) -> None:
    game = SlippingLine(4)
    frontier = Frontier(game.game_spec, 1.0, stream_rng(0, Stream.EXPLORE))
    first, _ = explore(game, frontier, 2, 2, seed=0)
    frontier.observe(first, 0, first.env_steps)
    with caplog.at_level(logging.WARNING, logger="evo.search.explore.frontier"):
        for generation in (1, 2, 3):
            batch, plan = explore(game, frontier, 2, 2, seed=5 * generation)
            assert plan is not None  # returns go on
            frontier.observe(batch, generation, 64, plan)
    (record,) = caplog.records  # said once
    assert "did not replay to its archived cell in" in record.getMessage()
    assert "explore from where they landed" in record.getMessage()
    assert frontier.replays and frontier.returns == 12 and 6 <= frontier.landings < 12
    again = Frontier(game.game_spec, 1.0, stream_rng(0, Stream.EXPLORE))
    again.load_state_dict(frontier.state_dict())
    assert (again.returns, again.landings, again.replays) == (12, frontier.landings, True)


def test_a_game_that_does_not_replay_is_caught_on_the_first_return(caplog: pytest.LogCaptureFixture) -> None:
    game = DriftingLine(4)
    frontier = Frontier(game.game_spec, 1.0, stream_rng(0, Stream.EXPLORE))
    first, _ = explore(game, frontier, 2, 2, seed=0)
    frontier.observe(first, 0, first.env_steps)
    batch, plan = explore(game, frontier, 2, 2, seed=5)
    assert plan is not None
    before = len(frontier.archive)
    with caplog.at_level(logging.WARNING, logger="evo.search.explore.frontier"):
        frontier.observe(batch, 1, 64, plan)
    (record,) = caplog.records
    assert "did not replay to its archived cell in 4 of 4 returns" in record.getMessage()
    assert "\n" not in record.getMessage() and not frontier.replays
    assert frontier.plan(2, 2) is None  # from now on every episode starts from the reset
    assert len(frontier.archive) > before  # the episodes still count as play: x from 10 is new


def test_go_explore_needs_random_play(tiny_config: dict[str, Any]) -> None:
    tiny_config["search"]["strategy"] = "go_explore"
    with pytest.raises(ConfigError, match="search: .*go_explore explores with random actions; set agent: random"):
        parse_experiment(tiny_config)
    tiny_config["search"].update(agent="random", frontier_share=0.5)
    with pytest.raises(ConfigError, match="frontier_share applies to strategy evolve"):
        parse_experiment(tiny_config)
    tiny_config["search"].update(strategy="evolve", frontier_share=1.5)
    with pytest.raises(ConfigError, match="search.frontier_share: .*less than or equal to 1"):
        parse_experiment(tiny_config)


def go_explore(config: dict[str, Any]) -> dict[str, Any]:
    config["search"].update(policy="random", strategy="go_explore")
    config["finetune"] = {"algorithm": "none"}
    config["budget"] = {"generations": 5}
    return config


def test_bugs_found_after_a_return_replay(tiny_config: dict[str, Any], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    plans: list[Plan] = []
    plan = Frontier.plan

    def keep(self: Frontier, policies: int, episodes: int) -> Plan | None:
        made = plan(self, policies, episodes)
        if made is not None:
            plans.append(made)
        return made

    monkeypatch.setattr(Frontier, "plan", keep)
    Evolve(parse_experiment(go_explore(tiny_config)), tmp_path / "run").run()
    returns = {(int(p.seeds[c]), tuple(p.prefixes[c].tolist())) for p in plans for c in p.copies if len(p.prefixes[c])}
    bugs = [json.loads(line) for line in (tmp_path / "run" / "bugs.jsonl").read_text().splitlines()]
    after = [b for b in bugs if b["kind"] != "performance"
             and any(seed == b["seed"] and tuple(b["actions"][: len(pre)]) == pre and len(b["actions"]) > len(pre)
                     for seed, pre in returns)]
    assert after, "no bug was found after a return"
    for bug in after:
        assert replay(tmp_path / "run", bug["id"]).reproduced
    generations = pd.read_csv(tmp_path / "run" / "generations.csv")
    assert generations["cells"].is_monotonic_increasing and generations["cells"].iloc[-1] > generations["cells"].iloc[0]


class Kill(Exception):
    pass


def assert_resumes_as_if_uninterrupted(config: dict[str, Any], root: Path, killed_after: int) -> None:
    """Run ``config`` whole into ``root/whole``, and killed after generation ``killed_after``
    then resumed into ``root/killed``: the same generations and bugs."""
    Evolve(parse_experiment(config), root / "whole").run()

    def kill(report: GenerationReport) -> None:
        if report.generation == killed_after:
            raise Kill

    with pytest.raises(Kill):
        Evolve(parse_experiment(config), root / "killed", progress=kill).run()
    Evolve(parse_experiment(config), root / "killed").run(resume=True)
    pd.testing.assert_frame_equal(comparable_generations(root / "whole"), comparable_generations(root / "killed"))
    pd.testing.assert_frame_equal(comparable_bugs(root / "whole"), comparable_bugs(root / "killed"))


def test_a_go_explore_run_resumes_as_if_uninterrupted(tiny_config: dict[str, Any], tmp_path: Path) -> None:
    assert_resumes_as_if_uninterrupted(go_explore(tiny_config), tmp_path, killed_after=2)


def test_frontier_share_returns_the_last_episodes_of_each_policy(tiny_config: dict[str, Any], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """NSGA-II with frontier_share 0.5 and 2 episodes: each policy's second episode returns."""
    plans: list[Plan] = []
    plan = Frontier.plan
    monkeypatch.setattr(Frontier, "plan", lambda self, p, e: plans.append(plan(self, p, e)) or plans[-1])
    tiny_config["search"]["frontier_share"] = 0.5
    tiny_config["budget"] = {"generations": 3}
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    assert plans[0] is None  # the first generation has nothing to return to
    assert [p.copies.tolist() for p in plans[1:]] == [[1, 3, 5, 7, 9, 11]] * 2  # 6 offspring, 2 episodes
    assert "cells" in pd.read_csv(tmp_path / "run" / "generations.csv")


def test_a_run_can_stop_once_every_injected_bug_is_found(tiny_config: dict[str, Any], tmp_path: Path) -> None:
    config = go_explore(tiny_config)
    config["budget"] = {"generations": 400, "until_all_found": True}
    Evolve(parse_experiment(config), tmp_path / "run").run()
    generations = pd.read_csv(tmp_path / "run" / "generations.csv")
    injected = len(json.loads((tmp_path / "run" / "game.json").read_text())["injected_bugs"])
    assert generations["injected_found"].iloc[-1] == injected
    assert (generations["injected_found"].iloc[:-1] < injected).all()  # it stopped right there
    assert len(generations) < 400


def test_until_all_found_on_a_game_without_injected_bugs_runs_to_its_limits_unwarned(
        tiny_config: dict[str, Any], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The default experiment asks for it; a user's own game plugged into it must still run,
    and not stop at once because all of its zero bugs are found, nor warn about bugs the game
    was never meant to declare (issue 51)."""
    tiny_config["game"] = {"name": "montezuma"}
    tiny_config["oracles"] = [{"name": "crash"}]
    tiny_config["budget"] = {"generations": 2, "until_all_found": True}
    with caplog.at_level("WARNING", logger="evo.run.built"):
        Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    assert "injected bugs" not in caplog.text
    assert len(pd.read_csv(tmp_path / "run" / "generations.csv")) == 2
