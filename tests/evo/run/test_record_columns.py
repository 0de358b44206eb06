"""Optional record columns a new game's tester asks for: frames kept as bytes, and named
info values (counters, events) recorded per step, only when a component requires them."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pytest

import oracles
from evo.run.built import Built
from evo.run.config import parse_experiment
from evo.search.play import play
from games.core.component import ComponentEntry, Context
from games.core.base import GameSpec
from games.adapter.vector_game import GymVectorGame
from games.core.record import RolloutBatch, unknown_columns
from games.core.wrappers import wrap
from oracles.base import Bug, Oracle, OracleConfig
from tests.games.plugin_envs import CoinWalk, PixelWalk


class Recorder:
    """Walks right then up (the diagonal, picking coins) and keeps what it was handed."""

    def __init__(self, n: int, n_actions: int = 4) -> None:
        self.n, self.n_actions = n, n_actions
        self.seen: list[np.ndarray] = []
        self.infos: list[Mapping[str, np.ndarray]] = []

    def reset(self, seeds: Sequence[int]) -> None:
        self.seen.clear()
        self.infos.clear()

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        self.seen.append(obs.copy())
        self.infos.append(infos)
        actions = np.full(self.n, 0 if t % 2 else 2, dtype=np.int64)  # east, then north
        return actions, np.eye(self.n_actions, dtype=np.float32)[actions]


def test_frames_stay_bytes_in_the_record_and_agents_see_the_same_values_as_floats() -> None:
    game = GymVectorGame(PixelWalk, 2)
    assert game.game_spec.obs_dtype == "uint8"
    agent = Recorder(2)
    batch = play(game, [1, 2], [0, 0], agent, max_steps=5, columns=frozenset({"obs"})).rollouts
    assert batch.obs is not None and batch.obs.dtype == np.uint8
    assert batch.obs.shape == (2, 6, 84 * 84 * 3)
    assert agent.seen[0].dtype == np.float32
    np.testing.assert_array_equal(agent.seen[3], batch.obs[:, 3].astype(np.float32))
    assert batch.obs[:, 1:].max() == 255  # the walker's white square, not a scaled value


def test_a_frame_stack_over_bytes_stays_bytes() -> None:
    game = wrap(GymVectorGame(PixelWalk, 1), [("frame_stack", {"k": 2})])
    assert game.game_spec.obs_dtype == "uint8"
    obs, _ = game.reset([0])
    assert obs.dtype == np.uint8 and obs.shape == (1, 2 * 3, 84, 84)  # two RGB frames, channels stacked
    game.close()


@pytest.mark.parametrize("isolated", [False, True], ids=["in-process", "worker processes"])
def test_named_info_values_are_recorded_per_step(isolated: bool) -> None:
    game = GymVectorGame(CoinWalk, 3, step_timeout_s=10.0 if isolated else None,
                         info_keys=("coins", "events"))
    agent = Recorder(3)
    try:
        batch = play(game, [4, 5, 6], [0, 1, 2], agent, max_steps=12,
                     columns=frozenset({"info.coins", "info.events"})).rollouts
    finally:
        game.close()
    coins, events = batch.info["coins"], batch.info["events"]
    assert coins.dtype == np.float64 and coins.shape == batch.actions.shape
    assert events.dtype == object
    # An event is named exactly at the steps where the counter went up.
    went_up = np.diff(np.concatenate([np.zeros((3, 1)), coins], axis=1), axis=1) > 0
    picked = np.array([[e == ("coin",) for e in row] for row in events])
    np.testing.assert_array_equal(picked & batch.valid, went_up & batch.valid)
    assert coins[:, -1].min() >= 1 and coins[:, -1].max() >= 3  # the walk follows the diagonal
    # The agent is handed the same values, the step after.
    np.testing.assert_array_equal(agent.infos[5]["coins"], coins[:, 4])
    # A rollout and a slice keep the columns.
    assert batch[1].info["coins"].shape == (batch.lengths[1],)
    assert batch[0:2].info["events"].shape == (2, batch.actions.shape[1])
    both = RolloutBatch.concat([batch[0:1], batch[1:3]])
    np.testing.assert_array_equal(both.info["coins"], coins)


def test_no_info_column_is_recorded_unless_asked() -> None:
    game = GymVectorGame(CoinWalk, 2, info_keys=("coins",))
    batch = play(game, [1, 2], [0, 0], Recorder(2), max_steps=4).rollouts
    game.close()
    assert batch.info == {} and batch.obs is None and batch.probs is None


def test_record_column_names_are_checked() -> None:
    assert unknown_columns({"obs", "probs", "info.coins"}) == []
    assert unknown_columns({"info.", "frames"}) == ["frames", "info."]
    game = GymVectorGame(CoinWalk, 1)
    with pytest.raises(ValueError, match="unknown record columns"):
        play(game, [1], [0], Recorder(1), columns=frozenset({"info"}))
    game.close()


class CoinConfig(OracleConfig):
    """No options."""


class CoinLedger(Oracle):
    """An oracle that requires the ``info.coins`` column and keeps the most coins seen."""

    name = "coin_ledger"
    requires = frozenset({"info.coins"})

    def __init__(self, spec: GameSpec, config: CoinConfig, context: Context) -> None:
        self.most = 0.0

    def check(self, batch: RolloutBatch) -> list[Bug]:
        self.most = max(self.most, float(batch.info["coins"].max()))
        return []


def test_a_component_that_requires_an_info_column_gets_it_from_a_gymnasium_game(
    monkeypatch: pytest.MonkeyPatch, tiny_config: dict[str, Any], tmp_path
) -> None:
    from evo.run.kinds.evolve import Evolve

    monkeypatch.setitem(oracles.ORACLES, "coin_ledger", ComponentEntry(CoinConfig, CoinLedger))
    tiny_config["game"] = {"entry_point": "tests.games.plugin_envs:CoinWalk"}
    tiny_config["oracles"] = [{"name": "crash"}, {"name": "coin_ledger"}]
    tiny_config["budget"] = {"generations": 2}
    exp = parse_experiment(tiny_config)
    assert Built.from_experiment(exp).factory.info_keys == ("coins",)
    search = Evolve(exp, tmp_path / "run")
    search.run()
    assert search.built.oracles[-1].most >= 1


class Careless(CoinLedger):
    """Requires an info column without naming the key."""

    requires = frozenset({"info."})


def test_a_component_requiring_a_column_that_does_not_exist_is_refused_when_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(oracles.ORACLES, "careless", ComponentEntry(CoinConfig, Careless))
    spec = GymVectorGame(CoinWalk, 1).game_spec
    with pytest.raises(TypeError, match=r"requires record columns \['info.'\]"):
        oracles.build_oracles([("careless", {})], spec, Context(0, "cpu", None))
