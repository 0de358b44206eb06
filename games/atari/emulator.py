"""MsPacman's emulator: one ALE per copy, the post-intro snapshot, and its screen downsampled.

The game runs on ``ale_py.ALEInterface`` directly, not through ``gymnasium.make``:
Gymnasium's ``ALE/MsPacman-v5`` reloads the ROM on every seeded ``reset`` (about 85 ms, as
much as 1,300 emulated frames), which kept 56% of the raw frame rate in our benchmark. Each
ALE instance here loads the ROM once; ``reset`` restores a snapshot taken once, after the
game's intro. With sticky actions off (``repeat_action_probability=0``) the emulator is
deterministic given the actions, and a restored snapshot plays exactly as a freshly reset
game does (the tests check both), so every episode replays exactly from its seed and actions.

The screen an ``obs_type="frames"`` agent sees is DQN's (Mnih et al. 2015), downsampled for
a CPU budget (:func:`pool_screens`):

- ALE's grayscale screen (``getScreenGrayscale``, 210 x 160) of the step's last frame,
  max-ed with the frame before it, as DQN does: the game draws only two or three of the four
  ghosts on any one frame (the others flicker). Over 1,213 random-play steps a single frame
  showed 2.3 ghosts on average, the max of two frames 3.2 (all four in 51% of the steps).
- Rows 3..194, max-pooled over 4 x 4 blocks: 48 x 40 pixels (:data:`FRAME_SHAPE`). The rows
  kept hold the maze below its top border (rows 3..171), the lives and the fruit (173..182)
  and the score (187..193); rows 0..2 (the border) and 195..209 (blank) are dropped. The
  150 dots are 4 px wide and 2 high, starting on columns 0 mod 4 and rows 3 mod 4: from row
  3 on, each lies inside one block, so a dot is one pixel that goes dark when it is eaten (max-pooled, a dot
  is as bright as a wall: it is the isolated bright pixel in a corridor). Every sprite keeps
  its own gray level: over 1,051 steps of random play Pac-Man's (167) was in the pooled
  frame whenever he was on screen, each ghost's (110, 131, 132, 151) in 96-100% of the
  frames it was on screen (a wall or a brighter sprite in the same block hides the rest).
  Pooling a screen costs about 4 us, grabbing it about 10 us.

``restoreState`` does not restore the screen: every ALE keeps the two frames of its
snapshot, and a reset with fewer than two no-op frames takes the missing ones from there.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from games.atari.mspacman_ram import SCREEN_WIDTH

try:
    from ale_py import ALEInterface, LoggerMode, roms
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("the Atari games (mspacman_perf, montezuma) need ale-py: pip install -e '.[atari]'") from exc

# ALE codes of the agent's actions NOOP, UP, RIGHT, LEFT, DOWN.
ALE_ACTIONS = np.array([0, 2, 3, 4, 5], dtype=np.int64)
# Frames after reset_game() in which the game ignores the joystick (the first input that
# changes anything is read on frame 265; with NOOP Pac-Man sets off left by himself).
INTRO_FRAMES = 264

# ``obs_type="frames"`` (see the module docstring): rows 3..194 of the 210 x 160 screen,
# max-pooled over 4 x 4 blocks, so that every dot falls inside one block.
SCREEN_SHAPE = (210, SCREEN_WIDTH)
FRAME_TOP = 3
FRAME_SHAPE = (48, 40)


class Start(NamedTuple):
    """Where every ``reset`` of one ALE starts.

    Attributes:
        state: ``cloneState()`` after the intro.
        screens: ``[2, 210, 160]`` uint8 grayscale frames before and at the snapshot, which
            ``restoreState`` does not bring back (it leaves the screen as it was).
    """

    state: Any
    screens: np.ndarray


def deterministic_ale(rom: str, sticky: float = 0.0) -> ALEInterface:
    """An ALE with ``rom`` loaded and reset, sticky actions off (the emulator is then
    deterministic given the actions), one frame per ``act`` and no frame cap (the game's
    ``max_steps`` is the horizon). Montezuma's Revenge uses it too, with ``sticky`` (ALE's
    ``repeat_action_probability``) where it is asked to be a game that does not replay."""
    path = roms.get_rom_path(rom)
    if path is None:  # pragma: no cover - the ROMs ship in ale-py's wheel
        raise FileNotFoundError(f"ale-py has no {rom} ROM (ale_py.roms.get_rom_path)")
    ALEInterface.setLoggerMode(LoggerMode.Error)
    ale = ALEInterface()
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", float(sticky))
    ale.setInt("frame_skip", 1)
    ale.setInt("max_num_frames_per_episode", 0)
    ale.loadROM(str(path))
    ale.reset_game()
    return ale


def new_ale(skip_intro: bool) -> tuple[ALEInterface, Start]:
    """An ALE with the ROM loaded (once) and the snapshot every ``reset`` starts from."""
    ale = deterministic_ale("ms_pacman")
    screens = np.zeros((2, *SCREEN_SHAPE), dtype=np.uint8)
    ale.getScreenGrayscale(screens[1])
    for _ in range(INTRO_FRAMES if skip_intro else 0):
        screens[0] = screens[1]
        ale.act(0)
        ale.getScreenGrayscale(screens[1])
    return ale, Start(ale.cloneState(), screens)



def start_episode(
    ale: ALEInterface, start: Start, noops: int, ram: np.ndarray, screens: np.ndarray | None = None
) -> None:
    """Restore the post-intro snapshot, play ``noops`` NOOP frames, read the RAM into ``ram``
    and, given ``screens [2, 210, 160]``, the last two frames (the snapshot's own frames
    stand in for those not played)."""
    ale.restoreState(start.state)
    for k in range(noops):
        ale.act(0)
        if screens is not None and k >= noops - 2:
            ale.getScreenGrayscale(screens[k - noops + 2])
    ale.getRAM(ram)
    if screens is not None and noops < 2:
        screens[: 2 - noops] = start.screens[noops:]


def act(ale: ALEInterface, code: int, frameskip: int, screens: np.ndarray | None = None) -> int:
    """Hold ALE action ``code`` for ``frameskip`` frames; return the score gained. Given
    ``screens [2, 210, 160]``, grab the step's last two frames into it (with one frame per
    step, the one before is the previous step's)."""
    score = 0
    for _ in range(frameskip - 1):
        score += ale.act(code)
    if screens is not None:
        if frameskip > 1:
            ale.getScreenGrayscale(screens[0])
        else:
            screens[0] = screens[1]
    score += ale.act(code)
    if screens is not None:
        ale.getScreenGrayscale(screens[1])
    return score


def pool_screens(screens: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``[N, 48, 40]`` uint8: the max of each copy's two frames ``screens [N, 2, 210, 160]``
    over 4 x 4 blocks of rows 3..194 (see the module docstring)."""
    kept = slice(FRAME_TOP, FRAME_TOP + 4 * FRAME_SHAPE[0])
    m = np.maximum(screens[:, 0, kept], screens[:, 1, kept])
    # 4 x 4 blocks as strided maxima: 40x faster than reshape(...).max(axis=(2, 4)) here.
    m = np.maximum(np.maximum(m[:, 0::4], m[:, 1::4]), np.maximum(m[:, 2::4], m[:, 3::4]))
    return np.maximum(
        np.maximum(m[:, :, 0::4], m[:, :, 1::4]), np.maximum(m[:, :, 2::4], m[:, :, 3::4]), out=out
    )
