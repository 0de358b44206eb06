"""Closeness to the tester's preferred style: PPGTA's preference KL (Section IV-C).

A tester prefers to explore in a style (along the pathways, around each object), shown by a
few demonstrations; the imitation policy ``pi_pref`` learns it
(:mod:`games.perception.imitation`). The style reward of a step is

    r_p(t) = -KL(pi_explore(t) || pi_pref(t))

between the distribution the exploring agent acted from (the record's ``probs``) and the
imitation policy's on the same frames up to ``t``: 0 when the agent acts as the tester
would, more negative the further it strays. As an NSGA-II fitness, a policy's score is its
mean style reward over every step of its episodes.

The dense reward fine-tuning gets mixes in the RND-ensemble novelty ``r_e``
(:mod:`objectives.rnd_novelty`, held inside this objective with its own options) as PPGTA
does: ``r = alpha r_p + (1 - alpha) r_e``, ``alpha`` starting at 0.8 and adapted along the
episode by :func:`alpha_schedule`. With ``novelty: null`` the dense reward is ``r_p``.

The imitation policy is frozen (its weights file is made by ``evo vision train imitation``);
only the novelty inside learns, in ``update``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import Field

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from games.perception.encode_wrapper import FRAME64_KEY
from games.perception.encoder import downscale
from games.perception.imitation import load_policy, trajectory_probs
from objectives.base import Objective, ObjectiveConfig, register
from objectives.rnd_novelty import RndNovelty, RndNoveltyConfig

if TYPE_CHECKING:
    import pandas as pd

FLOOR = 1e-8
"""Smallest probability of ``pi_pref`` in the KL: an action the tester never takes costs
about 18 nats, not infinity."""


class PreferenceKlConfig(ObjectiveConfig):
    """Options of the preference-KL objective (PPGTA's constants by default)."""

    source: Literal["auto", "obs", "frame64"] = Field(
        "auto", description="The frames the imitation policy reads: obs (the observation is uint8 RGB frames, "
        "raw or masked by detect), frame64 (info.frame64, which the encode wrapper publishes when policies "
        "observe features; the reset frame is not in it, the first step's stands in), or auto (obs when the "
        "observation is frames, else frame64).")

    weights: str | None = Field(None, description="The imitation policy (evo vision train imitation); null for "
                                "games/perception/weights/imitation.pt.")
    novelty: RndNoveltyConfig | None = Field(
        default_factory=RndNoveltyConfig,
        description="The RND-ensemble novelty mixed into the dense reward (its options as rnd_novelty's); "
        "null: the dense reward is the style reward alone.")
    novelty_scale: float = Field(
        1.0, gt=0, description="r_e is the novelty's step reward times this: RND variances are small (about 0.05 a "
        "step untrained, 0.001 on learned frames), so 100 puts them on the scale of the style reward and of epsilon.")
    alpha: float = Field(0.8, ge=0, le=1, description="Weight of the style reward at the start and at most (PPGTA: 0.8).")
    alpha_min: float = Field(0.5, ge=0, le=1, description="Weight of the style reward at least (PPGTA: 0.5).")
    alpha_down: float = Field(0.05, ge=0, description="How much alpha drops when novelty falls (PPGTA: 0.05).")
    alpha_up: float = Field(0.1, ge=0, description="How much alpha rises when novelty rises again (PPGTA: 0.1).")
    epsilon: float = Field(-0.1, le=0, description="Novelty falls when r_e(t) - r_e(t-1) < epsilon (PPGTA: -0.1).")


def style_rewards(explore: np.ndarray, preferred: np.ndarray) -> np.ndarray:
    """``[T]`` float64 ``-KL(explore[t] || preferred[t])`` in nats, for ``[T, A]`` distributions
    (``0 log 0 = 0``; ``preferred`` floored at :data:`FLOOR`)."""
    p = np.asarray(explore, dtype=np.float64)
    q = np.maximum(np.asarray(preferred, dtype=np.float64), FLOOR)
    if p.shape != q.shape:
        raise ValueError(f"distributions of different shapes: {p.shape} and {q.shape}")
    terms = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1.0)) - np.log(q)), 0.0)
    return -terms.sum(axis=1)


def alpha_schedule(novelty: np.ndarray, start: float = 0.8, low: float = 0.5, down: float = 0.05,
                   up: float = 0.1, epsilon: float = -0.1) -> np.ndarray:
    """``[T]`` the style weight at every step of an episode whose novelty rewards are ``novelty``.

    PPGTA: alpha starts at ``start``; when novelty falls between adjacent transitions
    (``r_e(t) - r_e(t-1) < epsilon``, say the agent walks into an invisible wall) it drops by
    ``down`` to at least ``low``, for more exploration; once novelty rises again
    (``r_e(t) - r_e(t-1) > 0``) it climbs by ``up`` back to at most ``start``.
    """
    r = np.asarray(novelty, dtype=np.float64)
    alpha = np.empty(r.shape[0], dtype=np.float64)
    a = float(start)
    for t in range(r.shape[0]):
        if t:
            change = r[t] - r[t - 1]
            if change < epsilon:
                a = max(low, a - down)
            elif change > 0:
                a = min(start, a + up)
        alpha[t] = a
    return alpha


