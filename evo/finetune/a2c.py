"""A2C fine-tuning of a whole batch of policies at once.

Wuji (Zheng et al., ASE 2019, Sec. IV-D) sharpens every offspring with advantage actor-critic
between generations, all of them "asynchronously and simultaneously". Here they are trained
in one batch: the genomes ``[P, D]`` are the single leaf tensor, one vector game holds
``P * episodes`` copies, and one batched forward pass gives every policy's logits and values.

The policies stay independent although they share a tensor:

- the loss is the *sum* over policies of each policy's own A2C loss (a mean over its own
  valid steps), so the gradient of row ``p`` is exactly the gradient of policy ``p``'s loss;
- the optimizer (RMSprop) acts elementwise, so row ``p`` is updated from row ``p`` alone;
- gradients are clipped per policy (the norm of each row), never by one global norm;
- advantages, when normalized, are normalized per policy.

Fine-tuning a policy next to B or next to C therefore gives the same result; its random
numbers come from its own seed.

The update reads top to bottom like CleanRL's ``a2c``/``ppo``: play, reward, one forward,
GAE, loss, step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pydantic
import torch
import torch.nn.functional as F

from evo.agents.population import PopulationAgent
from evo.policy import PolicySpec, forward
from evo.rollout import Trajectories, draw_episodes, play
from games.base import Rollout, VectorGame

RewardFn = Callable[[list[Rollout], Trajectories], np.ndarray]
"""``(rollouts, trajectories) -> rewards [N, T]``: the dense reward of a batch of episodes,
aligned with ``trajectories`` (steps past an episode's end are ignored)."""

# Stable-Baselines3 A2C (and OpenAI baselines before it) use RMSprop with these constants;
# torch's RMSprop without momentum or centering is elementwise, which keeps rows independent.
# Each call starts a fresh optimizer (a genome is all that survives a generation), so the
# running averages start at zero and the first few steps are up to ~10x lr per weight.
RMSPROP_ALPHA = 0.99
RMSPROP_EPS = 1e-5


class A2CConfig(pydantic.BaseModel):
    """Hyperparameters of A2C fine-tuning; defaults follow Stable-Baselines3's A2C."""

    model_config = pydantic.ConfigDict(extra="forbid")

    updates: int = pydantic.Field(
        4,
        ge=0,
        description="Gradient updates per fine-tuning call (0 leaves policies as they are).",
    )
    episodes: int = pydantic.Field(
        4,
        ge=1,
        description="Full episodes each policy plays per update; the game has P * episodes copies.",
    )
    lr: float = pydantic.Field(7e-4, gt=0, description="RMSprop learning rate (SB3 A2C default).")
    gamma: float = pydantic.Field(0.99, ge=0, le=1, description="Discount factor.")
    gae_lambda: float = pydantic.Field(
        0.95,
        ge=0,
        le=1,
        description="GAE lambda: 1 gives Monte-Carlo returns, 0 one-step TD advantages.",
    )
    value_coef: float = pydantic.Field(0.5, ge=0, description="Weight of the value loss.")
    entropy_coef: float = pydantic.Field(
        0.01, ge=0, description="Weight of the entropy bonus, which keeps policies exploring."
    )
    max_grad_norm: float = pydantic.Field(
        0.5, gt=0, description="Largest gradient norm of each policy (clipped per policy)."
    )
    normalize_advantages: bool = pydantic.Field(
        False,
        description="Standardize advantages over each policy's own steps (off in SB3's A2C).",
    )

    def optimizer(self, params: list[torch.Tensor]) -> torch.optim.Optimizer:
        """RMSprop, elementwise (no momentum, no centering), so rows stay independent."""
        return torch.optim.RMSprop(params, lr=self.lr, alpha=RMSPROP_ALPHA, eps=RMSPROP_EPS)


@dataclass
class FinetuneStats:
    """What one fine-tuning call did, for the generation log.

    Attributes:
        env_steps: Game steps played over all updates.
        updates: Gradient updates done (fewer than asked when the game broke).
        mean_return: Mean dense return per episode in the last update's batch.
        policy_loss: Policy-gradient loss of the last update, averaged over policies.
        value_loss: Value loss of the last update, averaged over policies.
        entropy: Mean policy entropy (nats) of the last update, averaged over policies.
        game_broken: The vector game raised as a whole during fine-tuning; the caller must
            replace it. Fine-tuning stopped there, without an update from that batch.
    """

    env_steps: int
    updates: int
    mean_return: float
    policy_loss: float
    value_loss: float
    entropy: float
    game_broken: bool = False


def compute_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    alive: np.ndarray,
    ended: np.ndarray,
    last_values: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimates (Schulman et al. 2016) of a padded batch of episodes.

    An episode that ended (terminated, or its game raised) has no future: the value after its
    last step is 0. An episode that was truncated by the horizon would have gone on, so its
    last step bootstraps from ``last_values``, the value of the observation it stopped in.

    Args:
        rewards: ``[N, T]`` rewards; entries past an episode's end are ignored.
        values: ``[N, T]`` value of the observation before each step.
        alive: ``[N, T]`` bool, True on the steps taken (a prefix of each row).
        ended: ``[N]`` bool, True where the episode ended rather than being truncated.
        last_values: ``[N]`` value of the observation after each episode's last step.
        gamma: Discount factor.
        gae_lambda: GAE lambda.

    Returns:
        ``(advantages, returns)``, both ``[N, T]`` float64 and 0 past each episode's end;
        ``returns = advantages + values`` are the value targets.
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    alive = np.asarray(alive, dtype=bool)
    n, t_max = rewards.shape
    bootstrap = np.where(np.asarray(ended, dtype=bool), 0.0, np.asarray(last_values, np.float64))
    # Whether step t + 1 belongs to the same episode, and the value before it.
    continues = np.concatenate([alive[:, 1:], np.zeros((n, 1), dtype=bool)], axis=1)
    next_values = np.concatenate([values[:, 1:], np.zeros((n, 1))], axis=1)

    advantages = np.zeros((n, t_max), dtype=np.float64)
    next_advantage = np.zeros(n, dtype=np.float64)
    for t in reversed(range(t_max)):
        next_value = np.where(continues[:, t], next_values[:, t], bootstrap)
        next_advantage = np.where(continues[:, t], next_advantage, 0.0)
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        advantages[:, t] = np.where(alive[:, t], delta + gamma * gae_lambda * next_advantage, 0.0)
        next_advantage = advantages[:, t]
    returns = np.where(alive, advantages + values, 0.0)
    return advantages, returns


def clip_grad_norm_per_policy_(grad: torch.Tensor, max_norm: float) -> torch.Tensor:
    """Scale each row of ``grad [P, D]`` down to norm ``max_norm``, in place.

    The formula is ``torch.nn.utils.clip_grad_norm_``'s, applied to every policy on its own:
    one global norm would let a policy with large gradients shrink everyone else's step.

    Returns:
        ``[P]`` norms of the rows before clipping.
    """
    norms = torch.linalg.vector_norm(grad, dim=1)
    scale = torch.clamp(max_norm / (norms + 1e-6), max=1.0)
    grad.mul_(scale.unsqueeze(1))
    return norms


def finetune(
    genomes: np.ndarray,
    spec: PolicySpec,
    game: VectorGame,
    config: A2CConfig,
    reward_fn: RewardFn,
    seeds: Sequence[int],
    policy_ids: Sequence[int],
    on_rollouts: Callable[[list[Rollout]], None] | None = None,
) -> tuple[np.ndarray, FinetuneStats]:
    """Fine-tune P policies together with A2C and return their new genomes.

    Every update plays one full episode in each of the ``P * episodes`` copies of ``game``
    with the current weights, hands the rollouts to ``on_rollouts`` (the engine's bug
    oracles watch fine-tuning episodes too), and takes one optimizer step.

    Args:
        genomes: ``[P, D]`` float32 genomes; not modified.
        spec: Architecture of the policies.
        game: A vector game with ``num_envs == P * config.episodes``.
        config: A2C hyperparameters.
        reward_fn: Dense reward of a batch (the objectives' ``step_rewards``, combined).
        seeds: One seed per policy, the only source of randomness (episode seeds and action
            sampling): each policy's draws come from its own generator, so fine-tuning a
            policy gives the same result in any batch, process or machine.
        policy_ids: Id of each policy, recorded in its rollouts.
        on_rollouts: Called with the rollouts of every batch played, in copy order.

    Returns:
        ``(genomes [P, D] float32, stats)``.

    Raises:
        ValueError: ``policy_ids`` or ``game.num_envs`` do not match the genomes.
    """
    n_policies, n_params = genomes.shape
    episodes = config.episodes
    n_copies = n_policies * episodes
    if len(policy_ids) != n_policies or len(seeds) != n_policies:
        raise ValueError(
            f"finetune: {len(policy_ids)} policy ids and {len(seeds)} seeds for {n_policies} genomes"
        )
    if game.num_envs != n_copies:
        raise ValueError(
            f"finetune: game has {game.num_envs} copies, expected {n_policies} policies x "
            f"{episodes} episodes = {n_copies}"
        )
    # Copies are policy-major (PopulationAgent's layout): copy i belongs to policy i // episodes.
    copy_ids = np.repeat(np.asarray(policy_ids, dtype=np.int64), episodes)

    # torch.tensor copies, so the caller's array is never written to.
    weights = torch.tensor(genomes, dtype=torch.float32).requires_grad_(True)
    optimizer = config.optimizer([weights])
    stats = FinetuneStats(
        env_steps=0,
        updates=0,
        mean_return=float("nan"),
        policy_loss=float("nan"),
        value_loss=float("nan"),
        entropy=float("nan"),
    )

    max_steps = game.game_spec.max_steps
    n_actions = game.game_spec.n_actions
    streams = [np.random.default_rng(int(s)) for s in seeds]
    for _ in range(config.updates):
        # 1. Play a batch of full episodes with the current weights.
        draws = draw_episodes([g.integers(0, 2**63 - 1) for g in streams], episodes, max_steps, n_actions)
        agent = PopulationAgent(weights.detach().numpy().copy(), spec, episodes, draws.gumbel)
        result = play(game, draws.seeds, copy_ids, agent, keep_trajectories=True)
        if on_rollouts is not None:
            on_rollouts(result.rollouts)
        stats.env_steps += result.env_steps
        if result.game_broken:
            # Every copy was cut short at once: not a batch the policies chose. Stop here
            # and let the engine replace the game.
            stats.game_broken = True
            break
        traj = result.trajectories
        assert traj is not None  # asked for with keep_trajectories

        # 2. Dense rewards from the objectives.
        rewards = np.asarray(reward_fn(result.rollouts, traj), dtype=np.float64)
        if rewards.shape != traj.actions.shape:
            raise ValueError(
                f"finetune: reward_fn gave shape {rewards.shape}, expected {traj.actions.shape}"
            )
        rewards = np.where(traj.alive, rewards, 0.0)

        # 3-6. The gradient step(s): A2C's one step, or PPO's epochs of minibatches.
        from evo.finetune.ppo import PPOConfig, ppo_update  # ppo builds on this module

        update = ppo_update if isinstance(config, PPOConfig) else a2c_update
        policy_loss, value_loss, mean_entropy = update(
            weights, optimizer, spec, traj, rewards, config, n_policies, episodes, streams
        )

        stats.updates += 1
        stats.mean_return = float(rewards.sum(axis=1).mean())
        stats.policy_loss = policy_loss
        stats.value_loss = value_loss
        stats.entropy = mean_entropy

    out = weights.detach().numpy().copy()
    assert out.shape == (n_policies, n_params)
    return out, stats


def a2c_update(
    weights: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    spec: PolicySpec,
    traj: Trajectories,
    rewards: np.ndarray,
    config: A2CConfig,
    n_policies: int,
    episodes: int,
    streams: Sequence[np.random.Generator],
) -> tuple[float, float, float]:
    """One A2C step on a batch of full episodes: one forward pass over every observation,
    GAE, each policy's loss, one optimizer step. Returns the mean policy loss, value loss
    and entropy over policies. (``streams`` is unused: A2C draws nothing here.)"""
    n_copies = n_policies * episodes
    horizon = traj.actions.shape[1]
    # 3. One forward pass: every policy on all its observations, s_0 .. s_T.
    obs = torch.from_numpy(traj.obs).view(n_policies, episodes * (horizon + 1), -1)
    logits, values = forward(spec.unflatten(weights), obs)
    logits = logits.view(n_policies, episodes, horizon + 1, -1)[:, :, :horizon]
    values = values.view(n_policies, episodes, horizon + 1)

    # 4. Advantages; the value after the last step bootstraps truncated episodes only.
    values_np = values.detach().reshape(n_copies, horizon + 1).numpy().astype(np.float64)
    last_values = values_np[np.arange(n_copies), traj.lengths]
    advantages, returns = compute_gae(
        rewards,
        values_np[:, :horizon],
        traj.alive,
        traj.ended,
        last_values,
        config.gamma,
        config.gae_lambda,
    )

    # 5. Each policy's A2C loss, a mean over its own valid steps.
    mask = torch.from_numpy(traj.alive).view(n_policies, episodes * horizon).float()
    count = mask.sum(dim=1).clamp(min=1.0)

    def policy_mean(x: torch.Tensor) -> torch.Tensor:
        """``[P, E * T] -> [P]``: mean over each policy's valid steps."""
        return (x * mask).sum(dim=1) / count

    adv = torch.from_numpy(advantages).float().view(n_policies, episodes * horizon)
    if config.normalize_advantages:
        mean = policy_mean(adv).unsqueeze(1)
        std = policy_mean((adv - mean) ** 2).sqrt().unsqueeze(1)
        adv = (adv - mean) / (std + 1e-8)
    targets = torch.from_numpy(returns).float().view(n_policies, episodes * horizon)

    log_probs = F.log_softmax(logits, dim=-1)
    actions = torch.from_numpy(traj.actions).view(n_policies, episodes, horizon, 1)
    taken_log_prob = log_probs.gather(-1, actions).view(n_policies, episodes * horizon)
    entropy = -(log_probs.exp() * log_probs).sum(-1).view(n_policies, episodes * horizon)
    step_values = values[:, :, :horizon].reshape(n_policies, episodes * horizon)

    policy_loss = -policy_mean(adv * taken_log_prob)
    value_loss = policy_mean((targets - step_values) ** 2)  # SB3: F.mse_loss, no 1/2
    mean_entropy = policy_mean(entropy)
    loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * mean_entropy

    # 6. One step. The sum keeps each row's gradient its own policy's gradient.
    optimizer.zero_grad()
    loss.sum().backward()
    assert weights.grad is not None
    clip_grad_norm_per_policy_(weights.grad, config.max_grad_norm)
    optimizer.step()
    return (float(policy_loss.detach().mean()), float(value_loss.detach().mean()),
            float(mean_entropy.detach().mean()))
