"""search.agent imitation: a population whose genomes are the imitation policy's weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from evo.run.built import Built
from evo.run.config import ConfigError, parse_experiment
from evo.search.agents.imitation import ImitationSpec
from evo.search.agents.imitation_population import ImitationPopulation
from evo.search.operators.mutation import gaussian_mutation
from evo.search.play import draw_episodes

ROOT = Path(__file__).resolve().parents[3]
FRAMES = (3, 120, 160)


def _actions(spec, policies: int, episodes: int, frames: np.ndarray) -> np.ndarray:
    draws = draw_episodes(list(range(policies)), episodes, frames.shape[0], 9)
    agent = spec.build(episodes, draws.gumbel)
    agent.reset(draws.seeds)
    n = policies * episodes
    return np.stack([agent.act(frames[t].reshape(n, -1), np.zeros((n, 2)), {}, t)[0] for t in range(frames.shape[0])])


def test_the_first_generation_plays_as_the_imitation_policy_and_mutants_differ() -> None:
    """Genomes are the policy's 590k weights; unchanged, each policy plays what the imitation
    agent plays with the same noise, and the experiment's small mutation changes some actions."""
    kind = ImitationPopulation(frame_shape=FRAMES)
    genomes = kind.init_genomes(2, np.random.default_rng(0))
    assert genomes.shape[0] == 2 and genomes.shape[1] > 500_000 and np.array_equal(genomes[0], genomes[1])
    frames = np.random.default_rng(1).integers(0, 256, size=(12, 2, *FRAMES), dtype=np.uint8)
    population = _actions(kind.spec(genomes), 2, 1, frames)
    imitation = _actions(ImitationSpec(FRAMES), 2, 1, frames)
    np.testing.assert_array_equal(population, imitation)
    mutant = gaussian_mutation(genomes, 0.05, 1.0, np.random.default_rng(2))
    assert not np.array_equal(_actions(kind.spec(mutant), 2, 1, frames), imitation)


def _park_experiment(**changes: object) -> dict:
    config = yaml.safe_load((ROOT / "experiments" / "ppgta_park_evolved_imitation.yaml").read_text())
    config["game"]["kwargs"]["preset"] = "small"
    config.update(changes)
    return config


def test_it_plays_frames_without_fine_tuning() -> None:
    exp = parse_experiment(_park_experiment(finetune={"algorithm": "ppo"}))
    with pytest.raises(ConfigError, match="search.agent imitation evolves the imitation policy without fine-tuning"):
        Built.from_experiment(exp)
    features = _park_experiment()
    features["game"]["wrappers"] = [{"name": "detect"}, {"name": "encode"}]
    with pytest.raises(ConfigError, match=r"plays the imitation policy on RGB frames \(3, H, W\); this game's "):
        Built.from_experiment(parse_experiment(features))
