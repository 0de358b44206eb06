"""A2C and PPO fine-tuning: GAE by hand, per-policy independence, determinism, and that it learns."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
import pydantic
import pytest
import torch

from evo.search.finetune import A2CConfig, PPOConfig, UpdateConfig, compute_gae, finetune
from evo.search.finetune.base import clip_grad_norm_per_policy_
from evo.search.policy import PolicySpec
from games.core.base import GameSpec, VecStep, VectorGame
from games.core.record import Rollout, RolloutBatch


class Corridor:
    """N copies of a 1-D corridor ``0..length``: action 1 steps right, action 0 steps left.

    The reward is the distance gained (walls stop the walker), so an episode's return is how
    far right it got. Observation: one-hot position. With ``goal_ends`` an episode
    terminates on reaching the right end; without it every episode lasts ``horizon`` steps,
    which makes the random draws of play independent of what the policies do.
    """

    def __init__(self, num_envs: int, length: int = 8, horizon: int = 16, goal_ends: bool = True):
        self.num_envs = num_envs
        self.length = length
        self.goal_ends = goal_ends
        self.game_spec = GameSpec(
            obs_shape=(length + 1,),
            n_actions=2,
            feature_names=("x",),
            feature_low=(0.0,),
            feature_high=(float(length),),
            feature_bins=(length + 1,),
            max_steps=horizon,
        )
        self.x = np.zeros(num_envs, dtype=np.int64)
        self.done = np.zeros(num_envs, dtype=bool)

    def _obs(self) -> np.ndarray:
        return np.eye(self.length + 1, dtype=np.float32)[self.x]

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        self.x = np.asarray(seeds, dtype=np.int64) % 2  # start in cell 0 or 1
        self.done = np.zeros(self.num_envs, dtype=bool)
        return self._obs(), self.x[:, None].astype(np.float64)

    def step(self, actions: np.ndarray) -> VecStep:
        old = self.x.copy()
        moved = np.clip(self.x + np.where(actions == 1, 1, -1), 0, self.length)
        self.x = np.where(self.done, self.x, moved)
        reward = (self.x - old).astype(np.float64)
        if self.goal_ends:
            self.done |= self.x == self.length
        return VecStep(
            obs=self._obs(),
            reward=reward,
            terminated=self.done.copy(),
            truncated=np.zeros(self.num_envs, dtype=bool),
            features=self.x[:, None].astype(np.float64),
        )

    def close(self) -> None:
        pass


def game_reward(record: RolloutBatch, horizon: int) -> np.ndarray:
    """The game's own reward as the dense reward, padded to the horizon."""
    out = np.zeros((len(record), horizon))
    out[:, : record.rewards.shape[1]] = record.rewards
    return out


class PictureCorridor(Corridor):
    """The corridor seen as a ``1 x 3 x (length + 1)`` image: the walker is the one bright
    pixel of the middle row (for policies with conv layers)."""

    def __init__(self, num_envs: int, length: int = 8, horizon: int = 16, goal_ends: bool = True):
        super().__init__(num_envs, length, horizon, goal_ends)
        self.game_spec = replace(self.game_spec, obs_shape=(1, 3, length + 1))

    def _obs(self) -> np.ndarray:
        image = np.zeros((self.num_envs, 1, 3, self.length + 1), dtype=np.float32)
        image[np.arange(self.num_envs), 0, 1, self.x] = 1.0
        return image


SPEC = PolicySpec(obs_dim=9, n_actions=2, hidden=(16,))
# 4 kernels of 3 x 3 over the picture: 4 x 1 x 7 values into 16 hidden units.
CNN_SPEC = PolicySpec(obs_dim=27, n_actions=2, hidden=(16,), conv=((4, 3, 1),), image=(1, 3, 9))


def test_corridor_is_a_vector_game() -> None:
    assert isinstance(Corridor(2), VectorGame)


# --- GAE --------------------------------------------------------------------------------


def test_gae_matches_hand_computation() -> None:
    """Three episodes of a T=3 batch, gamma = lambda = 0.5.

    0: truncated after 3 steps, bootstraps from V = 4.
    1: terminated after 2 steps; its last value (100) and padding (50, 30) must not count.
    2: truncated after 1 step, bootstraps from V = 2.
    """
    rewards = np.array([[1.0, 0.0, 2.0], [1.0, 2.0, 50.0], [3.0, 50.0, 50.0]])
    values = np.array([[1.0, 2.0, 1.0], [2.0, 4.0, 30.0], [1.0, 30.0, 30.0]])
    alive = np.array([[True, True, True], [True, True, False], [True, False, False]])
    ended = np.array([False, True, False])
    last_values = np.array([4.0, 100.0, 2.0])

    adv, ret = compute_gae(rewards, values, alive, ended, last_values, gamma=0.5, gae_lambda=0.5)

    # Episode 0: deltas 1 + .5*2 - 1 = 1, 0 + .5*1 - 2 = -1.5, 2 + .5*4 - 1 = 3;
    #   A2 = 3, A1 = -1.5 + .25*3 = -0.75, A0 = 1 + .25*(-0.75) = 0.8125.
    # Episode 1: deltas 1 + .5*4 - 2 = 1, 2 + 0 - 4 = -2; A1 = -2, A0 = 1 + .25*(-2) = 0.5.
    # Episode 2: delta 3 + .5*2 - 1 = 3.
    expected_adv = np.array([[0.8125, -0.75, 3.0], [0.5, -2.0, 0.0], [3.0, 0.0, 0.0]])
    expected_ret = np.array([[1.8125, 1.25, 4.0], [2.5, 2.0, 0.0], [4.0, 0.0, 0.0]])
    np.testing.assert_allclose(adv, expected_adv)
    np.testing.assert_allclose(ret, expected_ret)


