"""The imitation policy as an agent: it plays the demonstrated style through ``play``.

PPGTA's imitation policy (:mod:`games.perception.imitation`) reads the last frames and the whole
trajectory so far; this agent keeps that memory per copy between steps
(:class:`games.perception.imitation.Playing`) and samples from the policy's distribution with the
Gumbel noise the worker drew for the copies (so it plays the same in any batch), or takes its
most likely action at temperature 0. The observations must be the game's RGB frames, OD-masked
by the ``detect`` wrapper when the policy learned on masked frames (as
``evo vision train imitation`` trains it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from evo.search.agents.base import check_copies
from games.perception.encoder import downscale
from games.perception.imitation import ImitationPolicy, Playing, load_policy


class ImitationAgent:
    """Plays the imitation policy in N copies.

    Args:
        model: The policy.
        frame_shape: ``(3, H, W)`` of an observation.
        gumbel: ``[N, T, A]`` pre-drawn Gumbel noise of the copies.
        temperature: Sampling temperature; 0 takes the most likely action.
    """

    def __init__(self, model: ImitationPolicy, frame_shape: Sequence[int], gumbel: np.ndarray,
                 temperature: float = 1.0) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be at least 0, got {temperature}")
        if gumbel.shape[2] != model.n_actions:
            raise ValueError(f"the imitation policy has {model.n_actions} actions, the game {gumbel.shape[2]}")
        self.frame_shape = tuple(int(v) for v in frame_shape)
        self.gumbel = gumbel
        self.temperature = float(temperature)
        self.playing = Playing(model, gumbel.shape[0])

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.gumbel.shape[0], "imitation agent")
        self.playing.reset()

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        frames = np.asarray(obs).reshape(-1, *self.frame_shape).astype(np.uint8)
        probs = self.playing.step(downscale(frames))
        if self.temperature == 0:
            acting = np.eye(probs.shape[1], dtype=np.float32)[probs.argmax(1)]
            return probs.argmax(1).astype(np.int64), acting
        logits = np.log(np.maximum(probs, 1e-30)) / self.temperature
        acting = np.exp(logits - logits.max(1, keepdims=True))
        acting /= acting.sum(1, keepdims=True)
        actions = np.argmax(logits + self.gumbel[:, t], axis=1).astype(np.int64)
        return actions, acting.astype(np.float32)


@dataclass(frozen=True)
class ImitationSpec:
    """What a worker needs to build the agent: the weights file, the frame shape, the temperature.

    Attributes:
        frame_shape: ``(3, H, W)`` of the game's observation.
        weights: The policy's file (None: ``games/perception/weights/imitation.pt``).
        temperature: Sampling temperature (0: greedy).
    """

    frame_shape: tuple[int, int, int]
    weights: str | None = None
    temperature: float = 1.0

    def build(self, episodes: int, gumbel: np.ndarray) -> ImitationAgent:
        return ImitationAgent(load_policy(self.weights)[0], self.frame_shape, gumbel, self.temperature)
