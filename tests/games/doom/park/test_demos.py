"""Demonstrations: the park's two sets written in the documented format, a person's recording
(fed keys, no display), the 70/10/20 split, and bad input as one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("vizdoom")

from games.doom.park.layout import park_layout  # noqa: E402
from games.doom.park.navigation import ooi_names  # noqa: E402
from games.doom.park.data.demo_record import FedKeys, SpectatorPark, action_of, record  # noqa: E402
from games.perception.demos import MANIFEST, Demo, load_demos, save_demo, split_demos  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.doom.park.navigation import TURN_LEFT  # noqa: E402
from games.doom.park.data.demos import ACTIONS, turn_left_by  # noqa: E402
from evo.cli.demos import parse_region  # noqa: E402
from tests.cli.test_cli import evo  # noqa: E402
from tests.games.perception.imitation_data import STEPS, make_tiny_demos  # noqa: E402


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_demos(tmp_path_factory.mktemp("demos"))


def test_the_park_demonstrations_are_written_in_the_documented_format(demos: Path) -> None:
    manifest = json.loads((demos / MANIFEST).read_text())
    assert manifest["format"] == 1 and manifest["action_names"] == list(ACTIONS) and manifest["frame"] == 64
    entries = manifest["episodes"]
    assert [e["set"] for e in entries] == ["path", "path", "object", "object"] * 2
    assert {e["level_seed"] for e in entries} == {1, 2}
    assert all(e["source"] == f"plan:{e['set']}" and (demos / e["file"]).is_file() for e in entries)
    with np.load(demos / entries[0]["file"]) as arrays:
        assert set(arrays.files) == {"frames", "masked", "actions", "features"}
        assert arrays["frames"].shape == (STEPS + 1, 3, 64, 64) and arrays["frames"].dtype == np.uint8
        assert arrays["actions"].shape == (STEPS,) and arrays["features"].shape == (STEPS + 1, 3)
    assert len(load_demos(demos, "object")) == 4 and len(load_demos(demos)) == 8


def test_path_demonstrations_walk_the_pathways_and_object_tests_circle_their_object(demos: Path) -> None:
    for demo in load_demos(demos, "path"):
        layout = park_layout("small", demo.meta["level_seed"])
        cells = (demo.features[:, :2] // 64).astype(int)
        assert layout.pathway[cells[:, 0], cells[:, 1]].mean() > 0.6
        assert np.abs(np.diff(demo.features[:, :2], axis=0)).sum() > 500  # it walks
    for demo in load_demos(demos, "object"):
        layout = park_layout("small", demo.meta["level_seed"])
        ooi = layout.oois[ooi_names(layout).index(demo.meta["target"])]
        distance = np.hypot(demo.features[:, 0] - ooi.x, demo.features[:, 1] - ooi.y)
        assert distance[-10:].mean() < 400  # it ends close to the object it tests
        # The masked frames are grey outside the objects: most pixels have equal channels.
        grey = (demo.masked[:, 0] == demo.masked[:, 1]) & (demo.masked[:, 1] == demo.masked[:, 2])
        assert grey.mean() > 0.8 and not np.array_equal(demo.masked, demo.frames)


def test_path_demonstrations_from_anywhere_walk_onto_the_pathway_first() -> None:
    # What an agent evaluated from uniformly random starts must learn: find the path, then follow it.
    from games.doom.park.data.demos import park_demos

    found = 0
    for demo in park_demos((3,), 4, 0, 120, seed=2, region=(0, 0, 1, 1), anywhere=True):
        assert demo.meta["start"] == "anywhere"
        layout = park_layout("small", 3)
        cells = (demo.features[:, :2] // 64).astype(int)
        on = layout.pathway[cells[:, 0], cells[:, 1]]
        assert on[-60:].mean() > 0.6  # on the pathway by the end (as the other path demos)
        found += not on[0]
    assert found >= 2  # most starts are off the pathway (it is a small part of the park)


def test_corrected_episodes_go_where_the_student_plays_and_keep_the_navigators_labels(demos: Path,
                                                                                      tmp_path: Path) -> None:
    from games.doom.park.doom_park import DoomParkVector
    from games.doom.park.navigation import circle_step
    from games.doom.park.data.demos import OBJECT_RADIUS, Corrector, object_demo
    from tests.games.perception.imitation_data import make_tiny_policy

    weights = make_tiny_policy(demos, tmp_path / "student.pt", epochs=1)
    game = DoomParkVector(1, level_seed=2, max_steps=60)
    try:
        def episode(corrector: Corrector | None) -> Demo:
            return object_demo(game, 3, 40, np.random.default_rng(5), corrector)

        alone = episode(None)
        labelled = episode(Corrector(str(weights), 1.0, np.random.default_rng(0)))  # the navigator plays every step
        student = episode(Corrector(str(weights), 0.0, np.random.default_rng(0)))
    finally:
        game.close()
    assert np.array_equal(labelled.actions, alone.actions) and np.allclose(labelled.features, alone.features)
    assert student.meta["played_by"] == "student.pt" and "played_by" not in alone.meta
    assert not np.allclose(student.features, alone.features)  # the student went elsewhere...
    ooi = park_layout("small", 2).oois[3]
    labels = [circle_step(f, (ooi.x, ooi.y), OBJECT_RADIUS, clockwise=True) for f in student.features[:-1]]
    assert student.actions.tolist() == labels  # ...and every frame it saw is labelled by the navigator


def test_detector_masked_demonstrations_differ_from_labelled_ones_in_their_masks_only() -> None:
    # The student plays on the detector's masks (the detect wrapper); demonstrations masked with
    # the labels buffer's exact boxes are another input from the one it meets at play.
    from games.doom.park.doom_park import DoomParkVector
    from games.perception.detector import load_detector
    from games.doom.park.data.demos import object_demo

    game = DoomParkVector(1, level_seed=2, max_steps=60)
    try:
        labels = object_demo(game, 3, 30, np.random.default_rng(5))
        detected = object_demo(game, 3, 30, np.random.default_rng(5), detector=load_detector())
    finally:
        game.close()
    assert np.array_equal(labels.actions, detected.actions) and np.allclose(labels.features, detected.features)
    assert np.array_equal(labels.frames, detected.frames) and not np.array_equal(labels.masked, detected.masked)
    assert detected.meta["masks"] == "detector" and "masks" not in labels.meta


def test_a_start_can_be_turned_to_face_a_chosen_way() -> None:
    # What the object-test benchmark does to face each object before a test starts.
    game = DoomParkVector(1, level_seed=1, max_steps=20)
    try:
        game.reset([0])
        before = float(game.step(np.array([TURN_LEFT])).features[0, 2])
        turn_left_by(game, 0, 100.0)
        after = float(game.step(np.array([TURN_LEFT])).features[0, 2])
    finally:
        game.close()
    turned = (after - before - 30.0) % 360.0  # less the step's own 30 degrees
    assert abs(turned - 100.0) <= 3.75  # whole tics of 7.5 degrees


def test_keys_map_to_the_park_actions_by_the_documented_priority() -> None:
    assert action_of({}) is None and action_of({"SPEED": 1}) is None
    assert ACTIONS[action_of({"MOVE_FORWARD": 1})] == "forward"
    assert ACTIONS[action_of({"MOVE_FORWARD": 1, "TURN_RIGHT": 1})] == "turn_right"  # steering first
    assert ACTIONS[action_of({"TURN_LEFT_RIGHT_DELTA": -4.0})] == "turn_left"  # the mouse moved left
    assert ACTIONS[action_of({"LOOK_UP_DOWN_DELTA": -2.0})] == "look_down"
    assert ACTIONS[action_of({"JUMP": 1, "MOVE_LEFT": 1})] == "left"


def test_a_recording_fed_with_keys_writes_a_persons_demonstration(tmp_path: Path) -> None:
    rows = [{"MOVE_FORWARD": 1}] * 6 + [{}] + [{"TURN_LEFT": 1}] * 3 + [{"TURN_LEFT_RIGHT_DELTA": 5.0}, {"JUMP": 1}]
    demo = record(FedKeys(1, rows), steps=50, set="path", level_seed=1)
    names = [ACTIONS[a] for a in demo.actions]
    assert names == ["forward"] * 6 + ["turn_left"] * 3 + ["turn_right", "jump"]  # the empty row is left out
    assert demo.meta["source"] == "person" and demo.frames.shape == (12, 3, 64, 64)
    assert np.hypot(*(demo.features[6, :2] - demo.features[0, :2])) > 100  # walked forward
    assert demo.features[9, 2] != demo.features[6, 2]  # turned
    save_demo(tmp_path, demo, ACTIONS)
    (loaded,) = load_demos(tmp_path)
    assert np.array_equal(loaded.actions, demo.actions) and loaded.meta["source"] == "person"
    # --steps bounds the recording.
    assert record(FedKeys(1, [{"MOVE_BACKWARD": 1}] * 5), steps=2, set="path", level_seed=1).steps == 2
    with pytest.raises(ValueError, match="nothing was recorded"):
        record(FedKeys(1, [{}, {}]), steps=5, set="path", level_seed=1)


def test_the_split_is_70_10_20_by_whole_episodes() -> None:
    empty = np.zeros((2, 3, 64, 64), dtype=np.uint8)
    demos = [Demo(empty, empty, np.array([i]), np.zeros((2, 3)), {"id": i}) for i in range(10)]
    train, val, test = split_demos(demos, seed=0)
    assert (len(train), len(val), len(test)) == (7, 1, 2)
    assert sorted(d.meta["id"] for d in train + val + test) == list(range(10))
    assert [d.meta["id"] for d in split_demos(demos, seed=0)[2]] == [d.meta["id"] for d in test]
    with pytest.raises(ValueError, match="at least 3"):
        split_demos(demos[:2], seed=0)


def test_bad_input_is_one_line_with_exit_code_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="no demonstrations there"):
        load_demos(tmp_path)
    with pytest.raises(ValueError, match="--region must be"):
        parse_region("0.5,0,0.2,1")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(ValueError, match="no display here"):
        SpectatorPark(1)
    for args, message in [
        (("demos", "make", "--out", "d", "--levels", "0-2"), "must not include 0"),
        (("record", "--out", "d", "--level-seed", "0"), "evaluation level"),
    ]:
        result = evo(*args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_any_agents_episode_becomes_a_demonstration(tmp_path: Path) -> None:
    from evo.search.agents.uniform import UniformAgent
    from evo.search.play import draw_episodes, play
    from games.doom.park.doom_park import DoomParkVector
    from games.perception.demos import demos_from_record

    game = DoomParkVector(1, level_seed=2, max_steps=10)
    try:
        draws = draw_episodes([3], 1, 10, 9)
        batch = play(game, draws.seeds, [0], UniformAgent(draws.gumbel), columns=frozenset({"obs"})).rollouts
    finally:
        game.close()
    boxes = [np.array([[0, 0, 20, 20]])] * 11
    demo = demos_from_record(batch.obs[0], batch.actions[0], batch.features[0], (3, 120, 160), boxes,
                             source="agent:random", set="path", level_seed=2)
    assert demo.steps == 10 and np.array_equal(demo.actions, batch.actions[0])
    assert not np.array_equal(demo.masked, demo.frames)  # greyed outside the given box
    save_demo(tmp_path, demo, ACTIONS)
    assert load_demos(tmp_path)[0].meta["source"] == "agent:random"
    with pytest.raises(ValueError, match="needs 'source'"):
        demos_from_record(batch.obs[0], batch.actions[0], batch.features[0], (3, 120, 160), set="path")
