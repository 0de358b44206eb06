"""The encode wrapper: frames become the frozen encoder's features in one batched forward a
step, the 64x64 frames it encoded are published, and a population of policies plays on them
with one forward of its own a step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from evo.search.agents.population import PopulationAgent  # noqa: E402
from evo.search.policy import PolicySpec, PopulationActor  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.perception.encode_wrapper import FRAME64_KEY, Encode  # noqa: E402
from games.perception.encoder import (DEFAULT_WEIGHTS, InverseDynamics, _Inference, encode, load_model,  # noqa: E402
                                  save_model)
from games.core.wrappers import wrapped_spec  # noqa: E402


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained encoder's weights (the wrapper's behaviour does not depend on training)."""
    path = tmp_path_factory.mktemp("encoder") / "encoder.pt"
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        save_model(InverseDynamics(9), path, {})
    return path


def test_frames_become_float32_features_and_identical_frames_identical_features(weights: Path) -> None:
    game = Encode(DoomParkVector(3, level_seed=2, max_steps=5), weights=str(weights))
    try:
        assert game.game_spec.obs_shape == (128,) and game.game_spec.obs_dtype == "float32"
        obs, _ = game.reset([7, 7, 8])  # same seed, same first frame
        assert obs.shape == (3, 128) and obs.dtype == np.float32
        np.testing.assert_array_equal(obs[0], obs[1])
        out = game.step(np.array([4, 4, 0]))  # the two turn alike, the third walks
        np.testing.assert_array_equal(out.obs[0], out.obs[1])
        assert not np.array_equal(out.obs[0], obs[0])
        frames = out.info[FRAME64_KEY]
        assert frames.shape == (3,) and frames.dtype == object
        assert frames[0].shape == (3, 64, 64) and frames[0].dtype == np.uint8
        np.testing.assert_array_equal(frames[0], game.frames64[0])
        # What the policy observes is what the encoder makes of the published frame: exactly
        # what encode() gives, and the trained network's features but for rounding (encode
        # runs a copy with the input's scaling folded into the first convolution).
        np.testing.assert_array_equal(out.obs, encode(game.encoder, np.stack(frames)))
        with torch.no_grad():
            again = game.encoder(torch.from_numpy(np.stack(frames))).numpy()
        np.testing.assert_allclose(out.obs, again, atol=1e-5)
    finally:
        game.close()


def test_encode_refuses_what_is_not_uint8_frames(weights: Path) -> None:
    spec = DoomParkVector(1, level_seed=2)
    try:
        with pytest.raises(ValueError, match="needs uint8 frames"):
            wrapped_spec(spec.game_spec, [("resize", {"height": 60, "width": 80}), ("encode", {"weights": str(weights)})])
        with pytest.raises(ValueError, match="needs RGB frame observations"):
            wrapped_spec(spec.game_spec, [("encode", {"weights": str(weights)}), ("encode", {"weights": str(weights)})])
        with pytest.raises(ValueError, match="not found"):
            wrapped_spec(spec.game_spec, [("encode", {"weights": "missing.pt"})])
    finally:
        spec.close()


def test_a_population_plays_on_features_one_forward_a_step(weights: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"encoder": [], "policy": 0}
    encoder_forward, policy_logits = _Inference.forward, PopulationActor.logits

    def count_encoder(self, frames):
        calls["encoder"].append(frames.shape[0])
        return encoder_forward(self, frames)

    def count_policy(self, obs):
        calls["policy"] += 1
        return policy_logits(self, obs)

    monkeypatch.setattr(_Inference, "forward", count_encoder)  # encode()'s network
    monkeypatch.setattr(PopulationActor, "logits", count_policy)
    policies, episodes, steps = 3, 2, 6
    game = Encode(DoomParkVector(policies * episodes, level_seed=2, max_steps=steps), weights=str(weights))
    try:
        spec = PolicySpec(game.game_spec.obs_shape[0], 9, (16,))
        genomes = spec.init_genomes(policies, np.random.default_rng(0))
        draws = draw_episodes([1, 2, 3], episodes, steps, 9)
        agent = PopulationAgent(genomes, spec, episodes, draws.gumbel)
        result = play(game, draws.seeds, np.repeat(np.arange(policies), episodes), agent,
                      columns=frozenset({f"info.{FRAME64_KEY}"}))
    finally:
        game.close()
    assert calls["encoder"] == [policies * episodes] * (steps + 1)  # reset, then one per step
    assert calls["policy"] == steps
    column = result.rollouts.info[FRAME64_KEY]
    assert column.shape == (policies * episodes, steps) and all(f.shape == (3, 64, 64) for f in column.ravel())


def test_the_shipped_encoder_is_small_and_better_than_chance() -> None:
    assert DEFAULT_WEIGHTS.stat().st_size < 2_000_000
    _, meta = load_model()
    assert meta["held_out_accuracy"] > 1 / 9 and "0" not in meta["levels"].split("-")