def test_gae_with_lambda_one_gives_discounted_returns() -> None:
    """lambda = 1: returns are the discounted reward-to-go plus the discounted bootstrap."""
    rng = np.random.default_rng(0)
    rewards = rng.normal(size=(2, 4))
    values = rng.normal(size=(2, 4))
    alive = np.array([[True] * 4, [True, True, True, False]])
    ended = np.array([False, True])
    last_values = np.array([5.0, -7.0])
    gamma = 0.9

    _, ret = compute_gae(rewards, values, alive, ended, last_values, gamma, gae_lambda=1.0)

    expected0 = [sum(gamma**k * rewards[0, t + k] for k in range(4 - t)) + gamma ** (4 - t) * 5.0
                 for t in range(4)]
    expected1 = [sum(gamma**k * rewards[1, t + k] for k in range(3 - t)) for t in range(3)] + [0.0]
    np.testing.assert_allclose(ret, [expected0, expected1])


# --- independence -----------------------------------------------------------------------


def test_clip_grad_norm_is_per_policy() -> None:
    grad = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
    norms = clip_grad_norm_per_policy_(grad, max_norm=1.0)
    torch.testing.assert_close(norms, torch.tensor([5.0, 0.5]))
    torch.testing.assert_close(grad, torch.tensor([[0.6, 0.8], [0.3, 0.4]]), rtol=1e-5, atol=1e-6)


def run(
    genomes: np.ndarray, seed: int, config: UpdateConfig, goal_ends: bool = True, spec: PolicySpec = SPEC, **kwargs
):
    """Fine-tune on a corridor: the one-hot corridor, or its picture for a spec with conv layers;
    PPO for a :class:`PPOConfig`, A2C otherwise."""
    game_cls = PictureCorridor if spec.conv else Corridor
    game = game_cls(genomes.shape[0] * config.episodes, goal_ends=goal_ends)
    return finetune(
        genomes,
        spec,
        game,
        "ppo" if isinstance(config, PPOConfig) else "a2c",
        config,
        game_reward,
        [seed * 1000 + p for p in range(genomes.shape[0])],
        list(range(genomes.shape[0])),
        **kwargs,
    )


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_policies_are_fine_tuned_independently(spec: PolicySpec) -> None:
    """Fine-tuning [A, B] and [A, C] gives the same A.

    Each policy draws its random numbers from its own seed, so what is left to differ is
    only the gradient, which must be A's own.
    """
    g = spec.init_genomes(3, np.random.default_rng(1))
    a, b, c = g[0:1], g[1:2], g[2:3] * 3.0  # C very different, with larger gradients
    config = A2CConfig(updates=5, episodes=3, lr=0.01, normalize_advantages=True)

    with_b, _ = run(np.concatenate([a, b]), seed=7, config=config, goal_ends=False, spec=spec)
    with_c, _ = run(np.concatenate([a, c]), seed=7, config=config, goal_ends=False, spec=spec)

    assert not np.array_equal(with_b[0], a[0])  # A did change
    # Bitwise equal on this machine; a tolerance leaves room for another BLAS.
    np.testing.assert_allclose(with_b[0], with_c[0], rtol=0, atol=1e-6)
    assert not np.allclose(with_b[1], with_c[1])


# --- determinism and the contract -------------------------------------------------------


def test_same_seeds_give_identical_genomes() -> None:
    g = SPEC.init_genomes(4, np.random.default_rng(2))
    config = A2CConfig(updates=3, episodes=2)
    first, stats1 = run(g, seed=11, config=config)
    second, stats2 = run(g, seed=11, config=config)
    assert np.array_equal(first, second)
    assert stats1 == stats2
    third, _ = run(g, seed=12, config=config)
    assert not np.array_equal(first, third)


def test_input_untouched_and_output_float32() -> None:
    g = SPEC.init_genomes(2, np.random.default_rng(3))
    before = g.copy()
    out, stats = run(g, seed=0, config=A2CConfig(updates=2, episodes=2))
    assert np.array_equal(g, before)
    assert out.dtype == np.float32 and out.shape == g.shape
    assert stats.updates == 2 and stats.env_steps > 0


