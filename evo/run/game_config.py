"""The ``game:`` section of an experiment (:mod:`evo.run.config` holds the rest): which game, how
its copies are isolated and bounded, and the observation wrappers between it and the agents."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["DEFAULT_STEP_TIMEOUT_S", "GameConfig", "WrapperConfig"]

DEFAULT_STEP_TIMEOUT_S = 10.0
"""A step of an isolated copy slower than this is a hang: far above any frame a game draws
(tens of milliseconds at worst), below what a user waits before calling a game stuck."""


class WrapperConfig(BaseModel):
    """One observation wrapper (:mod:`games.core.wrappers`): changes what the agent sees, not the game."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="frame_stack, resize, grayscale, detect or encode (games.core.wrappers).")
    kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Passed to the wrapper: frame_stack {k}, resize {height, width, mode: area|max}.",
    )


class GameConfig(BaseModel):
    """Which game to test. Exactly one of ``name``, ``entry_point`` and ``gym_id``."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="A registered game, e.g. block_maze.")
    entry_point: str | None = Field(None, description="'package.module:Class' of a gymnasium.Env.")
    gym_id: str | None = Field(None, description="A Gymnasium id, e.g. CartPole-v1.")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="Passed to the game's constructor.")
    isolated: bool | None = Field(
        None,
        description="Run each copy of a Gymnasium game in its own process, so that a copy that "
        "crashes its process, hangs (step_timeout_s) or leaks (max_rss_mb) is a crash bug and "
        "the search goes on. Null: isolated for every game played through the Gymnasium adapter "
        "(entry_point, gym_id, plugins), in-process for the project's numpy games, which have "
        "no adapter to isolate. false: in-process, faster, for a game trusted not to fail so.",
    )
    step_timeout_s: float | None = Field(
        None,
        gt=0,
        description="With isolated copies: a step slower than this many seconds is a hang (a crash "
        "bug; the copy is restarted). Null: learned from the game's own steps (20 times the "
        "slowest seen, at least 3 s; 10 s until 32 steps were timed). Either way a step from a "
        "place where a copy hung before is awaited briefly. Setting it asks for isolated copies.",
    )
    start_timeout_s: float | None = Field(
        None,
        gt=0,
        description="With isolated copies: the seconds each copy has, from its own process's start, "
        "to make its game (import it, run its constructor; a game without a spec is also reset "
        "once). Copies start a few at a time, one per usable core. A copy slower than this ends the "
        "run with one line naming the game and the copy (one restarted mid-run is a crash bug of "
        "that copy). Null: 60 s. Setting it asks for isolated copies.",
    )
    max_rss_mb: float | None = Field(
        2048.0,
        gt=0,
        description="With isolated copies: a copy whose process (and any process it started) "
        "holds more resident memory than this many MiB is killed, reported as a crash bug "
        "(GameOutOfMemory) and restarted. Null: no bound per copy. Either way a copy that grew "
        "256 MiB or more is killed when the machine runs short (under a tenth of its memory "
        "available). A game run in-process is not bounded.",
    )
    action_levels: int = Field(
        3,
        ge=2,
        description="For a game whose actions are a bounded Box (steering, throttle): the values "
        "per dimension it is played with, evenly spaced from low to high inclusive, every "
        "combination one action (3: low, middle, high). MultiDiscrete and MultiBinary actions "
        "are played as every combination; Discrete games ignore it.",
    )
    wrappers: list[WrapperConfig] = Field(
        default_factory=list,
        description="Observation wrappers applied in order, first innermost, e.g. [{name: grayscale}, "
        "{name: resize, kwargs: {height: 48, width: 40}}, {name: frame_stack, kwargs: {k: 4}}]. "
        "Agents that differ only in these play the same game.",
    )

    @model_validator(mode="after")
    def _one_source(self) -> "GameConfig":
        given = [k for k in ("name", "entry_point", "gym_id") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of name, entry_point, gym_id")
        if self.isolated is False and self.step_timeout_s is not None:
            raise ValueError("step_timeout_s detects hangs of isolated copies; drop it or isolated: false")
        if self.isolated is False and self.start_timeout_s is not None:
            raise ValueError("start_timeout_s bounds the start of isolated copies; drop it or isolated: false")
        return self
