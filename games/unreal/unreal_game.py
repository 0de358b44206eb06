"""Any Unreal Engine game with the UnrealCV plugin, played over its socket.

PPGTA and the explicit-plan study tested Unreal games through UnrealCV; this module makes such
a game a game of the engine, from a YAML (``docs/guides/unreal.md``). The engine either
connects to a game already running (``host``, ``port``: copy ``i`` plays on ``port + i``) or
launches a packaged binary per copy (``binary``; :mod:`games.unreal.launcher`).

A step sends the action's commands from the YAML's table (``vset /camera/N/moveto``,
``vset /camera/N/rotation``, any command such as ``vset /action/keyboard KEY SECONDS``), then
reads the camera's pose and the observation. Observations: the lit frame
(``vget /camera/N/lit png``, ``[3, H, W]`` uint8, what the park's pixel pipeline reads), the
object mask (``object_mask png``), depth (``depth npy``, ``[1, H, W]`` float32) or the pose
itself. With ``objects``, every step also reads the object mask and reports the objects in view
(``info["visible"]``, their boxes in :meth:`UnrealVector.boxes`), no trained detector needed.

State features: the camera's location ``(x, y, z)`` in cells of ``cell`` units (open: the
game declares no bounds) and rotation ``(pitch, yaw, roll)`` in ``angle_bins`` sectors. Reward:
+1 the first time an episode enters a location cell (exploring is playing).

Reset teleports the camera to one of ``starts``, drawn from the episode's seed
(``vset /camera/N/location`` and ``rotation``), or reloads ``level``. Frame time: the game's
own, when ``frame_time_command`` names a command whose reply ends in milliseconds; otherwise
the step's wall time, the round trips of its requests included (``docs/guides/unreal.md``).

When the game stops answering (a reply later than ``request_timeout_s``, a dropped
connection, a dead binary), the step raises: the episode ends as a crash with its replay
handle, and the copy's next reset connects again, or launches the binary again.
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from games.adapter.game_copy import game_error
from games.core.base import GameError, GameSpec, GameSpecError, VecStep
from games.core.scalar_env import VectorEnv
from games.unreal import replies
from games.unreal.connection import Connection, UnrealDied, UnrealLost, UnrealRefused, UnrealTimeout
from games.unreal.instances import Instance, acquire, release
from games.unreal.settings import POSE_NAMES, UnrealSettings, check_kwargs

__all__ = ["UnrealGame", "UnrealVector", "unreal_spec"]



def unreal_spec(s: UnrealSettings) -> GameSpec:
    """Location in open cells of ``cell`` units, rotation in ``angle_bins`` sectors of 360 degrees."""
    shape = {"pose": (6,), "depth": (1, s.height, s.width)}.get(s.observation, (3, s.height, s.width))
    return GameSpec(
        obs_shape=shape, n_actions=len(s.actions), feature_names=POSE_NAMES,
        feature_low=(0.0,) * 6, feature_high=(s.cell,) * 3 + (360.0,) * 3,
        feature_bins=(1, 1, 1) + (s.angle_bins,) * 3, max_steps=s.max_steps,
        obs_dtype="uint8" if s.observation in ("lit", "object_mask") else "float32",
        feature_open=(True, True, True, False, False, False), position=POSE_NAMES[:3],
    )


class UnrealCopy:
    """One copy's episode on its game (:class:`games.unreal.instances.Instance`)."""

    def __init__(self, settings: UnrealSettings, instance: Instance, spec: GameSpec) -> None:
        self.s, self.instance = settings, instance
        self.obs = np.zeros(spec.obs_shape, dtype=spec.obs_dtype)
        self.pose = np.zeros(6, dtype=np.float64)
        self.frame: np.ndarray | None = None
        self.boxes: dict[str, tuple[int, int, int, int]] = {}
        self.steps = 0
        self._visited: set[tuple[int, int, int]] = set()

    def _ask(self, connection: Connection, command: str) -> str | bytes:
        try:
            return connection.request(command)
        except UnrealLost as exc:
            died = self.instance.lost(isinstance(exc, UnrealTimeout))
            if died is not None:
                raise UnrealDied(f"{exc}: {died}") from None
            raise

    def reset(self, seed: int) -> None:
        """Start an episode: the same seed, the same start."""
        connection = self.instance.ready()
        cam = f"/camera/{self.s.camera}"
        if self.s.reset == "level":
            self._ask(connection, f"vset /action/game/level {self.s.level}")
        else:
            start = self.s.starts[int(np.random.default_rng(int(seed)).integers(len(self.s.starts)))]
            self._ask(connection, "vset %s/location %.3f %.3f %.3f" % (cam, *start[:3]))
            self._ask(connection, "vset %s/rotation %.3f %.3f %.3f" % (cam, *start[3:]))
        self.steps = 0
        self._visited = set()
        self._observe(connection)
        self._explore_reward()

    def step(self, action: int) -> tuple[float, bool, float]:
        """Play ``action``; returns ``(reward, truncated, frame_ms)``."""
        if not 0 <= int(action) < len(self.s.actions):
            raise ValueError(f"action {action} is not in 0..{len(self.s.actions) - 1}")
        connection = self.instance.connection
        if connection is None or not connection.is_open:
            raise UnrealLost("the game was not reached at the episode's reset")
        spec = self.s.actions[int(action)]
        cam = f"/camera/{self.s.camera}"
        t0 = time.perf_counter()
        if spec.move is not None:
            x, y, z = self.pose[:3] + np.asarray(spec.move)
            self._ask(connection, f"vset {cam}/moveto {x:.3f} {y:.3f} {z:.3f}")
        if spec.turn is not None:
            p, yw, r = self.pose[3:] + np.asarray(spec.turn)
            self._ask(connection, f"vset {cam}/rotation {p:.3f} {yw:.3f} {r:.3f}")
        names = dict(zip(POSE_NAMES, self.pose.tolist()))
        for command in spec.commands:
            self._ask(connection, command.format(**names))
        self._observe(connection)
        frame_ms = (time.perf_counter() - t0) * 1000.0
        if self.s.frame_time_command:
            frame_ms = replies.last_number(self._ask(connection, self.s.frame_time_command), "frame time")
        self.steps += 1
        return self._explore_reward(), self.steps >= self.s.max_steps, frame_ms

    def _observe(self, connection: Connection) -> None:
        cam = f"/camera/{self.s.camera}"
        location = replies.triple(self._ask(connection, f"vget {cam}/location"), "location")
        rotation = replies.triple(self._ask(connection, f"vget {cam}/rotation"), "rotation")
        self.pose = np.array(location + rotation, dtype=np.float64)
        kind = self.s.observation
        if kind == "pose":
            self.obs = np.concatenate([self.pose[:3] / self.s.cell, self.pose[3:] / 180.0]).astype(np.float32)
        elif kind == "depth":
            self.obs = self._sized(replies.depth(self._ask(connection, f"vget {cam}/depth npy"), "depth"))[None]
        else:
            self.frame = self._sized(replies.image(self._ask(connection, f"vget {cam}/{kind} png"), kind))
            self.obs = np.ascontiguousarray(self.frame.transpose(2, 0, 1))
        if self.s.objects:
            mask = self.frame if kind == "object_mask" else self._sized(
                replies.image(self._ask(connection, f"vget {cam}/object_mask png"), "object_mask"))
            self.boxes = replies.object_boxes(mask, self._colors(connection))

    def _colors(self, connection: Connection) -> dict[str, tuple[int, int, int]]:
        if self.instance.colors is None:
            names = replies.text(self._ask(connection, "vget /objects"), "objects").split()
            self.instance.colors = {n: replies.color(self._ask(connection, f"vget /object/{n}/color"), n)
                                    for n in names}
        return self.instance.colors

    def _sized(self, img: np.ndarray) -> np.ndarray:
        if img.shape[:2] != (self.s.height, self.s.width):
            raise GameSpecError(
                f"the game renders {img.shape[1]}x{img.shape[0]} frames but game.kwargs.width and "
                f"height say {self.s.width}x{self.s.height}; set them to the game's resolution")
        return img

    def _explore_reward(self) -> float:
        cell = tuple(np.floor(self.pose[:3] / self.s.cell).astype(int).tolist())
        if cell in self._visited:
            return 0.0
        self._visited.add(cell)
        return 1.0


