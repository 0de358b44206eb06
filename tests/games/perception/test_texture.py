"""The texture judge: it learns bugged textures from a little data, its weights round-trip,
the shipped judge tells bugs on a level it never saw, and bad input is one line (exit 2)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("vizdoom")
torch = pytest.importorskip("torch")

from evo.cli.main import main  # noqa: E402
from games.perception.texture import (  # noqa: E402
    MIN_HEIGHT, crop, judgeable, load_texture_judge, save_texture_judge,
)
from games.perception.training.texture import concat, crop_scores, train_judge  # noqa: E402
from games.doom.park.data.walks import CLASSES, TYPES, level_crops  # noqa: E402
from evo.cli.vision import parse_levels  # noqa: E402


@pytest.fixture(scope="module")
def tiny() -> object:
    """Crops of two short circling walks on levels 1 and 2."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    sets = [level_crops(level, 320, rng, jitter=0.1) for level in (1, 2)]
    return concat(sets)


def test_crops_are_whole_tall_boxes_labelled_by_their_ooi_s_bug(tiny) -> None:
    assert len(tiny.crops) > 200
    assert set(tiny.labels.tolist()) == set(range(len(CLASSES)))  # normal, lowres, stretched
    assert set(tiny.types.tolist()) <= set(range(len(TYPES)))
    assert min(c.shape[1] for c in tiny.crops) >= MIN_HEIGHT * 0.8 - 1  # jittered a little
    frame = np.arange(3 * 12 * 16, dtype=np.uint8).reshape(3, 12, 16)
    assert crop(frame, (14, 10, 5, 5)).shape == (3, 2, 2)  # clipped to the frame
    assert not judgeable((0, 5, 4, 10), (12, 16))  # cut by the left edge
    assert not judgeable((3, 1, 4, 7), (12, 16))  # too short
    assert judgeable((3, 1, 4, 8), (12, 16))


def test_the_judge_learns_bugged_textures_from_tiny_data_and_round_trips(tiny, tmp_path) -> None:
    untrained = train_judge(tiny, epochs=0, seed=0, width=8)
    judge = train_judge(tiny, epochs=3, seed=0, width=8)
    before, after = crop_scores(untrained, tiny), crop_scores(judge, tiny)
    majority = max(np.bincount(tiny.labels > 0)) / len(tiny.labels)
    assert after["accuracy"] > max(majority, before["accuracy"]) + 0.1
    path = tmp_path / "texture.pt"
    save_texture_judge(judge, path)
    again = load_texture_judge(path)
    some = list(tiny.crops[:20])
    names = [TYPES[t] for t in tiny.types[:20]]
    np.testing.assert_allclose(again.bug_probability(some, names, tiny.frame_height),
                               judge.bug_probability(some, names, tiny.frame_height), atol=1e-6)
    assert path.stat().st_size < 2 * 2**20


def test_the_shipped_judge_tells_bugs_on_an_unseen_level() -> None:
    judge = load_texture_judge()
    data = level_crops(0, 400, np.random.default_rng(1))
    scores = crop_scores(judge, data)
    assert scores["precision"] > 0.8 and scores["recall"] > 0.8, scores


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    with pytest.raises(ValueError, match="--levels"):
        parse_levels("one-eight")
    assert parse_levels("1-3") == [1, 2, 3] and parse_levels("4,6") == [4, 6]
    assert main(["vision", "train", "texture", "--levels", "x", "--out", str(tmp_path / "w.pt")]) == 2
    assert "--levels" in capsys.readouterr().err
    assert main(["vision", "eval", "texture", "--weights", str(tmp_path / "none.pt")]) == 2
    assert "not found" in capsys.readouterr().err
    (tmp_path / "junk.pt").write_bytes(b"not weights")
    with pytest.raises(ValueError, match="not a texture judge"):
        load_texture_judge(tmp_path / "junk.pt")


def test_train_and_eval_commands_write_weights_and_print_a_table(tmp_path, capsys) -> None:
    out = tmp_path / "texture.pt"
    assert main(["vision", "train", "texture", "--levels", "1", "--steps", "120", "--epochs", "1",
                 "--width", "4", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out and out.is_file()
    assert main(["vision", "eval", "texture", "--weights", str(out), "--steps", "120"]) == 0
    table = capsys.readouterr().out
    assert "| all (" in table and "precision" in table
