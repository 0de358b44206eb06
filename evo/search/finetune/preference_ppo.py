"""PPGTA's exploring agent: PPO on the mixed reward, its actor-critic started from the imitation policy.

PPGTA (Section IV-C and V-B) trains its exploration policy with PPO on
``r = alpha r_p + (1 - alpha) r_e`` (the ``preference_kl`` objective's dense reward) and
initialises both the actor and the critic from the path-following imitation policy "as an
informative inductive bias": the same recurrent network (encoder, local bidirectional GRU over
the last K frames, global GRU, MLP head), the critic's last layer a value instead of the
action logits. So the agent starts out walking the pathways as demonstrated, and PPO moves it
from there towards what is novel.

The networks are recurrent over whole episodes, so an update plays full episodes with the
current actor (:class:`evo.search.agents.imitation.ImitationAgent`, through ``play``), scores
them by the objective, and takes ``epochs`` passes of clipped PPO steps (CleanRL's ``ppo.py``
loss: clipped ratio, value loss, entropy bonus) over minibatches of whole episodes, each
episode re-run from its first frame. The objective then learns from the episodes (its RND
novelty's ``update``). Dropout is off throughout. Everything random comes from ``seed``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from evo.search.agents.imitation import ImitationAgent
from evo.search.finetune.base import compute_gae
from evo.search.finetune.ppo import ADAM_EPS, PPOConfig
from evo.search.play import draw_episodes, play
from games.core.base import VectorGame
from games.core.record import RolloutBatch
from games.perception.encoder import downscale
from games.perception.imitation import ImitationPolicy


class ActorCritic(nn.Module):
    """Actor and critic, both copies of an imitation policy; the critic's last layer one value.

    Args:
        policy: The imitation policy both start from (left unchanged).
    """

    def __init__(self, policy: ImitationPolicy) -> None:
        super().__init__()
        self.actor = copy.deepcopy(policy)
        self.critic = copy.deepcopy(policy)
        last = self.critic.head[-1]
        self.critic.head[-1] = nn.Linear(last.in_features, 1)
        nn.init.zeros_(self.critic.head[-1].weight)
        nn.init.zeros_(self.critic.head[-1].bias)

    def forward(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``[B, T, 3, 64, 64]`` frames -> logits ``[B, T, A]`` and values ``[B, T]``."""
        return self.actor(frames), self.critic(frames)[..., 0]


@dataclass(frozen=True)
class UpdateStats:
    """What one update did (CleanRL's diagnostics), and the episodes' mean dense reward."""

    reward: float
    style: float
    policy_loss: float
    value_loss: float
    entropy: float
    approx_kl: float
    clip_frac: float


def _frames(batch: RolloutBatch, frame_shape: Sequence[int]) -> torch.Tensor:
    """``[N, T, 3, 64, 64]`` the frame before every step of every episode (zero past its end)."""
    n, t = batch.actions.shape
    out = np.zeros((n, t, 3, 64, 64), dtype=np.uint8)
    for i in range(n):
        length = int(batch.lengths[i])
        out[i, :length] = downscale(batch.obs[i, :length].reshape(length, *frame_shape))
    return torch.from_numpy(out)


def preference_ppo(game: VectorGame, objective: Any, policy: ImitationPolicy, config: PPOConfig, seed: int,
                   on_rollouts: Callable[[RolloutBatch], None] | None = None) -> tuple[ActorCritic, list[UpdateStats]]:
    """Train PPGTA's exploring agent on ``game`` for ``config.updates`` updates.

    Args:
        game: The game, ``config.episodes`` copies, observing RGB frames (OD-masked by the
            ``detect`` wrapper, as the imitation policy learned).
        objective: The ``preference_kl`` objective: its ``step_rewards`` are the reward, its
            ``score`` the mean style reward reported, its ``update`` teaches its novelty.
        policy: The imitation policy actor and critic start from.
        config: PPO's settings (``updates``, ``episodes``, ``epochs``, ``minibatches`` of
            whole episodes, ``clip_coef``, ``lr``, ``gamma``, ``gae_lambda``, coefficients).
        seed: Seeds the episodes, the sampling and the minibatches.
        on_rollouts: Called with each update's episodes (oracles, coverage, maps).
    """
    model = ActorCritic(policy)
    stats = []
    for batch, update in preference_updates(game, objective, model, config, seed):
        if on_rollouts is not None:
            on_rollouts(batch)
        stats.append(update)
        if len(stats) == config.updates:
            break
    return model, stats


