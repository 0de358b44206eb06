"""The balance oracle: the dungeon's far stronger enemy type is reported, and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

import oracles
from evo.search.agents.uniform import UniformAgent
from evo.search.play import play
from games import GameFactory, RolloutBatch
from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout
from oracles.balance import BalanceOracle, parse_event

EPISODES = 256


def random_play(kwargs: dict[str, Any]) -> tuple[Any, RolloutBatch]:
    game = GameFactory(name="dungeon", kwargs=tuple(sorted(kwargs.items()))).make_vector(EPISODES)
    spec = game.game_spec
    gumbel = np.random.default_rng(0).gumbel(size=(EPISODES, spec.max_steps, spec.n_actions)).astype(np.float32)
    batch = play(game, list(range(EPISODES)), list(range(EPISODES)), UniformAgent(gumbel),
                 columns=frozenset({"info.events"})).rollouts
    return game, batch


def build(spec: GameSpec, **kwargs: Any) -> BalanceOracle:
    return oracles.build_oracles([("balance", kwargs)], spec, Context())[0]  # type: ignore[return-value]


def test_the_strong_enemy_type_is_reported_and_nothing_else_on_the_dungeon() -> None:
    game, batch = random_play({})
    built = oracles.build_oracles([("balance", {}), ("crash", {}), ("logic", {})], game.game_spec, Context())
    assert built[0].requires == frozenset({"info.events"})
    bugs = oracles.check_all(built, batch)
    assert [b.signature for b in bugs] == ["balance:ogre"]
    bug = bugs[0]
    assert bug.kind == "balance" and bug.oracle == "balance"
    assert game.match(bug) == next(b.id for b in game.injected_bugs if b.description == "strong_ogre")
    # The replay handle stops at a blow from an ogre.
    row = int(np.flatnonzero((batch.episode_seed == bug.episode_seed))[0])
    assert any(e.startswith("player_damaged:ogre_") for e in batch.info["events"][row, bug.step])
    assert len(bug.actions) == bug.step + 1
    stats = bug.data["per_type"]
    assert set(stats) == {"goblin", "skeleton", "ogre"}
    assert stats["ogre"] > 2 * sorted(stats.values())[1]


def test_the_released_dungeon_has_no_balance_bug() -> None:
    game, batch = random_play({"bugs": ["moved_switch", "dead_jump", "uncounted_kill"]})
    oracle = build(game.game_spec)
    assert oracle.check(batch) == []
    assert set(oracle.statistics()) == {"goblin", "skeleton", "ogre"}  # it did judge them


def fight_rollout(events: list[tuple[str, ...]], seed: int) -> Rollout:
    t = len(events)
    info = np.empty(t, dtype=object)
    for i, e in enumerate(events):
        info[i] = e
    return Rollout(policy=0, episode_seed=seed, actions=np.zeros(t, dtype=np.int64), rewards=np.zeros(t),
                   features=np.zeros((t + 1, 2)), frame_ms=np.zeros(t), terminated=False,
                   truncated=True, info={"events": info})


def spec() -> GameSpec:
    return GameSpec(obs_shape=(2,), n_actions=4, feature_names=("x", "y"), feature_low=(0.0, 0.0),
                    feature_high=(9.0, 9.0), feature_bins=(10, 10), max_steps=50)


def test_counts_add_up_over_batches_until_a_type_has_enough_encounters() -> None:
    oracle = build(spec(), min_encounters=4)
    episode = [("player_damaged:rat_1:1",), ("player_damaged:bat_1",), ("enemy_hit:imp_1",),
               ("player_damaged:imp_1:2", "enemy_killed:imp_1"), ("player_damaged:dragon_1:9",), ()]
    batch = RolloutBatch.from_rollouts([fight_rollout(episode, s) for s in range(2)])
    assert oracle.check(batch) == []  # two encounters per type so far
    bugs = oracle.check(batch)
    assert [b.signature for b in bugs] == ["balance:dragon"]
    assert bugs[0].step == 4
    assert oracle.statistics() == {"bat": 1.0, "dragon": 9.0, "imp": 2.0, "rat": 1.0}
    assert oracle.check(batch) == []  # reported once
    state = oracle.state_dict()
    again = build(spec(), min_encounters=4)
    again.load_state_dict(state)
    assert again.statistics() == oracle.statistics()
    again.forget_visits()  # a replay: one encounter with a dragon is judged against the run's other types
    replayed = RolloutBatch.from_rollouts([fight_rollout([("player_damaged:dragon_1:7",)], 9)])
    assert [b.signature for b in again.check(replayed)] == ["balance:dragon"]
    assert again.statistics()["dragon"] == 7.0 and again.statistics()["imp"] == 2.0


def test_the_mad_threshold_and_the_ratio() -> None:
    values = {"a": 1.0, "b": 1.1, "c": 0.9, "d": 1.0, "e": 1.7}
    events = [tuple(f"player_damaged:{k}_1:{v}" for k, v in values.items())]
    batch = RolloutBatch.from_rollouts([fight_rollout(events, 0)])
    assert [b.signature for b in build(spec(), min_encounters=1, threshold="mad").check(batch)] == ["balance:e"]
    assert build(spec(), min_encounters=1).check(batch) == []  # 1.7 is not twice the median


def test_events_are_read_generically_and_bad_settings_are_refused() -> None:
    assert parse_event("player_damaged:ogre_1:6") == ("player_damaged", "ogre_1", 6.0)
    assert parse_event("jumped") == ("jumped", "", 1.0)
    with pytest.raises(ValidationError):
        build(spec(), min_ratio=0.5)
    with pytest.raises(ValidationError):
        build(spec(), threshold="zscore")


@pytest.mark.slow
def test_a_search_on_the_dungeon_reports_the_strong_ogre_and_its_replay_reproduces(tmp_path: Path) -> None:
    from evo.cli.main import main
    from evo.bugs.replay import replay
    from evo.report.tables import load_run

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "run"
    code = main(["run", str(root / "experiments" / "dungeon_balance.yaml"), "budget.generations=4",
                 "budget.wall_seconds=600", "parallel.backend=serial", "--out", str(out), "--quiet"])
    assert code == 0
    bugs = load_run(out).bugs
    assert list(bugs["signature"]) == ["balance:ogre"]
    assert replay(out, int(bugs["id"].iloc[0])).reproduced