def test_on_rollouts_sees_every_episode() -> None:
    g = SPEC.init_genomes(3, np.random.default_rng(4))
    config = A2CConfig(updates=4, episodes=2)
    batches: list[list[Rollout]] = []
    _, stats = run(g, seed=5, config=config, on_rollouts=batches.append)
    assert len(batches) == config.updates
    for batch in batches:
        assert [r.policy for r in batch] == [0, 0, 1, 1, 2, 2]
    assert sum(r.length for batch in batches for r in batch) == stats.env_steps
    seeds = [r.episode_seed for batch in batches for r in batch]
    assert len(set(seeds)) == len(seeds)  # fresh episodes every update


def test_one_update_of_a_cnn_changes_its_conv_and_dense_weights() -> None:
    """The gradient flows from the A2C loss through the dense layers into the conv kernels,
    the flat genome being the leaf tensor."""
    g = CNN_SPEC.init_genomes(2, np.random.default_rng(3))
    out, stats = run(g, seed=0, config=A2CConfig(updates=1, episodes=2), spec=CNN_SPEC)
    assert stats.updates == 1
    assert np.isfinite(stats.diagnostics.policy_loss).all() and np.isfinite(stats.diagnostics.value_loss).all()
    assert out.dtype == np.float32 and out.shape == g.shape
    n_conv = 4 * 1 * 3 * 3 + 4
    for p in range(2):
        assert not np.array_equal(out[p, :n_conv], g[p, :n_conv]), "conv kernels unchanged"
        assert not np.array_equal(out[p, n_conv:], g[p, n_conv:]), "dense layers unchanged"


def test_mismatched_game_size_is_rejected() -> None:
    g = SPEC.init_genomes(2, np.random.default_rng(0))
    game = Corridor(3)
    with pytest.raises(ValueError, match="copies"):
        finetune(g, SPEC, game, "a2c", A2CConfig(episodes=2), game_reward, [0, 1], [0, 1])


def test_config_rejects_unknown_keys() -> None:
    with pytest.raises(pydantic.ValidationError):
        A2CConfig(learning_rate=1e-3)


# --- it learns --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_fine_tuning_learns_to_walk_right(spec: PolicySpec) -> None:
    """A random walker gets ~2 cells right in 16 steps; after fine-tuning, nearly all 8."""
    g = spec.init_genomes(2, np.random.default_rng(6))
    config = A2CConfig(updates=40, episodes=4, lr=0.01)
    # One update's stats describe the batch played before its step: the initial policies.
    _, before = run(g, seed=0, config=A2CConfig(updates=1, episodes=4), spec=spec)
    _, after = run(g, seed=0, config=config, spec=spec)
    assert before.mean_return < 4.0
    assert after.mean_return > 6.0
    assert after.mean_return > before.mean_return + 3.0


# --- PPO: the same loop, several clipped minibatch steps per batch ------------------------


def test_ppo_keeps_policies_independent() -> None:
    """PPO draws its minibatches from each policy's own generator: [A, B] and [A, C] give A."""
    g = SPEC.init_genomes(3, np.random.default_rng(1))
    a, b, c = g[0:1], g[1:2], g[2:3] * 3.0
    config = PPOConfig(updates=3, episodes=3, lr=0.01)
    with_b, _ = run(np.concatenate([a, b]), seed=7, config=config, goal_ends=False)
    with_c, _ = run(np.concatenate([a, c]), seed=7, config=config, goal_ends=False)
    assert not np.array_equal(with_b[0], a[0])
    np.testing.assert_allclose(with_b[0], with_c[0], rtol=0, atol=1e-6)
    again, _ = run(np.concatenate([a, b]), seed=7, config=config, goal_ends=False)
    assert np.array_equal(again, with_b)


def test_ppo_learns_more_from_the_same_episodes_than_a2c() -> None:
    """Ten batches of episodes: PPO's 16 steps per batch walk right, A2C's single step barely."""
    g = SPEC.init_genomes(2, np.random.default_rng(6))
    _, a2c = run(g, seed=0, config=A2CConfig(updates=10, episodes=4))
    _, ppo = run(g, seed=0, config=PPOConfig(updates=10, episodes=4, lr=0.003))
    assert ppo.mean_return > 6.0
    assert ppo.mean_return > a2c.mean_return + 2.0


def test_ppo_is_chosen_by_the_experiment() -> None:
    from evo.run.config import parse_experiment

    base = {"name": "x", "game": {"name": "block_maze"}, "objectives": [{"name": "winning"}],
            "budget": {"generations": 1}}
    exp = parse_experiment({**base, "finetune": {"algorithm": "ppo", "ppo": {"epochs": 2}}})
    assert isinstance(exp.finetune.settings, PPOConfig) and exp.finetune.settings.epochs == 2
    assert type(parse_experiment(base).finetune.settings) is A2CConfig
