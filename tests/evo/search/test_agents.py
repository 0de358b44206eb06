"""Agents: the protocol every agent keeps, and every agent playing through the same play()."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pytest
import torch

from evo.search.agents import (
    AGENT_KINDS, Agent, AgentSpec, PopulationAgent, PopulationSpec, ReturningSpec, ScriptAgent, ScriptSpec,
    UniformSpec, agent_kind,
)
from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from evo.run.config import ConfigError, parse_experiment
from evo.search.tasks import PlayTask, run_play
from evo.search.policy import PolicySpec
from evo.bugs.replay import replay
from evo.report.tables import load_run
from evo.search.play import draw_episodes, play
from evo.run.kinds.evolve import Evolve
from games import GameFactory
from games.maze.block_maze import BlockMazeVector

POLICY = PolicySpec(obs_dim=5, n_actions=4, hidden=(8,))
HORIZON = 6


def specs() -> dict[str, AgentSpec]:
    """One spec of each agent, for 3 policies."""
    genomes = POLICY.init_genomes(3, np.random.default_rng(0))
    return {
        "population": PopulationSpec(POLICY, genomes),
        "population T=0.5": PopulationSpec(POLICY, genomes, temperature=0.5),
        "population greedy": PopulationSpec(POLICY, genomes, temperature=0.0),
        "uniform": UniformSpec(),
        "uniform held": UniformSpec(mean_repeat=3.0),
        "script": ScriptSpec(((0, 1, 2, 3), (3, 3), (1,))),
        # 3 policies x 2 episodes: copies 0, 2 and 4 first return along a prefix.
        "returning": ReturningSpec.of(PopulationSpec(POLICY, genomes), [[1, 2], [], [3], [], [0, 0, 0], []]),
    }


def test_a_returning_agent_plays_the_prefix_then_its_inner_agent() -> None:
    genomes = POLICY.init_genomes(3, np.random.default_rng(0))
    inner = actions_of(PopulationSpec(POLICY, genomes), [5, 6, 7], 2)
    returning = actions_of(specs()["returning"], [5, 6, 7], 2)
    prefixes = {0: [1, 2], 2: [3], 4: [0, 0, 0]}
    for t, (a, b) in enumerate(zip(inner, returning)):
        expected = a.copy()
        for copy, prefix in prefixes.items():
            if t < len(prefix):
                expected[copy] = prefix[t]
        np.testing.assert_array_equal(b, expected)


def actions_of(spec: AgentSpec, policy_seeds: Sequence[int], episodes: int) -> list[np.ndarray]:
    """What the agent a worker builds from ``spec`` plays at every step, on fixed observations."""
    draws = draw_episodes(policy_seeds, episodes, HORIZON, POLICY.n_actions)
    agent = spec.build(episodes, draws.gumbel)
    n = len(draws.seeds)
    agent.reset(draws.seeds)
    obs = np.random.default_rng(1).standard_normal((HORIZON, n, POLICY.obs_dim)).astype(np.float32)
    return [agent.act(obs[t], np.zeros((n, 2)), None, t)[0].copy() for t in range(HORIZON)]


@pytest.mark.parametrize("name", list(specs()))
def test_every_agent_keeps_the_protocol(name: str) -> None:
    """Batched actions and probabilities of the right shapes and types, the acting
    distribution summing to 1, one seed per copy, and a spec that survives pickling."""
    spec = pickle.loads(pickle.dumps(specs()[name]))  # what a task carries to a worker
    episodes, n = 2, 6
    draws = draw_episodes([11, 12, 13], episodes, HORIZON, POLICY.n_actions)
    agent = spec.build(episodes, draws.gumbel)
    assert isinstance(agent, Agent)
    with pytest.raises(ValueError, match="5 episode seeds for 6 copies"):
        agent.reset(draws.seeds[:5])
    agent.reset(draws.seeds)
    obs = np.random.default_rng(2).standard_normal((n, POLICY.obs_dim)).astype(np.float32)
    for t in range(HORIZON):
        actions, probs = agent.act(obs, np.zeros((n, 2)), None, t)
        assert actions.shape == (n,) and actions.dtype == np.int64
        assert probs.shape == (n, POLICY.n_actions) and probs.dtype == np.float32
        assert ((actions >= 0) & (actions < POLICY.n_actions)).all()
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)
        assert (probs[np.arange(n), actions] > 0).all()  # every action could have been chosen


@pytest.mark.parametrize("name", list(specs()))
def test_the_same_seeds_give_the_same_actions(name: str) -> None:
    """Policy 0's actions depend on its own seed only: again the same, and the same whoever
    shares its batch."""
    spec = specs()[name]
    first = actions_of(spec, [5, 6, 7], 2)
    again = actions_of(spec, [5, 6, 7], 2)
    other = actions_of(spec, [5, 9, 4], 2)
    for a, b, c in zip(first, again, other):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a[:2], c[:2])
    if name in ("uniform", "uniform held", "population"):  # sampled: another seed, other actions
        assert any(not np.array_equal(a[:2], c[:2]) for a, c in zip(actions_of(spec, [8, 6, 7], 2), first))


def test_held_random_actions_last_as_long_as_asked_and_stay_uniform() -> None:
    """search.action_repeat 20: runs of one action 20 steps long on average (a fresh draw may
    repeat the last, so distinct runs are 20 * A / (A - 1)), every action as often as another;
    probs give the held action its chance of staying."""
    n, horizon, n_actions = 200, 1000, 18
    draws = draw_episodes(list(range(20)), 10, horizon, n_actions)
    agent = UniformSpec(mean_repeat=20.0).build(10, draws.gumbel)
    agent.reset(draws.seeds)
    played = np.stack([agent.act(None, None, None, t)[0] for t in range(horizon)])
    runs = int((np.diff(played, axis=0) != 0).sum()) + n
    assert played.size / runs == pytest.approx(20 * n_actions / (n_actions - 1), rel=0.08)
    np.testing.assert_allclose(np.bincount(played.ravel(), minlength=n_actions) / played.size, 1 / n_actions, atol=0.01)
    _, probs = agent.act(None, None, None, 5)
    np.testing.assert_allclose(probs[np.arange(n), played[4]], 0.95 + 0.05 / n_actions, rtol=1e-6)
    plain = actions_of(UniformSpec(), [5, 6, 7], 2)
    assert np.mean([(a[1:] != a[:-1]).mean() for a in np.stack(plain, axis=1)]) > 0.5  # fresh draws by default


def test_action_repeat_is_for_random_play_only() -> None:
    raw = {"name": "x", "game": {"name": "block_maze"}, "budget": {"generations": 1},
           "objectives": [{"name": "coverage"}]}
    with pytest.raises(ConfigError, match="search: action_repeat holds the actions of agent random; agent mlp chooses"):
        parse_experiment({**raw, "search": {"action_repeat": 20}})
    exp = parse_experiment({**raw, "search": {"agent": "random", "action_repeat": 20}})
    assert exp.search.action_repeat == 20


def fixed_logits_agent(logits: np.ndarray, episodes: int, temperature: float) -> PopulationAgent:
    """One policy whose logits are ``logits`` on every observation (zero weights, actor bias)."""
    spec = PolicySpec(obs_dim=3, n_actions=len(logits), hidden=(5,))
    genome = np.zeros((1, spec.n_params), dtype=np.float32)
    spec.unflatten(torch.from_numpy(genome)).dense[-2][1][:] = torch.from_numpy(logits)
    draws = draw_episodes([7], episodes, horizon=1, n_actions=len(logits))
    return PopulationAgent(genome, spec, episodes, draws.gumbel, temperature)


@pytest.mark.parametrize("temperature", [1.0, 0.5, 2.0, 0.0])
def test_population_samples_from_the_probs_it_reports(temperature: float) -> None:
    """probs is softmax(logits / T) (one-hot on the argmax at T = 0), and the sampled actions
    follow it."""
    logits = np.array([0.0, 1.0, 2.0, -1.0], dtype=np.float32)
    episodes = 4000
    agent = fixed_logits_agent(logits, episodes, temperature)
    actions, probs = agent.act(np.zeros((episodes, 3), dtype=np.float32), np.zeros((episodes, 2)), None, 0)
    if temperature == 0:
        expected = np.array([0.0, 0.0, 1.0, 0.0])
    else:
        expected = np.exp(logits / temperature) / np.exp(logits / temperature).sum()
    np.testing.assert_allclose(probs, np.broadcast_to(expected, probs.shape), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.bincount(actions, minlength=4) / episodes, expected, atol=0.03)


def test_a_negative_temperature_is_refused() -> None:
    with pytest.raises(ValueError, match="temperature must be at least 0, got -1"):
        PopulationSpec(POLICY, POLICY.init_genomes(1, np.random.default_rng(0)), temperature=-1.0)
    with pytest.raises(ValueError, match="temperature must be at least 0, got nan"):
        fixed_logits_agent(np.zeros(2, dtype=np.float32), 2, float("nan"))


def test_the_search_kinds_are_registered() -> None:
    evolved, random = agent_kind("mlp", POLICY), agent_kind("random", POLICY)
    assert {"mlp", "random"} <= set(AGENT_KINDS) and evolved.evolves and not random.evolves
    assert evolved.init_genomes(3, np.random.default_rng(0)).shape == (3, POLICY.n_params)
    assert random.init_genomes(3, np.random.default_rng(0)).shape == (3, 0)
    with pytest.raises(ValueError, match="^unknown agent kind 'dqn'; expected one of imitation, mlp, random$"):
        agent_kind("dqn", POLICY)


# ------------------------------------------------------------------ random search and replay
@pytest.fixture(scope="module")
def random_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-search run, with fine-tuning configured: it must not apply."""
    from tests.conftest import TINY

    def no_tuning(task: Any) -> None:
        raise AssertionError("a random agent was fine-tuned")

    config = json.loads(json.dumps(TINY))
    config["search"]["agent"] = "random"
    path = tmp_path_factory.mktemp("random") / "run"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("evo.run.evaluator.run_tune", no_tuning)
        Evolve(parse_experiment(config), path).run()
    return path