def unanswered(s: UnrealSettings, copies: Sequence[int]) -> list[int]:
    """The copies among ``copies`` on whose port (``port + i``) nothing accepts a connection:
    in connect mode, games the user has not started."""
    missing = []
    for i in copies:
        try:
            socket.create_connection((s.host, s.port + i), timeout=1.0).close()
        except OSError:
            missing.append(i)
    return missing


class UnrealVector:
    """``num_envs`` copies, each on its own game, stepped one after another.

    Same kwargs as :class:`UnrealGame`. No auto-reset; a copy whose game stopped answering is
    reported in ``VecStep.errors`` and is connected again (or relaunched) at the next reset.
    """

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.settings = check_kwargs(kwargs)
        self.num_envs = int(num_envs)
        self.game_spec = unreal_spec(self.settings)
        self.action_names = tuple(a.name for a in self.settings.actions)
        self._instances = [acquire(self.settings, i) for i in range(self.num_envs)]
        self.copies = [UnrealCopy(self.settings, inst, self.game_spec) for inst in self._instances]
        # A game that cannot be reached, reset or read at all is a mistake of the YAML (a port,
        # a level, a resolution): one line at start, not a crash in every episode.
        try:
            self.copies[0].reset(0)
            missing = [] if self.settings.launches else unanswered(self.settings, range(1, self.num_envs))
        except (UnrealLost, UnrealRefused) as exc:
            self.close()
            raise ValueError(f"game unreal: {exc}") from None
        except BaseException:
            self.close()
            raise
        if missing:  # each would be a crash bug and two waits a generation
            self.close()
            s = self.settings
            raise ValueError(
                f"game unreal: {len(missing)} of {self.num_envs} copies have no game: nothing listens on "
                f"{s.host} port {', '.join(str(s.port + i) for i in missing)} (copy i plays on port + i); start "
                f"a game on each of ports {s.port}..{s.port + self.num_envs - 1}, or play fewer copies at once")
        n = self.num_envs
        self._done = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._pending: dict[int, GameError] = {}

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start every copy's episode; a copy whose game died since its last episode, or
        cannot be reached, reports the error at its first step (a crash at the start of the
        episode) and is launched again or reconnected at the next reset."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        self._pending = {}
        for i, (copy, seed) in enumerate(zip(self.copies, seeds)):
            try:
                copy.reset(int(seed))
            except UnrealDied as exc:  # died since its last episode: a crash all the same
                self._pending[i] = game_error(exc)
            except UnrealLost:
                try:  # a stale connection to a game that still runs: once more, on a new one
                    copy.reset(int(seed))
                except (UnrealLost, UnrealRefused, ValueError) as exc:
                    self._pending[i] = game_error(exc)
            except GameSpecError:
                raise
            except (UnrealRefused, ValueError) as exc:  # an error reply, a reply that is no pose
                self._pending[i] = game_error(exc)
        self._done.fill(False)
        self._truncated.fill(False)
        return self._obs(), self._features()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing, one after the other."""
        acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        if acts.size != self.num_envs:
            raise ValueError(f"step needs {self.num_envs} actions, got {acts.size}")
        playing = np.flatnonzero(~self._done).tolist()
        results = {i: self._step_copy(i, int(acts[i])) for i in playing}
        errors = {i: err for i, (_, _, err) in results.items() if err is not None}
        self._done[list(errors)] = True
        self._done |= self._truncated
        info: dict[str, np.ndarray] = {}
        if self.settings.objects:
            info["visible"] = np.empty(self.num_envs, dtype=object)
            info["visible"][:] = [tuple(sorted(c.boxes)) for c in self.copies]
        return VecStep(
            obs=self._obs(), reward=np.array([results[i][0] if i in results else 0.0 for i in range(self.num_envs)]),
            terminated=np.zeros(self.num_envs, dtype=bool), truncated=self._truncated.copy(),
            features=self._features(), errors=errors, info=info,
            frame_ms=np.array([results[i][1] if i in results else 0.0 for i in range(self.num_envs)]),
        )

    def _step_copy(self, i: int, action: int) -> tuple[float, float, GameError | None]:
        """Copy ``i``'s step: ``(reward, frame_ms, error)``; a failed reset is its first step's error."""
        if i in self._pending:
            return 0.0, 0.0, self._pending.pop(i)
        try:
            reward, self._truncated[i], frame_ms = self.copies[i].step(action)
        except GameSpecError:
            raise
        except Exception as exc:  # noqa: BLE001 - the game's fault, reported per copy
            return 0.0, 0.0, game_error(exc)
        return reward, frame_ms, None

    def _obs(self) -> np.ndarray:
        return np.stack([c.obs for c in self.copies])

    def _features(self) -> np.ndarray:
        pose = np.stack([c.pose for c in self.copies])
        pose[:, 3:] %= 360.0
        return pose

    def boxes(self) -> list[dict[str, tuple[int, int, int, int]]]:
        """Per copy, the box ``(x0, y0, x1, y1)`` of every object in its last frame (``objects``)."""
        return [dict(c.boxes) for c in self.copies]

    def render_frames(self) -> np.ndarray | None:
        """Each copy's last frame, ``[N, H, W, 3]`` uint8; None unless the game observes frames."""
        if any(c.frame is None for c in self.copies):
            return None
        return np.stack([c.frame for c in self.copies])

    def close(self) -> None:
        """Release the games (the last vector game using one closes it); safe to call twice."""
        instances, self._instances = self._instances, []
        for instance in instances:
            with contextlib.suppress(Exception):
                release(instance)


