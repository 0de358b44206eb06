"""What the engine reads of a Gymnasium game, looked up through its wrapper chain.

A ``gymnasium.Wrapper`` is the natural way to plug in a game someone else wrote: around
MiniGrid or highway-env, a user adds ``state_features``, ``game_spec``, ``injected_bugs`` and
``match`` without touching the package. Gymnasium 1.x wrappers forward no attributes, and
``env.unwrapped`` is the package's own env, which has none of them. So every optional part of
the game contract is read as Gymnasium's ``get_wrapper_attr`` reads it: the outermost wrapper
that has it, else the next one in, down to the game itself.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WrappedGame", "game_attr"]

_MISSING = object()


def game_attr(env: Any, name: str, default: Any = None) -> Any:
    """``env``'s attribute ``name`` from the outermost wrapper that has it; ``default`` where
    none does (an object that is no Gymnasium env is read as it is)."""
    lookup = getattr(env, "get_wrapper_attr", None)
    if lookup is None:
        return getattr(env, name, default)
    try:
        return lookup(name)
    except AttributeError:
        return default


class WrappedGame:
    """A game as its wrapper chain presents it: attributes outermost first
    (:func:`game_attr`), for code that duck-types a game (``hasattr(game, "match")``)."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def __getattr__(self, name: str) -> Any:
        if name == "env":  # not set yet (copy, pickle): no recursion through game_attr
            raise AttributeError(name)
        value = game_attr(self.env, name, _MISSING)
        if value is _MISSING:
            raise AttributeError(f"{type(self.env).__name__} (and its wrappers) has no attribute {name!r}")
        return value
