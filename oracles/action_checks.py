"""Action validation: what an action must change, the pre-action snapshot and the post-action
check (AGT, Fig. 7). Shared by the plan agent (:mod:`evo.plans.agent`) and the ``validation``
oracle (:mod:`oracles.validation`), which runs the same checks over what the search played.

When an action is about to be played, :meth:`Validator.before` keeps the state features for
every validation registered for that action (and target); :meth:`Validator.after`, called
with each later step's events and features, runs the post-action check when its event comes
or its delay has passed, and fails it when the event has not come within the timeout. A
validation is the smallest unit of a test: one failure fails the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping, Sequence, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from games.core.navigation import actor_type

Expectation = Union[float, Literal["changed"]]


class Validation(BaseModel):
    """What an action must change (AGT's pre- and post-action callbacks).

    Before the action, the state features are kept (the pre-action callback); after it, the
    post-action check runs when the ``event`` comes or ``delay`` steps later, and compares the
    features with ``expect``. No event within ``timeout`` steps fails the test, unless the
    validation is ``optional``.
    """

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    action: str
    """The action it checks, wherever a node or rule performs it."""
    target_type: str | None = None
    """Only when the action is aimed at an actor of this type, category or name."""
    when: dict[str, float] = Field(default_factory=dict)
    """Only when, before the action, these state features have these values (``door_open:
    0``: a switch that turns on, not one that turns off once the door is open)."""
    event: str | None = None
    """Check when an event of this kind comes (``door_opened``)."""
    delay: int | None = Field(default=None, ge=1)
    """Or check this many steps after the action."""
    timeout: int = Field(default=5, ge=1)
    """Steps the event may take."""
    optional: bool = False
    """An event that does not come is no failure (an attack that does not kill yet)."""
    expect: dict[str, Expectation] = Field(default_factory=dict)
    """Feature -> its change from before the action: a number, or ``changed``."""

    @model_validator(mode="after")
    def _bound(self) -> "Validation":
        if (self.event is None) == (self.delay is None):
            raise ValueError("give exactly one of event and delay")
        return self

    def expectation(self) -> str:
        """The expected change in words, for messages."""
        parts = [f"{k} {'changed' if v == 'changed' else f'{float(v):+g}'}" for k, v in self.expect.items()]
        change = ", ".join(parts)
        if self.event is not None:
            return f"event {self.event} within {self.timeout} steps" + (f" and {change}" if change else "")
        return f"{change or 'nothing'} after {self.delay} steps"


def validation_signature(action: str, target: str | None, expectation: str) -> str:
    """The dedup key of a failed validation: the action, where it was aimed and the expected
    change, so one broken mechanic is one bug whichever plan, rule or search ran into it."""
    return f"validation:{action}:{target or ''}:{expectation}"


@dataclass(frozen=True)
class Verdict:
    """A resolved validation: whether it passed, at which step, and what it said.

    Attributes:
        passed: The expected change happened in time.
        step: The step at which it was judged (the steps before it were played).
        text: The log line.
        action: The action it checked.
        target: The actor the action was aimed at, if any.
        action_step: The step at which the action was played.
        expectation: The expected change in words (:meth:`Validation.expectation`).
    """

    passed: bool
    step: int
    text: str
    action: str = ""
    target: str | None = None
    action_step: int = 0
    expectation: str = ""

    @property
    def signature(self) -> str:
        return validation_signature(self.action, self.target, self.expectation)


@dataclass
class _Pending:
    validation: Validation
    action: str
    target: str | None
    step: int
    before: np.ndarray


def event_kind(event: str) -> str:
    """``"door_opened:door_1"`` -> ``"door_opened"``."""
    return event.split(":", 1)[0]


class Validator:
    """The validations of one copy of the game, registered per action.

    Args:
        validations: The validations.
        feature_names: The game's state features, in order.
        categories: Words naming several actor types (``enemy``), for ``target_type``.
    """

    def __init__(self, validations: Sequence[Validation], feature_names: Sequence[str],
                 categories: Mapping[str, Sequence[str]]) -> None:
        self.validations = list(validations)
        self.index = {name: j for j, name in enumerate(feature_names)}
        self.categories = categories
        self.pending: list[_Pending] = []

    def applies(self, validation: Validation, action: str, target: str | None,
                features: np.ndarray | None = None) -> bool:
        """Whether ``validation`` checks ``action`` aimed at ``target`` from the state
        ``features`` (its ``when`` is not judged without them)."""
        if validation.action != action:
            return False
        if features is not None and any(float(features[self.index[k]]) != v for k, v in validation.when.items()):
            return False
        wanted = validation.target_type
        if wanted is None:
            return True
        if target is None:
            return False
        kind = actor_type(target)
        return wanted in (target, kind) or kind in self.categories.get(wanted, ())

    def before(self, action: str, target: str | None, features: np.ndarray, step: int) -> list[str]:
        """The pre-action callback: keep the state for every validation of this action.

        Returns:
            One line per validation now waiting, for the log.
        """
        lines = []
        for v in self.validations:
            if self.applies(v, action, target, features):
                self.pending.append(_Pending(v, action, target, step, np.array(features, dtype=np.float64)))
                lines.append(f"validate {self._what(action, target)}: expect {v.expectation()}")
        return lines

    @staticmethod
    def _what(action: str, target: str | None) -> str:
        return f"{action} on {target}" if target else action

    def _changes(self, p: _Pending, features: np.ndarray) -> tuple[bool, str]:
        ok, got = True, []
        for name, expected in p.validation.expect.items():
            delta = float(features[self.index[name]] - p.before[self.index[name]])
            got.append(f"{name} {delta:+g}")
            if expected == "changed":
                ok &= delta != 0.0
            else:
                ok &= abs(delta - float(expected)) < 1e-9
        return ok, ", ".join(got)

    def _verdict(self, p: _Pending, passed: bool, step: int, detail: str) -> Verdict:
        head = f"{self._what(p.action, p.target)} at step {p.step}"
        expected = p.validation.expectation()
        if passed:
            text = f"validation passed: {head}: {expected}"
        else:
            text = f"validation failed: {head}: expected {expected}; {detail}"
        return Verdict(passed, step, text, p.action, p.target, p.step, expected)

    def after(self, events: Sequence[str], features: np.ndarray, step: int) -> list[Verdict]:
        """The post-action checks due now.

        Args:
            events: What happened in the last step (step ``step - 1``).
            features: The state after it.
            step: The step about to be played; the pending actions were played before it.
        """
        kinds = {event_kind(e) for e in events}
        out, waiting = [], []
        for p in self.pending:
            elapsed = step - p.step  # steps played since the action, the action's included
            v = p.validation
            if v.delay is not None:
                if elapsed < v.delay:
                    waiting.append(p)
                    continue
                ok, got = self._changes(p, features)
                out.append(self._verdict(p, ok, step, f"got {got}"))
            elif v.event in kinds:
                ok, got = self._changes(p, features)
                out.append(self._verdict(p, ok, step, f"got {got}"))
            elif elapsed >= v.timeout:
                if not v.optional:
                    out.append(self._verdict(p, False, step, f"no {v.event} event came"))
            else:
                waiting.append(p)
        self.pending = waiting
        return out

    def end(self, events: Sequence[str], features: np.ndarray, step: int) -> list[Verdict]:
        """The episode is over after step ``step - 1``: checks due now run, and checks still
        waiting for an event that did not come fail (optional ones pass)."""
        out = self.after(events, features, step)
        for p in self.pending:
            v = p.validation
            if v.delay is not None:
                ok, got = self._changes(p, features)
                out.append(self._verdict(p, ok, step, f"got {got} when the episode ended"))
            elif not v.optional:
                out.append(self._verdict(p, False, step, f"the episode ended before any {v.event} event"))
        self.pending = []
        return out
