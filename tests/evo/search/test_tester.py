"""The tester agent: it explores, hands its copies to the object-test policy while a close object
is in view, gives them back after the test, and waits out a cool-down before the next test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from evo.search.agents import tester  # noqa: E402
from evo.search.play import draw_episodes  # noqa: E402
from games.perception.base import Detections  # noqa: E402
from games.perception.imitation import load_policy, save_policy, trajectory_probs  # noqa: E402
from games.perception.object_test_end import END_MIN, EndHead  # noqa: E402
from tests.games.perception.imitation_data import make_tiny_demos, make_tiny_policy  # noqa: E402

EXPLORE = 8
"""The fake explorer's only action (jump), which the tiny test policy never prefers."""


class _Explorer:
    def __init__(self, action: int = EXPLORE) -> None:
        self.seen: list[int] = []
        self.action = action

    def reset(self, seeds) -> None:  # noqa: ANN001
        self.seen.clear()

    def act(self, obs, features, infos, t):  # noqa: ANN001
        self.seen.append(t)
        acting = np.zeros((obs.shape[0], 9), dtype=np.float32)
        acting[:, self.action] = 1.0
        return np.full(obs.shape[0], self.action), acting


class _ExplorerSpec:
    def __init__(self, action: int = EXPLORE) -> None:
        self.agent = _Explorer(action)

    def build(self, episodes: int, gumbel: np.ndarray) -> _Explorer:
        return self.agent


def _seen(height: int) -> Detections:
    return Detections(np.array([[60, 40, 10, height]], dtype=np.int32), np.zeros(1, dtype=np.int64),
                      np.ones(1, dtype=np.float32))


def test_a_close_object_starts_a_test_that_the_test_policy_plays(tmp_path: Path) -> None:
    demos = make_tiny_demos(tmp_path / "demos")
    weights = make_tiny_policy(demos, tmp_path / "test.pt", epochs=1)
    explorer = _ExplorerSpec()
    spec = tester.TesterSpec(explorer, (3, 64, 64), str(weights), near=16, test_steps=4, cooldown=3, temperature=0,
                             learned_end=False)
    horizon = 16
    gumbel = draw_episodes([0], 2, horizon, 9).gumbel
    agent = spec.build(2, gumbel)
    agent.reset([0, 1])
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 255, (horizon, 2, 3, 64, 64), dtype=np.uint8)
    close, far = _seen(20), _seen(5)  # 20 pixels tall is close at near=16; 5 is not
    actions = []
    for t in range(horizon):
        # Copy 0 has a close object in view on every step, copy 1 only a far one.
        infos = {} if t == 0 else {"detections": np.array([close, far], dtype=object)}
        obs = frames[t].reshape(2, -1).astype(np.float32)
        actions.append(agent.act(obs, np.zeros((2, 3)), infos, t)[0])
    actions = np.array(actions)
    assert explorer.agent.seen == list(range(horizon))  # the explorer saw every step
    assert (actions[:, 1] == EXPLORE).all()  # nothing close: copy 1 only explored
    # Copy 0: tests at steps 1-4, 8-11 and from 15 (three steps of cool-down between), explores else.
    testing = np.zeros(horizon, dtype=bool)
    testing[1:5] = testing[8:12] = testing[15] = True
    assert (actions[~testing, 0] == EXPLORE).all()
    assert agent.tests.tolist() == [3, 0]  # the third test started at step 15
    assert agent.starts == [[1, 8, 15], []]
    # Each test is the test policy's greedy play from a fresh memory at its first frame.
    model, _ = load_policy(weights)
    for first in (1, 8):
        expected = trajectory_probs(model, frames[first: first + 4, 0]).argmax(1)
        assert np.array_equal(actions[first: first + 4, 0], expected)


LOOK_UP, LOOK_DOWN = 6, 7
TILT = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -8.0, 8.0)
"""The park's look actions at 4 tics a step: up tilts the view 8 degrees up, down 8 down."""


