"""Replay videos: ``evo replay RUN_DIR BUG_ID --video FILE`` writes what the game showed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evo.cli.main import main
from evo.run.config import parse_experiment
from evo.report.tables import load_run
from evo.run.kinds.evolve import Evolve
from evo.run.migrate import migrate
from evo.report.video import hold_frames, played, write_video
from games import GameFactory
from evo.report.video_frames import AGENT, BUG, TEXT, band_rows, frame_size, with_overlay

iio = pytest.importorskip("imageio.v3", reason="the report extra (imageio) is not installed")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Block Maze run of two generations, which finds bugs of several kinds."""
    from tests.conftest import TINY

    config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(TINY))
    config["budget"]["generations"] = 2
    path = tmp_path_factory.mktemp("video") / "run"
    Evolve(parse_experiment(config), path).run()
    assert len(load_run(path).bugs) >= 2
    return path


def _bugs(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "bugs.jsonl").read_text().splitlines()]


def test_block_maze_mp4_has_a_frame_per_step_at_the_maze_size(run_dir: Path, tmp_path: Path) -> None:
    bug = _bugs(run_dir)[0]
    video = write_video(run_dir, bug["id"], tmp_path / "bug.mp4")
    frames = iio.imread(tmp_path / "bug.mp4")
    steps = len(bug["actions"])
    # The reset, one frame per action, then the bug's frame held for two seconds.
    assert len(frames) == video.frames == steps + 1 + hold_frames()
    # 20 x 20 cells of 24 px, a 64 px text band, rounded up to whole 16 px blocks.
    assert frames.shape[1:] == (544, 480, 3) == (*frame_size((480, 480)), 3)
    assert video.source == "map" and video.steps == steps


def test_gif_shows_the_agent_on_the_bug_cell_and_the_message_at_the_end(run_dir: Path, tmp_path: Path) -> None:
    bug = _bugs(run_dir)[0]
    code = main(["replay", str(run_dir), str(bug["id"]), "--video", str(tmp_path / "bug.gif")])
    assert code == 0
    frames = iio.imread(tmp_path / "bug.gif", index=None)
    assert len(frames) == len(bug["actions"]) + 1  # GIF holds the last frame longer instead
    assert frames.shape[1:3] == (544, 480)
    first, last = frames[0][..., :3].astype(int), frames[-1][..., :3].astype(int)
    band = slice(480, 544)

    def red(frame: np.ndarray) -> int:
        return int((np.abs(frame[band] - np.array(BUG)).sum(axis=-1) < 60).sum())

    assert red(first) == 0 and red(last) > 50  # the oracle's message, in red, only at the bug
    row, col = (int(v) for v in bug["next_state"])
    centre = last[row * 24 + 12, col * 24 + 12]
    assert np.abs(centre - np.array(AGENT)).sum() < 60  # the agent's disc on the bug's cell


def _hand_made_run(folder: Path, game: dict[str, Any], actions: list[int], message: str = "slow") -> Path:
    """A run directory of ``game`` holding one performance bug at the end of ``actions``."""
    from evo.run import rundir
    from evo.run.built import Built
    from evo.run.config import dump_experiment

    exp = parse_experiment({
        "name": "video", "game": game, "budget": {"generations": 1},
        "objectives": [{"name": "fps_drop"}], "oracles": [{"name": "performance"}],
    })
    with Built.from_experiment(exp) as built:
        facts, n_features = built.facts, built.spec.n_features
    run = folder / "run"
    rundir.start(run, dump_experiment(exp), facts)
    state = [0.0] * n_features
    record = {"id": 0, "kind": "performance", "oracle": "performance", "signature": "s", "message": message,
              "seed": 7, "policy": 0, "step": len(actions) - 1, "actions": actions, "state": state,
              "next_state": state}
    (run / rundir.BUGS).write_text(json.dumps(record) + "\n")
    return run


def test_a_game_with_frames_shows_its_own_screen(tmp_path: Path) -> None:
    """MsPacman's ALE screen, scaled by 2, with the overlay; a few seconds of emulation."""
    pytest.importorskip("ale_py")
    actions = np.random.default_rng(0).integers(0, 5, size=30).tolist()
    run = _hand_made_run(tmp_path, {"name": "mspacman_perf", "kwargs": {"max_steps": 50}}, actions, LONG)
    video = write_video(run, 0, tmp_path / "pacman.mp4")
    frames = iio.imread(tmp_path / "pacman.mp4")
    assert video.source == "game"
    assert len(frames) == 31 + hold_frames()
    # 210 x 160 screen scaled by 2, a band of four rows (the status and the message wrap on
    # 320 px), whole blocks.
    assert frames.shape[1:] == (512, 320, 3) == (*frame_size((420, 320), 4), 3)
    assert frames[5][:420].std() > 10  # the maze, not a blank picture
    last_row = slice(420 + 3 + 3 * 19, 420 + 3 + 4 * 19)  # the message's second row
    assert _red(frames[-1][last_row]) > 30 and _red(frames[5][420:]) == 0


