"""Play episodes: a whole population x episodes batch steps together against a vector game.

One step of the loop is one call of the agent for all copies (for the evolved population, one
batched forward pass for every policy and episode), one call of the vector game, and writes
into preallocated arrays. Rollout records are cut out of those arrays once the episodes are
over.

A game that raises from ``step`` as a whole (rather than per copy) is a finding, not an
engine failure: every copy still running gets the error, and the caller gets
``EvalResult.game_broken`` so that it plays on with a fresh game instance.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from evo.search.agents.base import Agent
from evo.search.faults import FaultLog
from evo.search.play_record import PlayRecord
from games.core.base import VectorGame
from games.core.record import OPTIONAL_COLUMNS, RolloutBatch, unknown_columns
from games.common.seeds import EPISODE_SEED_MAX


PLAN_STEPS = 32
"""Steps of an agent that chose them in advance (``Agent.planned``) sent to the game at once:
an isolated copy then makes one round trip every 32 steps instead of every step. A batch cut
short by its deadline leaves at most that many steps of a copy played and dropped."""


@dataclass
class EvalResult:
    """What playing a batch returns.

    Attributes:
        rollouts: One episode per copy, in copy order (a sequence of :class:`Rollout`).
        env_steps: Steps taken in total.
        game_broken: The vector game raised as a whole and must be replaced.
    """

    rollouts: RolloutBatch
    env_steps: int
    game_broken: bool = False
    cut: bool = False
    """The deadline came before every episode was over: those still running were truncated."""


def play(
    game: VectorGame,
    seeds: Sequence[int],
    policy_ids: Sequence[int],
    agent: Agent,
    *,
    max_steps: int | None = None,
    columns: frozenset[str] = frozenset(),
    deadline: float | None = None,
    limits: Sequence[int] | None = None,
    faults: FaultLog | None = None,
    starts: Sequence[bytes | None] | None = None,
    heads: Sequence[np.ndarray] | None = None,
    snapshot_every: int = 0,
) -> EvalResult:
    """Play one episode in every copy of ``game`` until all are over.

    Args:
        game: A vector game with ``num_envs == len(seeds)``.
        seeds: Episode seed of each copy.
        policy_ids: Policy id recorded in each copy's rollout.
        agent: Picks the actions of all copies (:class:`evo.search.agents.base.Agent`); it is
            reset with the copies' seeds.
        max_steps: Stop earlier than the game's horizon (a replay stops at its bug's step).
        columns: Optional record columns to keep (:data:`games.core.record.OPTIONAL_COLUMNS`):
            what the objectives and oracles ``require``; nothing else is recorded.
            ``info.step_clock`` (:data:`games.core.record.CLOCK_KEY`) records when each step
            ended.
        deadline: A wall clock time (``time.time()``) after which no step starts but the
            first: the episodes still running are truncated there (``EvalResult.cut``), so that a run's
            wall budget holds during play, not only between generations.
        limits: Per copy, the steps its episode plays at most (truncated there): Go-Explore's
            exploration segment after a return (``search.explore_steps``).
        faults: Where a fault of the game's process is told the moment a copy meets it
            (:mod:`evo.search.faults`); None: only in the rollouts.
        starts: Per copy, a snapshot of the game to go on from instead of its reset (None:
            from the reset); only for a game with ``reset_from``.
        heads: Per copy, the actions from the reset to where its snapshot was taken (what the
            record's :attr:`RolloutBatch.head` keeps, so that its bugs replay from the reset).
        snapshot_every: Ask the game for a snapshot after every this many steps of each copy
            (0: none); they come back in :attr:`RolloutBatch.snapshots`.
    """
    unknown = unknown_columns(columns)
    if unknown:
        raise ValueError(f"play: unknown record columns {unknown}; known: {', '.join(OPTIONAL_COLUMNS)}")
    n = game.num_envs
    if len(seeds) != n or len(policy_ids) != n:
        raise ValueError(f"play: {len(seeds)} seeds and {len(policy_ids)} ids for {n} copies")
    spec = game.game_spec
    horizon = spec.max_steps if max_steps is None else min(spec.max_steps, max_steps)
    limit = None if limits is None else np.asarray(limits, dtype=np.int64).reshape(n)
    if limit is not None:
        horizon = min(horizon, int(limit.max()))
    episode_seeds = [int(s) for s in seeds]
    restoring = starts is not None and any(s is not None for s in starts)
    if restoring or snapshot_every:
        if not hasattr(game, "reset_from"):
            raise ValueError(f"play: {type(game).__name__} takes no snapshots; play it from the reset")
        offsets = None if heads is None else [len(h) for h in heads]
        obs, feats = game.reset_from(episode_seeds, starts, offsets, snapshot_every)  # type: ignore[attr-defined]
    else:
        obs, feats = game.reset(episode_seeds)
    obs = np.asarray(obs, dtype=spec.obs_dtype).reshape(n, -1)
    record = PlayRecord(spec, horizon, columns, obs, feats, snapshot_every)
    if snapshot_every and starts is not None:
        record.keep_starts(starts)
    agent.reset(episode_seeds)
    ahead = _Ahead(agent, game, horizon, limit)
    infos: dict[str, np.ndarray] = {}
    broken = cut = False
    for t in range(horizon):
        if deadline is not None and t > 0 and time.time() >= deadline:  # every episode has a step
            cut = True
            break
        alive = ~record.done
        if t == 0 and deadline is not None and time.time() >= deadline:
            ahead.planner = None  # one step is played, and none sent ahead to be stopped and dropped
        ahead.send(t, alive)
        a, p = agent.act(obs if obs.dtype == np.float32 else obs.astype(np.float32), record.features[t], infos, t)
        record.act(t, a, p)
        start = time.perf_counter()
        try:
            step = game.step(a)
        except Exception as exc:  # the game failed as a whole: every running copy crashed
            record.broke(t, alive, exc)
            broken = True
            break
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        obs = np.asarray(step.obs, dtype=spec.obs_dtype).reshape(n, -1)
        infos = step.info
        record.step(t, step, obs, elapsed_ms, alive)
        met = {i: err for i, err in step.errors.items() if alive[i]}
        if faults is not None and met:
            faults.tell(met, t, policy_ids, seeds, record.actions, record.features, record.lengths + alive, heads)
        if record.end(t, step, met, alive, limit):
            break
    rollouts = record.batch(policy_ids, seeds, heads if restoring else None)
    return EvalResult(rollouts, int(rollouts.lengths.sum()), broken, cut)


class _Ahead:
    """Sends an agent's planned actions (``Agent.planned``) to a game that takes them
    (``plan``), :data:`PLAN_STEPS` at a time: an isolated copy then makes one round trip for
    them instead of one a step."""

    def __init__(self, agent: Agent, game: VectorGame, horizon: int, limit: np.ndarray | None) -> None:
        self.planner = getattr(agent, "planned", None) if hasattr(game, "plan") else None
        self.game, self.horizon, self.limit = game, horizon, limit
        self.until = 0

    def send(self, t: int, alive: np.ndarray) -> None:
        """At step ``t``, the next block where the last one is used up (none past a copy's segment)."""
        if self.planner is None or t < self.until:
            return
        block = self.planner(t, min(PLAN_STEPS, self.horizon - t))
        if block is None:
            self.planner = None
            return
        counts = np.where(alive, block.shape[0], 0)
        if self.limit is not None:  # nothing past a copy's segment
            counts = np.minimum(counts, np.maximum(self.limit - t, 0))
        self.game.plan(block, counts)  # type: ignore[attr-defined]
        self.until = t + block.shape[0]


@dataclass(frozen=True)
class EpisodeDraws:
    """Every random number a batch of episodes needs, drawn before the first step.

    Each policy's draws come from its own generator, seeded by one number: what a policy
    plays is the same whichever other policies share its batch, its process or its machine,
    so a run gives equal results serially and on any number of workers.

    Attributes:
        seeds: ``[P * E]`` episode seeds, policy-major.
        gumbel: ``[P * E, T, A]`` Gumbel noise for action sampling (Gumbel-max trick).
    """

    seeds: np.ndarray
    gumbel: np.ndarray


NOISE_STREAM = 0x6E6F
"""Second seed word of the noise's own generator in :func:`draw_episodes`' ``stable_prefix`` form."""


def draw_episodes(policy_seeds: Sequence[int], episodes: int, horizon: int, n_actions: int,
                  stable_prefix: bool = False) -> EpisodeDraws:
    """Episode seeds and sampling noise for ``episodes`` episodes of each policy.

    By default the noise follows the seeds in one generator, so how many episodes are drawn
    moves where it starts: the first k episodes of a draw of 18 play differently from those of
    a draw of 45. That is the form every search draws with (its runs replay with it). With
    ``stable_prefix`` the noise has a generator of its own, and the first k episodes are the
    same however many are drawn: what an evaluation of 18 episodes needs to be the first 18 of
    45 (the episode seeds are the same in both forms).
    """
    seeds = np.empty((len(policy_seeds), episodes), dtype=np.int64)
    uniform = np.empty((len(policy_seeds), episodes, horizon, n_actions), dtype=np.float32)
    for p, seed in enumerate(policy_seeds):
        rng = np.random.default_rng(int(seed))
        seeds[p] = rng.integers(0, EPISODE_SEED_MAX, size=episodes)
        noise = np.random.default_rng([int(seed), NOISE_STREAM]) if stable_prefix else rng
        noise.random((episodes, horizon, n_actions), dtype=np.float32, out=uniform[p])
    # Gumbel(0, 1) = -log(-log(U)); the floor keeps log away from 0 for U = 0.
    np.maximum(uniform, np.float32(1e-30), out=uniform)
    np.log(uniform, out=uniform)
    np.negative(uniform, out=uniform)
    np.log(uniform, out=uniform)
    gumbel = np.negative(uniform, out=uniform)
    return EpisodeDraws(seeds.reshape(-1), gumbel.reshape(-1, horizon, n_actions))