@register("preference_kl", PreferenceKlConfig)
class PreferenceKl(Objective):
    """The mean style reward of a policy's steps (larger is better; at most 0)."""

    name = "preference_kl"
    sense: Literal["max", "min"] = "max"

    def __init__(self, spec: GameSpec, config: PreferenceKlConfig, context: Context) -> None:
        frames = len(spec.obs_shape) == 3 and spec.obs_shape[0] == 3 and spec.obs_dtype == "uint8"
        self.source = config.source if config.source != "auto" else "obs" if frames else "frame64"
        if self.source == "obs" and not frames:
            raise ValueError(f"preference_kl source obs needs uint8 RGB frames (3, H, W), this game observes "
                             f"{spec.obs_dtype} {tuple(spec.obs_shape)}; use source: frame64 with the encode wrapper")
        if config.alpha_min > config.alpha:
            raise ValueError(f"alpha_min {config.alpha_min} is above alpha {config.alpha}")
        self.spec = spec
        self.config = config
        self.policy, self.policy_meta = load_policy(config.weights)
        if self.policy.n_actions != spec.n_actions:
            raise ValueError(f"the imitation policy has {self.policy.n_actions} actions, the game {spec.n_actions}")
        self.novelty = None if config.novelty is None else RndNovelty(spec, config.novelty, context)
        own = {"probs", "obs" if self.source == "obs" else f"info.{FRAME64_KEY}"}
        self.requires = frozenset(own) | (frozenset() if self.novelty is None else self.novelty.requires)
        self.rescores_parents = False  # the imitation policy is frozen: a policy's score does not drift

    def _frames(self, obs: np.ndarray | None, info: dict[str, np.ndarray], length: int) -> np.ndarray:
        """``[length, 3, 64, 64]`` uint8: the frame before each step of one episode."""
        if self.source == "obs":
            if obs is None:
                raise ValueError("preference_kl with source obs got a record without observations")
            return downscale(np.asarray(obs[:length]).reshape(length, *self.spec.obs_shape))
        column = info.get(FRAME64_KEY)
        if column is None or column.dtype != object:
            raise ValueError(f"preference_kl reads info.{FRAME64_KEY}, which the encode wrapper publishes: "
                             "add game.wrappers: [{name: encode}] or set source: obs")
        after = np.stack(column[:length])  # the frame after each step
        return np.concatenate([after[:1], after[:-1]])  # the reset frame is not recorded: the first stands in

    def _style(self, obs: np.ndarray | None, info: dict[str, np.ndarray], probs: np.ndarray | None,
               length: int) -> np.ndarray:
        """``[length]`` style rewards of one episode."""
        if probs is None:
            raise ValueError("preference_kl needs the record's probs column")
        if length == 0:
            return np.zeros(0)
        return style_rewards(probs[:length], trajectory_probs(self.policy, self._frames(obs, info, length)))

    def score(self, rollouts: RolloutBatch) -> float:
        rewards = [self._style(None if rollouts.obs is None else rollouts.obs[i],
                               {k: v[i] for k, v in rollouts.info.items()},
                               None if rollouts.probs is None else rollouts.probs[i], int(rollouts.lengths[i]))
                   for i in range(len(rollouts))]
        steps = np.concatenate(rewards) if rewards else np.zeros(0)
        return float(steps.mean()) if steps.size else 0.0

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        """``alpha r_p + (1 - alpha) r_e`` per step (``r_p`` without novelty)."""
        style = self._style(rollout.obs, rollout.info, rollout.probs, rollout.length)
        if self.novelty is None:
            return style
        c = self.config
        novelty = c.novelty_scale * self.novelty.step_rewards(rollout)
        alpha = alpha_schedule(novelty, c.alpha, c.alpha_min, c.alpha_down, c.alpha_up, c.epsilon)
        return alpha * style + (1.0 - alpha) * novelty

    def update(self, rollouts: RolloutBatch) -> None:
        if self.novelty is not None:
            self.novelty.update(rollouts)

    def state_dict(self) -> dict[str, Any]:
        return {} if self.novelty is None else {"novelty": self.novelty.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.novelty is not None and "novelty" in state:
            self.novelty.load_state_dict(state["novelty"])

    def tables(self) -> dict[str, "pd.DataFrame"]:
        """``preference_kl_novelty.csv``: the novelty inside, as ``rnd_novelty.csv``."""
        return {} if self.novelty is None else {"preference_kl_novelty": self.novelty.tables()["rnd_novelty"]}
