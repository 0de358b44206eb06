"""A person's play as a demonstration: ``evo record`` opens the park in a window.

    evo record --out demos/mine --level-seed 3 --set path --steps 500

The park runs in ViZDoom's spectator mode: the engine reads the keyboard and mouse, and after
every step (``frame_skip`` tics) the last action it reports says what was held. That is made
one of PPGTA's 9 actions by :func:`action_of` (one action a step, as an agent plays):

| keys | action |
|---|---|
| W or up arrow | forward |
| S or down arrow | backward |
| A | left (strafe) |
| D | right (strafe) |
| left arrow, or the mouse moved left | turn_left |
| right arrow, or the mouse moved right | turn_right |
| Page Up, or the mouse moved up | look_up |
| Page Down, or the mouse moved down | look_down |
| space | jump |

When several are held, the first in the order turn, forward, backward, left, right, look,
jump is kept (steering is what a person does most while walking). A step with nothing held is
not an action of the park: it is left out, and the frame the person saw last before the next
action is the one kept. The recording ends after ``--steps`` actions or when the window is closed.

What is written is a demonstration as :mod:`games.perception.demos` describes, ``source: person``,
its masked frames made from the labels buffer's boxes. The recording loop reads its keys from
a :class:`KeySource`: :class:`SpectatorPark` is the window; :class:`FedKeys` plays given key
rows on the headless park (how the path is tested without a display).
"""

from __future__ import annotations

import os
from typing import Mapping, Protocol, Sequence

import numpy as np

from games.doom.engine import EngineView, check_settings, new_engine
from games.doom.park.doom_park import ACTIONS, DEFAULT_FRAME_SKIP, DEFAULT_RESOLUTION, DoomParkVector, label_types
from games.doom.park.layout import park_layout
from games.doom.park.wad import MAP_NAME, park_wad_path
from games.perception.base import od_mask
from games.perception.demos import Demo, make_demo

BUTTONS: tuple[str, ...] = (
    "MOVE_FORWARD", "MOVE_BACKWARD", "MOVE_LEFT", "MOVE_RIGHT", "TURN_LEFT", "TURN_RIGHT", "LOOK_UP",
    "LOOK_DOWN", "JUMP", "TURN_LEFT_RIGHT_DELTA", "LOOK_UP_DOWN_DELTA", "SPEED",
)
"""What the window reports as held (keys and mouse), by ViZDoom's button names."""
BINDINGS: tuple[tuple[str, str], ...] = (
    ("w", "+forward"), ("uparrow", "+forward"), ("s", "+back"), ("downarrow", "+back"),
    ("a", "+moveleft"), ("d", "+moveright"), ("leftarrow", "+left"), ("rightarrow", "+right"),
    ("pgup", "+lookup"), ("pgdn", "+lookdown"), ("space", "+jump"),
)
"""The keys bound in the window (ZDoom console ``bind``), the module's table."""
_ORDER: tuple[tuple[str, float, str], ...] = (
    ("TURN_LEFT", 1, "turn_left"), ("TURN_RIGHT", 1, "turn_right"),
    ("TURN_LEFT_RIGHT_DELTA", -1, "turn_left"), ("TURN_LEFT_RIGHT_DELTA", 1, "turn_right"),
    ("MOVE_FORWARD", 1, "forward"), ("MOVE_BACKWARD", 1, "backward"), ("MOVE_LEFT", 1, "left"),
    ("MOVE_RIGHT", 1, "right"), ("LOOK_UP", 1, "look_up"), ("LOOK_UP_DOWN_DELTA", 1, "look_up"),
    ("LOOK_DOWN", 1, "look_down"), ("LOOK_UP_DOWN_DELTA", -1, "look_down"), ("JUMP", 1, "jump"),
)
"""``(button, sign, action)`` in priority order: a button counts when its value has that sign
(a negative turn delta turns left, as the park's actions hold it)."""


def action_of(held: Mapping[str, float]) -> int | None:
    """The park action for the buttons ``held`` (name -> value), None when nothing is held."""
    for button, sign, action in _ORDER:
        if float(held.get(button, 0.0)) * sign > 0:
            return ACTIONS.index(action)
    return None


