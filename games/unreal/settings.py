"""What an Unreal game is made of in a YAML: where it runs, its actions, starts and frames.

Every setting is a keyword argument of :class:`games.unreal.unreal_game.UnrealGame` (the YAML's
``game.kwargs``); :func:`check_settings` turns them into one frozen :class:`UnrealSettings`
or one line naming the key that is wrong and what was expected.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Sequence

OBSERVATIONS = ("lit", "object_mask", "depth", "pose")
POSE_NAMES = ("x", "y", "z", "pitch", "yaw", "roll")
"""The camera's pose, as state features and as ``{name}`` in an action's commands."""
RESETS = ("teleport", "level")
DEFAULT_ACTIONS: tuple[dict[str, Any], ...] = (
    {"name": "forward", "move": [100, 0, 0]},
    {"name": "back", "move": [-100, 0, 0]},
    {"name": "left", "move": [0, -100, 0]},
    {"name": "right", "move": [0, 100, 0]},
    {"name": "turn_left", "turn": [0, -30, 0]},
    {"name": "turn_right", "turn": [0, 30, 0]},
)
"""World-axis moves of 100 units and turns of 30 degrees, when a YAML names no actions."""


@dataclass(frozen=True)
class UnrealAction:
    """One discrete action: what it sends, in this order.

    Attributes:
        name: Shown in reports and used by plans.
        move: ``(dx, dy, dz)`` added to the camera's location and sent as
            ``vset /camera/N/moveto`` (the game stops the camera at what it collides with).
        turn: ``(dpitch, dyaw, droll)`` added to its rotation, ``vset /camera/N/rotation``.
        commands: Further commands sent as written, such as ``vset /action/keyboard space 0.1``;
            ``{x} {y} {z} {pitch} {yaw} {roll}`` are replaced by the camera's pose before the action.
    """

    name: str
    move: tuple[float, float, float] | None = None
    turn: tuple[float, float, float] | None = None
    commands: tuple[str, ...] = ()


@dataclass(frozen=True)
class UnrealSettings:
    """The checked settings of an Unreal game (see :class:`games.unreal.unreal_game.UnrealGame`)."""

    host: str
    port: int
    binary: str
    level: str
    launch_args: tuple[str, ...]
    width: int
    height: int
    camera: int
    observation: str
    objects: bool
    actions: tuple[UnrealAction, ...]
    starts: tuple[tuple[float, ...], ...]
    reset: str
    max_steps: int
    request_timeout_s: float
    connect_timeout_s: float
    frame_time_command: str
    cell: float
    angle_bins: int

    @property
    def launches(self) -> bool:
        """The engine starts the game itself (``binary`` is set) rather than connecting."""
        return bool(self.binary)


def _triple(value: Any, key: str) -> tuple[float, float, float] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        raise ValueError(f"{key} must be three numbers, got {value!r}")
    try:
        out = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be three numbers, got {value!r}") from None
    return out  # type: ignore[return-value]


def _action(value: Any, i: int) -> UnrealAction:
    key = f"game.kwargs.actions[{i}]"
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be a mapping with name and move, turn or commands; got {value!r}")
    unknown = set(value) - {"name", "move", "turn", "commands"}
    if unknown:
        raise ValueError(f"{key} has unknown keys {sorted(unknown)}; expected name, move, turn, commands")
    commands = value.get("commands", [])
    if isinstance(commands, str) or not all(isinstance(c, str) and c.strip() for c in commands):
        raise ValueError(f"{key}.commands must be a list of UnrealCV commands, got {commands!r}")
    for j, command in enumerate(commands):
        try:
            command.format(**dict.fromkeys(POSE_NAMES, 0.0))
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"{key}.commands[{j}] {command!r} names {exc} in braces; the pose names are "
                             f"{', '.join(POSE_NAMES)} (write {{{{ and }}}} for a literal brace)") from None
    action = UnrealAction(name=str(value.get("name", f"action_{i}")),
                          move=_triple(value.get("move"), f"{key}.move"),
                          turn=_triple(value.get("turn"), f"{key}.turn"), commands=tuple(commands))
    if action.move is None and action.turn is None and not action.commands:
        raise ValueError(f"{key} ({action.name}) does nothing: give it move, turn or commands")
    return action


def _start(value: Any, i: int) -> tuple[float, ...]:
    if not isinstance(value, (list, tuple)) or len(value) not in (3, 6):
        raise ValueError(f"game.kwargs.starts[{i}] must be [x, y, z] or [x, y, z, pitch, yaw, roll], got {value!r}")
    try:
        start = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"game.kwargs.starts[{i}] must be numbers, got {value!r}") from None
    return start + (0.0, 0.0, 0.0) if len(start) == 3 else start


def check_kwargs(kwargs: dict[str, Any]) -> UnrealSettings:
    """:func:`check_settings` of a YAML's ``game.kwargs``; an unknown key is one line too."""
    known = inspect.signature(check_settings).parameters
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise ValueError(f"game.kwargs has unknown keys {unknown}; expected some of {', '.join(known)}")
    return check_settings(**kwargs)


