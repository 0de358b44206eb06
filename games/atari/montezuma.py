"""Montezuma's Revenge on bare ALE: a hard-exploration game nobody here wrote.

Go-Explore (Ecoffet et al., "First return, then explore", Nature 2021) made this game its
benchmark: rewards are sparse and a room's exit is dozens of careful moves away, so play
that starts at the spawn point every episode rarely leaves the first room. Here it is a
vector game with Go-Explore's domain-knowledge cells as its state features, read from the
console's RAM (the addresses Go-Explore and the Atari RAM annotations use):

- ``x`` (RAM 42) and ``y`` (RAM 43): Panama Joe's position on the screen; x spans about
  0..160, y about 128..256 (235 at the start, larger is higher up). Cut into 16-pixel cells:
  10 x 8.
- ``room`` (RAM 3): the room of the pyramid's 24 (the game starts in room 1).
- ``level`` (RAM 57): the pyramid's level, 0 at the start.
- ``items`` (RAM 65): how many items (keys, sword, torch, amulet) the inventory holds, the
  count of set bits of that byte.

That is 10 x 8 x 24 x 3 x 9 = 51,840 buckets, dense keys. Coverage maps draw x and y.

Episodes: the minimal action set (all 18 Atari actions), each held for ``frameskip`` frames
(4, as in Go-Explore and DQN); reward the score gained; terminated at game over (all six
lives lost), truncated after ``max_steps`` agent steps. Sticky actions are off by default
(``repeat_action_probability=0``), so the emulator is deterministic: ``reset`` restores a
snapshot taken once after the ROM's own reset and plays 0..``noop_max`` NOOP frames drawn
from the seed (0 by default: every episode starts in the same state, as Go-Explore's did),
and an episode replays exactly from its seed and actions. With ``sticky=0.25`` (Machado et al.,
2018; Gymnasium's ``ALE/...-v5``) each frame repeats the previous action with that chance,
drawn from the emulator's own generator, which neither ``reset`` nor a snapshot restores: the
same seed and actions no longer replay, as in a game whose inputs or physics do not.
With ``terminal_on_life_loss`` (Gymnasium's ``AtariPreprocessing`` name) an episode ends at its
first life lost, as Go-Explore's exploration did: a cell is then never archived on a way that
cost lives, and no exploration plays on through a death.
Observations: the 128 RAM bytes, uint8 (a quarter of the memory in the record; agents see
them as float32 0..255).

The game has no injected bugs: what a run finds here is measured as rooms reached.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.core import snapshots
from games.core.base import GameSpec, VecStep
from games.core.scalar_env import VectorEnv

from games.atari.emulator import ALEInterface, deterministic_ale

RAM_ROOM, RAM_X, RAM_Y, RAM_LEVEL, RAM_LIVES, RAM_ITEMS = 3, 42, 43, 57, 58, 65
FEATURES = ("x", "y", "room", "level", "items")
FEATURE_LOW = (0.0, 128.0, 0.0, 0.0, 0.0)
FEATURE_HIGH = (160.0, 256.0, 24.0, 3.0, 9.0)
FEATURE_BINS = (10, 8, 24, 3, 9)  # 16-pixel cells; one bucket per room, level and item count
ROOMS = 24
FRAMESKIP = 4
MAX_STEPS = 1000
"""Agent steps per episode: random play loses its six lives in about 570."""

_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.float64)


def features_of(ram: np.ndarray) -> np.ndarray:
    """``[N, 5]`` float64 state features (x, y, room, level, items) of ``ram [N, 128]``."""
    out = np.empty((ram.shape[0], len(FEATURES)), dtype=np.float64)
    out[:, 0] = ram[:, RAM_X]
    out[:, 1] = ram[:, RAM_Y]
    out[:, 2] = ram[:, RAM_ROOM]
    out[:, 3] = ram[:, RAM_LEVEL]
    out[:, 4] = _POPCOUNT[ram[:, RAM_ITEMS]]
    return out


def _new_ale(sticky: float = 0.0) -> tuple[ALEInterface, Any]:
    """An ALE with the ROM loaded once, and the snapshot every ``reset`` restores."""
    ale = deterministic_ale("montezuma_revenge", sticky)
    return ale, ale.cloneState()


class MontezumaVector:
    """``num_envs`` copies of Montezuma's Revenge, one ALE each, stepped in a loop.

    Args:
        num_envs: Number of copies.
        max_steps: Episode horizon in agent steps (truncation).
        frameskip: Frames per agent step, the action held; rewards are summed.
        noop_max: Most NOOP frames played at reset (drawn from the seed).
        sticky: Chance that a frame repeats the previous action (ALE's
            ``repeat_action_probability``; 0.25 in Machado et al.'s protocol): episodes no
            longer replay.
        terminal_on_life_loss: End an episode at the first life it loses (not only at game over).
    """

    def __init__(self, num_envs: int, *, max_steps: int = MAX_STEPS, frameskip: int = FRAMESKIP,
                 noop_max: int = 0, sticky: float = 0.0, terminal_on_life_loss: bool = False) -> None:
        for name, value, least in (("num_envs", num_envs, 1), ("max_steps", max_steps, 1),
                                   ("frameskip", frameskip, 1), ("noop_max", noop_max, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")
        self.num_envs, self.frameskip, self.noop_max = int(num_envs), int(frameskip), int(noop_max)
        if isinstance(sticky, bool) or not isinstance(sticky, (int, float)) or not 0.0 <= sticky < 1.0:
            raise ValueError(f"sticky must be a chance from 0 up to (not including) 1, got {sticky!r}")
        if not isinstance(terminal_on_life_loss, bool):
            raise ValueError(f"terminal_on_life_loss must be true or false, got {terminal_on_life_loss!r}")
        self.terminal_on_life_loss = terminal_on_life_loss
        made = [_new_ale(float(sticky)) for _ in range(self.num_envs)]
        self.ales = [ale for ale, _ in made]
        self._snapshots = [state for _, state in made]
        self._codes = list(self.ales[0].getMinimalActionSet())
        self.game_spec = GameSpec(
            obs_shape=(128,), n_actions=len(self._codes), feature_names=FEATURES,
            feature_low=FEATURE_LOW, feature_high=FEATURE_HIGH, feature_bins=FEATURE_BINS,
            max_steps=int(max_steps), obs_dtype="uint8",
        )
        n = self.num_envs
        self._ram = np.zeros((n, 128), dtype=np.uint8)
        self._steps = np.zeros(n, dtype=np.int64)
        self._since = np.zeros(n, dtype=np.int64)
        """Steps each copy played since its reset or restore: a snapshot after every ``_every``."""
        self._every = 0
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._lives = np.zeros(n, dtype=np.int64)
        """Lives each copy had when its episode started (or its snapshot was restored)."""

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Restore the start and play the seed's NOOP frames in every copy."""
        return self.reset_from(seeds)

    def reset_from(self, seeds: Sequence[int], starts: Sequence[bytes | None] | None = None,
                   offsets: Sequence[int] | None = None, every: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Start every copy from the reset of its seed, or from the emulator state ``starts[i]``
        (a snapshot these copies sent, ``offsets[i]`` steps after its reset: the horizon still
        counts from the reset). With ``every``, each copy sends the emulator's state after every
        ``every`` steps it plays from here (:attr:`VecStep.snapshots`): ALE's ``cloneState``,
        4 KB compressed, 0.15 ms to take."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        for i, seed in enumerate(seeds):
            ale = self.ales[i]
            start = None if starts is None else starts[i]
            if start is not None:
                ale.restoreState(snapshots.load(start))
            else:
                ale.restoreState(self._snapshots[i])
                for _ in range(int(np.random.default_rng(int(seed)).integers(0, self.noop_max + 1))):
                    ale.act(self._codes[0])
            ale.getRAM(self._ram[i])
            self._lives[i] = ale.lives()
        self._steps[:] = 0 if offsets is None else np.asarray(offsets, dtype=np.int64)
        self._since.fill(0)
        self._every = int(every)
        self._terminated.fill(False)
        self._truncated.fill(False)
        return self._ram.copy(), features_of(self._ram)

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing by ``frameskip`` frames of its action."""
        acts = np.asarray(actions, dtype=np.int64)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {acts.shape}")
        if acts.size and (acts.min() < 0 or acts.max() >= len(self._codes)):
            raise ValueError(f"actions must be in 0..{len(self._codes) - 1}, got {acts.tolist()}")
        active = ~(self._terminated | self._truncated)
        reward = np.zeros(self.num_envs, dtype=np.float64)
        for i in np.flatnonzero(active).tolist():
            ale, code = self.ales[i], self._codes[int(acts[i])]
            score = 0
            for _ in range(self.frameskip):
                score += ale.act(code)
            ale.getRAM(self._ram[i])
            reward[i] = score
            self._terminated[i] = ale.game_over() or (self.terminal_on_life_loss and ale.lives() < self._lives[i])
        self._steps += active
        self._since += active
        self._truncated |= active & ~self._terminated & (self._steps >= self.game_spec.max_steps)
        taken = {}
        if self._every:
            due = active & ~(self._terminated | self._truncated) & (self._since % self._every == 0)
            taken = {i: snapshots.take(self.ales[i].cloneState()) for i in np.flatnonzero(due).tolist()}
        return VecStep(
            obs=self._ram.copy(), reward=reward, terminated=self._terminated.copy(),
            truncated=self._truncated.copy(), features=features_of(self._ram), snapshots=taken,
        )

    def close(self) -> None:
        """Let go of the emulators (ALE frees them when they are collected)."""
        self.ales.clear()
        self._snapshots.clear()


class Montezuma(VectorEnv):
    """Montezuma's Revenge as a ``gymnasium.Env`` (one copy of :class:`MontezumaVector`).

    Observation: the 128 RAM bytes (values 0..255). State features: x, y, room, level and
    items held, read from the RAM (see the module docstring).

    Args:
        max_steps: Episode horizon in agent steps (truncation).
        frameskip: Frames per agent step, the action held; rewards are summed.
        noop_max: Most NOOP frames played at reset (drawn from the seed).
        sticky: Chance that a frame repeats the previous action (see :class:`MontezumaVector`).
        terminal_on_life_loss: End an episode at the first life it loses.
    """

    def __init__(self, max_steps: int = MAX_STEPS, frameskip: int = FRAMESKIP, noop_max: int = 0,
                 sticky: float = 0.0, terminal_on_life_loss: bool = False) -> None:
        game = MontezumaVector(1, max_steps=max_steps, frameskip=frameskip, noop_max=noop_max, sticky=sticky,
                               terminal_on_life_loss=terminal_on_life_loss)
        super().__init__(game, low=0.0, high=255.0)
        self.ale = game.ales[0]