def test_a_copy_whose_explorer_tilted_the_view_looks_level_before_its_test(tmp_path: Path) -> None:
    demos = make_tiny_demos(tmp_path / "demos")
    weights = make_tiny_policy(demos, tmp_path / "test.pt", epochs=1)
    horizon = 14
    explorer = _ExplorerSpec(action=LOOK_UP)  # an explorer that only looks up
    spec = tester.TesterSpec(explorer, (3, 64, 64), str(weights), near=16, test_steps=4, cooldown=3, temperature=0,
                             tilt=TILT, tilt_range=(-32.0, 56.0), learned_end=False)
    agent = spec.build(1, draw_episodes([0], 1, horizon, 9).gumbel)
    agent.reset([0])
    frames = np.random.default_rng(0).integers(0, 255, (horizon, 1, 3, 64, 64), dtype=np.uint8)
    actions = []
    for t in range(horizon):
        # Nothing close for 6 steps (the view tilts up 6 x 8 degrees and stops at 32), then an object.
        infos = {"detections": np.array([_seen(20) if t >= 6 else _seen(5)], dtype=object)}
        actions.append(int(agent.act(frames[t].reshape(1, -1).astype(np.float32), np.zeros((1, 3)), infos, t)[0][0]))
    # Steps 0-5 explore (look up, to the stop at 32 degrees up), 6-9 look down 4 x 8 degrees to
    # level, then the test starts at step 10 from a fresh memory and plays its 4 steps.
    assert actions[:6] == [LOOK_UP] * 6 and actions[6:10] == [LOOK_DOWN] * 4
    assert agent.starts == [[10]]
    model, _ = load_policy(weights)
    assert actions[10:14] == trajectory_probs(model, frames[10:14, 0]).argmax(1).tolist()
    # A stop that is no whole number of steps from level (28 degrees up): three steps down leave
    # 4 degrees, as level as the look actions can make it, and the test starts.
    odd = tester.TesterSpec(_ExplorerSpec(action=LOOK_UP), (3, 64, 64), str(weights), near=16, test_steps=4,
                            cooldown=3, temperature=0, tilt=TILT, tilt_range=(-28.0, 56.0), learned_end=False)
    agent = odd.build(1, draw_episodes([0], 1, horizon, 9).gumbel)
    agent.reset([0])
    for t in range(12):
        infos = {"detections": np.array([_seen(20) if t >= 6 else _seen(5)], dtype=object)}
        agent.act(frames[t].reshape(1, -1).astype(np.float32), np.zeros((1, 3)), infos, t)
    assert agent.starts == [[9]] and agent.tilt[0] == -4.0
    # Without a camera that tilts, the same copy tests at once (the view is not known to tilt).
    level = tester.TesterSpec(_ExplorerSpec(action=LOOK_UP), (3, 64, 64), str(weights), near=16, test_steps=4,
                              cooldown=3, temperature=0, learned_end=False)
    plain = level.build(1, draw_episodes([0], 1, horizon, 9).gumbel)
    plain.reset([0])
    for t in range(8):
        infos = {"detections": np.array([_seen(20) if t >= 6 else _seen(5)], dtype=object)}
        plain.act(frames[t].reshape(1, -1).astype(np.float32), np.zeros((1, 3)), infos, t)
    assert plain.starts == [[6]]


def _with_end(weights: Path, out: Path, bias: float) -> Path:
    """``weights`` with an end head that always (bias > 0) or never (bias < 0) says done."""
    model, meta = load_policy(weights)
    save_policy(model, out, meta, end=EndHead(torch.zeros(model.head[0].in_features), bias).to_saved())
    return out


def test_a_test_ends_when_the_end_head_says_done_and_at_most_after_test_steps(tmp_path: Path) -> None:
    demos = make_tiny_demos(tmp_path / "demos")
    weights = make_tiny_policy(demos, tmp_path / "test.pt", epochs=1)
    horizon = 40
    frames = np.random.default_rng(0).integers(0, 255, (horizon, 1, 3, 64, 64), dtype=np.uint8)
    close = {"detections": np.array([_seen(20)], dtype=object)}
    played = {}
    for name, bias in (("done", 20.0), ("never", -20.0)):
        spec = tester.TesterSpec(_ExplorerSpec(), (3, 64, 64), str(_with_end(weights, tmp_path / f"{name}.pt", bias)),
                                 near=16, test_steps=15, cooldown=3, temperature=0)
        agent = spec.build(1, draw_episodes([0], 1, horizon, 9).gumbel)
        agent.reset([0])
        played[name] = [int(agent.act(frames[t].reshape(1, -1).astype(np.float32), np.zeros((1, 3)), close, t)[0][0])
                        for t in range(horizon)]
        played[name + " starts"], played[name + " ends"] = agent.starts[0], agent.ends[0]
    # Done at once: each test still plays END_MIN steps, then the cool-down, then the next test.
    assert played["done starts"] == [0, 13, 26, 39] and played["done ends"] == [10, 23, 36]
    assert END_MIN == 10 and played["done"][10:13] == [EXPLORE] * 3
    # Never done: each test plays its 15 steps.
    assert played["never starts"] == [0, 18, 36] and played["never ends"] == [15, 33]
    assert EXPLORE not in played["never"][:15]


def test_a_test_policy_without_an_end_head_is_one_line(tmp_path: Path) -> None:
    demos = make_tiny_demos(tmp_path / "demos")
    weights = make_tiny_policy(demos, tmp_path / "test.pt", epochs=1)
    spec = tester.TesterSpec(_ExplorerSpec(), (3, 64, 64), str(weights))
    with pytest.raises(ValueError, match=r"has no test end \(add one: evo vision train test-end"):
        spec.build(1, draw_episodes([0], 1, 5, 9).gumbel)


def test_bad_tester_settings_are_one_line() -> None:
    with pytest.raises(ValueError, match="near must be at least"):
        tester.TesterSpec(_ExplorerSpec(), (3, 64, 64), near=0)
    with pytest.raises(ValueError, match="tilt range must hold the level view"):
        tester.TesterSpec(_ExplorerSpec(), (3, 64, 64), tilt=TILT, tilt_range=(5.0, 56.0))
