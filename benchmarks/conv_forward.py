"""How fast a population of small CNN policies runs on CPU: grouped convolution against vmap.

Prints one table; nothing here asserts a timing. Every policy sees MsPacman's ``obs_type:
frames`` observation, ``[4, 48, 40]``. Rows, for two CNN sizes:

- play: one step of play, 16 policies x 2 episodes, no gradients (``PopulationActor``);
- A2C: a forward and backward pass over 16 policies x 501 observations (one 500-step
  episode each), the flat genomes being the leaf tensor.

Columns: ``evo.search.policy``'s grouped ``conv2d`` (one call per layer for all policies); the same
conv layers through ``torch.func.vmap`` over ``conv2d``; and, for reference, a Python loop
of ``conv2d`` over the policies (one call per policy per layer, which the design rules out
for play: it grows with the population).

    python benchmarks/conv_forward.py            # about a minute
    python benchmarks/conv_forward.py --quick    # smaller, for a smoke test
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.search.policy import PolicyParams, PolicySpec, conv_trunk, forward  # noqa: E402

IMAGE = (4, 48, 40)
ARCHS = {"8-16 / 64": (((8, 8, 4), (16, 4, 2)), (64,)), "16-32 / 128": (((16, 8, 4), (32, 4, 2)), (128,))}


def vmap_trunk(params: PolicyParams, obs: torch.Tensor) -> torch.Tensor:
    """The conv layers through ``torch.func.vmap`` over the policies."""
    p = obs.shape[0]
    kernels = [(w.view(p, -1, *w.shape[1:]), b.view(p, -1)) for w, b, _ in params.conv]
    strides = [s for _, _, s in params.conv]

    def one(layers: list[tuple[torch.Tensor, torch.Tensor]], x: torch.Tensor) -> torch.Tensor:
        h = x.view(x.shape[0], *IMAGE)
        for (w, b), s in zip(layers, strides):
            h = F.relu(F.conv2d(h, w, b, stride=s))
        return h.flatten(1)

    return torch.func.vmap(one)(kernels, obs)


def loop_trunk(params: PolicyParams, obs: torch.Tensor) -> torch.Tensor:
    """The conv layers one policy at a time."""
    p = obs.shape[0]
    out = []
    for i in range(p):
        h = obs[i].view(obs.shape[1], *IMAGE)
        for w, b, s in params.conv:
            o = w.shape[0] // p
            h = F.relu(F.conv2d(h, w[i * o : (i + 1) * o], b[i * o : (i + 1) * o], stride=s))
        out.append(h.flatten(1))
    return torch.stack(out)


def with_trunk(trunk: Callable[[PolicyParams, torch.Tensor], torch.Tensor]) -> Callable:
    """``forward`` with another implementation of the conv layers."""

    def run(params: PolicyParams, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return forward(params._replace(conv=()), trunk(params, obs))

    return run


def best_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # oneDNN builds its kernels on the first call of a shape
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000.0


def play(run: Callable, params: PolicyParams, obs: torch.Tensor) -> None:
    """One step of play: logits and values, no gradients."""
    with torch.no_grad():
        run(params, obs)


def a2c(run: Callable, spec: PolicySpec, genomes: np.ndarray, obs: torch.Tensor) -> None:
    """One A2C update's forward and backward pass, the genomes as the leaf tensor."""
    weights = torch.tensor(genomes, requires_grad=True)
    logits, values = run(spec.unflatten(weights), obs)
    (logits.sum() + values.sum()).backward()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer observations and repeats")
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the engine runs (Experiment.torch_threads)
    policies, episodes = 16, 2
    a2c_batch, repeats = (101, 1) if args.quick else (501, 3)
    rng = np.random.default_rng(0)
    obs_dim = int(np.prod(IMAGE))
    trunks = {"grouped": conv_trunk, "vmap": vmap_trunk, "loop": loop_trunk}
    print(f"torch {torch.__version__}, 1 thread; {policies} policies; observations {IMAGE}")
    print(f"{'CNN (conv / hidden)':<20} {'weights':>8} {'case':<28} " + " ".join(f"{k:>9}" for k in trunks))
    for name, (conv, hidden) in ARCHS.items():
        spec = PolicySpec(obs_dim, 5, hidden, conv, IMAGE)
        genomes = spec.init_genomes(policies, rng)
        params = spec.unflatten(torch.from_numpy(genomes))
        play_obs = torch.from_numpy(rng.random((policies, episodes, obs_dim), dtype=np.float32))
        a2c_obs = torch.from_numpy(rng.random((policies, a2c_batch, obs_dim), dtype=np.float32))
        row = [best_ms(partial(play, with_trunk(t), params, play_obs), 10 * repeats) for t in trunks.values()]
        case = f"play, {policies} x {episodes} obs"
        print(f"{name:<20} {spec.n_params:>8,} {case:<28} " + " ".join(f"{ms:>6.2f} ms" for ms in row))
        row = [best_ms(partial(a2c, with_trunk(t), spec, genomes, a2c_obs), repeats) for t in trunks.values()]
        case = f"A2C fwd+bwd, {policies} x {a2c_batch} obs"
        print(f"{'':<20} {'':>8} {case:<28} " + " ".join(f"{ms:>6.0f} ms" for ms in row))


if __name__ == "__main__":
    main()
