"""Flat-genome MLP policies: layout, seeded init, the batched forward, action sampling."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from evo.policy import PolicySpec, forward
from evo.rollout import draw_episodes, policy_chooser

SPEC = PolicySpec(obs_dim=5, n_actions=3, hidden=(7, 4))


def as_modules(spec: PolicySpec, genome: np.ndarray) -> tuple[torch.nn.Sequential, torch.nn.Linear, torch.nn.Linear]:
    """Ordinary torch modules read off one genome by its documented layout.

    For each hidden layer ``W [in, out]`` then ``b [out]``, then the actor head, then the
    critic head; the trunk is tanh after every hidden layer, the heads are linear.
    """
    sizes = [spec.obs_dim, *spec.hidden]
    layer_sizes = [*zip(sizes[:-1], sizes[1:]), (sizes[-1], spec.n_actions), (sizes[-1], 1)]
    linears, pos = [], 0
    for fan_in, fan_out in layer_sizes:
        w = genome[pos : pos + fan_in * fan_out].reshape(fan_in, fan_out)
        pos += fan_in * fan_out
        b = genome[pos : pos + fan_out]
        pos += fan_out
        layer = torch.nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(w.T.copy()))  # nn.Linear stores [out, in]
            layer.bias.copy_(torch.from_numpy(b))
        linears.append(layer)
    assert pos == genome.size
    trunk: list[torch.nn.Module] = []
    for layer in linears[:-2]:
        trunk += [layer, torch.nn.Tanh()]
    return torch.nn.Sequential(*trunk), linears[-2], linears[-1]


@pytest.mark.parametrize(
    "spec",
    [SPEC, PolicySpec(obs_dim=4, n_actions=2, hidden=()), PolicySpec(obs_dim=10, n_actions=6)],
    ids=["two-hidden", "linear", "default-hidden"],
)
def test_n_params_counts_every_weight_and_bias(spec: PolicySpec) -> None:
    sizes = [spec.obs_dim, *spec.hidden]
    expected = sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))
    expected += sizes[-1] * spec.n_actions + spec.n_actions  # actor head
    expected += sizes[-1] + 1  # critic head
    assert spec.n_params == expected
    assert spec.init_genomes(3, np.random.default_rng(0)).shape == (3, expected)


def test_init_genomes_is_seeded() -> None:
    a = SPEC.init_genomes(4, np.random.default_rng(7))
    b = SPEC.init_genomes(4, np.random.default_rng(7))
    c = SPEC.init_genomes(4, np.random.default_rng(8))
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert not np.allclose(a[0], a[1]), "policies of one population must differ"


def test_init_genomes_start_with_zero_biases() -> None:
    genomes = torch.from_numpy(SPEC.init_genomes(3, np.random.default_rng(0)))
    for w, b in SPEC.unflatten(genomes):
        assert torch.count_nonzero(b) == 0
        assert torch.count_nonzero(w) == w.numel()


def test_batched_forward_equals_each_policy_run_alone() -> None:
    rng = np.random.default_rng(0)
    n_pop, batch = 4, 6
    genomes = rng.standard_normal((n_pop, SPEC.n_params)).astype(np.float32)  # biases non-zero too
    obs = torch.from_numpy(rng.standard_normal((n_pop, batch, SPEC.obs_dim)).astype(np.float32))

    logits, values = forward(SPEC.unflatten(torch.from_numpy(genomes)), obs)

    assert logits.shape == (n_pop, batch, SPEC.n_actions)
    assert values.shape == (n_pop, batch)
    for p in range(n_pop):
        trunk, actor, critic = as_modules(SPEC, genomes[p])
        with torch.no_grad():
            h = trunk(obs[p])
            torch.testing.assert_close(logits[p], actor(h))
            torch.testing.assert_close(values[p], critic(h).squeeze(-1))


def test_forward_carries_gradients_to_the_genomes() -> None:
    genomes = torch.from_numpy(SPEC.init_genomes(2, np.random.default_rng(0))).requires_grad_(True)
    obs = torch.ones(2, 3, SPEC.obs_dim)
    logits, values = forward(SPEC.unflatten(genomes), obs)
    (logits[0].sum() + values[0].sum()).backward()
    assert genomes.grad is not None
    assert torch.count_nonzero(genomes.grad[0]) > 0
    assert torch.count_nonzero(genomes.grad[1]) == 0, "policy 1 must not see policy 0's loss"


def test_fresh_policy_acts_close_to_uniformly() -> None:
    spec = PolicySpec(obs_dim=8, n_actions=4, hidden=(16, 16))
    rng = np.random.default_rng(0)
    genomes = torch.from_numpy(spec.init_genomes(20, rng))
    obs = torch.from_numpy(3.0 * rng.standard_normal((20, 50, spec.obs_dim)).astype(np.float32))
    logits, _ = forward(spec.unflatten(genomes), obs)
    probs = torch.softmax(logits, dim=-1)
    # Actor gain 0.01 keeps |logits| ~ 0.01 (worst deviation here ~0.004); gain 1 gives ~0.5.
    assert torch.max(torch.abs(probs - 1 / spec.n_actions)) < 0.02


def test_sampled_actions_follow_the_softmax() -> None:
    """Gumbel-max sampling with pre-drawn noise picks each action at its softmax rate."""
    spec = PolicySpec(obs_dim=3, n_actions=4, hidden=(5,))
    genome = spec.init_genomes(1, np.random.default_rng(0))
    # Zero weights, actor bias = the logits we want.
    genome[:] = 0.0
    logits = np.array([0.0, 1.0, 2.0, -1.0], dtype=np.float32)
    params = spec.unflatten(torch.from_numpy(genome))
    params[-2][1][:] = torch.from_numpy(logits)
    episodes = 4000
    draws = draw_episodes([7], episodes, horizon=1, n_actions=4)
    choose = policy_chooser(genome, spec, episodes, draws.gumbel)
    actions = choose(np.zeros((episodes, 3), dtype=np.float32), 0)
    freq = np.bincount(actions, minlength=4) / episodes
    expected = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(freq, expected, atol=0.03)


def test_draws_are_per_policy_and_seeded() -> None:
    """A policy's noise depends on its own seed only, not on who else is in the batch."""
    a = draw_episodes([1, 2], episodes=3, horizon=5, n_actions=4)
    b = draw_episodes([1, 9], episodes=3, horizon=5, n_actions=4)
    np.testing.assert_array_equal(a.gumbel[:3], b.gumbel[:3])
    np.testing.assert_array_equal(a.seeds[:3], b.seeds[:3])
    assert not np.array_equal(a.gumbel[3:], b.gumbel[3:])
    assert a.gumbel.shape == (6, 5, 4) and a.seeds.shape == (6,)