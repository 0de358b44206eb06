"""Starting a ViZDoom engine: the game's checked settings, its WAD and the headless engine.

A WAD is Doom's archive of levels; :func:`check_settings` finds the one asked for (a path,
or a WAD shipped with the ``vizdoom`` wheel), reads its directory to check the map is in it,
and :func:`new_engine` starts a configured, headless ``DoomGame`` on it.
"""

from __future__ import annotations

import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.core.frame_cost import check_clock
from games.common.lifetime import OWNER, engine_launcher

# Defaults chosen by measurement on 2 cores loaded by other work (load average 3-4), without
# monsters: every 256-unit grid point of a map warped to, 4 view directions, the median of 5
# frames, two passes. At 320x240, Freedoom 2 MAP01's views take 0.50 / 0.59 / 0.80 ms of engine
# CPU time (5th / 50th / 95th percentile) and the passes rank them alike (Spearman 0.98; wall
# clock 0.96). Of MAP02-MAP08 only MAP04 varies more (1.8x from 5th to 95th percentile against
# 1.6x); MAP01 is kept because its slowest views lie a few hundred steps from the start, where
# even random agents reach them. Larger screens cost more but vary less relative to their
# cost, and their wall times drown in the machine's load (640x480: 1.75 / 1.92 / 2.38 ms,
# wall-clock Spearman 0.0-0.4). Along walked routes at 320x240 the slowest places take about
# twice the fastest (0.45 vs 1.0 ms).
DEFAULT_WAD = "freedoom2.wad"
DEFAULT_MAP = "MAP01"
DEFAULT_RESOLUTION = "320x240"
DEFAULT_FRAME_SKIP = 4
DEFAULT_MAX_STEPS = 400

EXIT_REWARD = 100.0
"""Reward for leaving the level through its exit (Doom's own goal)."""
IWADS = ("freedoom1.wad", "freedoom2.wad", "doom.wad", "doom2.wad", "plutonia.wad", "tnt.wad")


def vizdoom_module() -> Any:
    """The ``vizdoom`` module, imported on first use with a clear message if it is missing."""
    try:
        import vizdoom
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the vizdoom game needs the vizdoom package: pip install 'evo-game-testing[vizdoom]'"
        ) from exc
    return vizdoom


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class DoomSettings:
    """The checked kwargs of one configured game, shared by the scalar and vector forms."""

    wad_path: str
    is_iwad: bool
    doom_map: str
    resolution: str
    frame_skip: int
    max_steps: int
    monsters: bool
    clock: str


