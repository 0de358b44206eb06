"""The imitation policy: it learns demonstrated actions from tiny data, plays step by step as it
scores whole episodes, round-trips through its file, plays through ``play`` as an agent; and
PPGTA's Jensen-Shannon test success."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from evo.search.agents.imitation import ImitationSpec  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.perception.demos import load_demos  # noqa: E402
from games.perception.encoder import downscale  # noqa: E402
from games.perception.execution_quality import (  # noqa: E402
    action_distribution, execution_divergence, execution_succeeded, js_divergence,
)
from games.perception.imitation import Playing, load_policy, save_policy, trajectory_probs  # noqa: E402
from games.perception.training.imitation import accuracy, success_threshold, train  # noqa: E402
from games.doom.park.data.demos import object_place  # noqa: E402
from tests.games.perception.imitation_data import make_tiny_demos, make_tiny_policy  # noqa: E402


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_demos(tmp_path_factory.mktemp("demos"))


def test_training_on_tiny_demonstrations_learns_their_actions(demos: Path) -> None:
    torch.set_num_threads(1)
    path = load_demos(demos, "path")
    actions = np.concatenate([d.actions for d in path])
    commonest = np.bincount(actions).max() / actions.size
    model = train(path, [], epochs=15, seed=0, batch_size=2, patience=100)
    assert accuracy(model, path) > commonest + 0.15  # more than always walking forward
    # The same seed trains the same weights.
    once = train(path[:2], path[2:], epochs=1, seed=4, batch_size=2)
    twice = train(path[:2], path[2:], epochs=1, seed=4, batch_size=2)
    assert all(torch.equal(a, b) for a, b in zip(once.state_dict().values(), twice.state_dict().values()))
    # The success threshold is a divergence: in [0, 1].
    threshold = success_threshold(model, path[:1], action_distribution(actions, 9), object_place)
    assert 0.0 <= threshold <= 1.0


def test_step_by_step_play_gives_the_distributions_of_the_whole_episode(demos: Path, tmp_path: Path) -> None:
    model, _ = load_policy(make_tiny_policy(demos, tmp_path / "imitation.pt", epochs=1))
    demo = load_demos(demos, "object")[0]
    whole = trajectory_probs(model, demo.masked)
    playing = Playing(model, 2)
    stepped = np.stack([playing.step(np.stack([f, f]))[1] for f in demo.masked])
    np.testing.assert_allclose(stepped, whole, atol=1e-5)
    np.testing.assert_allclose(whole.sum(1), 1.0, atol=1e-9)


def test_a_stretch_played_for_some_copies_starts_its_memory_at_its_first_frame(demos: Path, tmp_path: Path) -> None:
    # What an agent that runs the policy for part of an episode (an object test) relies on.
    model, _ = load_policy(make_tiny_policy(demos, tmp_path / "imitation.pt", epochs=1))
    frames = load_demos(demos, "object")[0].masked
    playing = Playing(model, 3)
    got = []
    for t, frame in enumerate(frames):
        copies = np.array([0, 2]) if t < 5 else np.array([2])  # copy 0 stops, copy 2 restarts at 5
        got.append(playing.step_some(np.stack([frame] * len(copies)), copies, copies == 2 if t == 5 else
                                     np.zeros(len(copies), dtype=bool))[-1])
    np.testing.assert_allclose(got[:5], trajectory_probs(model, frames[:5]), atol=1e-5)
    np.testing.assert_allclose(got[5:], trajectory_probs(model, frames[5:]), atol=1e-5)


def test_the_weights_file_round_trips_and_a_wrong_file_is_one_line(demos: Path, tmp_path: Path) -> None:
    path = make_tiny_policy(demos, tmp_path / "imitation.pt", epochs=1)
    model, meta = load_policy(path)
    save_policy(model, tmp_path / "again.pt", meta)
    again, meta_again = load_policy(tmp_path / "again.pt")
    assert meta_again == meta and all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                                         again.state_dict().values()))
    with pytest.raises(ValueError, match="not found"):
        load_policy(tmp_path / "none.pt")
    torch.save({"kind": "detector"}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not an imitation policy"):
        load_policy(tmp_path / "other.pt")


def test_the_imitation_agent_plays_the_park_through_play(demos: Path, tmp_path: Path) -> None:
    weights = make_tiny_policy(demos, tmp_path / "imitation.pt", epochs=1)
    game = DoomParkVector(2, level_seed=3, max_steps=12)
    try:
        draws = draw_episodes([7], 2, 12, 9)
        runs = []
        for _ in range(2):
            agent = ImitationSpec((3, 120, 160), str(weights)).build(2, draws.gumbel)
            runs.append(play(game, draws.seeds, [0, 0], agent, columns=frozenset({"obs", "probs"})).rollouts)
    finally:
        game.close()
    first, second = runs
    assert first.actions.shape == (2, 12) and np.array_equal(first.actions, second.actions)  # same draws, same play
    # What it recorded as its distribution is the policy's on the frames it saw.
    model, _ = load_policy(weights)
    frames = downscale(first.obs[0, :12].reshape(12, 3, 120, 160))
    np.testing.assert_allclose(first.probs[0], trajectory_probs(model, frames), atol=1e-5)


def test_jensen_shannon_test_success() -> None:
    same = action_distribution([0, 0, 1, 2], 4)
    assert same.tolist() == [0.5, 0.25, 0.25, 0.0]
    assert js_divergence(same, same) == pytest.approx(0.0, abs=1e-12)
    assert js_divergence([1, 0], [0, 1]) == pytest.approx(1.0)  # nothing in common: one bit
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.3, 0.6])
    assert js_divergence(p, q) == pytest.approx(js_divergence(q, p))
    demonstrated = action_distribution([0] * 6 + [4] * 2 + [5] * 2, 9)  # walk and turn
    assert execution_divergence([0, 0, 0, 4, 5], demonstrated) < 0.05
    assert execution_succeeded([0, 0, 0, 4, 5], demonstrated, threshold=0.1)
    assert not execution_succeeded([8, 8, 6, 7], demonstrated, threshold=0.1)  # jumps and looks around
    with pytest.raises(ValueError, match="in 0..8"):
        action_distribution([9], 9)


def test_a_demonstrated_test_is_scored_over_the_steps_that_execute_it() -> None:
    # The threshold an executed test is judged by comes from the same stretch of steps: from the
    # first view within the radius to the view that completes 270 degrees round the object.
    from games.perception.execution_quality import demonstrated_window

    place = (1000.0, 1000.0)
    walk_in = [(1000.0 - r, 1000.0, 0.0) for r in (700.0, 600.0, 500.0, 400.0, 300.0)]  # facing it, too far
    circle = []
    for k in range(40):  # once round at 200 units, 10 degrees a step, facing the object
        a = math.radians(180.0 + 10.0 * k)
        x, y = place[0] + 200.0 * math.cos(a), place[1] + 200.0 * math.sin(a)
        circle.append((x, y, math.degrees(math.atan2(place[1] - y, place[0] - x)) % 360.0))
    features = np.array(walk_in + circle)
    start, end = demonstrated_window(features, place)
    assert start == 3  # the step that brought it to 300 units, within 384
    assert 26 <= end <= 30  # nine 30-degree sectors seen: some 240-270 degrees of the way round
    looking_away = features.copy()
    looking_away[:, 2] = (looking_away[:, 2] + 180.0) % 360.0
    assert demonstrated_window(looking_away, place) is None  # never in view: no test
