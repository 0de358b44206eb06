"""What a game offers so that plans can run on it: a navigator's routes to actors and places,
manoeuvres at an actor, and the moves of the grid games (the dungeon's and the park's forms
implement :class:`Navigator`; :mod:`evo.plans` reads it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, Union, runtime_checkable

import numpy as np


Target = Union[str, tuple[int, int]]
"""Where a plan agent goes: an actor's name (``ogre_2``), an actor type (``ogre``), a category
of types (``enemy``), or a place ``(x, y)`` in the units of the game's map."""


@dataclass(frozen=True)
class Route:
    """A navigator's shortest way to a target (``navigate``, plans): its actions (empty when
    already there) and the actor it leads to (None for a place)."""

    actions: tuple[int, ...]
    actor: str | None


@runtime_checkable
class Navigator(Protocol):
    """What a game offers so that plans can run on it (the dungeon's vector form does).

    Attributes:
        action_names: Name of each action, by index (a plan names actions).
        actor_names: Every actor's name; an actor's type is its name without the number.
        actor_types: Every actor type.
        categories: Words naming several types (``enemy``).
        removal_events: Event kinds after which the actor they name is gone (killed,
            collected): the agent stops navigating to it.

    Optional (read with ``getattr``): ``idle_action``, the action a copy plays while it waits or once
    done, for a game with no ``wait`` action (the park's 9 all move something); by default ``wait``,
    else action 0. ``manoeuvres``, names of movements a node may do at its actor over several steps
    (the park's ``circle``), with ``manoeuvre(name, actor)`` making a new :class:`Manoeuvre`.
    ``step_seconds``, the game time one step stands for, for a plan's time budget ("for two
    minutes"). ``action_targets``: an action -> the actor types it acts on ("hit the switch" works it).
    ``leap(features, target, *, action, tolerance, gone)``: like ``route``, a way that also crosses
    what a walk cannot (the dungeon's jumps over lava), which a plan's own step takes where
    ``route`` finds none (a rule never does). ``why_no_way`` (same arguments): what stands in
    the way when there is none ("the door is shut"), for the failure's words.
    """

    action_names: Sequence[str]
    actor_names: Sequence[str]
    actor_types: Sequence[str]
    categories: dict[str, Sequence[str]]
    removal_events: Sequence[str]

    def route(self, features: np.ndarray, target: Target, *, action: str | None = None,
              tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> Route | None:
        """A shortest way from the state ``features`` to ``target``; None when there is none."""
        ...

    def nearest(self, features: np.ndarray, targets: Sequence[Target], within: int,
                gone: frozenset[str] = frozenset()) -> Route | None:
        """The shortest way to any of ``targets`` within ``within`` moves, or None."""
        ...

    def straight(self, features: np.ndarray, location: tuple[int, int]) -> int:
        """The move along the longer axis towards ``location``, without path finding (what a
        node with ``movement: straight`` plays: a recorded path the shortest one misses)."""
        ...


class Manoeuvre(Protocol):
    """A movement done at an actor over several steps (circling it), made for one node;
    ``failure`` says why it stopped short, once :meth:`step` answers None without finishing."""

    failure: str | None

    def step(self, features: np.ndarray) -> int | None: ...  # the action now; None: done


def straight_move(dx: float, dy: float) -> int:
    """The move along the longer axis towards a place ``dx, dy`` away (x: east positive, y:
    south positive): 0-3 = north, south, east, west, the order of both grid games' moves.
    A recorded path that the shortest one does not follow is replayed this way."""
    if abs(dx) >= abs(dy):
        return 2 if dx > 0 else 3
    return 1 if dy > 0 else 0


def actor_type(name: str) -> str:
    """The type of a named actor: its name without a trailing ``_<number>`` (``ogre_2`` ->
    ``ogre``). Games that name actors (events ``"kind:actor"``, plan targets) follow this, so
    oracles and plans read types without asking the game."""
    head, _, tail = name.rpartition("_")
    return head if head and tail.isdigit() else name


