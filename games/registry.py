"""Find games by name, by ``"module:Class"`` entry point, by Gymnasium id, or by plugin.

The Gymnasium way: entry points are strings resolved lazily, so registering a game costs
nothing until it is played. Installed packages add games through the ``evo.games``
entry-point group (``name = "package.module:Class"``).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable

import gymnasium as gym

from games.adapter.action_grid import DEFAULT_LEVELS, discrete_actions
from games.common.registry import Registry
from games.core.base import GameSpec, VectorGame
from games.core.wrappers import wrap
from games.gym_ids import GymIdNotFound, resolve_gym_id


class GameNotFound(LookupError):
    """A game name, entry point or Gymnasium id that resolves to nothing."""


@dataclass(frozen=True)
class GameEntry:
    """A registered game: its scalar ``gymnasium.Env`` and, optionally, a numpy vector form.

    ``vector_entry_point`` names a class called as ``cls(num_envs=N, **kwargs)`` that
    implements :class:`games.core.base.VectorGame` with the same kwargs as the scalar game.
    ``perception_data`` names what the game lends the training of the perception models and
    their demonstrations (:class:`games.perception.training.data.GameData`), for a game whose
    frames they learn from.
    """

    name: str
    entry_point: str
    vector_entry_point: str | None = None
    perception_data: str | None = None


GAMES: Registry[GameEntry] = Registry("game", "evo.games", resolve=GameEntry, error=GameNotFound)
"""Games by the name a YAML gives them (``game: {name: <name>}``); installed packages add theirs
through the ``evo.games`` entry-point group (``name = "package.module:Class"``), kept as strings
until the game is made."""


def register(name: str, entry_point: str, vector_entry_point: str | None = None,
             perception_data: str | None = None) -> None:
    """Make a game available to YAMLs as ``game: {name: <name>}``."""
    GAMES.add(name, GameEntry(name, entry_point, vector_entry_point, perception_data))


def registered() -> list[str]:
    """Names of the registered games, plugins included."""
    return GAMES.names()


def load_entry_point(entry_point: str) -> Callable[..., Any]:
    """Import ``"package.module:Attr"`` and return the attribute."""
    if ":" not in entry_point:
        raise GameNotFound(f"entry_point {entry_point!r} is not of the form 'package.module:Class'")
    module_name, attr = entry_point.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise GameNotFound(f"entry_point {entry_point!r}: cannot import {module_name!r} ({exc})") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise GameNotFound(f"entry_point {entry_point!r}: {module_name!r} has no {attr!r}") from exc


@dataclass(frozen=True)
class GameFactory:
    """Makes scalar and vector instances of one configured game.

    Exactly one of ``name``, ``entry_point`` and ``gym_id`` is set (the YAML's choice).
    """

    name: str | None = None
    entry_point: str | None = None
    gym_id: str | None = None
    kwargs: tuple[tuple[str, Any], ...] = ()
    step_timeout_s: float | None = None
    step_timeout_learned: bool = False
    """With ``step_timeout_s``: the wait is learned from the game's steps, ``step_timeout_s``
    only until then (``game.step_timeout_s`` not set; :mod:`games.adapter.step_waits`)."""
    max_rss_mb: float | None = None
    """With ``step_timeout_s``: the resident memory a copy's process may hold (MiB)."""
    start_timeout_s: float | None = None
    """With ``step_timeout_s``: the seconds each copy's process has to make its game
    (``game.start_timeout_s``); None: :data:`games.adapter.process_runner.START_TIMEOUT_S`."""
    wrappers: tuple = ()
    info_keys: tuple[str, ...] = ()
    """Keys of a Gymnasium game's ``info`` to hand on as :attr:`games.core.base.VecStep.info`
    (what the record's ``info.<name>`` columns ask for); numpy vector games give theirs."""
    render_processes: int = 0
    """Processes the copies of one vector game render in (:class:`games.core.render_processes.
    RenderProcesses`); the wrappers then run in the caller over all of them at once. 0: the
    copies render in the caller's process."""
    action_levels: int = DEFAULT_LEVELS
    """Values per dimension of a game whose actions are a bounded ``Box``: the grid it is played
    through (:mod:`games.adapter.action_grid`); a ``Discrete`` game ignores it."""
    known_spec: GameSpec | None = None
    """A Gymnasium game's spec as the engine learned it (the cells of features it declares
    no bounds for): every copy, in every worker, takes it instead of deriving its own."""

    @property
    def label(self) -> str:
        if self.gym_id is not None:  # as the user wrote it, without the module it is played from
            return self.gym_id.rpartition(":")[2]
        return self.name or self.entry_point or "?"

    def _entry(self) -> GameEntry | None:
        if self.name is None:
            return None
        try:
            return GAMES[self.name]
        except GameNotFound as exc:
            raise GameNotFound(f"game.name: {exc}") from None

    def validate(self) -> None:
        """Fail early, with a message naming the key, if the game or its kwargs are wrong."""
        entry = self._entry()
        if self.gym_id is not None:
            try:
                resolve_gym_id(self.gym_id)
            except GymIdNotFound as exc:
                raise GameNotFound(str(exc)) from None
            return
        target = load_entry_point(entry.entry_point if entry else self.entry_point)  # type: ignore[arg-type]
        try:
            inspect.signature(target).bind(**dict(self.kwargs))
        except TypeError as exc:
            raise GameNotFound(f"game.kwargs do not fit {self.label}: {exc}") from exc

    def played(self) -> str:
        """What makes the game itself, for telling whether two agents play the same game:
        the factory without the kwargs its class lists in ``observation_kwargs`` (what the
        agent sees, such as MsPacman's ``obs_type``, not what it plays). Agents that play
        from RAM and from pixels are compared on one game; a different bug cost is another
        game."""
        if self.gym_id is not None:
            cls = None
        else:
            entry = self._entry()
            cls = load_entry_point(entry.entry_point if entry else self.entry_point)  # type: ignore[arg-type]
        seen = set(getattr(cls, "observation_kwargs", ()))
        kwargs = tuple((k, v) for k, v in self.kwargs if k not in seen)
        return repr(GameFactory(self.name, self.entry_point, self.gym_id, kwargs))

    def make_env(self) -> gym.Env:
        """A fresh scalar instance (check_env, the Gymnasium fallback, plans)."""
        kwargs = dict(self.kwargs)
        if self.gym_id is not None:
            return discrete_actions(gym.make(resolve_gym_id(self.gym_id), **kwargs), self.action_levels, self.label)
        entry = self._entry()
        cls = load_entry_point(entry.entry_point if entry else self.entry_point)  # type: ignore[arg-type]
        return discrete_actions(cls(**kwargs), self.action_levels, self.label)

    def has_vector_form(self) -> bool:
        """The game has a numpy vector form of its own (the project's games); any other is
        played through the Gymnasium adapter, one env per copy. A name that is not
        registered has none (:meth:`validate` says so)."""
        try:
            entry = self._entry()
        except GameNotFound:
            return False
        return entry is not None and entry.vector_entry_point is not None

    def make_vector(self, num_envs: int) -> VectorGame:
        """``num_envs`` copies stepped together: the game's numpy form when it has one; with
        ``render_processes``, rendered in that many processes and wrapped here."""
        if self.render_processes >= 1:  # one copy too: lanes must not share this process's engines
            from games.core.render_processes import RenderProcesses

            bare = dataclasses.replace(self, wrappers=(), render_processes=0)
            return wrap(RenderProcesses(bare.make_vector, num_envs, self.render_processes), self.wrappers)
        entry = self._entry()
        if entry is not None and entry.vector_entry_point is not None:
            cls = load_entry_point(entry.vector_entry_point)
            return wrap(cls(num_envs=num_envs, **dict(self.kwargs)), self.wrappers)
        from games.core.start_error import GameStartError
        from games.adapter.vector_game import GymVectorGame

        # Resolve a name to its entry point here: worker processes of the isolated mode do
        # not see games registered at run time in this process.
        target = self if entry is None else GameFactory(
            entry_point=entry.entry_point, kwargs=self.kwargs, step_timeout_s=self.step_timeout_s,
            start_timeout_s=self.start_timeout_s, action_levels=self.action_levels,
        )
        try:
            game = GymVectorGame(target.make_env, num_envs, step_timeout_s=self.step_timeout_s,
                                 info_keys=self.info_keys, max_rss_mb=self.max_rss_mb, spec=self.known_spec,
                                 start_timeout_s=self.start_timeout_s, learn_timeout=self.step_timeout_learned)
        except GameStartError as exc:  # named as the user named it, not by its entry point
            raise exc.with_game(self.label) from None
        return wrap(game, self.wrappers)

    def rendering(self) -> "GameFactory":
        """The same game made to draw frames, for replay videos.

        A game played through the Gymnasium adapter (no numpy vector form) gets
        ``render_mode="rgb_array"`` when its env lists that mode and the kwargs choose no
        other; a game with a vector form draws through its ``render_frames`` (or not at all)
        and is returned as it is. Rendering changes what is drawn, never what is played.
        """
        entry = self._entry()
        if (entry is not None and entry.vector_entry_point is not None) or "render_mode" in dict(self.kwargs):
            return self
        env = self.make_env()
        try:
            modes = env.metadata.get("render_modes", [])
        finally:
            env.close()
        if "rgb_array" not in modes:
            return self
        return dataclasses.replace(self, kwargs=(*self.kwargs, ("render_mode", "rgb_array")))

    def spec(self) -> GameSpec:
        """The game's :class:`GameSpec`, read from a single-copy vector instance."""
        game = self.make_vector(1)
        try:
            return game.game_spec
        finally:
            game.close()