def check_settings(
    host: str = "127.0.0.1", port: int = 9000, binary: str | None = None, level: str = "",
    launch_args: Sequence[str] = (), width: int = 320, height: int = 240, camera: int = 0,
    observation: str = "lit", objects: bool = False, actions: Sequence[dict[str, Any]] | None = None,
    starts: Sequence[Sequence[float]] | None = None, reset: str = "teleport", max_steps: int = 500,
    request_timeout_s: float = 10.0, connect_timeout_s: float = 60.0, frame_time_command: str = "",
    cell: float = 100.0, angle_bins: int = 8,
) -> UnrealSettings:
    """The settings, checked; ``ValueError`` with one line naming the key otherwise."""
    if not isinstance(port, int) or not 0 <= port < 65536:
        raise ValueError(f"game.kwargs.port must be a TCP port (0 to pick a free one when launching), got {port!r}")
    if port == 0 and not binary:
        raise ValueError("game.kwargs.port 0 picks a free port for a launched game; set binary, or the port of the running game")
    for key, value in (("width", width), ("height", height), ("max_steps", max_steps), ("angle_bins", angle_bins)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"game.kwargs.{key} must be a positive integer, got {value!r}")
    if observation not in OBSERVATIONS:
        raise ValueError(f"game.kwargs.observation is {observation!r}; expected one of {', '.join(OBSERVATIONS)}")
    if reset not in RESETS:
        raise ValueError(f"game.kwargs.reset is {reset!r}; expected one of {', '.join(RESETS)}")
    if reset == "level" and not level:
        raise ValueError("game.kwargs.reset: level reloads game.kwargs.level, which is not set")
    for key, value in (("request_timeout_s", request_timeout_s), ("connect_timeout_s", connect_timeout_s),
                       ("cell", cell)):
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"game.kwargs.{key} must be a positive number, got {value!r}")
    table = tuple(_action(a, i) for i, a in enumerate(DEFAULT_ACTIONS if actions is None else actions))
    if not table:
        raise ValueError("game.kwargs.actions is empty; list at least one action")
    places = tuple(_start(s, i) for i, s in enumerate(starts or ()))
    if reset == "teleport" and not places:
        raise ValueError("game.kwargs.starts is empty; reset: teleport needs at least one [x, y, z]")
    return UnrealSettings(
        host=str(host), port=port, binary=str(binary or ""), level=str(level),
        launch_args=tuple(str(a) for a in launch_args), width=width, height=height, camera=int(camera),
        observation=observation, objects=bool(objects), actions=table, starts=places, reset=reset,
        max_steps=max_steps, request_timeout_s=float(request_timeout_s),
        connect_timeout_s=float(connect_timeout_s), frame_time_command=str(frame_time_command),
        cell=float(cell), angle_bins=angle_bins,
    )
