"""Actor-critic policies whose genomes are flat float32 vectors: an MLP, optionally behind a
small CNN for games that observe images.

The whole population is one stack of parameters: ``genomes`` is ``[P, D]`` and a forward
pass over all P policies and all their episodes is a handful of batched calls: a grouped
``conv2d`` per conv layer, a ``baddbmm`` per dense layer. The same functional forward serves
evolution (no gradients) and A2C fine-tuning (the stacked parameters become leaf tensors that
require gradients), so there is one code path; crossover, mutation and checkpoints see only
the flat vectors.

Genome layout, in order: for each conv layer ``W [out, in, k, k]`` (``torch.nn.Conv2d``'s
layout) then ``b [out]``; for each hidden layer ``W [in, out]`` then ``b [out]``; then the
actor head ``W [h, A]``, ``b [A]``; then the critic head ``W [h, 1]``, ``b [1]``. The first
dense layer reads the last conv layer's output flattened as ``(channels, height, width)``,
as ``torch.nn.Flatten`` does. Conv layers use ReLU (Nature DQN, Mnih et al. 2015), hidden
layers tanh, with or without conv layers in front.

Conv layers of P policies in one call: each policy's images are laid side by side as channel
groups, ``[P, B, C, H, W] -> [B, P * C, H, W]``, and ``conv2d(groups=P)`` with the P kernels
stacked as ``[P * out, C, k, k]`` convolves each group with its own policy's kernels only.
``benchmarks/conv_forward.py`` measured it on this project's 2-core CPU (torch 2.13, one
thread, 16 policies, MsPacman's ``[4, 48, 40]`` frames, conv ``[[8, 8, 4], [16, 4, 2]]``):
a step of play (2 observations per policy) took 0.69 ms, against 0.97 ms through
``torch.func.vmap`` over ``conv2d`` and 1.95 ms for a loop over the policies; a forward and
backward pass over 501 observations per policy (an A2C update) took 631 ms, as vmap (which
batches conv2d into the same grouped call), where the loop took 280 ms: oneDNN's grouped
convolution is slow on large batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from games.common.device import torch_device


class ConvShape(NamedTuple):
    """One conv layer of a :class:`PolicySpec`: its kernel and the image it outputs."""

    out_channels: int
    in_channels: int
    kernel: int
    stride: int
    out_height: int
    out_width: int


@dataclass(frozen=True)
class PolicySpec:
    """Architecture shared by every policy of an experiment.

    Attributes:
        obs_dim: Size of the flattened observation.
        n_actions: Number of discrete actions.
        hidden: Hidden layer sizes (tanh activations).
        conv: Conv layers before the hidden layers, ``(channels, kernel, stride)`` each
            (square kernels, no padding, ReLU); empty for an MLP on the flat observation.
        image: ``(channels, height, width)`` of an observation, needed with ``conv``; the
            flat observation is this image in C order.

    Raises:
        ValueError: ``conv`` without ``image``, an ``image`` that is not ``obs_dim`` values,
            or a conv layer larger than the image it gets.
    """

    obs_dim: int
    n_actions: int
    hidden: tuple[int, ...] = (64, 64)
    conv: tuple[tuple[int, int, int], ...] = ()
    image: tuple[int, int, int] | None = None

    def __post_init__(self) -> None:
        if self.conv and self.image is None:
            raise ValueError("conv layers need the observation's image shape (channels, height, width)")
        if self.image is not None and (len(self.image) != 3 or int(np.prod(self.image)) != self.obs_dim):
            raise ValueError(f"image shape {self.image} is not (channels, height, width) of {self.obs_dim} values")
        if self.image is not None:
            _conv_shapes(self.conv, self.image)  # raises if a layer does not fit

    @property
    def conv_shapes(self) -> list[ConvShape]:
        """Each conv layer's kernel and output size, first to last."""
        return _conv_shapes(self.conv, self.image) if self.image is not None else []

    @property
    def trunk_dim(self) -> int:
        """Size of what the first dense layer reads: the last conv output, or the observation."""
        if not self.conv:
            return self.obs_dim
        last = self.conv_shapes[-1]
        return last.out_channels * last.out_height * last.out_width

    @property
    def shapes(self) -> list[tuple[tuple[int, int], int]]:
        """``((in, out), out)`` per dense layer: hidden layers, actor head, critic head."""
        sizes = [self.trunk_dim, *self.hidden]
        layers = [((a, b), b) for a, b in zip(sizes[:-1], sizes[1:])]
        last = sizes[-1]
        return [*layers, ((last, self.n_actions), self.n_actions), ((last, 1), 1)]

    @property
    def n_params(self) -> int:
        conv = sum(c.out_channels * c.in_channels * c.kernel**2 + c.out_channels for c in self.conv_shapes)
        return conv + sum(i * o + b for (i, o), b in self.shapes)

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` fresh genomes: scaled-normal weights, zero biases.

        Conv and hidden layers use gain sqrt(2)/sqrt(fan_in)-style scaling (the fan-in of a
        conv layer is ``in * k * k``), the actor head a small gain (0.01, as in CleanRL's
        A2C/PPO) so a new policy starts close to uniform and explores, the critic head gain 1.
        """
        out = np.empty((n, self.n_params), dtype=np.float32)
        pos = 0
        layers = [(c.in_channels * c.kernel**2, c.out_channels, np.sqrt(2.0)) for c in self.conv_shapes]
        n_dense = len(self.shapes)
        for k, ((fan_in, fan_out), _) in enumerate(self.shapes):
            gain = 0.01 if k == n_dense - 2 else (1.0 if k == n_dense - 1 else np.sqrt(2.0))
            layers.append((fan_in, fan_out, gain))
        for fan_in, fan_out, gain in layers:
            w = rng.standard_normal((n, fan_in * fan_out)) * gain / np.sqrt(fan_in)
            out[:, pos : pos + fan_in * fan_out] = w
            pos += fan_in * fan_out
            out[:, pos : pos + fan_out] = 0.0
            pos += fan_out
        return out

    def unflatten(self, genomes: torch.Tensor) -> PolicyParams:
        """``genomes [P, D]`` laid out for :func:`forward` (views, but for the conv kernels,
        which grouped convolution needs as one ``[P * out, in, k, k]`` block)."""
        p = genomes.shape[0]
        pos = 0
        conv = []
        for c in self.conv_shapes:
            size = c.out_channels * c.in_channels * c.kernel**2
            w = genomes[:, pos : pos + size].reshape(p * c.out_channels, c.in_channels, c.kernel, c.kernel)
            pos += size
            b = genomes[:, pos : pos + c.out_channels].reshape(p * c.out_channels)
            pos += c.out_channels
            conv.append((w, b, c.stride))
        dense = []
        for (fan_in, fan_out), n_bias in self.shapes:
            w = genomes[:, pos : pos + fan_in * fan_out].reshape(p, fan_in, fan_out)
            pos += fan_in * fan_out
            b = genomes[:, pos : pos + n_bias].reshape(p, 1, n_bias)
            pos += n_bias
            dense.append((w, b))
        return PolicyParams(tuple(conv), tuple(dense), self.image)


def _conv_shapes(conv: tuple[tuple[int, int, int], ...], image: tuple[int, int, int]) -> list[ConvShape]:
    """The layers ``conv`` make of ``image``; ValueError for a kernel larger than its input."""
    channels, height, width = image
    shapes = []
    for i, (out, kernel, stride) in enumerate(conv):
        if kernel > height or kernel > width:
            raise ValueError(
                f"conv layer {i} has a {kernel}x{kernel} kernel for a {height}x{width} input (image {image})"
            )
        height, width = (height - kernel) // stride + 1, (width - kernel) // stride + 1
        shapes.append(ConvShape(out, channels, kernel, stride, height, width))
        channels = out
    return shapes


class PolicyParams(NamedTuple):
    """A population's parameters as :func:`forward` uses them (``PolicySpec.unflatten``).

    Attributes:
        conv: Per conv layer ``(W [P * out, in, k, k], b [P * out], stride)``, policy-major.
        dense: Per dense layer ``(W [P, in, out], b [P, 1, out])``: hidden layers, actor
            head, critic head.
        image: ``(channels, height, width)`` of an observation (None without conv layers).
    """

    conv: tuple[tuple[torch.Tensor, torch.Tensor, int], ...]
    dense: tuple[tuple[torch.Tensor, torch.Tensor], ...]
    image: tuple[int, int, int] | None


def conv_trunk(params: PolicyParams, obs: torch.Tensor) -> torch.Tensor:
    """The conv layers of P policies, each on its own batch: ``obs [P, B, obs_dim]`` ->
    ``[P, B, trunk_dim]`` (a transposed view); ``obs`` itself when there are none."""
    if not params.conv:
        return obs
    assert params.image is not None
    p, b = obs.shape[0], obs.shape[1]
    c, height, width = params.image
    # Policy p's images become channel group p of each of B images.
    h = obs.reshape(p, b, c, height, width).transpose(0, 1).reshape(b, p * c, height, width)
    for w, bias, stride in params.conv:
        h = F.relu(F.conv2d(h, w, bias, stride=stride, groups=p), inplace=True)
    return h.reshape(b, p, -1).transpose(0, 1)


def forward(params: PolicyParams, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits and values of P policies, each on its own batch of observations.

    Args:
        params: ``PolicySpec.unflatten`` of the genomes.
        obs: ``[P, B, obs_dim]`` float32.

    Returns:
        ``(logits [P, B, A], values [P, B])``.
    """
    h = conv_trunk(params, obs)
    for w, b in params.dense[:-2]:
        h = torch.tanh(torch.baddbmm(b, h, w))
    (wa, ba), (wc, bc) = params.dense[-2], params.dense[-1]
    logits = torch.baddbmm(ba, h, wa)
    values = torch.baddbmm(bc, h, wc).squeeze(-1)
    return logits, values


class PopulationActor:
    """The actor heads of P policies, for playing: logits only, into reused buffers.

    Playing needs no critic and no gradients, and one step's activations are dead by the
    next: the dense layers' buffers are allocated once per batch instead of once per step
    (``conv2d`` has no ``out=``, so conv activations are fresh each step). ``device`` is
    where the parameters, buffers and forward pass live (``cpu``, ``cuda``, ``cuda:N``).
    """

    def __init__(self, spec: PolicySpec, genomes: np.ndarray, batch: int, device: str = "cpu") -> None:
        g = torch.from_numpy(np.ascontiguousarray(genomes, dtype=np.float32)).to(torch_device(device))
        params = spec.unflatten(g)
        self.params = params._replace(dense=params.dense[:-1])  # no critic head
        p = g.shape[0]
        self.buffers = [torch.empty(p, batch, w.shape[2], device=device) for w, _ in self.params.dense]

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``obs [P, B, obs_dim]`` -> ``logits [P, B, A]`` (a view of a reused buffer)."""
        h = conv_trunk(self.params, obs)
        last = len(self.params.dense) - 1
        for k, ((w, b), buf) in enumerate(zip(self.params.dense, self.buffers)):
            torch.baddbmm(b, h, w, out=buf)
            if k < last:
                torch.tanh_(buf)
            h = buf
        return h
