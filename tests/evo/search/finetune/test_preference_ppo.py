"""PPGTA's exploring agent: PPO on preference_kl's mixed reward from an actor-critic that starts
as the imitation policy; seeded runs are equal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from evo.search.finetune.ppo import PPOConfig  # noqa: E402
from evo.search.finetune.preference_ppo import ActorCritic, preference_ppo  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.perception.imitation import load_policy  # noqa: E402
from objectives import build_objectives  # noqa: E402
from tests.games.perception.imitation_data import make_tiny_demos, make_tiny_policy  # noqa: E402


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ppo")
    return make_tiny_policy(make_tiny_demos(folder / "demos"), folder / "imitation.pt", epochs=1)


def _train(weights: Path, seed: int, seen: list | None = None):
    torch.set_num_threads(1)
    game = DoomParkVector(2, level_seed=3, max_steps=12)
    try:
        entry = ("preference_kl", {"weights": str(weights), "novelty": {"members": 2, "buffer": 32, "epochs": 1},
                                   "novelty_scale": 100.0})
        (objective,) = build_objectives([entry], game.game_spec)
        config = PPOConfig(updates=2, episodes=2, minibatches=2, epochs=2)
        return preference_ppo(game, objective, load_policy(weights)[0], config, seed=seed,
                              on_rollouts=None if seen is None else seen.append)
    finally:
        game.close()


def test_the_agent_starts_as_the_imitation_policy_and_ppo_moves_it(weights: Path) -> None:
    policy, _ = load_policy(weights)
    start = ActorCritic(policy)
    assert all(torch.equal(a, b) for a, b in zip(start.actor.state_dict().values(), policy.state_dict().values()))
    seen: list = []
    model, stats = _train(weights, seed=0, seen=seen)
    assert len(stats) == 2 and [len(batch) for batch in seen] == [2, 2]  # each update's episodes are handed out
    assert stats[0].style == pytest.approx(0.0, abs=1e-5)  # it first acts exactly as the imitation policy
    assert all(np.isfinite([s.policy_loss, s.value_loss, s.entropy, s.approx_kl]).all() for s in stats)
    moved = [not torch.equal(a, b) for a, b in zip(model.actor.state_dict().values(), policy.state_dict().values())]
    assert any(moved)
    assert stats[1].style < 0  # no longer exactly the imitation policy
    # Same seed, same agent.
    again, stats_again = _train(weights, seed=0)
    assert stats_again == stats
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), again.state_dict().values()))


def test_a_game_with_the_wrong_number_of_copies_is_one_line(weights: Path) -> None:
    game = DoomParkVector(1, level_seed=3, max_steps=5)
    try:
        (objective,) = build_objectives([("preference_kl", {"weights": str(weights), "novelty": None})], game.game_spec)
        with pytest.raises(ValueError, match="plays 2 episodes at once; the game has 1 copies"):
            preference_ppo(game, objective, load_policy(weights)[0], PPOConfig(updates=1, episodes=2), seed=0)
    finally:
        game.close()
