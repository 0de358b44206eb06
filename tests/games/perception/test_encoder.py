"""The masked inverse-dynamics encoder: it learns the action between two park frames from tiny
data, the weights file round-trips, and bad input is one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from games.perception.encoder import (  # noqa: E402
    FRAME, InverseDynamics, downscale, encode, load_encoder, load_model, save_model,
)
from games.perception.training.encoder import accuracy, split, train  # noqa: E402
from games.doom.park.data.transitions import collect  # noqa: E402
from evo.cli.vision import parse_levels  # noqa: E402
from tests.cli.test_cli import evo  # noqa: E402


@pytest.fixture(scope="module")
def tiny() -> object:
    """240 transitions of sticky random play on park level 1, two engines."""
    return collect((1,), 240, 2, seed=0)


def test_collect_pairs_adjacent_frames_with_their_actions_and_masks(tiny) -> None:
    assert len(tiny) == 240 and tiny.frames.shape[1:] == (3, FRAME, FRAME) and tiny.frames.dtype == np.uint8
    assert tiny.masked.shape == tiny.frames.shape
    assert set(np.unique(tiny.actions)) == set(range(9))  # every action played
    assert (tiny.after != tiny.before).all() and (tiny.level == 1).all()
    # Outside the objects the masked frame is grey: its three channels agree there.
    grey = (tiny.masked[:, 0] == tiny.masked[:, 1]) & (tiny.masked[:, 1] == tiny.masked[:, 2])
    assert grey.mean() > 0.8
    assert not np.array_equal(tiny.masked, tiny.frames)


@pytest.mark.slow
def test_training_on_tiny_data_beats_chance_on_its_own_pairs(tiny) -> None:
    torch.set_num_threads(1)
    rows = np.arange(len(tiny))
    before = InverseDynamics(9)
    model = train(tiny, rows, epochs=30, seed=0, batch_size=32)
    assert accuracy(model, tiny, rows, seed=1) > 3 * (1 / 9)
    # The same seed trains the same weights.
    again = train(tiny, rows, epochs=1, seed=5, batch_size=32)
    twice = train(tiny, rows, epochs=1, seed=5, batch_size=32)
    assert all(torch.equal(a, b) for a, b in zip(again.state_dict().values(), twice.state_dict().values()))
    assert not torch.equal(before.encoder.project.weight, model.encoder.project.weight)


def test_a_single_level_holds_out_its_last_fifth(tiny) -> None:
    train_rows, held = split(tiny)
    assert train_rows.size == 192 and held.size == 48 and train_rows.max() < held.min()


def test_weights_round_trip_and_encode_features(tmp_path: Path, tiny) -> None:
    model = InverseDynamics(9)
    save_model(model, tmp_path / "e.pt", {"levels": "1"})
    loaded, meta = load_model(tmp_path / "e.pt")
    assert meta == {"levels": "1"}
    encoder = load_encoder(tmp_path / "e.pt")
    features = encode(encoder, tiny.frames[:5])
    assert features.shape == (5, encoder.features) and features.dtype == np.float32
    with torch.no_grad():
        np.testing.assert_allclose(features, model.encoder(torch.from_numpy(tiny.frames[:5])).numpy(), atol=1e-5)


def test_downscale_averages_to_64_by_64() -> None:
    frames = np.zeros((2, 3, 120, 160), dtype=np.uint8)
    frames[1] = 200
    small = downscale(frames)
    assert small.shape == (2, 3, 64, 64) and small.dtype == np.uint8
    assert (small[0] == 0).all() and (small[1] == 200).all()
    assert np.array_equal(downscale(small), small)
    with pytest.raises(ValueError, match="RGB frames"):
        downscale(np.zeros((2, 120, 160), dtype=np.uint8))


def test_bad_weights_and_levels_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="are not an encoder's"):
        load_model(tmp_path / "junk.pt")
    with pytest.raises(ValueError, match="not found"):
        load_encoder(tmp_path / "missing.pt")
    assert parse_levels("1-3,7") == [1, 2, 3, 7]
    with pytest.raises(ValueError, match="--levels must be"):
        parse_levels("3-1")
    result = evo("vision", "train", "encoder", "--levels", "0-2", "--out", "e.pt", cwd=tmp_path)
    assert result.returncode == 2 and "--levels must not include 0" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "e.pt").exists()