LONG = "slow frames at point (11, 0): 5 of 5 visits over 1.5 ms (this one 3.01 ms)"


def _red(pixels: np.ndarray) -> int:
    return int((np.abs(pixels[..., :3].astype(int) - np.array(BUG)).sum(axis=-1) < 90).sum())


def test_a_narrow_frame_wraps_the_whole_message_into_its_band() -> None:
    """On MsPacman's 320 px the message takes two rows and the band grows for them, where it
    was cut at the frame's right edge: all of its ink is drawn, as on a frame wide enough."""
    status = "step 1234: UPLEFT (7) · 1235/2000 played · bug 12, performance"
    size = frame_size((420, 320), band_rows(320, [status, LONG]))
    frame = with_overlay(np.zeros((420, 320, 3), np.uint8), size, [(status, TEXT), (LONG, BUG)])
    wide = with_overlay(np.zeros((420, 1200, 3), np.uint8), frame_size((420, 1200)), [(LONG, BUG)])
    assert band_rows(1200, [status, LONG]) == 2 and band_rows(320, [status, LONG]) == 4
    assert size == (512, 320)
    assert _red(frame) >= 0.95 * _red(wide) > 500


def test_a_gymnasium_game_shows_its_rgb_array_frames(tmp_path: Path) -> None:
    pytest.importorskip("pygame")  # CartPole draws with it
    run = _hand_made_run(tmp_path, {"gym_id": "CartPole-v1"}, [0, 1] * 5)
    video = write_video(run, 0, tmp_path / "cartpole.mp4")
    frames = iio.imread(tmp_path / "cartpole.mp4")
    assert video.source == "game" and len(frames) == 11 + hold_frames()
    assert frames.shape[1:] == (464, 608, 3)  # 400 x 600, the band, whole blocks
    # Made without render_mode the same game draws nothing, and a video would show its features' grid.
    game = GameFactory(gym_id="CartPole-v1").make_vector(1)
    try:
        assert [frame for _, frame, _, _ in played(game, 7, [0, 1])] == [None, None, None]
    finally:
        game.close()


def test_a_video_needs_a_known_suffix_and_a_known_bug(run_dir: Path, tmp_path: Path, capsys) -> None:
    assert main(["replay", str(run_dir), "0", "--video", str(tmp_path / "bug.avi")]) == 2
    assert ".mp4 or .gif" in capsys.readouterr().err
    assert main(["replay", str(run_dir), "999", "--video", str(tmp_path / "bug.mp4")]) == 2
    assert "no bug with id 999" in capsys.readouterr().err


@pytest.mark.parametrize("module, suffix", [("imageio", ".gif"), ("imageio_ffmpeg", ".mp4")])
def test_a_missing_writer_is_one_line_and_exit_2(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, module: str, suffix: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    assert main(["replay", str(run_dir), "0", "--video", str(tmp_path / f"bug{suffix}")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert module in err and "pip install -e '.[report]'" in err
    assert not (tmp_path / f"bug{suffix}").exists()


@pytest.mark.slow
def test_a_visual_bug_shows_the_agents_frames_the_object_boxed_and_the_map_inset(tmp_path: Path) -> None:
    """A park run (detect and encode wrappers: the agent observes features, not frames): the
    video shows the game's 160x120 frames scaled by 3, the judged stump boxed in red where the
    detector found it, and the park's map in the top right corner."""
    pytest.importorskip("vizdoom")
    import shutil

    run = tmp_path / "park"
    shutil.copytree(Path(__file__).resolve().parents[2] / "data" / "park_run_before_scene", run)
    migrate(run / "config.yaml")  # written before 0.2
    (run / "game.json").unlink()  # written before scenes: the video reads the park's scene from the game
    video = write_video(run, 1, tmp_path / "stump.mp4")
    frames = iio.imread(tmp_path / "stump.mp4")
    assert video.source == "game" and video.steps == 139 and frames.shape[1:3] == (432, 480)
    view = frames[:, :360]
    inset = (slice(0, 100), slice(355, 480))  # the map: a quarter of the width, top right
    outside = view.copy()
    outside[:, inset[0], inset[1]] = 0
    boxed = [t for t in range(len(frames)) if _red(outside[t]) > 50]
    assert boxed and boxed[0] > 0 and len(boxed) < len(frames)  # some frames show it, the reset's not
    assert all(_red(view[t, :, :350]) > 50 for t in range(len(frames) - hold_frames(), len(frames)))
    assert (np.abs(view[10, 2, 365:470].astype(int) - np.array(TEXT)).sum(axis=-1) < 60).mean() > 0.9  # the map's light ground, where the park's sky is dark