class KeySource(Protocol):
    """Where a recording's keys and frames come from."""

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The current ``(frame [3, H, W] uint8, features [3], OOI boxes [K, 4])``."""
        ...

    def advance(self) -> Mapping[str, float] | None:
        """Play one step; the buttons held during it (name -> value), None when the person
        is done (the window closed, the keys ran out)."""
        ...

    def close(self) -> None:
        """Stop the engine."""
        ...


class SpectatorPark:
    """The park in a window that a person plays (needs a display).

    Raises:
        ValueError: no display (``DISPLAY`` unset on Linux).
    """

    def __init__(self, level_seed: int, preset: str = "small", resolution: str = DEFAULT_RESOLUTION,
                 frame_skip: int = DEFAULT_FRAME_SKIP) -> None:
        if os.name == "posix" and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            raise ValueError("evo record opens the game in a window and there is no display here (DISPLAY is unset); "
                             "run it on a desktop")
        layout = park_layout(preset, int(level_seed))
        settings = check_settings(park_wad_path(layout), MAP_NAME, resolution, frame_skip, 10**9, False, "wall")
        view = EngineView(buttons=BUTTONS, variables=("POSITION_X", "POSITION_Y", "ANGLE"), screen="CRCGCB",
                          depth=False, labels=True, weapon=False, window=True)
        self.frame_skip = settings.frame_skip
        self.types = label_types()
        self.game = new_engine(settings, view=view)
        for key, command in BINDINGS:
            self.game.send_game_command(f"bind {key} {command}")
        self.game.new_episode()
        self.state = self.game.get_state()

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s = self.state
        boxes = [(lb.x, lb.y, lb.width, lb.height) for lb in s.labels if lb.object_name in self.types]
        x, y, angle = (float(v) for v in s.game_variables)
        return (np.asarray(s.screen_buffer, dtype=np.uint8), np.array([x, y, angle % 360.0]),
                np.array(boxes, dtype=np.int64).reshape(-1, 4))

    def advance(self) -> Mapping[str, float] | None:
        if self.game.is_episode_finished():
            return None
        self.game.advance_action(self.frame_skip)
        state = self.game.get_state()
        if state is None:  # the window was closed or the episode ended
            return None
        self.state = state
        return dict(zip(BUTTONS, self.game.get_last_action()))

    def close(self) -> None:
        self.game.close()


class FedKeys:
    """Given rows of held buttons played on the headless park, as :class:`SpectatorPark` would
    report them: a row that holds nothing plays nothing.

    Args:
        level_seed: The park.
        rows: Per step, buttons held (name -> value).
        preset: The park's size.
        episode_seed: Seeds the episode.
    """

    def __init__(self, level_seed: int, rows: Sequence[Mapping[str, float]], preset: str = "small",
                 episode_seed: int = 0) -> None:
        self.rows = list(rows)
        self.game = DoomParkVector(1, level_seed=int(level_seed), preset=preset, max_steps=max(len(self.rows), 1))
        self.obs, self.features = (v[0] for v in self.game.reset([int(episode_seed)]))

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        boxes = np.array([v.box for v in self.game.visible[0]], dtype=np.int64).reshape(-1, 4)
        return self.obs, self.features, boxes

    def advance(self) -> Mapping[str, float] | None:
        if not self.rows:
            return None
        held = self.rows.pop(0)
        action = action_of(held)
        if action is not None:
            step = self.game.step(np.array([action]))
            if step.errors:
                raise RuntimeError(f"the park failed while recording: {step.errors[0]}")
            self.obs, self.features = step.obs[0], step.features[0]
        return held

    def close(self) -> None:
        self.game.close()


def record(source: KeySource, steps: int, **meta: object) -> Demo:
    """Record up to ``steps`` actions from ``source`` as a demonstration (``source: person``).

    Raises:
        ValueError: fewer than 1 step, or no action was pressed at all.
    """
    if steps < 1:
        raise ValueError(f"--steps must be at least 1, got {steps}")
    frame, features, boxes = source.observe()
    frames, feats, box_rows, actions = [frame], [features], [boxes], []
    try:
        while len(actions) < steps:
            held = source.advance()
            if held is None:
                break
            frame, features, boxes = source.observe()
            action = action_of(held)
            if action is None:  # nothing held: keep the latest view as the one before the next action
                frames[-1], feats[-1], box_rows[-1] = frame, features, boxes
                continue
            actions.append(action)
            frames.append(frame)
            feats.append(features)
            box_rows.append(boxes)
    finally:
        source.close()
    if not actions:
        raise ValueError("nothing was recorded: no key of the table was pressed")
    stacked = np.stack(frames)
    return make_demo(stacked, od_mask(stacked, box_rows), actions, np.stack(feats), source="person", **meta)
