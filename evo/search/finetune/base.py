"""Contracts of gradient fine-tuning: the shared config, one update's batch and diagnostics,
the :class:`Updater` protocol and the registry of algorithms, and the pieces every algorithm
uses (GAE, per-policy gradient clipping, per-policy means).

P policies are trained in one batch: their genomes ``[P, D]`` are the single leaf tensor and
one batched forward pass gives every policy's logits and values. The policies stay
independent although they share a tensor, as long as every algorithm keeps these rules:

- the loss is the *sum* over policies of each policy's own loss (a mean over its own valid
  steps), so the gradient of row ``p`` is exactly the gradient of policy ``p``'s loss;
- the optimizer acts elementwise (RMSprop, Adam), so row ``p`` is updated from row ``p`` alone;
- gradients are clipped per policy (:func:`clip_grad_norm_per_policy_`), never by one global
  norm; advantages, when normalized, are normalized per policy;
- random numbers (minibatch order) come from each policy's own generator.

An algorithm registers itself with :func:`register`; the loop (:mod:`evo.search.finetune.loop`)
finds it by the name the experiment gives (``finetune.algorithm``) and knows no algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np
import pydantic
import torch

from evo.search.policy import PolicySpec, forward
from games.common.registry import Registry
from games.core.record import RolloutBatch


class UpdateConfig(pydantic.BaseModel):
    """Hyperparameters every fine-tuning algorithm shares; defaults follow Stable-Baselines3's
    A2C, and an algorithm's own config may change them (PPO's ``lr``)."""

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
    lr: float = pydantic.Field(7e-4, gt=0, description="Learning rate of the optimizer.")
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


@dataclass(frozen=True)
class Batch:
    """What one update learns from: ``episodes`` full episodes of each of P policies, cut
    from the record of play and padded to the game's horizon of T steps.

    Copies are policy-major (copy ``i`` belongs to policy ``i // episodes``). Padding (zeros
    past ``used`` steps, left unallocated) keeps the arrays' shapes those of the horizon, on
    which PPO's minibatches are drawn, so an update does not depend on how long this
    batch's longest episode happened to be.

    Attributes:
        obs: ``[N, T + 1, obs_dim]`` float32 observations (after reset, then each step).
        actions: ``[N, T]`` int64.
        alive: ``[N, T]`` bool, True where the step was taken.
        lengths: ``[N]`` steps taken per episode.
        ended: ``[N]`` bool: the episode ended by termination or error (no bootstrap from
            its last state), not by truncation.
        rewards: ``[N, T]`` float64 dense rewards, 0 past each episode's end.
        n_policies: P.
        episodes: Episodes per policy.
    """

    obs: np.ndarray
    actions: np.ndarray
    alive: np.ndarray
    lengths: np.ndarray
    ended: np.ndarray
    rewards: np.ndarray
    n_policies: int
    episodes: int

    @classmethod
    def from_record(cls, record: RolloutBatch, rewards: np.ndarray, horizon: int, n_policies: int,
                    episodes: int) -> "Batch":
        """The update's arrays from a record played with its ``obs`` column."""
        if record.obs is None:
            raise ValueError("finetune: the record of play has no obs column (play with columns={'obs'})")
        n, used = record.actions.shape
        obs = np.zeros((n, horizon + 1, record.obs.shape[2]), dtype=np.float32)
        obs[:, : used + 1] = record.obs
        actions = np.zeros((n, horizon), dtype=np.int64)
        actions[:, :used] = record.actions
        alive = np.arange(horizon)[None, :] < record.lengths[:, None]
        return cls(obs, actions, alive, record.lengths, record.terminated.copy(),
                   np.where(alive, rewards, 0.0), n_policies, episodes)


DIAGNOSTICS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac", "explained_variance")
"""Names of the diagnostics, in the order of :class:`Diagnostics`' fields."""


