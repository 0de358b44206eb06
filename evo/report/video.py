"""``evo replay RUN_DIR BUG_ID --video FILE``: the bug played again, as a clip a person can watch.

One copy of the run's game is reset with the bug's episode seed and stepped through its
recorded actions, as the run played them (same seed and actions, same episode). After the
reset and after every step the video gets a frame: what the game showed (its own frames,
:class:`games.core.base.ShowsFrames`; a Gymnasium env is made with ``render_mode="rgb_array"``
where it offers it, and shows the frames it observes where it does not) or, for a game
without frames, a drawing of its level with the agent's trace (:mod:`evo.report.video_frames`). A game with frames and a map (the park) also shows
the map as an inset, the agent's trace on it and the bug's place ringed; a visual bug's object
is boxed in red in every frame where the ``detect`` wrapper found it
(:mod:`evo.report.video_boxes`). The overlay says the step and the action that led to it
and, from the bug's step on, the oracle's message; the last frame is held for
:data:`HOLD_S` seconds so the message can be read. The replay stops early where the game
ends the episode or raises.

Frames are written as they come, by imageio: MP4 (H.264) through its ffmpeg plugin, GIF
through Pillow. Both come with the ``report`` extra; without them the command says so in
one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from evo.run import rundir
from evo.run.config import game_factory, load_experiment
from evo.run.device import on_this_machine
from evo.run.extras import require
from evo.run.game_facts import GameFacts, build_game_facts, read_game_facts
from evo.bugs.replay import find_bug
from evo.run.user_paths import check_out_file
from evo.report.video_boxes import bug_place, draw_box, judged_box, with_inset
from evo.report.video_frames import BUG, TEXT, MapDrawing, band_rows, frame_size, scale_of, upscale, with_overlay
from games.core.base import ShowsFrames
from oracles.visual import DETECTIONS_KEY

FORMATS = (".mp4", ".gif")
FPS = 8
"""Frames per second: a grid game moves one cell a frame, slow enough to follow."""
HOLD_S = 2.0
"""Seconds the last frame (the bug's) stays on screen."""
class VideoError(ValueError):
    """A video that cannot be made as asked (a file suffix it cannot write); one line."""


@dataclass(frozen=True)
class Video:
    """A video written.

    Attributes:
        path: The file.
        frames: Frames in the file: for MP4 the held copies of the last frame included; a
            GIF holds its last frame longer instead (Pillow merges equal frames).
        size: ``(height, width)`` of a frame in pixels.
        source: ``"game"`` (the game's own frames) or ``"map"`` (a drawing of its level).
        steps: Steps replayed (fewer than the bug's actions when the episode ended early).
    """

    path: Path
    frames: int
    size: tuple[int, int]
    source: str
    steps: int

    def __str__(self) -> str:
        shows = "the game" if self.source == "game" else "its map"
        return (f"wrote {self.path}: {self.frames} frames of {self.size[1]}x{self.size[0]} ({shows}), "
                f"{self.steps} steps replayed")


def hold_frames(fps: int = FPS) -> int:
    """Extra copies of the last frame: :data:`HOLD_S` seconds of it."""
    return round(HOLD_S * fps)


def check_format(path: Path) -> None:
    """Raise unless a video can be written to ``path``.

    Raises:
        VideoError: a suffix other than :data:`FORMATS`.
        evo.run.config.ConfigError: ``path`` is a folder, or a folder above it is a file.
        evo.run.extras.MissingExtra: imageio (or, for MP4, imageio-ffmpeg) is not installed.
    """
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise VideoError(f"--video {path}: expected a file ending in {' or '.join(FORMATS)}")
    check_out_file(path, "--video")
    require(f"a {suffix} video", "imageio", *(["imageio_ffmpeg"] if suffix == ".mp4" else []))


def _writer(path: Path, fps: int) -> Any:
    """An imageio writer for ``path`` (``append_data`` a frame at a time, then ``close``)."""
    import imageio.v2 as imageio

    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".gif":
        return imageio.get_writer(path, format="GIF", mode="I", duration=1000.0 / fps, loop=0)
    # yuv420p: the pixel format every browser and player decodes; frames are already whole
    # macro blocks (evo.report.video_frames), so imageio resizes nothing.
    return imageio.get_writer(path, format="FFMPEG", mode="I", fps=fps, codec="libx264",
                              pixelformat="yuv420p", macro_block_size=16, quality=7)


def _facts(run_dir: Path, config: dict[str, Any]) -> GameFacts:
    return read_game_facts(run_dir) or build_game_facts(config)


def _shown(game: Any) -> np.ndarray | None:
    """What copy 0 shows now, or None for a game that draws nothing."""
    frames = game.render_frames() if isinstance(game, ShowsFrames) else None
    return None if frames is None else frames[0]


def played(game: Any, seed: int, actions: list[int]) -> Iterator[tuple[np.ndarray, np.ndarray | None, bool, Any]]:
    """Copy 0 of ``game`` reset with ``seed`` and stepped through ``actions`` until the
    episode ends: after the reset and after each step, ``(features [F], frame or None,
    failed, detections)``, ``failed`` when that step raised, ``detections`` what the
    ``detect`` wrapper found in the frame (None without one, and at the reset)."""
    _, features = game.reset([seed])
    yield features[0], _shown(game), False, None
    for action in actions:
        out = game.step(np.array([action], dtype=np.int64))
        failed = 0 in out.errors
        found = out.info.get(DETECTIONS_KEY)
        yield out.features[0], _shown(game), failed, None if found is None else found[0]
        if failed or out.terminated[0] or out.truncated[0]:
            return


def write_video(run_dir: str | Path, bug_id: int, path: str | Path, fps: int = FPS) -> Video:
    """Replay bug ``bug_id`` of a run once and write what the game showed into ``path``.

    Raises:
        KeyError: no bug has that id.
        VideoError: ``path`` is not an ``.mp4`` or ``.gif`` file.
        evo.run.extras.MissingExtra: the writer's packages are not installed.
    """
    run_dir, path = Path(run_dir), Path(path)
    record = find_bug(run_dir, bug_id)
    check_format(path)
    exp = on_this_machine(load_experiment(run_dir / rundir.CONFIG))
    facts = _facts(run_dir, exp.model_dump(mode="json"))
    game = game_factory(exp).rendering().make_vector(1)
    try:
        writer = _writer(path, fps)
        try:
            return _record(game, record, facts, writer, path, fps)
        finally:
            writer.close()
    finally:
        game.close()


def _record(game: Any, record: dict[str, Any], facts: GameFacts, writer: Any, path: Path, fps: int) -> Video:
    actions = [int(a) for a in record["actions"]]
    names = getattr(game, "action_names", None)
    reach = facts.map_cells(np.asarray([record["state"], record["next_state"]], dtype=np.float64))
    drawing = MapDrawing(facts, tuple(tuple(int(v) for v in c) for c in reach))
    bug_step = int(record["step"])
    where = np.asarray([record["next_state"]], dtype=np.float64)
    place = bug_place(record)
    if place is not None:  # a bug about an object (a visual one) is ringed where the object is
        where[0, :2] = place
    bug_cell = drawing.cells(where)[0]
    header = f"bug {record['id']}, {record['kind']}"
    trace: list[tuple[int, int]] = []
    size: tuple[int, int] | None = None
    source = "map"
    written = 0
    frame = None
    for t, (features, picture, failed, found) in enumerate(played(game, int(record["seed"]), actions)):
        trace += drawing.cells(features[None])
        shown = t > bug_step or failed
        if t == 0 and picture is not None:
            source = "game"
        if source == "game" and picture is not None:
            scale = scale_of(picture.shape[:2])
            box = judged_box(record, found, features, facts.scene, picture.shape[1])
            picture = upscale(picture, scale)
            if box is not None:
                picture = draw_box(picture, box, scale)
            if facts.walls is not None:  # where the agent is: the map as an inset
                picture = with_inset(picture, drawing.draw(trace, bug_cell if shown else None))
        else:
            picture = drawing.draw(trace, bug_cell if shown else None)
        size = size or frame_size(picture.shape[:2], _rows(picture.shape[1], actions, names, header, record["message"]))
        lines = [(_status(t, actions, names, header), TEXT)]
        if shown:
            lines.append((record["message"], BUG))
        frame = with_overlay(picture[: size[0], : size[1]], size, lines)
        writer.append_data(frame)
        written += 1
    for _ in range(hold_frames(fps)):  # the reset's frame at least was written
        writer.append_data(frame)
    held = hold_frames(fps) if path.suffix.lower() == ".mp4" else 0
    return Video(path, written + held, size or (0, 0), source, written - 1)


def _status(t: int, actions: list[int], names: Any, header: str) -> str:
    """The band's first paragraph at frame ``t``: the step, its action, how far, which bug."""
    step = "start" if t == 0 else f"step {t - 1}: {_action(names, actions[t - 1])}"
    return f"{step} · {t}/{len(actions)} played · {header}"


def _rows(width: int, actions: list[int], names: Any, header: str, message: str) -> int:
    """Rows of text the band of a ``width`` px video needs: the longest status and the
    oracle's message, each wrapped to the width, so that no frame cuts either."""
    # Measured at each action's last frame: its step numbers are the longest it comes with.
    last = {action: t for t, action in enumerate(actions, start=1)}
    status = max(band_rows(width, [_status(t, actions, names, header)]) for t in (0, *last.values()))
    return status + band_rows(width, [message])


def _action(names: Any, action: int) -> str:
    """``E (2)`` where the game names its actions, ``action 2`` where it does not."""
    if names is not None and 0 <= action < len(names):
        return f"{names[action]} ({action})"
    return f"action {action}"
