"""Flat-genome policies (MLP, and CNN + MLP): layout, seeded init, the batched forward,
independence of the policies in a batch, action sampling."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from evo.search.policy import PolicySpec, PopulationActor, forward
from evo.search.play import draw_episodes

SPEC = PolicySpec(obs_dim=5, n_actions=3, hidden=(7, 4))
# Two conv layers on 2 x 12 x 10 images: 3 x 5 x 4, then 4 x 3 x 2 = 24 values into 5 hidden.
CNN_SPEC = PolicySpec(obs_dim=240, n_actions=3, hidden=(5,), conv=((3, 4, 2), (4, 3, 1)), image=(2, 12, 10))


def as_modules(spec: PolicySpec, genome: np.ndarray) -> tuple[torch.nn.Sequential, torch.nn.Linear, torch.nn.Linear]:
    """Ordinary torch modules read off one genome by its documented layout.

    For each conv layer ``W [out, in, k, k]`` then ``b [out]``; for each hidden layer
    ``W [in, out]`` then ``b [out]``, then the actor head, then the critic head. The trunk is
    ReLU after every conv layer, a flatten, and tanh after every hidden layer; the heads are
    linear. The trunk reads the flat observation.
    """
    trunk: list[torch.nn.Module] = []
    pos, size = 0, spec.obs_dim
    if spec.conv:
        trunk.append(torch.nn.Unflatten(1, spec.image))
        channels = spec.image[0]
        for out, kernel, stride in spec.conv:
            conv = torch.nn.Conv2d(channels, out, kernel, stride=stride)
            with torch.no_grad():
                n = conv.weight.numel()
                conv.weight.copy_(torch.from_numpy(genome[pos : pos + n].reshape(conv.weight.shape)))
                conv.bias.copy_(torch.from_numpy(genome[pos + n : pos + n + out]))
            pos += n + out
            trunk += [conv, torch.nn.ReLU()]
            channels = out
        trunk.append(torch.nn.Flatten())
        size = torch.nn.Sequential(*trunk)(torch.zeros(1, spec.obs_dim)).shape[1]
    sizes = [size, *spec.hidden]
    layer_sizes = [*zip(sizes[:-1], sizes[1:]), (sizes[-1], spec.n_actions), (sizes[-1], 1)]
    linears = []
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


def test_cnn_n_params_counts_every_weight_and_bias() -> None:
    genome = CNN_SPEC.init_genomes(1, np.random.default_rng(0))[0]
    trunk, actor, critic = as_modules(CNN_SPEC, genome)  # asserts the genome is used up
    modules = torch.nn.ModuleList([trunk, actor, critic])
    assert CNN_SPEC.n_params == sum(p.numel() for p in modules.parameters()) == genome.size
    assert CNN_SPEC.trunk_dim == 24


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_init_genomes_is_seeded(spec: PolicySpec) -> None:
    a = spec.init_genomes(4, np.random.default_rng(7))
    b = spec.init_genomes(4, np.random.default_rng(7))
    c = spec.init_genomes(4, np.random.default_rng(8))
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert not np.allclose(a[0], a[1]), "policies of one population must differ"


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_init_genomes_start_with_zero_biases(spec: PolicySpec) -> None:
    genomes = torch.from_numpy(spec.init_genomes(3, np.random.default_rng(0)))
    params = spec.unflatten(genomes)
    for w, b, *_ in (*params.conv, *params.dense):
        assert torch.count_nonzero(b) == 0
        assert torch.count_nonzero(w) == w.numel()


def test_cnn_init_scales_by_fan_in() -> None:
    spec = PolicySpec(obs_dim=4 * 48 * 40, n_actions=5, hidden=(64,), conv=((8, 8, 4), (16, 4, 2)), image=(4, 48, 40))
    params = spec.unflatten(torch.from_numpy(spec.init_genomes(8, np.random.default_rng(0))))
    for (w, _, _), fan_in in zip(params.conv, (4 * 8 * 8, 8 * 4 * 4)):
        assert float(w.std()) == pytest.approx(np.sqrt(2.0 / fan_in), rel=0.05)


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_batched_forward_equals_each_policy_run_alone(spec: PolicySpec) -> None:
    """For the CNN: the grouped convolution of the whole population computes what a plain
    torch.nn.Conv2d per policy computes with the same weights."""
    rng = np.random.default_rng(0)
    n_pop, batch = 4, 6
    genomes = (0.5 * rng.standard_normal((n_pop, spec.n_params))).astype(np.float32)  # biases non-zero too
    obs = torch.from_numpy(rng.random((n_pop, batch, spec.obs_dim), dtype=np.float32))

    logits, values = forward(spec.unflatten(torch.from_numpy(genomes)), obs)
    played = PopulationActor(spec, genomes, batch).logits(obs)

    assert logits.shape == (n_pop, batch, spec.n_actions)
    assert values.shape == (n_pop, batch)
    for p in range(n_pop):
        trunk, actor, critic = as_modules(spec, genomes[p])
        with torch.no_grad():
            h = trunk(obs[p])
            torch.testing.assert_close(logits[p], actor(h))
            torch.testing.assert_close(played[p], actor(h))
            torch.testing.assert_close(values[p], critic(h).squeeze(-1))


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_a_policy_plays_the_same_whoever_shares_its_batch(spec: PolicySpec) -> None:
    rng = np.random.default_rng(1)
    genomes = (0.5 * rng.standard_normal((4, spec.n_params))).astype(np.float32)
    obs = torch.from_numpy(rng.random((3, 5, spec.obs_dim), dtype=np.float32))
    alone = PopulationActor(spec, genomes[:1], 5).logits(obs[:1]).clone()
    together = PopulationActor(spec, genomes[[0, 1, 2]], 5).logits(obs).clone()
    # Policy 0 moved to the middle, policy 1 replaced by policy 3 on other observations.
    shuffled = PopulationActor(spec, genomes[[3, 0, 2]], 5).logits(obs[[1, 0, 2]]).clone()
    torch.testing.assert_close(together[0], alone[0])
    torch.testing.assert_close(shuffled[1], alone[0])
    torch.testing.assert_close(shuffled[2], together[2])
    logits, _ = forward(spec.unflatten(torch.from_numpy(genomes[[0, 1, 2]])), obs)
    torch.testing.assert_close(logits[0], alone[0])


@pytest.mark.parametrize("spec", [SPEC, CNN_SPEC], ids=["mlp", "cnn"])
def test_forward_carries_gradients_to_the_genomes(spec: PolicySpec) -> None:
    genomes = torch.from_numpy(spec.init_genomes(2, np.random.default_rng(0))).requires_grad_(True)
    obs = torch.rand(2, 3, spec.obs_dim, generator=torch.Generator().manual_seed(0))
    logits, values = forward(spec.unflatten(genomes), obs)
    (logits[0].sum() + values[0].sum()).backward()
    assert genomes.grad is not None
    assert torch.count_nonzero(genomes.grad[0]) > 0
    assert torch.count_nonzero(genomes.grad[1]) == 0, "policy 1 must not see policy 0's loss"
    if spec.conv:  # the gradient reaches the first conv layer's kernels
        first = spec.conv[0][0] * spec.image[0] * spec.conv[0][1] ** 2
        assert torch.count_nonzero(genomes.grad[0, :first]) > 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"conv": ((3, 4, 2),)}, "conv layers need the observation's image shape"),
        ({"conv": ((3, 4, 2),), "image": (2, 12, 11)}, r"image shape \(2, 12, 11\) is not"),
        ({"conv": ((3, 4, 2), (4, 6, 1)), "image": (2, 12, 10)}, "conv layer 1 has a 6x6 kernel for a 5x4 input"),
    ],
)
def test_bad_cnn_specs_say_what_is_wrong(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PolicySpec(obs_dim=240, n_actions=3, **kwargs)


@pytest.mark.parametrize(
    "spec",
    [
        PolicySpec(obs_dim=8, n_actions=4, hidden=(16, 16)),
        PolicySpec(obs_dim=2 * 24 * 20, n_actions=4, hidden=(16,), conv=((8, 8, 4), (16, 4, 2)), image=(2, 24, 20)),
    ],
    ids=["mlp", "cnn"],
)
def test_fresh_policy_acts_close_to_uniformly(spec: PolicySpec) -> None:
    rng = np.random.default_rng(0)
    genomes = torch.from_numpy(spec.init_genomes(20, rng))
    obs = torch.from_numpy(3.0 * rng.standard_normal((20, 50, spec.obs_dim)).astype(np.float32))
    logits, _ = forward(spec.unflatten(genomes), obs)
    probs = torch.softmax(logits, dim=-1)
    # Actor gain 0.01 keeps |logits| ~ 0.01 (worst deviation here ~0.004); gain 1 gives ~0.5.
    assert torch.max(torch.abs(probs - 1 / spec.n_actions)) < 0.02


def test_a_stable_prefix_draws_the_same_first_episodes_however_many_are_drawn() -> None:
    """What a study needs: its first 18 episodes are those of a study of 45."""
    few = draw_episodes([5], episodes=3, horizon=4, n_actions=3, stable_prefix=True)
    many = draw_episodes([5], episodes=8, horizon=4, n_actions=3, stable_prefix=True)
    np.testing.assert_array_equal(few.seeds, many.seeds[:3])
    np.testing.assert_array_equal(few.gumbel, many.gumbel[:3])
    # The search's form keeps its seeds, and its noise moves with the count (its runs replay with it).
    search = draw_episodes([5], episodes=3, horizon=4, n_actions=3)
    np.testing.assert_array_equal(search.seeds, few.seeds)
    assert not np.array_equal(search.gumbel, draw_episodes([5], episodes=8, horizon=4, n_actions=3).gumbel[:3])


def test_draws_are_per_policy_and_seeded() -> None:
    """A policy's noise depends on its own seed only, not on who else is in the batch."""
    a = draw_episodes([1, 2], episodes=3, horizon=5, n_actions=4)
    b = draw_episodes([1, 9], episodes=3, horizon=5, n_actions=4)
    np.testing.assert_array_equal(a.gumbel[:3], b.gumbel[:3])
    np.testing.assert_array_equal(a.seeds[:3], b.seeds[:3])
    assert not np.array_equal(a.gumbel[3:], b.gumbel[3:])
    assert a.gumbel.shape == (6, 5, 4) and a.seeds.shape == (6,)