class UnrealGame(VectorEnv):
    """An Unreal game with the UnrealCV plugin as a Gymnasium env (one copy).

    Args:
        host: Where a running game listens (connect mode) or a launched one will.
        port: Its UnrealCV port; copy ``i`` plays on ``port + i``. 0 with ``binary``: a free
            port per copy.
        binary: A packaged game to launch per copy (empty: connect to running games).
        level: The map to open (launch argument, and what ``reset: level`` reloads).
        launch_args: More command-line arguments for the binary.
        width: Frame width the game renders (written to ``unrealcv.ini`` when launching).
        height: Frame height.
        camera: The UnrealCV camera the agent plays (0: the player's view).
        observation: ``lit``, ``object_mask``, ``depth`` or ``pose``.
        objects: Also read the object mask every step and report the objects in view.
        actions: The action table: per action ``name`` and ``move``, ``turn`` or ``commands``
            (:class:`games.unreal.settings.UnrealAction`); six moves and turns when omitted.
        starts: Places ``[x, y, z]`` or ``[x, y, z, pitch, yaw, roll]``; each episode starts at
            the one its seed draws (``reset: teleport``).
        reset: ``teleport`` to a start, or ``level`` to reload the level.
        max_steps: Episode horizon (truncation).
        request_timeout_s: How long one request may wait for its reply before the episode
            ends as a crash (a hang).
        connect_timeout_s: How long to wait for a game to accept a connection (a launched
            binary loading its level).
        frame_time_command: A command whose reply ends in the frame time in milliseconds, for
            a game that measures its own; empty: the step's wall time is measured.
        cell: Location cell size in world units (coverage, bug places).
        angle_bins: Sectors per rotation axis.
        render_mode: Unused; accepted for Gymnasium.
    """

    observation_kwargs = ("observation", "objects")
    """What the agent sees, not what it plays (:meth:`games.registry.GameFactory.played`)."""

    def __init__(self, render_mode: str | None = None, **kwargs: Any) -> None:
        game = UnrealVector(1, **kwargs)
        spec = game.game_spec
        if spec.obs_dtype == "uint8":
            space = spaces.Box(0, 255, shape=spec.obs_shape, dtype=np.uint8)
        else:
            space = spaces.Box(-np.inf, np.inf, shape=spec.obs_shape, dtype=np.float32)
        super().__init__(game, space)
        self.settings = game.settings
