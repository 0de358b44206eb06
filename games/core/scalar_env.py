"""The scalar ``gymnasium.Env`` of a game, derived from its vector form.

A game's rules are written once, in its :class:`games.core.base.VectorGame` (N copies stepped in
one call). :class:`VectorEnv` plays one copy of it through the Gymnasium API, so the scalar
game (check_env, plans, the Gymnasium fallback of unregistered games) cannot drift from what
the engine plays. A built-in game's scalar class is a subclass that only builds its vector
form from the same kwargs and says what its observation space is.
"""

from __future__ import annotations

import builtins
import contextlib
from types import FunctionType
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from games.core.base import GameError, GameSpec, VectorGame
from games.common.seeds import EPISODE_SEED_MAX


class GameCrash(RuntimeError):
    """A vector game's step raised something other than an ``AssertionError`` (a crash) whose
    type is not a built-in exception. ``error`` keeps what the vector game recorded."""

    def __init__(self, error: GameError) -> None:
        super().__init__(f"{error.type}: {error.message}")
        self.error = error


def _raise(exc: BaseException) -> None:
    raise exc


def _raise_where(exc: BaseException, where: str) -> None:
    """Raise ``exc`` from a frame named as ``where`` (``file:function:line``) says.

    The vector game recorded the innermost frame of the original exception; raising the
    copy from a frame with the same name keeps :meth:`GameError.from_exception` of the
    scalar form's exception equal to the vector form's record, so a crash oracle gives a
    bug the same signature whichever form the engine played.
    """
    parts = where.rsplit(":", 2)
    if len(parts) != 3 or not parts[2].isdigit():
        raise exc
    file, function, line = parts
    code = _raise.__code__.replace(
        co_filename=file, co_name=function, co_qualname=function,
        co_firstlineno=max(1, int(line) - 1),  # the raise is one line below the def
    )
    FunctionType(code, {})(exc)


def raise_again(error: GameError) -> None:
    """Raise the exception a vector game recorded for a copy, in the scalar form.

    An ``AssertionError`` stays an ``AssertionError`` (a fatal logic error); a built-in
    exception (``RuntimeError``, ``ValueError``...) is raised as its own type with its own
    message; anything else as :class:`GameCrash`. Either way from the frame the vector game
    recorded (:func:`_raise_where`).
    """
    cls = getattr(builtins, error.type, None)
    exc: Exception = GameCrash(error)
    if isinstance(cls, type) and issubclass(cls, Exception):
        with contextlib.suppress(TypeError):  # a built-in whose constructor wants more
            exc = cls(error.message)
    _raise_where(exc, error.where)


class VectorEnv(gym.Env):
    """One copy of a :class:`VectorGame` as a ``gymnasium.Env``.

    ``reset(seed=s)`` resets the copy with seed ``s`` (with no seed, one drawn from the env's
    ``np_random``), so the scalar and vector forms play the same episode for the same seed
    and actions. ``step`` returns the copy's row of the :class:`games.core.base.VecStep`, with
    ``info["violations"]`` (the broken invariants it reported, usually none); an error the
    vector game recorded is raised again (:func:`raise_again`).

    ``info`` holds no measured frame time: two identical steps would then differ, which
    Gymnasium's determinism check (``check_env``) rejects. The copy's own measurement of its
    last step is :attr:`last_frame_ms`; an engine that plays the scalar form times ``step``.

    What the vector game offers beyond the protocol is offered here too, where it has it:
    ``injected_bugs``, ``match``, ``render_map`` and ``scene``.

    Args:
        game: A single-copy vector game (``num_envs == 1``); this env owns and closes it.
        observation_space: The space of one observation; by default a float32 ``Box`` of
            ``game_spec.obs_shape`` bounded by ``low`` and ``high``.
        low: Lower bound of the default observation space.
        high: Upper bound of the default observation space.
        render_mode: Kept for Gymnasium; subclasses that render override :meth:`render`.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        game: VectorGame,
        observation_space: gym.spaces.Space | None = None,
        *,
        low: float | np.ndarray = -np.inf,
        high: float | np.ndarray = np.inf,
        render_mode: str | None = None,
    ) -> None:
        if game.num_envs != 1:
            raise ValueError(f"VectorEnv plays one copy; the game has {game.num_envs}")
        modes = self.metadata.get("render_modes", [])
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, {modes}")
        self.game = game
        self.game_spec: GameSpec = game.game_spec
        self.render_mode = render_mode
        spec = game.game_spec
        self.observation_space = observation_space or gym.spaces.Box(
            low, high, shape=spec.obs_shape, dtype=np.float32
        )
        self.action_space = gym.spaces.Discrete(spec.n_actions)
        for name in ("injected_bugs", "match", "render_map", "scene"):
            if hasattr(game, name):
                setattr(self, name, getattr(game, name))
        self._features = np.zeros(spec.n_features, dtype=np.float64)
        self.last_frame_ms = 0.0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(EPISODE_SEED_MAX))
        obs, features = self.game.reset([int(seed)])
        self._features = np.array(features[0], dtype=np.float64)
        self.last_frame_ms = 0.0
        return np.array(obs[0], dtype=self.observation_space.dtype), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step the copy with ``action``.

        Raises:
            AssertionError: the game's step failed an assertion (a fatal logic error).
            Exception: the game's step crashed (see :func:`raise_again`).
        """
        out = self.game.step(np.array([int(action)], dtype=np.int64))
        if 0 in out.errors:
            raise_again(out.errors[0])
        self._features = np.array(out.features[0], dtype=np.float64)
        if out.frame_ms is not None:
            self.last_frame_ms = float(out.frame_ms[0])
        info: dict[str, Any] = {key: values[0] for key, values in out.info.items()}
        info["violations"] = list(out.violations.get(0, []))
        return (
            np.array(out.obs[0], dtype=self.observation_space.dtype),
            float(out.reward[0]),
            bool(out.terminated[0]),
            bool(out.truncated[0]),
            info,
        )

    def state_features(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The state features of the last ``reset`` or ``step`` (the state ``obs`` shows when
        called right after either, as the engine does), from the vector game."""
        return self._features.copy()

    def close(self) -> None:
        """Close the vector game (safe to call twice)."""
        game = self.__dict__.pop("game", None)
        if game is not None:
            game.close()
