"""The fine-tuning loop: play full episodes, reward them, let the chosen algorithm update.

Wuji (Zheng et al., ASE 2019, Sec. IV-D) sharpens every offspring with advantage actor-critic
between generations, all of them "asynchronously and simultaneously". Here they are trained
in one batch: the genomes ``[P, D]`` are the single leaf tensor, one vector game holds
``P * episodes`` copies, and the algorithm's update (found in :data:`evo.search.finetune.base.ALGORITHMS`
by name: ``a2c``, ``ppo``) does one batched forward pass for all policies. Fine-tuning a policy
next to B or next to C gives the same result; its random numbers come from its own seed.

The loop reads top to bottom like CleanRL's: play, reward, update, log diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np
import torch

from evo.search.finetune.base import ALGORITHMS, Batch, Diagnostics, UpdateConfig
from evo.search.policy import PolicySpec
from evo.search.agents.population import PopulationAgent
from evo.search.faults import FaultLog
from evo.search.play import draw_episodes, play
from games.core.base import VectorGame
from games.common.device import torch_device
from games.core.record import RolloutBatch
from games.common.seeds import POLICY_SEED_MAX

RewardFn = Callable[[RolloutBatch, int], np.ndarray]
"""``(record, horizon) -> rewards [N, horizon]``: the dense reward of a batch of episodes,
padded to the game's horizon (steps past an episode's end are ignored)."""


@dataclass
class FinetuneStats:
    """What one fine-tuning call did, for the generation log.

    Attributes:
        env_steps: Game steps played over all updates.
        updates: Gradient updates done (fewer than asked when the game broke).
        mean_return: Mean dense return per episode in the last update's batch.
        diagnostics: Each policy's RL diagnostics, averaged over the updates done (NaN for
            a policy without any).
        game_broken: The vector game raised as a whole during fine-tuning; the caller must
            replace it. Fine-tuning stopped there, without an update from that batch.
    """

    env_steps: int
    updates: int
    mean_return: float
    diagnostics: Diagnostics
    game_broken: bool = False
    per_update: list[Diagnostics] = field(default_factory=list, repr=False)
    """The diagnostics of every update, in order."""
    cut: bool = False
    """The deadline cut a batch's play; fine-tuning stopped there, without an update from it."""


