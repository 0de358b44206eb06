"""The end of object tests: a head on the test policy's state that says when the circle has
closed, the rule that ends a test from it, and the command that fits it into a policy's file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from games.perception.demos import load_demos  # noqa: E402
from games.perception.imitation import load_policy, trajectory_probs  # noqa: E402
from games.perception.object_test_end import END_MIN, END_RUN, fires, load_end  # noqa: E402
from games.perception.training.object_test_end import done_labels, fit_head, score_end  # noqa: E402
from games.doom.park.data.demos import object_place  # noqa: E402
from tests.games.perception.imitation_data import make_tiny_demos, make_tiny_policy  # noqa: E402


def test_a_test_ends_after_a_run_of_confident_steps_and_never_too_young() -> None:
    probs = np.full(40, 0.1)
    probs[20:22] = 0.9  # two steps: not a run
    probs[25:] = 0.95
    assert fires(probs) == 25 + END_RUN - 1
    early = np.full(20, 0.99)  # confident from the first step: still plays END_MIN steps
    assert fires(early) == END_MIN - 1
    assert fires(np.full(30, 0.5)) is None


def test_the_head_separates_done_from_not_done_states() -> None:
    rng = np.random.default_rng(0)
    # Along each of 20 tests a noisy state drifts one way; done from step 30 of 50.
    steps = np.arange(50)
    states = np.concatenate([(steps[:, None] / 50.0) * 4.0 + rng.normal(size=(50, 8)) for _ in range(20)])
    labels = np.tile((steps >= 30).astype(np.float32), 20)
    head = fit_head(torch.from_numpy(states), torch.from_numpy(labels))
    p = head.probability(torch.from_numpy(states)).reshape(20, 50)
    assert p[:, :20].mean() < 0.2 and p[:, 40:].mean() > 0.8
    ended = [fires(row) for row in p]
    assert all(e is not None and 30 <= e <= 45 for e in ended)  # after done, and soon


def test_the_command_fits_the_end_into_the_policy_file_and_leaves_the_policy_alone(tmp_path: Path) -> None:
    from tests.cli.test_cli import evo

    demos = make_tiny_demos(tmp_path / "demos")
    weights = make_tiny_policy(demos, tmp_path / "test.pt", epochs=1)
    model, _ = load_policy(weights)
    objects = load_demos(demos, "object")
    before = trajectory_probs(model, objects[0].masked[:-1])
    assert load_end(weights) is None
    assert any(done_labels(d, object_place) is not None for d in objects)
    result = evo("vision", "train", "test-end", "--demos", str(demos), "--weights", str(weights), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"wrote the test end into {weights}" in result.stdout
    head = load_end(weights)
    assert head is not None and head.weight.shape == (model.head[0].in_features,)
    after, meta = load_policy(weights)
    assert np.array_equal(trajectory_probs(after, objects[0].masked[:-1]), before)
    assert meta["set"] == "path" and "episodes" in meta["end"]  # the old meta kept, the head's score added
    scored = evo("vision", "eval", "test-end", "--demos", str(demos), "--weights", str(weights), cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    assert "object tests: AUC" in scored.stdout
    assert score_end(head, after, objects, object_place)["episodes"] == sum(
        done_labels(d, object_place) is not None for d in objects)


def test_a_policy_without_an_end_or_demos_without_a_completed_test_is_one_line(tmp_path: Path) -> None:
    from tests.cli.test_cli import evo

    demos = make_tiny_demos(tmp_path / "demos")
    weights = make_tiny_policy(demos, tmp_path / "test.pt", epochs=1)
    result = evo("vision", "eval", "test-end", "--demos", str(demos), "--weights", str(weights), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"evo: error: {weights} has no test end (add one: evo vision train test-end --weights {weights} --demos DIR)"]


def test_training_an_object_test_policy_fits_its_end_too(tmp_path: Path) -> None:
    from tests.cli.test_cli import evo

    demos = make_tiny_demos(tmp_path / "demos")
    out = tmp_path / "object_test.pt"
    result = evo("vision", "train", "imitation", "--demos", str(demos), "--set", "object", "--epochs", "1",
                 "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "test end" in result.stdout
    _, meta = load_policy(out)
    assert load_end(out) is not None and meta["set"] == "object" and "episodes" in meta["end"]
