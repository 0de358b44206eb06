"""The fine-tuning package's contracts: registry, no import cycle, RL diagnostics per update
and per generation (``rl_*`` columns of generations.csv), bad algorithm names."""

from __future__ import annotations

import ast
import math
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import evo.search.finetune
from evo.run.config import ConfigError, parse_experiment
from evo.search.finetune import ALGORITHMS, DIAGNOSTICS, A2CConfig, Diagnostics, PPOConfig, compute_gae
from evo.report.tables import load_run
from evo.run.kinds.evolve import Evolve
from games.maze.block_maze import MOVES
from tests.evo.search.finetune.test_a2c import SPEC, run

PACKAGE = Path(evo.search.finetune.__file__).parent
RL_COLUMNS = [f"rl_{name}" for name in DIAGNOSTICS]


# --- the package --------------------------------------------------------------------------


def _imports_within_package(path: Path) -> set[str]:
    """The evo.search.finetune modules that ``path`` imports (``evo.search.finetune.x`` -> ``x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "evo.search.finetune":
                found |= {alias.name for alias in node.names if (PACKAGE / f"{alias.name}.py").exists()}
                found.add("__init__")
            elif node.module.startswith("evo.search.finetune."):
                found.add(node.module.rsplit(".", 1)[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.rsplit(".", 1)[1] for a in node.names if a.name.startswith("evo.search.finetune.")}
    return found


def test_no_import_cycle_and_the_loop_knows_no_algorithm() -> None:
    graph = {p.stem: _imports_within_package(p) - {p.stem} for p in PACKAGE.glob("*.py")}
    assert graph["base"] == set()
    assert graph["loop"] == {"base"}
    assert graph["a2c"] == {"base"} and graph["ppo"] == {"base"}
    # No module reaches itself (depth-first over the graph).
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            node = todo.pop()
            assert node != start, f"import cycle through evo.search.finetune.{start}"
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))


@pytest.mark.slow  # four interpreters that import torch
def test_each_module_imports_on_its_own() -> None:
    for name in ("base", "loop", "a2c", "ppo"):
        result = subprocess.run([sys.executable, "-c", f"import evo.search.finetune.{name}"], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


def test_every_module_is_under_400_lines() -> None:
    for path in PACKAGE.glob("*.py"):
        assert len(path.read_text().splitlines()) < 400, path.name


def test_both_algorithms_register_with_their_config() -> None:
    assert ALGORITHMS["a2c"].config is A2CConfig and ALGORITHMS["ppo"].config is PPOConfig
    assert not issubclass(PPOConfig, A2CConfig)  # siblings under the shared config


# --- GAE ----------------------------------------------------------------------------------


def test_gae_of_one_terminated_episode_by_hand() -> None:
    """r = (1, 1), V = (0.5, 0.5), gamma = 0.9, lambda = 0.8, the episode terminates.

    delta_1 = 1 - 0.5 = 0.5; delta_0 = 1 + 0.9 * 0.5 - 0.5 = 0.95;
    A_1 = 0.5; A_0 = 0.95 + 0.9 * 0.8 * 0.5 = 1.31; returns = A + V.
    """
    adv, ret = compute_gae(
        np.array([[1.0, 1.0]]), np.array([[0.5, 0.5]]), np.array([[True, True]]),
        np.array([True]), np.array([123.0]), gamma=0.9, gae_lambda=0.8,
    )
    np.testing.assert_allclose(adv, [[1.31, 0.5]])
    np.testing.assert_allclose(ret, [[1.81, 1.0]])


# --- diagnostics of one fine-tuning call --------------------------------------------------


def _check_plausible(d: Diagnostics, n_actions: int) -> None:
    assert (d.entropy > 0).all() and (d.entropy <= math.log(n_actions) + 1e-9).all()
    assert (d.value_loss >= 0).all() and np.isfinite(d.policy_loss).all()
    assert (d.approx_kl >= 0).all()
    ev = d.explained_variance[~np.isnan(d.explained_variance)]
    assert len(ev) > 0 and (ev <= 1.0).all()


def test_a2c_diagnostics_per_update() -> None:
    g = SPEC.init_genomes(3, np.random.default_rng(0))
    _, stats = run(g, seed=1, config=A2CConfig(updates=3, episodes=2, lr=0.01), goal_ends=False)
    assert len(stats.per_update) == 3
    for d in stats.per_update:
        assert d.policy_loss.shape == (3,)
        _check_plausible(d, n_actions=2)
        assert np.isnan(d.clip_frac).all()  # A2C clips no ratio
        assert (d.approx_kl > 0).all()  # every step moved every policy
    np.testing.assert_allclose(
        stats.diagnostics.entropy, np.mean([d.entropy for d in stats.per_update], axis=0)
    )


def test_ppo_clip_fraction_grows_with_the_learning_rate() -> None:
    g = SPEC.init_genomes(2, np.random.default_rng(0))
    _, slow = run(g, seed=1, config=PPOConfig(updates=2, episodes=2, lr=1e-5), goal_ends=False)
    _, fast = run(g, seed=1, config=PPOConfig(updates=2, episodes=2, lr=0.05), goal_ends=False)
    for stats in (slow, fast):
        _check_plausible(stats.diagnostics, n_actions=2)
        assert ((stats.diagnostics.clip_frac >= 0) & (stats.diagnostics.clip_frac <= 1)).all()
    assert (slow.diagnostics.clip_frac == 0).all()  # tiny steps never leave 1 +- 0.2
    assert (fast.diagnostics.clip_frac > 0).all()
    assert (fast.diagnostics.approx_kl > slow.diagnostics.approx_kl).all()


@pytest.mark.parametrize("config", [A2CConfig(updates=2, episodes=3, lr=0.01), PPOConfig(updates=2, episodes=3)],
                         ids=["a2c", "ppo"])
def test_a_policys_diagnostics_do_not_depend_on_its_neighbours(config: Any) -> None:
    g = SPEC.init_genomes(3, np.random.default_rng(1))
    a, b, c = g[0:1], g[1:2], g[2:3] * 3.0
    _, with_b = run(np.concatenate([a, b]), seed=7, config=config, goal_ends=False)
    _, with_c = run(np.concatenate([a, c]), seed=7, config=config, goal_ends=False)
    for name in DIAGNOSTICS:
        np.testing.assert_allclose(getattr(with_b.diagnostics, name)[0], getattr(with_c.diagnostics, name)[0],
                                   rtol=1e-6, atol=1e-9, err_msg=name)


def test_means_leave_nan_out_without_warning() -> None:
    d = Diagnostics(*(np.array([1.0, np.nan, 3.0]) for _ in DIAGNOSTICS[:4]), np.full(3, np.nan),
                    np.array([0.5, 0.5, np.nan]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        means = d.means()
    assert means["policy_loss"] == 2.0 and means["explained_variance"] == 0.5
    assert math.isnan(means["clip_frac"])


# --- generations.csv ----------------------------------------------------------------------


def _generations(config: dict[str, Any], out: Path) -> Any:
    Evolve(parse_experiment(config), out).run()
    return load_run(out).generations


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
def test_generations_csv_has_the_rl_diagnostics(tiny_config, tmp_path: Path, algorithm: str) -> None:
    tiny_config["budget"] = {"generations": 3}
    tiny_config["finetune"] = {"algorithm": algorithm, algorithm: {"updates": 2, "episodes": 2}}
    gens = _generations(tiny_config, tmp_path / "run")
    n_actions = len(MOVES)
    first, tuned = gens.iloc[0], gens.iloc[1:]
    assert all(math.isnan(first[c]) for c in RL_COLUMNS)  # the initial population is not tuned
    for _, row in tuned.iterrows():
        assert 0 < row["rl_entropy"] <= math.log(n_actions)
        assert row["rl_explained_variance"] <= 1.0
        assert row["rl_approx_kl"] >= 0 and row["rl_value_loss"] >= 0
        assert np.isfinite(row["rl_policy_loss"])
        if algorithm == "ppo":
            assert 0 <= row["rl_clip_frac"] <= 1
        else:
            assert math.isnan(row["rl_clip_frac"])


def test_generations_csv_rl_columns_are_empty_without_fine_tuning(tiny_config, tmp_path: Path) -> None:
    tiny_config["budget"] = {"generations": 2}
    tiny_config["finetune"] = {"algorithm": "none"}
    gens = _generations(tiny_config, tmp_path / "run")
    assert gens[RL_COLUMNS].isna().all().all()


# --- configuration ------------------------------------------------------------------------


def test_unknown_algorithm_is_a_one_line_config_error(bad_input) -> None:
    line = bad_input(["run", "exp.yaml", "finetune.algorithm=sac"])
    assert "finetune.algorithm" in line and "'sac'" in line and "a2c, ppo" in line


def test_existing_yaml_keys_still_choose_the_algorithm() -> None:
    base = {"name": "x", "game": {"name": "block_maze"}, "objectives": [{"name": "winning"}],
            "budget": {"generations": 1}}
    exp = parse_experiment({**base, "finetune": {"algorithm": "ppo", "ppo": {"clip_coef": 0.1}, "a2c": {"lr": 0.1}}})
    assert isinstance(exp.finetune.settings, PPOConfig) and exp.finetune.settings.clip_coef == 0.1
    assert exp.finetune.a2c.lr == 0.1
    with pytest.raises(ConfigError, match=r"finetune\.ppo\.clip: unknown key"):
        parse_experiment({**base, "finetune": {"ppo": {"clip": 0.1}}})
