"""A2C: one gradient step per batch of full episodes (Wuji's recipe, Sec. IV-D).

The update reads top to bottom like CleanRL's: one forward pass over every observation, GAE,
each policy's loss, one optimizer step. The rules that keep the policies independent although
they share one tensor are in :mod:`evo.search.finetune.base`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pydantic
import torch
import torch.nn.functional as F

from evo.search.finetune.base import (Batch, Diagnostics, UpdateConfig, approx_kl,
                                      compute_gae, explained_variance, host_tensor, per_policy, policy_mean,
                                      register, step_)
from evo.search.policy import PolicySpec, forward

# Stable-Baselines3 A2C (and OpenAI baselines before it) use RMSprop with these constants;
# torch's RMSprop without momentum or centering is elementwise, which keeps rows independent.
# Each call starts a fresh optimizer (a genome is all that survives a generation), so the
# running averages start at zero and the first few steps are up to ~10x lr per weight.
RMSPROP_ALPHA = 0.99
RMSPROP_EPS = 1e-5


class A2CConfig(UpdateConfig):
    """Hyperparameters of A2C fine-tuning; defaults follow Stable-Baselines3's A2C."""

    lr: float = pydantic.Field(7e-4, gt=0, description="RMSprop learning rate (SB3 A2C default).")


def rmsprop(config: UpdateConfig, params: list[torch.Tensor]) -> torch.optim.Optimizer:
    """RMSprop, elementwise (no momentum, no centering), so rows stay independent."""
    return torch.optim.RMSprop(params, lr=config.lr, alpha=RMSPROP_ALPHA, eps=RMSPROP_EPS)


@register("a2c", A2CConfig, rmsprop)
def a2c_update(weights: torch.Tensor, optimizer: torch.optim.Optimizer, spec: PolicySpec, batch: Batch,
               config: UpdateConfig, streams: Sequence[np.random.Generator]) -> Diagnostics:
    """One A2C step on a batch of full episodes: one forward pass over every observation,
    GAE, each policy's loss, one optimizer step. (``streams`` is unused: A2C draws nothing.)

    Returns:
        Each policy's diagnostics: losses and entropy of the policy that played, the KL of
        the step, the values' explained variance; no clip fraction (NaN).
    """
    rewards, n_policies, episodes = batch.rewards, batch.n_policies, batch.episodes
    n_copies = n_policies * episodes
    horizon = batch.actions.shape[1]
    # 1. One forward pass: every policy on all its observations, s_0 .. s_T.
    obs = host_tensor(batch.obs, weights).view(n_policies, episodes * (horizon + 1), -1)
    logits, values = forward(spec.unflatten(weights), obs)
    logits = logits.view(n_policies, episodes, horizon + 1, -1)[:, :, :horizon]
    values = values.view(n_policies, episodes, horizon + 1)

    # 2. Advantages; the value after the last step bootstraps truncated episodes only.
    values_np = values.detach().reshape(n_copies, horizon + 1).cpu().numpy().astype(np.float64)
    last_values = values_np[np.arange(n_copies), batch.lengths]
    advantages, returns = compute_gae(
        rewards,
        values_np[:, :horizon],
        batch.alive,
        batch.ended,
        last_values,
        config.gamma,
        config.gae_lambda,
    )

    # 3. Each policy's A2C loss, a mean over its own valid steps.
    mask = host_tensor(batch.alive, weights).view(n_policies, episodes * horizon).float()
    adv = host_tensor(advantages, weights).float().view(n_policies, episodes * horizon)
    if config.normalize_advantages:
        mean = policy_mean(adv, mask).unsqueeze(1)
        std = policy_mean((adv - mean) ** 2, mask).sqrt().unsqueeze(1)
        adv = (adv - mean) / (std + 1e-8)
    targets = host_tensor(returns, weights).float().view(n_policies, episodes * horizon)

    log_probs = F.log_softmax(logits, dim=-1)
    actions = host_tensor(batch.actions, weights).view(n_policies, episodes, horizon, 1)
    taken_log_prob = log_probs.gather(-1, actions).view(n_policies, episodes * horizon)
    entropy = -(log_probs.exp() * log_probs).sum(-1).view(n_policies, episodes * horizon)
    step_values = values[:, :, :horizon].reshape(n_policies, episodes * horizon)

    policy_loss = -policy_mean(adv * taken_log_prob, mask)
    value_loss = policy_mean((targets - step_values) ** 2, mask)  # SB3: F.mse_loss, no 1/2
    mean_entropy = policy_mean(entropy, mask)
    loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * mean_entropy

    # 4. One step, each policy's gradient its own.
    step_(optimizer, weights, loss, config.max_grad_norm)

    # 5. Diagnostics: how far the step moved each policy, how well its values fit.
    step_obs = host_tensor(batch.obs, weights).view(n_policies, episodes, horizon + 1, -1)[:, :, :horizon]
    kl = approx_kl(
        weights,
        spec,
        step_obs.reshape(n_policies, episodes * horizon, -1),
        actions.view(n_policies, episodes * horizon),
        taken_log_prob.detach(),
        mask,
    )
    return Diagnostics(
        policy_loss=per_policy(policy_loss),
        value_loss=per_policy(value_loss),
        entropy=per_policy(mean_entropy),
        approx_kl=kl,
        clip_frac=np.full(n_policies, np.nan),  # A2C clips no ratio
        explained_variance=explained_variance(values_np[:, :horizon], returns, batch.alive, n_policies),
    )
