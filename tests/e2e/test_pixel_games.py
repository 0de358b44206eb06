"""A Gymnasium game that observes pixels, plugged in by ``entry_point`` alone, plays through the
pixel pipeline: PPGTA's ``detect`` and ``encode`` with RND on its frames, and a conv policy over
``grayscale``, ``resize`` and ``frame_stack``.

Gymnasium's frames come ``(height, width, channels)``; the adapter hands them on as the
``(channels, height, width)`` frames those read (:func:`games.adapter.spec.frame_layout`).
Before, it handed them on flattened, and each of these runs stopped at its start: "detect
needs RGB frames (3, H, W), got observations of shape (21168,)", "grayscale needs image
observations (3, H, W) or (1, H, W), got shape (21168,)", or, for a game declaring ``(3, H, W)``
itself, a traceback in the first frame wrapper; and a replay video of a game without an ``rgb_array`` render drew its features'
cells instead of the frames it observes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from games.adapter.vector_game import GymVectorGame
from tests.e2e.test_any_game import _run
from tests.cli.test_cli import ROOT, _error, evo
from tests.games.plugin_envs import PixelWalk

TRAP_GAME = "tests.games.plugin_envs:PixelTrap"


@pytest.mark.parametrize("step_timeout_s", [None, 30.0], ids=["in_process", "isolated"])
def test_gymnasium_frames_are_handed_on_channels_first(step_timeout_s: float | None) -> None:
    env = PixelWalk()
    frame, _ = env.reset(seed=3)
    moved = env.step(2)[0]  # the copies below play seed 3 too: the same draws
    with GymVectorGame(PixelWalk, 2, step_timeout_s=step_timeout_s) as game:
        assert game.game_spec.obs_shape == (3, 84, 84) and game.game_spec.obs_dtype == "uint8"
        obs, _ = game.reset([3, 3])
        assert obs.shape == (2, 3, 84, 84)
        np.testing.assert_array_equal(obs[0], frame.transpose(2, 0, 1))
        np.testing.assert_array_equal(game.step(np.array([2, 2])).obs[1], moved.transpose(2, 0, 1))


def _experiment(base: str, game: dict[str, Any], tmp_path: Path, **changes: Any) -> Path:
    """``experiments/<base>.yaml`` on another game, 2 generations of 4 policies, in-process."""
    exp = yaml.safe_load((ROOT / "experiments" / f"{base}.yaml").read_text())
    exp.update(game=game, budget={"generations": 2}, parallel={"backend": "serial"}, **changes)
    exp["search"].update(population=4, offspring=4)
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(exp))
    return path


def _finds_the_trap_and_replays_it(path: Path, tmp_path: Path) -> None:
    run = _run(path, tmp_path)
    bugs = [yaml.safe_load(line) for line in (run / "bugs.jsonl").read_text().splitlines()]
    assert [b["kind"] for b in bugs][:1] == ["crash"] and "fell through the floor" in bugs[0]["message"]
    replay = evo("replay", str(run), "0", cwd=tmp_path)
    assert replay.returncode == 0 and "reproduced" in replay.stdout, replay.stdout + replay.stderr[-2000:]


def test_ppgta_pipeline_on_a_users_pixel_game(tmp_path: Path) -> None:
    """Detector, OD mask, encoder, a policy on its features, RND on the frames: the crash is found."""
    game = {"entry_point": TRAP_GAME, "wrappers": [{"name": "detect"}, {"name": "encode"}]}
    path = _experiment("ppgta_park_novelty", game, tmp_path, oracles=[{"name": "crash"}],
                       finetune={"algorithm": "none"})
    _finds_the_trap_and_replays_it(path, tmp_path)


def test_a_conv_policy_over_frame_wrappers_on_a_users_pixel_game(tmp_path: Path) -> None:
    wrappers = [{"name": "grayscale"}, {"name": "resize", "kwargs": {"height": 21, "width": 21}},
                {"name": "frame_stack", "kwargs": {"k": 2}}]
    path = _experiment("wuji_block_maze", {"entry_point": TRAP_GAME, "wrappers": wrappers}, tmp_path,
                       network={"conv": [[8, 3, 2]], "hidden": [32]})
    _finds_the_trap_and_replays_it(path, tmp_path)


def test_rnd_on_the_encoders_frames_without_the_encode_wrapper_is_one_line_at_start(tmp_path: Path) -> None:
    """It used to start and end in a traceback when the first generation was scored."""
    path = _experiment("ppgta_park_novelty", {"entry_point": TRAP_GAME, "wrappers": [{"name": "grayscale"}]},
                       tmp_path, oracles=[{"name": "crash"}], finetune={"algorithm": "none"})
    line = _error(evo("run", str(path), "--out", str(tmp_path / "run"), cwd=tmp_path))
    assert line.endswith("game.wrappers: rnd_novelty reads info.frame64, which the encode wrapper publishes, "
                         "and the game has none: add {name: encode} to game.wrappers")


def test_a_run_that_saw_its_frames_flattened_gets_them_so_again(tmp_path: Path) -> None:
    """A run made when the adapter handed Gymnasium frames on flattened, in the game's own
    (height, width, channels) order, replays and resumes on the frames its policies saw."""
    import json

    from evo.run.built import Built
    from evo.run.config import load_experiment

    path = _experiment("wuji_block_maze", {"entry_point": TRAP_GAME}, tmp_path, finetune={"algorithm": "none"})
    run = _run(path, tmp_path)
    exp = load_experiment(run / "config.yaml")
    with Built.from_experiment(exp, cells_from=run) as now:
        assert now.spec.obs_shape == (3, 84, 84)
    facts = json.loads((run / "game.json").read_text())
    facts["spec"]["obs_shape"] = [84 * 84 * 3]  # what game.json said then
    (run / "game.json").write_text(json.dumps(facts))
    frame, _ = PixelWalk().reset(seed=3)
    with Built.from_experiment(exp, cells_from=run) as before:
        assert before.spec.obs_shape == (84 * 84 * 3,) and before.policy_spec.obs_dim == 84 * 84 * 3
        game = before.factory.make_vector(1)
        try:
            np.testing.assert_array_equal(game.reset([3])[0][0], frame.reshape(-1))
        finally:
            game.close()


def test_a_pixel_game_without_a_render_mode_shows_what_it_observes(tmp_path: Path) -> None:
    """PixelWalk offers no ``rgb_array`` render: its replay video shows its frames, not a grid
    of its features' cells."""
    path = _experiment("wuji_block_maze", {"entry_point": TRAP_GAME}, tmp_path, finetune={"algorithm": "none"})
    run = _run(path, tmp_path)
    result = evo("replay", str(run), "0", "--video", str(tmp_path / "trap.gif"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    import imageio.v3 as iio

    first = iio.imread(tmp_path / "trap.gif", index=0)
    plane = np.array([60, 60, 60])
    assert (np.abs(first[..., :3].astype(int) - plane).sum(axis=-1) < 8).mean() > 0.5  # the grey plane
    assert (first[..., :3] == 255).all(axis=-1).sum() >= 49 * 0.8  # the walker's white square, drawn larger
