"""Observation wrappers over vector games: each wrapper's shapes and values, what passes
through them untouched, the YAML's game.wrappers (bad ones are one line), and a run with
wrappers end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from evo.run.config import ConfigError, game_factory, parse_experiment
from games import GameFactory
from games.core.base import GameSpec, VecStep
from games.core.wrappers import FrameStack, Grayscale, Resize, unpublished, wrap, wrapped_spec


class Images:
    """A vector game whose observation of copy i after t steps is ``(C, H, W)`` filled with
    ``100 * i + t`` (channel c adds c); copy 1 ends at step 2. ``match`` stands for ground
    truth that must pass through the wrappers."""

    def __init__(self, num_envs: int = 2, shape: tuple[int, ...] = (1, 4, 6)) -> None:
        self.num_envs = num_envs
        self.shape = shape
        self.game_spec = GameSpec(shape, 3, ("t",), (0.0,), (9.0,), (9,), 9)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.done = np.zeros(num_envs, dtype=bool)

    def _obs(self) -> np.ndarray:
        base = 100.0 * np.arange(self.num_envs) + self.t
        channels = np.arange(self.shape[0]).reshape(1, -1, *([1] * (len(self.shape) - 1)))
        return (base.reshape(-1, *([1] * len(self.shape))) + channels + np.zeros(self.shape)).astype(np.float32)

    def reset(self, seeds):
        self.t[:] = 0
        self.done[:] = False
        return self._obs(), self.t[:, None].astype(np.float64)

    def step(self, actions):
        self.t += ~self.done
        self.done[1:2] |= self.t[1:2] >= 2
        return VecStep(self._obs(), np.ones(self.num_envs), self.done.copy(),
                       np.zeros(self.num_envs, bool), self.t[:, None].astype(np.float64),
                       frame_ms=np.full(self.num_envs, 2.0))

    def match(self, bug) -> int:
        return 7

    def close(self) -> None:
        self.closed = True


def test_frame_stack_keeps_the_last_k_oldest_first() -> None:
    game = FrameStack(Images(), k=3)
    assert game.game_spec.obs_shape == (3, 4, 6)
    obs, feats = game.reset([0, 1])
    assert obs.shape == (2, 3, 4, 6) and feats.tolist() == [[0.0], [0.0]]
    assert obs[:, :, 0, 0].tolist() == [[0, 0, 0], [100, 100, 100]]  # a reset repeats frame 1
    for _ in range(3):
        out = game.step(np.zeros(2, dtype=np.int64))
    # Copy 0 played 3 steps; copy 1 ended at step 2 and keeps its stack.
    assert out.obs[:, :, 0, 0].tolist() == [[1, 2, 3], [100, 101, 102]]
    assert out.features.tolist() == [[3.0], [2.0]] and out.frame_ms.tolist() == [2.0, 2.0]
    assert game.reset([0, 1])[0][:, :, 0, 0].tolist() == [[0, 0, 0], [100, 100, 100]]


def test_frame_stack_of_vectors_concatenates_them() -> None:
    game = FrameStack(Images(shape=(2,)), k=2)
    assert game.game_spec.obs_shape == (4,)
    game.reset([0, 1])
    assert game.step(np.zeros(2, dtype=np.int64)).obs[0].tolist() == [0, 1, 1, 2]


def test_resize_pools_whole_blocks() -> None:
    game = Images(num_envs=1, shape=(1, 4, 6))
    frame = np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6)
    area = Resize(game, height=2, width=3)
    biggest = Resize(game, height=2, width=3, mode="max")
    assert area.game_spec.obs_shape == biggest.game_spec.obs_shape == (1, 2, 3)
    np.testing.assert_array_equal(area.observation(frame)[0, 0], [[3.5, 5.5, 7.5], [15.5, 17.5, 19.5]])
    np.testing.assert_array_equal(biggest.observation(frame)[0, 0], [[7, 9, 11], [19, 21, 23]])
    assert area.observation(frame).dtype == np.float32


def test_grayscale_weighs_the_channels_by_luma() -> None:
    game = Grayscale(Images(shape=(3, 2, 2)))
    assert game.game_spec.obs_shape == (1, 2, 2)
    obs, _ = game.reset([0, 1])
    # Channels hold v, v + 1, v + 2: luma v + 0.587 + 2 * 0.114.
    np.testing.assert_allclose(obs[:, 0, 0, 0], [0.815, 100.815], rtol=1e-6)
    gray = Images(shape=(1, 2, 2))
    assert Grayscale(gray).observation(gray.reset([0, 1])[0]) is not None
    np.testing.assert_array_equal(Grayscale(gray).observation(gray._obs()), gray._obs())


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ([("blur", {})], "unknown wrapper 'blur'; expected one of detect, encode, frame_stack, grayscale, resize"),
        ([("frame_stack", {"n": 4})], "wrapper 'frame_stack': got an unexpected keyword argument 'n'"),
        ([("frame_stack", {"k": 0})], "k must be a positive integer, got 0"),
        ([("resize", {"height": 3, "width": 3})], "resize to 3x3 needs H and W multiples of them, got 4x6"),
        ([("resize", {"height": 2, "width": 3, "mode": "cubic"})], "mode must be one of area, max"),
        ([("frame_stack", {}), ("grayscale", {})], "grayscale needs image observations (3, H, W) or (1, H, W), got shape (4, 4, 6)"),
    ],
)
def test_bad_wrappers_say_what_is_wrong(specs, message: str) -> None:
    game = Images()
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        wrap(game, specs)
    assert game.closed


def test_wrappers_change_only_what_the_agent_sees() -> None:
    game = wrap(Images(), [("grayscale", {}), ("resize", {"height": 2, "width": 3}), ("frame_stack", (("k", 2),))])
    assert game.game_spec.obs_shape == (2, 2, 3)
    assert game.game_spec.n_actions == 3 and game.game_spec.feature_names == ("t",)
    assert game.match(None) == 7  # the ground truth reads through
    assert wrapped_spec(Images().game_spec, [("frame_stack", {"k": 5})]).obs_shape == (5, 4, 6)
    plain = GameFactory(name="block_maze")
    stacked = GameFactory(name="block_maze", wrappers=(("frame_stack", (("k", 2),)),))
    assert stacked.played() == plain.played()  # agents differing only in wrappers play one game
    maze = stacked.make_vector(2)
    assert maze.game_spec.obs_shape == (2 * plain.spec().obs_shape[0],)
    assert maze.injected_bugs == plain.make_vector(1).injected_bugs
    maze.close()


def config(wrappers: list) -> dict:
    from tests.conftest import TINY

    raw = yaml.safe_load(yaml.safe_dump(TINY))
    raw["game"]["wrappers"] = wrappers
    return raw


@pytest.mark.parametrize(
    ("wrappers", "message"),
    [
        ([{"name": "blur"}], "game.wrappers[0]: unknown wrapper 'blur'; expected one of detect, encode, frame_stack, grayscale, resize"),
        ([{"name": "frame_stack", "kwargs": {"depth": 2}}], "game.wrappers[0]: wrapper 'frame_stack': got an unexpected keyword argument 'depth'"),
        ([{"name": "frame_stack", "kwargs": {"k": -1}}], "game.wrappers[0]: k must be a positive integer, got -1"),
        ([{"name": "frame_stack"}, {"name": "resize", "kwargs": {"height": 2, "width": 2}}], "game.wrappers[1]: resize needs image observations (C, H, W), got shape (116,)"),
        ([{"name": "frame_stack", "size": 2}], "game.wrappers.0.size"),
    ],
)
def test_bad_wrappers_in_a_yaml_are_one_line(wrappers: list, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_experiment(config(wrappers))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_yaml_with_wrappers_runs_end_to_end(tmp_path: Path, write_yaml) -> None:
    """The policy reads the stacked observation: its genome has the stacked input layer."""
    from evo.run.checkpoint import latest_checkpoint, load_checkpoint
    from evo.cli.main import main
    from evo.run.built import Built

    raw = config([{"name": "frame_stack", "kwargs": {"k": 3}}])
    raw["budget"]["generations"] = 1
    exp = parse_experiment(raw)
    assert game_factory(exp).wrappers == (("frame_stack", (("k", 3),)),)
    built = Built.from_experiment(exp)
    assert built.spec.obs_shape == (3 * 29,) and built.injected  # the maze's bugs still count
    assert main(["run", str(write_yaml(raw)), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    saved = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert saved["game"]["wrappers"] == [{"name": "frame_stack", "kwargs": {"k": 3}}]
    assert pd.read_csv(tmp_path / "run" / "generations.csv")["generation"].tolist() == [0]
    genomes = load_checkpoint(latest_checkpoint(tmp_path / "run")).genomes
    assert genomes.shape[1] == built.policy_spec.n_params
    # TINY's MLP has 16 hidden units after its input: 3 stacked observations, 3 x 29 inputs.
    plain = Built.from_experiment(parse_experiment(config([]))).policy_spec.n_params
    assert genomes.shape[1] - plain == 2 * 29 * 16


def test_a_wrapper_without_an_observation_method_is_refused_when_built() -> None:
    from games.maze.block_maze import BlockMazeVector
    from games.core.wrappers import ObservationWrapper

    class Forgetful(ObservationWrapper):
        pass

    with pytest.raises(TypeError, match="abstract method observation"):
        Forgetful(BlockMazeVector(1))


def test_what_only_a_wrapper_publishes_is_named_with_the_wrapper_that_would() -> None:
    asked = {"info.frame64", "info.detections", "info.coins", "obs"}
    assert unpublished(asked, [("detect", {})]) == {"info.frame64": ["encode"]}
    assert unpublished(asked, [("grayscale", {})]) == {"info.detections": ["detect"], "info.frame64": ["encode"]}
    assert unpublished(asked, [("detect", {}), ("encode", {}), ("frame_stack", {"k": 2})]) == {}