@dataclass(frozen=True, eq=False)
class Diagnostics:
    """The diagnostics CleanRL's ``ppo.py`` logs, one value per policy (``[P]`` float64).

    Attributes:
        policy_loss: Policy-gradient loss (A2C) or clipped surrogate (PPO), mean over steps.
        value_loss: Squared error of the values against the GAE returns.
        entropy: Mean entropy of the policy over its steps, in nats (at most log n_actions).
        approx_kl: KL from the policy that played to the updated one, on the batch's steps,
            with CleanRL's estimator ``((ratio - 1) - log ratio).mean()`` (Schulman's k3).
        clip_frac: Fraction of steps whose probability ratio PPO clipped; NaN for A2C.
        explained_variance: ``1 - Var(returns - values) / Var(returns)`` of the values
            before the update (1 is perfect, 0 no better than a constant, NaN if the returns
            do not vary).
    """

    policy_loss: np.ndarray
    value_loss: np.ndarray
    entropy: np.ndarray
    approx_kl: np.ndarray
    clip_frac: np.ndarray
    explained_variance: np.ndarray

    def __eq__(self, other: object) -> bool:
        """Equal arrays, NaN equal to NaN (A2C's clip fraction)."""
        if not isinstance(other, Diagnostics):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, n), getattr(other, n), equal_nan=True) for n in DIAGNOSTICS
        )

    @classmethod
    def empty(cls, n_policies: int) -> "Diagnostics":
        """All NaN: policies that did no update."""
        return cls(*(np.full(n_policies, np.nan) for _ in DIAGNOSTICS))

    @classmethod
    def mean(cls, updates: Sequence["Diagnostics"], n_policies: int) -> "Diagnostics":
        """Each policy's mean over ``updates``, NaN values left out (NaN where all are)."""
        if not updates:
            return cls.empty(n_policies)
        return cls(*(nanmean(np.stack([getattr(u, n) for u in updates]), axis=0) for n in DIAGNOSTICS))

    @classmethod
    def concat(cls, parts: Sequence["Diagnostics"]) -> "Diagnostics":
        """The diagnostics of consecutive chunks of policies as one population's."""
        return cls(*(np.concatenate([getattr(p, n) for p in parts]) for n in DIAGNOSTICS))

    def means(self) -> dict[str, float]:
        """Each diagnostic's mean over policies (NaN left out): one generation's values."""
        return {n: float(nanmean(getattr(self, n), axis=0)) for n in DIAGNOSTICS}


def nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """``np.nanmean`` without its warning on all-NaN slices (A2C's clip fraction is all NaN)."""
    x = np.asarray(x, dtype=np.float64)
    valid = ~np.isnan(x)
    count = valid.sum(axis=axis)
    total = np.where(valid, x, 0.0).sum(axis=axis)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


class Updater(Protocol):
    """One algorithm's gradient step(s) on one batch of full episodes.

    Updates ``weights`` ``[P, D]`` (the flat genomes, a leaf tensor) in place through
    ``optimizer``, keeping the policies independent (see the module docstring), and returns
    each policy's diagnostics of this update. ``streams`` are the policies' own generators,
    for any random draw (PPO's minibatch order).
    """

    def __call__(self, weights: torch.Tensor, optimizer: torch.optim.Optimizer, spec: PolicySpec, batch: Batch,
                 config: UpdateConfig, streams: Sequence[np.random.Generator]) -> Diagnostics: ...


def step_(optimizer: torch.optim.Optimizer, weights: torch.Tensor, loss: torch.Tensor, max_grad_norm: float) -> None:
    """One optimizer step on ``loss`` ``[P]``, each policy's gradient clipped on its own. The
    sum keeps each row's gradient its own policy's gradient."""
    optimizer.zero_grad()
    loss.sum().backward()
    assert weights.grad is not None
    clip_grad_norm_per_policy_(weights.grad, max_grad_norm)
    optimizer.step()


OptimizerFactory = Callable[[UpdateConfig, list[torch.Tensor]], torch.optim.Optimizer]
"""``(config, params) -> optimizer``; elementwise, so that rows stay independent. One fresh
optimizer per fine-tuning call (a genome is all that survives a generation)."""


