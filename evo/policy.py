"""MLP actor-critic policies whose genomes are flat float32 vectors.

The whole population is one stack of parameters: ``genomes`` is ``[P, D]`` and a forward
pass over all P policies and all their episodes is a handful of ``baddbmm`` calls. The same
functional forward serves evolution (no gradients) and A2C fine-tuning (the stacked
parameters become leaf tensors that require gradients), so there is one code path.

Genome layout, in order: for each hidden layer ``W [in, out]`` then ``b [out]``; then the
actor head ``W [h, A]``, ``b [A]``; then the critic head ``W [h, 1]``, ``b [1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class PolicySpec:
    """Architecture shared by every policy of an experiment.

    Attributes:
        obs_dim: Size of the flattened observation.
        n_actions: Number of discrete actions.
        hidden: Hidden layer sizes (tanh activations).
    """

    obs_dim: int
    n_actions: int
    hidden: tuple[int, ...] = (64, 64)

    @property
    def shapes(self) -> list[tuple[tuple[int, int], int]]:
        """``((in, out), out)`` per layer: hidden layers, actor head, critic head."""
        sizes = [self.obs_dim, *self.hidden]
        layers = [((a, b), b) for a, b in zip(sizes[:-1], sizes[1:])]
        last = sizes[-1]
        return [*layers, ((last, self.n_actions), self.n_actions), ((last, 1), 1)]

    @property
    def n_params(self) -> int:
        return sum(i * o + b for (i, o), b in self.shapes)

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` fresh genomes: scaled-normal weights, zero biases.

        Hidden layers use gain sqrt(2)/sqrt(fan_in)-style scaling, the actor head a small
        gain (0.01, as in CleanRL's A2C/PPO) so a new policy starts close to uniform and
        explores, the critic head gain 1.
        """
        out = np.empty((n, self.n_params), dtype=np.float32)
        pos = 0
        n_layers = len(self.shapes)
        for k, ((fan_in, fan_out), n_bias) in enumerate(self.shapes):
            gain = 0.01 if k == n_layers - 2 else (1.0 if k == n_layers - 1 else np.sqrt(2.0))
            w = rng.standard_normal((n, fan_in * fan_out)) * gain / np.sqrt(fan_in)
            out[:, pos : pos + fan_in * fan_out] = w
            pos += fan_in * fan_out
            out[:, pos : pos + n_bias] = 0.0
            pos += n_bias
        return out

    def unflatten(self, genomes: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Views of ``genomes [P, D]`` as stacked ``(W [P, in, out], b [P, 1, out])``."""
        p = genomes.shape[0]
        params = []
        pos = 0
        for (fan_in, fan_out), n_bias in self.shapes:
            w = genomes[:, pos : pos + fan_in * fan_out].reshape(p, fan_in, fan_out)
            pos += fan_in * fan_out
            b = genomes[:, pos : pos + n_bias].reshape(p, 1, n_bias)
            pos += n_bias
            params.append((w, b))
        return params


def forward(
    params: list[tuple[torch.Tensor, torch.Tensor]], obs: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits and values of P policies, each on its own batch of observations.

    Args:
        params: ``PolicySpec.unflatten`` of the genomes.
        obs: ``[P, B, obs_dim]`` float32.

    Returns:
        ``(logits [P, B, A], values [P, B])``.
    """
    h = obs
    for w, b in params[:-2]:
        h = torch.tanh(torch.baddbmm(b, h, w))
    (wa, ba), (wc, bc) = params[-2], params[-1]
    logits = torch.baddbmm(ba, h, wa)
    values = torch.baddbmm(bc, h, wc).squeeze(-1)
    return logits, values



class PopulationActor:
    """The actor heads of P policies, for playing: logits only, into reused buffers.

    Playing needs no critic and no gradients, and one step's activations are dead by the
    next: the buffers are allocated once per batch instead of once per step.
    """

    def __init__(self, spec: PolicySpec, genomes: np.ndarray, batch: int) -> None:
        g = torch.from_numpy(np.ascontiguousarray(genomes, dtype=np.float32))
        self.params = spec.unflatten(g)[:-1]  # hidden layers and the actor head
        p = g.shape[0]
        self.buffers = [torch.empty(p, batch, w.shape[2]) for w, _ in self.params]

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``obs [P, B, obs_dim]`` -> ``logits [P, B, A]`` (a view of a reused buffer)."""
        h = obs
        last = len(self.params) - 1
        for k, ((w, b), buf) in enumerate(zip(self.params, self.buffers)):
            torch.baddbmm(b, h, w, out=buf)
            if k < last:
                torch.tanh_(buf)
            h = buf
        return h