def test_random_search_plays_agents_without_genomes(random_run: Path) -> None:
    """Random testing: fresh uniform agents every generation, no parameters, nothing tuned."""
    ckpt = load_checkpoint(latest_checkpoint(random_run))
    assert ckpt.genomes.shape == (6, 0)
    data = load_run(random_run)
    assert len(data.generations) == 4 and len(data.bugs) > 0
    assert data.generations["coverage"].iloc[-1] > 1
    assert ckpt.policy_ids.max() >= 6  # offspring are new agents (ids 6 and up), not parents


def test_random_search_without_offspring_plays_the_same_agents_again(
        tiny_config: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tiny_config["search"].update(policy="random", offspring=0)
    tiny_config["budget"] = {"generations": 2}
    monkeypatch.setattr("evo.run.evaluator.run_tune", lambda task: pytest.fail("a random agent was fine-tuned"))
    pop = Evolve(parse_experiment(tiny_config), tmp_path / "r").run()
    assert pop.genomes.shape == (6, 0) and list(pop.ids) == list(range(6))


def test_replay_plays_the_recorded_actions(random_run: Path) -> None:
    """A bug's seed and actions, played by the script agent, reach the bug again."""
    bugs = [json.loads(line) for line in (random_run / "bugs.jsonl").read_text().splitlines()]
    bug = next(b for b in bugs if b["kind"] != "performance")
    assert replay(random_run, bug["id"]).reproduced
    factory = GameFactory(name="block_maze", kwargs=(("preset", "small"), ("maze_seed", 0), ("heavy_ms", 3.0)))
    task = PlayTask(factory, ScriptSpec((tuple(bug["actions"]),)), np.array([bug["policy"]]),
                    np.array([0]), episodes=2)
    result = run_play(task)
    assert list(result.rollouts.policy) == [bug["policy"]] * 2
    for r in result.rollouts:  # the task's own seeds: the same actions, in other episodes
        np.testing.assert_array_equal(r.actions[: len(bug["actions"])], bug["actions"][: r.length])
    again = play(factory.make_vector(1), [bug["seed"]], [bug["policy"]], ScriptAgent([bug["actions"]], 4),
                 max_steps=len(bug["actions"]))
    episode = again.rollouts[0]
    assert episode.length == bug["step"] + 1
    np.testing.assert_array_equal(episode.features[bug["step"]], bug["state"])


# ------------------------------------------------------------------ a new agent plugs in
class BumpTurner:
    """A hand-written agent, none of the engine's: each copy walks one way and turns
    clockwise (N, E, S, W) whenever its last move left its place unchanged. It starts facing
    its episode seed mod 4."""

    CLOCKWISE = {0: 2, 2: 1, 1: 3, 3: 0}  # Block Maze actions 0..3 = N, S, E, W

    def __init__(self, n: int) -> None:
        self.heading = np.zeros(n, dtype=np.int64)
        self.last: np.ndarray | None = None

    def reset(self, seeds: Sequence[int]) -> None:
        self.heading = np.asarray(seeds, dtype=np.int64) % 4
        self.last = None

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        if self.last is not None:
            stuck = (features == self.last).all(axis=1)
            self.heading[stuck] = [self.CLOCKWISE[int(h)] for h in self.heading[stuck]]
        self.last = features.copy()
        return self.heading.copy(), np.eye(4, dtype=np.float32)[self.heading]


def test_a_new_agent_plays_block_maze_through_play() -> None:
    seeds = [0, 1, 2, 3, 2]
    result = play(BlockMazeVector(5, inject_bugs=False), seeds, [0, 1, 2, 3, 4], BumpTurner(5))
    assert isinstance(BumpTurner(1), Agent)
    turned = 0
    for seed, r in zip(seeds, result.rollouts):
        assert r.actions[0] == seed % 4  # reset got the episode seeds
        for t in range(1, r.length):  # act got each step's features: it turned where it bumped
            bumped = np.array_equal(r.features[t], r.features[t - 1])
            expected = BumpTurner.CLOCKWISE[int(r.actions[t - 1])] if bumped else r.actions[t - 1]
            assert r.actions[t] == expected
            turned += bumped
    assert turned > 0
    np.testing.assert_array_equal(result.rollouts[2].actions, result.rollouts[4].actions)  # same seed