def finetune(
    genomes: np.ndarray,
    spec: PolicySpec,
    game: VectorGame,
    algorithm: str,
    config: UpdateConfig,
    reward_fn: RewardFn,
    seeds: Sequence[int],
    policy_ids: Sequence[int],
    on_rollouts: Callable[[RolloutBatch], None] | None = None,
    columns: frozenset[str] = frozenset(),
    device: str = "cpu",
    deadline: float | None = None,
    faults: FaultLog | None = None,
) -> tuple[np.ndarray, FinetuneStats]:
    """Fine-tune P policies together with ``algorithm`` and return their new genomes.

    Every update plays one full episode in each of the ``P * episodes`` copies of ``game``
    with the current weights, hands the rollouts to ``on_rollouts`` (the engine's bug
    oracles watch fine-tuning episodes too), and lets the algorithm update the weights.

    Args:
        genomes: ``[P, D]`` float32 genomes; not modified.
        spec: Architecture of the policies.
        game: A vector game with ``num_envs == P * config.episodes``.
        algorithm: A registered algorithm's name (``finetune.algorithm``: ``a2c``, ``ppo``).
        config: Its hyperparameters, an instance of the algorithm's config model.
        reward_fn: Dense reward of a batch (the objectives' ``step_rewards``, combined).
        seeds: One seed per policy, the only source of randomness (episode seeds, action
            sampling, minibatch order): each policy's draws come from its own generator, so
            fine-tuning a policy gives the same result in any batch, process or machine.
        policy_ids: Id of each policy, recorded in its rollouts.
        on_rollouts: Called with the rollouts of every batch played, in copy order.
        columns: Optional record columns those rollouts keep (what the oracles require).
        device: Where the weights, their forward passes and the updates live (``cpu``,
            ``cuda``, ``cuda:N``); genomes come from and go back to the host.
        deadline: A wall clock time (``time.time()``): a batch whose play it cut is handed to
            ``on_rollouts`` (its bugs count) but not learned from, and no update follows
            (``FinetuneStats.cut``).
        faults: Where a fault of the game's process is told as it happens (:mod:`evo.search.faults`).

    Returns:
        ``(genomes [P, D] float32, stats)``.

    Raises:
        ValueError: An unknown ``algorithm``, a ``config`` of another algorithm, or
            ``policy_ids``, ``seeds`` or ``game.num_envs`` that do not match the genomes.
    """
    algo = _checked(algorithm, config, genomes, policy_ids, seeds, game)
    n_policies, n_params = genomes.shape
    episodes = config.episodes
    n_copies = n_policies * episodes
    # Copies are policy-major (PopulationAgent's layout): copy i belongs to policy i // episodes.
    copy_ids = np.repeat(np.asarray(policy_ids, dtype=np.int64), episodes)

    # torch.tensor copies, so the caller's array is never written to.
    weights = torch.tensor(genomes, dtype=torch.float32, device=torch_device(device)).requires_grad_(True)
    optimizer = algo.optimizer(config, [weights])
    env_steps, mean_return, game_broken, cut = 0, float("nan"), False, False
    per_update: list[Diagnostics] = []

    max_steps = game.game_spec.max_steps
    n_actions = game.game_spec.n_actions
    streams = [np.random.default_rng(int(s)) for s in seeds]
    for _ in range(config.updates):
        # 1. Play a batch of full episodes with the current weights.
        draws = draw_episodes([g.integers(0, POLICY_SEED_MAX) for g in streams], episodes, max_steps, n_actions)
        agent = PopulationAgent(weights.detach().cpu().numpy().copy(), spec, episodes, draws.gumbel, device=device)
        result = play(game, draws.seeds, copy_ids, agent, columns=columns | {"obs"}, deadline=deadline,
                      faults=faults)
        if on_rollouts is not None:  # what the oracles asked for, not the observations we need
            seen = result.rollouts if "obs" in columns else replace(result.rollouts, obs=None)
            on_rollouts(seen)
        env_steps += result.env_steps
        if result.game_broken:
            # Every copy was cut short at once: not a batch the policies chose. Stop here
            # and let the engine replace the game.
            game_broken = True
            break
        if result.cut:  # the run's wall budget is spent: episodes cut short teach nothing true
            cut = True
            break
        # 2. Dense rewards from the objectives.
        rewards = np.asarray(reward_fn(result.rollouts, max_steps), dtype=np.float64)
        if rewards.shape != (n_copies, max_steps):
            raise ValueError(
                f"finetune: reward_fn gave shape {rewards.shape}, expected {(n_copies, max_steps)}"
            )

        # 3. The algorithm's gradient step(s), and what they did.
        batch = Batch.from_record(result.rollouts, rewards, max_steps, n_policies, episodes)
        per_update.append(algo.update(weights, optimizer, spec, batch, config, streams))
        mean_return = float(batch.rewards.sum(axis=1).mean())

    out = weights.detach().cpu().numpy().copy()
    assert out.shape == (n_policies, n_params)
    stats = FinetuneStats(
        env_steps=env_steps,
        updates=len(per_update),
        mean_return=mean_return,
        diagnostics=Diagnostics.mean(per_update, n_policies),
        game_broken=game_broken,
        per_update=per_update,
        cut=cut,
    )
    return out, stats


def _checked(algorithm: str, config: UpdateConfig, genomes: np.ndarray, policy_ids: Sequence[int],
             seeds: Sequence[int], game: VectorGame) -> Any:
    """The registered algorithm, once its config, the ids, seeds and game's copies fit the genomes."""
    try:
        algo = ALGORITHMS[algorithm]
    except KeyError as exc:
        raise ValueError(f"finetune: {exc}") from None
    if not isinstance(config, algo.config):
        raise ValueError(f"finetune: {algorithm} needs a {algo.config.__name__}, got a {type(config).__name__}")
    n_policies, episodes = len(genomes), config.episodes
    if len(policy_ids) != n_policies or len(seeds) != n_policies:
        raise ValueError(f"finetune: {len(policy_ids)} policy ids and {len(seeds)} seeds for {n_policies} genomes")
    if game.num_envs != n_policies * episodes:
        raise ValueError(f"finetune: game has {game.num_envs} copies, expected {n_policies} policies x "
                         f"{episodes} episodes = {n_policies * episodes}")
    return algo