@dataclass(frozen=True)
class Algorithm:
    """A registered fine-tuning algorithm: its config model, optimizer and update."""

    config: type[UpdateConfig]
    optimizer: OptimizerFactory
    update: Updater


ALGORITHMS: Registry[Algorithm] = Registry("fine-tuning algorithm", "evo.finetuners")
"""Fine-tuning algorithms by the name ``finetune.algorithm`` gives them; installed packages add
theirs through the ``evo.finetuners`` entry-point group."""


def register(
    name: str, config: type[UpdateConfig], optimizer: OptimizerFactory
) -> Callable[[Updater], Updater]:
    """Decorator of an update function: make it the algorithm ``finetune.algorithm: <name>``."""
    return ALGORITHMS.register(name, lambda update: Algorithm(config, optimizer, update))


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


def explained_variance(values: np.ndarray, returns: np.ndarray, alive: np.ndarray, n_policies: int) -> np.ndarray:
    """CleanRL's explained variance, ``1 - Var(returns - values) / Var(returns)``, of each
    policy over its own valid steps.

    Args:
        values: ``[P * E, T]`` values before the update.
        returns: ``[P * E, T]`` GAE returns (the value targets).
        alive: ``[P * E, T]`` bool, the steps taken.
        n_policies: P.

    Returns:
        ``[P]`` float64; NaN for a policy whose returns do not vary.
    """
    out = np.full(n_policies, np.nan)
    rows = np.asarray(alive, dtype=bool).reshape(n_policies, -1)
    v = np.asarray(values, dtype=np.float64).reshape(n_policies, -1)
    r = np.asarray(returns, dtype=np.float64).reshape(n_policies, -1)
    for p in range(n_policies):
        var_returns = np.var(r[p, rows[p]]) if rows[p].any() else 0.0
        if var_returns > 0:
            out[p] = 1.0 - np.var(r[p, rows[p]] - v[p, rows[p]]) / var_returns
    return out


def host_tensor(array: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    """``array`` as a tensor on the device of ``like`` (the weights being tuned): the same
    tensor, no copy, on the CPU."""
    return torch.from_numpy(array).to(like.device)


def policy_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``[P, S] -> [P]``: each policy's mean of ``x`` over its valid slots (``mask`` 1.0)."""
    return (x * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


@torch.no_grad()
def approx_kl(
    weights: torch.Tensor,
    spec: PolicySpec,
    obs: torch.Tensor,
    actions: torch.Tensor,
    old_log_prob: torch.Tensor,
    mask: torch.Tensor,
) -> np.ndarray:
    """KL from the policies that played to ``weights``, on the actions they took.

    CleanRL's estimator ``((ratio - 1) - log ratio).mean()`` (Schulman's k3: unbiased and
    never negative), each policy over its own valid steps. Reads ``weights`` only.

    Args:
        weights: ``[P, D]`` genomes after the update.
        spec: Architecture of the policies.
        obs: ``[P, S, obs_dim]`` observations the actions were taken in.
        actions: ``[P, S]`` int64 actions taken.
        old_log_prob: ``[P, S]`` their log-probabilities under the policies that played.
        mask: ``[P, S]`` 1.0 on valid steps.

    Returns:
        ``[P]`` float64.
    """
    logits, _ = forward(spec.unflatten(weights.detach()), obs)
    new_log_prob = torch.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    log_ratio = new_log_prob - old_log_prob
    kl = (log_ratio.exp() - 1.0) - log_ratio
    return policy_mean(kl, mask).double().cpu().numpy()


def per_policy(x: torch.Tensor) -> np.ndarray:
    """A ``[P]`` tensor of a loss term as float64 numpy, detached."""
    return x.detach().double().cpu().numpy()


__all__ = [
    "Algorithm",
    "Batch",
    "DIAGNOSTICS",
    "Diagnostics",
    "ALGORITHMS",
    "UpdateConfig",
    "Updater",
    "approx_kl",
    "clip_grad_norm_per_policy_",
    "compute_gae",
    "explained_variance",
    "host_tensor",
    "nanmean",
    "per_policy",
    "policy_mean",
    "register",
]
