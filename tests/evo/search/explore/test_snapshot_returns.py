"""Returns by snapshot: a return restores the game as it was on the way to its cell and plays
only the steps after, what it finds replays from the reset, a game whose snapshot plays on
differently (or cannot be taken) returns by replay, and a run resumes with its snapshots."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evo.bugs.replay import replay
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from evo.search.agents import UniformSpec
from evo.search.explore.frontier import Frontier
from evo.search.explore.snapshot_check import snapshot_every
from evo.search.play import draw_episodes, play
from evo.search.probe import reached_states
from games.adapter.spec import with_learned_cells
from games.adapter.vector_game import GymVectorGame
from games.common.seeds import Stream, stream_rng
from games.registry import GameFactory
from oracles.base import Bug
from tests.evo.search.explore.test_returns import assert_resumes_as_if_uninterrupted
from tests.games.two_room_envs import TwoRooms

ROOMS = "tests.games.two_room_envs:TwoRooms"


def random_play(game: GymVectorGame, frontier: Frontier, policies: int, episodes: int, seed: int):
    """One batch of uniform random play, each copy returning where the frontier plans it."""
    spec = game.game_spec
    draws = draw_episodes(list(range(seed, seed + policies)), episodes, spec.max_steps, spec.n_actions)
    plan = frontier.plan(policies, episodes)
    agent = UniformSpec() if plan is None else plan.spec(UniformSpec(), slice(None))
    seeds = draws.seeds if plan is None else np.where(plan.seeds >= 0, plan.seeds, draws.seeds)
    batch = play(game, seeds, np.zeros(len(seeds), dtype=np.int64), agent.build(episodes, draws.gumbel),
                 starts=None if plan is None else plan.starts, heads=None if plan is None else plan.heads,
                 snapshot_every=frontier.snapshot_every).rollouts
    return batch, plan


@pytest.mark.parametrize("step_timeout_s", [None, 10.0], ids=["in-process", "isolated"])
def test_a_return_restores_the_snapshot_before_its_cell_and_its_bugs_replay_from_the_reset(
        step_timeout_s: float | None) -> None:
    with GymVectorGame(TwoRooms, 12, step_timeout_s=step_timeout_s) as game:
        first, _ = random_play(game, Frontier(game.game_spec, 1.0, np.random.default_rng(0), 10), 3, 4, seed=0)
        # every copy sent the game's state after steps 10, 20, ..., 90 (none after its last)
        assert [sorted(taken) for taken in first.snapshots] == [list(range(10, 100, 10))] * 12
        spec = with_learned_cells(game.game_spec, reached_states(first))
        frontier = Frontier(spec, 1.0, stream_rng(0, Stream.EXPLORE), snapshot_every=10)
        frontier.observe(first, 0, first.env_steps)
        archive = frontier.archive
        deep = archive.columns["length"] >= 10
        assert (archive.columns["snap"][deep] >= 0).all() and (archive.columns["snap"][~deep] < 0).all()
        assert (archive.columns["length"] - archive.columns["snap_at"] < 10).all()

        batch, plan = random_play(game, frontier, 3, 4, seed=10)
    restored = [(c, r) for c, r in zip(plan.copies, plan.rows) if plan.starts[c] is not None]
    assert restored, "no return restored a snapshot"
    assert archive.landed(batch, plan.rows, plan.copies).all()
    for copy, row in restored:
        at, length = int(archive.columns["snap_at"][row]), int(archive.columns["length"][row])
        assert batch.starts()[copy] == at
        np.testing.assert_array_equal(batch.head[copy], archive.prefixes[row][:at])
        np.testing.assert_array_equal(batch.actions[copy, : length - at], archive.prefixes[row][at:])
        np.testing.assert_array_equal(batch.features[copy, length - at], archive.features[row])
        assert batch.lengths[copy] == TwoRooms.max_steps - at  # the horizon still counts from the reset
        # A report at its last step replays from the reset: the same place, the same step.
        bug = Bug.at_step(batch[copy], int(batch.lengths[copy]) - 1, kind="logic", oracle="test", signature="s",
                          message="m")
        assert bug.step == TwoRooms.max_steps - 1 and len(bug.actions) == TwoRooms.max_steps
        env = TwoRooms()
        env.reset(seed=bug.episode_seed)
        for action in bug.actions:
            env.step(action)
        assert tuple(float(v) for v in env.pos) == bug.next_state
    played = sum(int(batch.lengths[c]) for c, _ in restored)
    replayed_before = sum(TwoRooms.max_steps for _ in restored)
    assert played < replayed_before  # the snapshots' steps were not played again


class OffTheBooks(TwoRooms):
    """TwoRooms whose walls move with a count kept outside the game (a physics engine's world,
    a server's state): a pickled copy of the game does not carry it, and plays on elsewhere."""

    outside = {"steps": 0}

    def step(self, action: int):
        OffTheBooks.outside["steps"] += 1
        if OffTheBooks.outside["steps"] % 7 == 0:
            self.pos[1] = (self.pos[1] + 1) % 7
        return super().step(action)


class Locked(TwoRooms):
    """TwoRooms holding a lock, as a game talking to an engine holds a socket: it does not pickle."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()


@pytest.mark.parametrize(("game", "every"), [(ROOMS, 10), (f"{__name__}:OffTheBooks", 0), (f"{__name__}:Locked", 0)])
def test_snapshots_are_used_where_the_restored_game_plays_on_the_same(
        game: str, every: int, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="evo.search.explore.snapshot_check"):
        assert snapshot_every(GameFactory(entry_point=game), 0, "game X") == every
    if not every:
        assert "game X" in caplog.text and "returns replay from the reset" in caplog.text


def rooms(config: dict[str, Any]) -> dict[str, Any]:
    config["game"] = {"entry_point": ROOMS, "isolated": False}
    config["search"].update(policy="random", strategy="go_explore", explore_steps=30)
    config["finetune"] = {"algorithm": "none"}
    config["oracles"] = [{"name": "crash"}, {"name": "logic"}]
    config["budget"] = {"generations": 6}
    return config


def test_a_run_returns_by_snapshot_finds_what_replays_and_resumes_as_if_uninterrupted(
        tiny_config: dict[str, Any], tmp_path: Path) -> None:
    config = rooms(tiny_config)
    assert_resumes_as_if_uninterrupted(config, tmp_path, killed_after=3)  # the snapshots are checkpointed
    bugs = [json.loads(line) for line in (tmp_path / "whole" / "bugs.jsonl").read_text().splitlines()]
    assert bugs and all(replay(tmp_path / "whole", bug["id"]).reproduced for bug in bugs)

    config["search"]["snapshots"] = False  # the same search, every return replayed from the reset
    Evolve(parse_experiment(config), tmp_path / "replayed").run()
    by_snapshot = pd.read_csv(tmp_path / "whole" / "generations.csv")
    by_replay = pd.read_csv(tmp_path / "replayed" / "generations.csv")
    # the same number of episodes and exploring steps, fewer steps played in all
    assert by_snapshot["env_steps"].iloc[-1] < by_replay["env_steps"].iloc[-1]
