"""PPO: several epochs of clipped minibatch steps per batch of full episodes.

A2C takes one gradient step per batch of full episodes. That is Wuji's recipe, and it is
cheap, but it learns from each game step once: at 500-step episodes a policy gets one step
per 8,000 game steps, a hundred times fewer updates per sample than A2C's usual 5-step
rollouts. PPO (Schulman et al. 2017) reuses each batch for several epochs of minibatch
steps and clips the probability ratio so that the reuse cannot move a policy far from the
one that played; with the defaults here a batch gives 16 steps instead of 1.

The rules that keep policies independent are in :mod:`evo.search.finetune.base`: the loss is the
sum of the policies' own losses, the optimizer (Adam, as CleanRL's ``ppo``) is elementwise,
gradients are clipped per policy, advantages are normalized per policy. Minibatches are drawn
per policy from its own generator: each policy gets the same number of step slots, shuffled
among its own ``episodes * T`` slots (slots past an episode's end are masked), so a policy's
update never depends on another's episode lengths or random numbers.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pydantic
import torch
import torch.nn.functional as F

from evo.search.finetune.base import (Batch, Diagnostics, UpdateConfig, approx_kl,
                                      compute_gae, explained_variance, host_tensor, per_policy, register, step_)
from evo.search.policy import PolicySpec, forward

ADAM_EPS = 1e-5  # CleanRL's ppo.py


class PPOConfig(UpdateConfig):
    """Hyperparameters of PPO fine-tuning; defaults follow CleanRL's ``ppo.py`` where they
    apply (Adam at 2.5e-4, 4 epochs, clip 0.2, normalized advantages)."""

    lr: float = pydantic.Field(2.5e-4, gt=0, description="Adam learning rate (CleanRL's PPO default).")
    normalize_advantages: bool = pydantic.Field(
        True, description="Standardize advantages over each policy's own steps (on in PPO)."
    )
    epochs: int = pydantic.Field(4, ge=1, description="Passes over each batch.")
    minibatches: int = pydantic.Field(4, ge=1, description="Gradient steps per pass; each sees 1/minibatches of the batch.")
    clip_coef: float = pydantic.Field(0.2, gt=0, description="Clip of the probability ratio (1 +- clip_coef).")


def adam(config: UpdateConfig, params: list[torch.Tensor]) -> torch.optim.Optimizer:
    """Adam, elementwise, so rows stay independent."""
    return torch.optim.Adam(params, lr=config.lr, eps=ADAM_EPS)


@register("ppo", PPOConfig, adam)
def ppo_update(weights: torch.Tensor, optimizer: torch.optim.Optimizer, spec: PolicySpec, batch: Batch,
               config: UpdateConfig, streams: Sequence[np.random.Generator]) -> Diagnostics:
    """``config.epochs`` passes of ``config.minibatches`` clipped-surrogate steps over one
    batch of full episodes.

    Returns:
        Each policy's diagnostics: losses and entropy averaged over the update's minibatch
        steps, the fraction of valid steps whose ratio was clipped over all of them (CleanRL's
        ``clipfracs``), the KL from the policy that played to the updated one, and the
        explained variance of the values that played.
    """
    assert isinstance(config, PPOConfig)
    rewards, n_policies, episodes = batch.rewards, batch.n_policies, batch.episodes
    n_copies = n_policies * episodes
    horizon = batch.actions.shape[1]
    slots = episodes * horizon
    obs_all = host_tensor(batch.obs, weights).view(n_policies, episodes, horizon + 1, -1)
    obs = obs_all[:, :, :horizon].reshape(n_policies, slots, -1)

    # The policies that played: their log-probabilities and values, then GAE.
    with torch.no_grad():
        logits, values = forward(spec.unflatten(weights), obs_all.reshape(n_policies, episodes * (horizon + 1), -1))
    values_np = values.view(n_copies, horizon + 1).cpu().numpy().astype(np.float64)
    advantages, returns = compute_gae(
        rewards, values_np[:, :horizon], batch.alive, batch.ended,
        values_np[np.arange(n_copies), batch.lengths], config.gamma, config.gae_lambda,
    )
    actions = host_tensor(batch.actions, weights).view(n_policies, slots)
    old_log_prob = (
        F.log_softmax(logits.view(n_policies, episodes, horizon + 1, -1)[:, :, :horizon], dim=-1)
        .reshape(n_policies, slots, -1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    )
    alive = host_tensor(batch.alive, weights).view(n_policies, slots).float()
    adv = host_tensor(advantages, weights).float().view(n_policies, slots)
    if config.normalize_advantages:
        count = alive.sum(dim=1, keepdim=True).clamp(min=1.0)
        mean = (adv * alive).sum(dim=1, keepdim=True) / count
        std = (((adv - mean) ** 2) * alive).sum(dim=1, keepdim=True).div(count).sqrt()
        adv = (adv - mean) / (std + 1e-8)
    targets = host_tensor(returns, weights).float().view(n_policies, slots)

    rows = torch.arange(n_policies, device=weights.device).unsqueeze(1)
    size = -(-slots // config.minibatches)
    # Per-policy sums over the minibatch steps, for the diagnostics.
    sums = {name: np.zeros(n_policies) for name in ("policy_loss", "value_loss", "entropy")}
    steps = 0
    clipped, valid = np.zeros(n_policies), np.zeros(n_policies)
    for _ in range(config.epochs):
        order = host_tensor(np.stack([g.permutation(slots) for g in streams]), weights)  # [P, slots]
        for start in range(0, slots, size):
            idx = order[:, start : start + size]
            mask = alive[rows, idx]
            count = mask.sum(dim=1).clamp(min=1.0)
            logits_mb, values_mb = forward(spec.unflatten(weights), obs[rows, idx])
            log_probs = F.log_softmax(logits_mb, dim=-1)
            new_log_prob = log_probs.gather(-1, actions[rows, idx].unsqueeze(-1)).squeeze(-1)
            ratio = (new_log_prob - old_log_prob[rows, idx]).exp()
            a = adv[rows, idx]
            surrogate = torch.max(-a * ratio, -a * ratio.clamp(1.0 - config.clip_coef, 1.0 + config.clip_coef))
            entropy = -(log_probs.exp() * log_probs).sum(-1)
            policy_loss = (surrogate * mask).sum(dim=1) / count
            value_loss = (((targets[rows, idx] - values_mb) ** 2) * mask).sum(dim=1) / count
            mean_entropy = (entropy * mask).sum(dim=1) / count
            loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * mean_entropy
            step_(optimizer, weights, loss, config.max_grad_norm)

            steps += 1
            for name, term in (("policy_loss", policy_loss), ("value_loss", value_loss), ("entropy", mean_entropy)):
                sums[name] += per_policy(term)
            # CleanRL: clipfracs += [((ratio - 1.0).abs() > clip_coef).float().mean()]
            outside = ((ratio.detach() - 1.0).abs() > config.clip_coef).double().cpu().numpy()
            clipped += (outside * mask.double().cpu().numpy()).sum(axis=1)
            valid += mask.double().cpu().numpy().sum(axis=1)

    return Diagnostics(
        policy_loss=sums["policy_loss"] / steps,
        value_loss=sums["value_loss"] / steps,
        entropy=sums["entropy"] / steps,
        approx_kl=approx_kl(weights, spec, obs, actions, old_log_prob, alive),
        clip_frac=np.where(valid > 0, clipped / np.maximum(valid, 1.0), np.nan),
        explained_variance=explained_variance(values_np[:, :horizon], returns, batch.alive, n_policies),
    )