def preference_updates(game: VectorGame, objective: Any, model: ActorCritic, config: PPOConfig, seed: int,
                       columns: frozenset[str] = frozenset()) -> Iterator[tuple[RolloutBatch, UpdateStats]]:
    """Update ``model`` in place for as long as the caller iterates (``evo run`` stops on its
    budget): each update's episodes and what it did. Arguments as :func:`preference_ppo`'s;
    ``columns``: record columns kept beyond the objective's (what the run's oracles read)."""
    if game.num_envs != config.episodes:
        raise ValueError(f"preference_ppo plays {config.episodes} episodes at once; the game has {game.num_envs} copies")
    spec = game.game_spec
    frame_shape = tuple(spec.obs_shape)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, eps=ADAM_EPS)
    columns = frozenset({"obs", "probs"}) | objective.requires | columns
    # Dropout stays off (eval mode) in play and in the updates alike: the ratio of the first
    # step is then exactly 1, and nothing draws from torch's global generator.
    model.eval()
    while True:
        draws = draw_episodes([int(rng.integers(2**31))], config.episodes, spec.max_steps, spec.n_actions)
        agent = ImitationAgent(model.actor, frame_shape, draws.gumbel)
        batch = play(game, draws.seeds, [0] * config.episodes, agent, columns=columns).rollouts
        update = _update(model, optimizer, batch, objective, frame_shape, config, rng)
        objective.update(batch)
        yield batch, update


def _update(model: ActorCritic, optimizer: torch.optim.Optimizer, batch: RolloutBatch, objective: Any,
            frame_shape: Sequence[int], config: PPOConfig, rng: np.random.Generator) -> UpdateStats:
    n, t = batch.actions.shape
    alive = batch.valid
    rewards = np.zeros((n, t))
    for i in range(n):
        rewards[i, : batch.lengths[i]] = objective.step_rewards(batch.rollout(i))
    frames = _frames(batch, frame_shape)
    actions = torch.from_numpy(batch.actions)
    old_logp = torch.from_numpy(np.log(np.maximum(np.take_along_axis(batch.probs, batch.actions[..., None], 2)[..., 0],
                                                  1e-30))).float()
    with torch.no_grad():
        values = model.critic(frames)[..., 0].double().numpy()
    last = values[np.arange(n), np.maximum(batch.lengths - 1, 0)]  # truncated: bootstrap from the last value seen
    adv, ret = compute_gae(rewards, values, alive, batch.terminated, last, config.gamma, config.gae_lambda)
    mask = torch.from_numpy(alive)
    adv_t, ret_t = torch.from_numpy(adv).float(), torch.from_numpy(ret).float()
    if config.normalize_advantages:
        adv_t = (adv_t - adv_t[mask].mean()) / (adv_t[mask].std() + 1e-8)
    per = max(1, n // config.minibatches)
    records: list[tuple[float, float, float, float, float]] = []
    for _ in range(config.epochs):
        order = rng.permutation(n)
        for a in range(0, n, per):
            rows = torch.from_numpy(np.sort(order[a:a + per]))
            logits, value = model(frames[rows])
            m = mask[rows]
            logp_all = F.log_softmax(logits, dim=2)
            logp = logp_all.gather(2, actions[rows].clamp(min=0)[..., None])[..., 0]
            ratio = (logp - old_logp[rows]).exp()
            a_r = adv_t[rows]
            policy_loss = -torch.min(ratio * a_r, ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef) * a_r)[m].mean()
            value_loss = 0.5 * ((value - ret_t[rows]) ** 2)[m].mean()
            entropy = -(logp_all.exp() * logp_all).sum(2)[m].mean()
            loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                log_ratio = (logp - old_logp[rows])[m]
                kl = float(((log_ratio.exp() - 1) - log_ratio).mean())  # CleanRL's approx_kl
                clipped = float(((ratio[m] - 1).abs() > config.clip_coef).float().mean())
            records.append((float(policy_loss.detach()), float(value_loss.detach()), float(entropy.detach()), kl, clipped))
    mean = np.mean(records, axis=0)
    return UpdateStats(float(rewards[alive].mean()), float(objective.score(batch)), *map(float, mean))