def _wad_maps(path: str) -> list[str]:
    """Names of the maps in a WAD: marker lumps followed by ``THINGS`` or ``TEXTMAP``."""
    with open(path, "rb") as f:
        header = f.read(12)
        if len(header) < 12 or header[:4] not in (b"IWAD", b"PWAD"):
            raise ValueError(f"wad {path!r} is not a WAD file")
        count, offset = struct.unpack("<ii", header[4:])
        f.seek(offset)
        table = f.read(16 * count)
    names = [table[i * 16 + 8: i * 16 + 16].rstrip(b"\0").decode("ascii", "replace").upper()
             for i in range(len(table) // 16)]
    return [n for n, nxt in zip(names, names[1:]) if nxt in ("THINGS", "TEXTMAP")]


def _resolve_wad(wad: str) -> str:
    """A WAD given by path, or by name in the vizdoom package or its ``scenarios`` folder."""
    if os.path.isfile(wad):
        return os.path.abspath(wad)
    root = Path(vizdoom_module().__file__).parent
    for candidate in (root / wad, root / "scenarios" / wad):
        if candidate.is_file():
            return str(candidate)
    shipped = sorted(p.name for p in root.glob("*.wad")) + sorted(
        p.name for p in (root / "scenarios").glob("*.wad"))
    raise ValueError(f"wad {wad!r} is neither a file nor a WAD shipped with vizdoom "
                     f"({', '.join(shipped)})")


def check_settings(
    wad: str, doom_map: str, resolution: str, frame_skip: int, max_steps: int,
    monsters: bool, clock: str,
) -> DoomSettings:
    """Check the kwargs of the game and resolve the WAD.

    Raises:
        ValueError: naming the kwarg that is wrong and what it may be.
    """
    if int(frame_skip) < 1:
        raise ValueError(f"frame_skip must be at least 1 tic, got {frame_skip}")
    if int(max_steps) < 1:
        raise ValueError(f"max_steps must be positive, got {max_steps}")
    check_clock(clock)
    res = str(resolution).upper()
    if not hasattr(vizdoom_module().ScreenResolution, f"RES_{res}"):
        known = sorted(n[4:].lower() for n in dir(vizdoom_module().ScreenResolution) if n.startswith("RES_"))
        raise ValueError(f"resolution {resolution!r} is not a ViZDoom resolution "
                         f"({', '.join(known)})")
    path = _resolve_wad(str(wad))
    maps = _wad_maps(path)
    if str(doom_map).upper() not in maps:
        raise ValueError(f"doom_map {doom_map!r} is not in {os.path.basename(path)} "
                         f"(maps: {', '.join(maps) or 'none'})")
    return DoomSettings(
        wad_path=path, is_iwad=os.path.basename(path).lower() in IWADS,
        doom_map=str(doom_map).upper(), resolution=res, frame_skip=int(frame_skip),
        max_steps=int(max_steps), monsters=bool(monsters), clock=clock,
    )


def child_pids(name: str) -> set[int]:
    """Pids of this process's children whose command name is ``name`` (Linux ``/proc``)."""
    me = os.getpid()
    out: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        comm = stat[stat.find("(") + 1: stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if comm == name and int(fields[1]) == me:
            out.add(int(entry))
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) from ``/proc``: what a
    benchmark adds for the engine processes, which ``time.process_time`` does not count."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().decode().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class EngineView:
    """What a game asks of its engine: buttons, game variables and buffers, by ViZDoom's names.

    The defaults are the ``vizdoom`` game's: a grey screen with its depth buffer, five
    buttons and six variables.
    """

    buttons: tuple[str, ...] = (
        "MOVE_FORWARD", "MOVE_BACKWARD", "USE", "SPEED", "TURN_LEFT_RIGHT_DELTA")
    variables: tuple[str, ...] = (
        "POSITION_X", "POSITION_Y", "ANGLE", "VELOCITY_X", "VELOCITY_Y", "HEALTH")
    screen: str = "GRAY8"
    """A ``ScreenFormat`` name (``CRCGCB``: RGB, channels first)."""
    depth: bool = True
    labels: bool = False
    """The labels buffer: per visible thing its class name and pixel box."""
    weapon: bool = True
    """Draw the player's weapon."""
    objects: bool = False
    """Every thing of the level (class name, position) in each state."""
    window: bool = False
    """Show the game in a window that a person plays (ViZDoom's spectator mode: the engine
    reads the keyboard and mouse, the last action says what was pressed; ``evo record``)."""


def new_engine(settings: DoomSettings, *, sectors: bool = False,
               view: EngineView = EngineView()) -> Any:
    """A configured, initialised, headless ``DoomGame`` giving what ``view`` asks for."""
    vzd = vizdoom_module()
    game = vzd.DoomGame()
    # The engine is the library's child: started through the launcher, it dies with this
    # process even when this process is SIGKILLed (games/common/lifetime.py).
    engine = game.get_vizdoom_path() or str(Path(vzd.__file__).parent / "vizdoom")
    launcher = engine_launcher(engine) if os.path.isfile(engine) else None
    if launcher is not None:
        game.set_vizdoom_path(launcher)
        os.environ[OWNER] = str(os.getpid())
    if settings.is_iwad:
        game.set_doom_game_path(settings.wad_path)
    else:
        game.set_doom_scenario_path(settings.wad_path)
    game.set_doom_map(settings.doom_map)
    # ZDoom keeps its settings in an ini file, by default _vizdoom.ini in the working folder.
    game.set_doom_config_path(os.path.join(tempfile.gettempdir(), "evo_vizdoom.ini"))
    game.set_screen_resolution(getattr(vzd.ScreenResolution, f"RES_{settings.resolution}"))
    game.set_screen_format(getattr(vzd.ScreenFormat, view.screen))
    game.set_depth_buffer_enabled(view.depth)
    game.set_labels_buffer_enabled(view.labels)
    game.set_render_weapon(view.weapon)
    game.set_objects_info_enabled(view.objects)
    game.set_render_hud(False)
    game.set_render_messages(False)
    game.set_window_visible(view.window)
    game.set_sound_enabled(False)
    game.set_mode(vzd.Mode.SPECTATOR if view.window else vzd.Mode.PLAYER)
    game.set_episode_timeout(0)  # the horizon is max_steps, counted here
    game.set_episode_start_time(1)
    game.set_living_reward(0.0)
    game.set_map_exit_reward(EXIT_REWARD)
    game.set_doom_skill(3)
    game.set_available_buttons([getattr(vzd.Button, b) for b in view.buttons])
    game.set_available_game_variables([getattr(vzd.GameVariable, v) for v in view.variables])
    game.set_sectors_info_enabled(sectors)
    if not settings.monsters:
        game.add_game_args("-nomonsters")
    game.init()
    return game

