"""Explicit test plans: what a plan is, mirrored one-to-one by its YAML.

An explicit plan (AGT's "Explicit Plan") is ordered **nodes** (go to an actor, an actor
type or a place, optionally act there) plus **rules** (preconditions, priority, action) that
interrupt the nodes while they hold, and **validations**: per action, what must change after
it (bound to an event or to a delay, with a timeout). Validations are registered once per
action, not per node, so rules may reorder actions freely and every action is still
checked (the article's decoupling of validation from reproduction steps).

A game that plans can run on offers a :class:`games.core.navigation.Navigator` (the game contract,
with :class:`~games.core.navigation.Route` and :data:`~games.core.navigation.Target`); nothing here imports a game.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evo.run.game_config import WrapperConfig
from oracles.action_checks import Validation


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class GameRef(_Strict):
    """The game a plan is written for (the command line's ``--game`` wins over it)."""

    name: str
    """A registered game name (``dungeon``)."""
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """The game's keyword arguments (``level_seed``, ``bugs``...)."""
    wrappers: list[WrapperConfig] = Field(default_factory=list)
    """Observation wrappers the game is played in, first innermost (``[{name: detect}]``): a plan
    recorded from a run plays what the run played, so its bug's oracle reads what they publish
    (the visual oracle, the detector's crops)."""

    def wrapper_specs(self) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
        """The wrappers as :class:`games.registry.GameFactory` takes them."""
        return tuple((w.name, tuple(sorted(w.kwargs.items()))) for w in self.wrappers)


class Condition(_Strict):
    """A rule's precondition: an actor close by, or a state feature past a bound."""

    near: str | None = None
    """An actor name, type or category that must be reachable within ``within`` moves."""
    within: int = Field(default=3, ge=0)
    """Moves (along the navigator's shortest path) for ``near``."""
    feature: str | None = None
    """A state feature (``health``) compared with ``below`` or ``above``."""
    below: float | None = None
    """The feature is under this."""
    above: float | None = None
    """The feature is over this."""

    @model_validator(mode="after")
    def _one_kind(self) -> "Condition":
        if (self.near is None) == (self.feature is None):
            raise ValueError("give exactly one of near and feature")
        if self.feature is not None and self.below is None and self.above is None:
            raise ValueError(f"feature {self.feature!r} needs below or above")
        return self


class Node(_Strict):
    """One step of the plan: go to a target, then optionally act there."""

    target: str | None = None
    """An actor's name (``switch_1``), an actor type (``shrine``: the nearest one) or a
    category (``enemy``)."""
    location: tuple[int, int] | None = None
    """Or a place: the first two state features (``[x, y]`` in the dungeon, ``[row, col]``
    in Block Maze). Given with ``target``, the node goes there and aims its action at the
    target (a recorded action: where it was played, and at whom)."""
    action: str | None = None
    """What to do on arrival (``interact``, ``attack``, ``jump``); none: just get there."""
    tolerance: int | None = Field(default=None, ge=0)
    """Arrival radius in moves; the game's default when omitted (next to a solid actor, on a
    coin or a place)."""
    wait: int = Field(default=0, ge=0)
    """Steps to wait after arriving (and acting) before the next node."""
    when: list[Condition] = Field(default_factory=list)
    """Preconditions the node waits for before it starts (rules still act meanwhile): "once
    the switch is on" is ``[{feature: switch_on, above: 0.5}]``."""
    movement: Literal["walk", "straight"] = "walk"
    """``walk``: the game's navigator (shortest path); ``straight``: head for the target
    along the longer axis first, without path finding (what a recorded path needs)."""

    @model_validator(mode="after")
    def _one_target(self) -> "Node":
        if self.target is None and self.location is None:
            raise ValueError("give a target or a location")
        if self.target is not None and self.location is not None and self.action is None:
            raise ValueError("a node with both a location and a target needs an action (aimed at the target)")
        if self.movement == "straight" and self.location is None:
            raise ValueError("movement straight needs a location")
        return self

    def describe(self) -> str:
        where = self.target if self.target is not None else f"({self.location[0]}, {self.location[1]})"  # type: ignore[index]
        if self.target is not None and self.location is not None:
            where = f"{self.target} from ({self.location[0]}, {self.location[1]})"
        return f"{self.action} {where}" if self.action else f"go to {where}"


class Rule(_Strict):
    """Behaviour that interrupts the nodes while its preconditions hold (AGT's rules)."""

    name: str = ""
    """What it does, for the log (``attack any enemies``)."""
    when: list[Condition] = Field(min_length=1)
    """Preconditions, all of which must hold."""
    priority: int = 0
    """Of the rules that hold, the highest priority acts (ties: the first listed)."""
    action: str | None = None
    """What to do at the target; none: just go there (collecting a coin)."""
    target: str | None = None
    """Where to go; by default the actor the first ``near`` precondition found."""
    tolerance: int | None = Field(default=None, ge=0)
    """Arrival radius, as for nodes."""
    repeat: int = Field(default=10, ge=1)
    """Times the action is done on one target before the rule leaves it (an enemy takes a
    few blows)."""

    def label(self) -> str:
        return self.name or f"{self.action or 'go'} {self.target or self.when[0].near}"


class ExpectedBug(_Strict):
    """A bug the plan reproduces (a plan exported from a run's bug): the oracle that reported
    it, with the run's settings, judges the plan's episode. The plan fails while the oracle
    still reports the bug and passes once it is gone, so it is the bug's regression test."""

    oracle: str
    """The registered oracle (``stuck``, ``crash``, ``performance``...)."""
    kind: str
    """The bug's kind."""
    signature: str
    """The bug's dedup key: the plan fails when the oracle reports this signature."""
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """The oracle's settings in the run (its thresholds)."""
    state: dict[str, Any] | None = None
    """The oracle's calibrated state at the end of the run (a slow-frame line), without the
    run's visits, when it has one worth keeping."""
    copies: int = Field(default=1, ge=1)
    """Copies of the game that follow the plan at once for the oracle to judge: a statistical
    oracle (performance) reports a place only over enough visits, as in the run's batches."""


class WordRead(_Strict):
    """How a word of a text plan was matched to the game's vocabulary (:mod:`evo.plans.lexicon`)."""

    word: str
    """The word as written (``slay``)."""
    name: str
    """The game's action or actor type it was read as (``attack``)."""
    via: str
    """The name or listed synonym it matched (``kill``)."""
    score: float
    """How alike, 0..1 (1: the same word)."""
    how: str
    """``same``, ``synonym``, ``kind``, ``sister`` or ``spelling``."""


class TextStep(_Strict):
    """A clause of the text a plan was read from, and what it became."""

    text: str
    kind: Literal["node", "rule"]
    action: WordRead | None = None
    actor: WordRead | None = None
    condition: str | None = None
    """The condition it is under, as written (a rule's trigger or a node's precondition)."""


class Plan(_Strict):
    """An explicit plan: nodes in order, rules, and validations per action."""

    name: str = ""
    """What the test checks."""
    game: GameRef | None = None
    """The game it runs on, unless given on the command line."""
    nodes: list[Node] = Field(default_factory=list)
    """Targets visited in order; none in a plan of rules alone, which then needs
    ``max_steps`` (it plays its rules until then)."""
    rules: list[Rule] = Field(default_factory=list)
    """Interruptions, by priority."""
    validations: list[Validation] = Field(default_factory=list)
    """Checks of actions, wherever they happen."""
    max_steps: int | None = Field(default=None, ge=1)
    """Steps the test may take; the game's horizon by default."""
    seed: int = 0
    """The episode seed (a recorded plan replays its episode's)."""
    bug: ExpectedBug | None = None
    """The bug this plan reproduces, when it was exported from a run: checked at the end."""
    read_from: list[TextStep] = Field(default_factory=list)
    """A plan read from text: each clause and which words matched what, with the score."""
    left_out: list[str] = Field(default_factory=list)
    """A plan read from text: the sentences left out as talk by the trained classifier
    (:mod:`evo.plans.talk`), where the text was refused with them."""
    respelled: list[tuple[str, str]] = Field(default_factory=list)
    """A plan read from text: each word read as a slip of the game's word, as (written, read as)
    (:mod:`evo.plans.spelling`)."""
    taken_back: list[str] = Field(default_factory=list)
    """A plan read from text: the steps the text took back and said again, as written
    (:mod:`evo.plans.taken_back`)."""

    @model_validator(mode="after")
    def _an_end(self) -> "Plan":
        if not self.nodes and not (self.rules and self.max_steps):
            raise ValueError("a plan needs nodes, or rules and max_steps (a plan of rules alone runs until then)")
        return self

