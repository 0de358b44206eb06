"""Validation oracle: a plan's action validations, run over what the search plays.

A plan's validations say what each action must change (:mod:`oracles.action_checks`); they are
registered per action, not per plan, so they hold wherever the action is played: in a plan,
or in any episode of the search. This oracle replays every episode of a batch through them:
before each step, the validations of the step's action take their snapshot (the action and
the actor it was aimed at come from the game's ``info["aim"]``, ``"jump:lava_1"``); after it,
their checks run against the step's ``info["events"]`` and the state features. A validation
that fails, or whose event does not come in time, is a ``logic`` bug with its replay handle.

A check still waiting when the episode ends is dropped, not failed: the episode (or a replay
cut short) ended before its time was up, which is no evidence against the action.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml
from pydantic import Field, model_validator

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from oracles.base import Bug, Oracle, OracleConfig, register
from oracles.action_checks import Validation, Validator, Verdict

AIM_KEY = "aim"
"""The game's info key naming each step's action and its target (``interact:switch_1``)."""
EVENTS_KEY = "events"


class ValidationConfig(OracleConfig):
    """Settings of the validation oracle: the validations it runs."""

    plan: str | None = None
    """A plan YAML whose ``validations`` run (read once, into ``validations``, so that the
    run directory's config holds them and replays do not need the file)."""

    validations: list[Validation] = Field(default_factory=list)
    """The validations, written as in a plan (``{action: jump, target_type: lava, event:
    jumped, timeout: 1}``)."""

    categories: dict[str, list[str]] = Field(default_factory=dict)
    """Words naming several actor types, for ``target_type`` (the game's ``categories``:
    ``{enemy: [goblin, skeleton, ogre]}``)."""

    @model_validator(mode="after")
    def _read_plan(self) -> "ValidationConfig":
        if self.plan is not None and not self.validations:
            path = Path(self.plan)
            if not path.is_file():
                raise ValueError(f"plan {self.plan}: no such plan file")
            raw = yaml.safe_load(path.read_text())
            items = raw.get("validations") if isinstance(raw, dict) else None
            if not items:
                raise ValueError(f"plan {self.plan}: expected a plan YAML with validations")
            self.validations = [Validation.model_validate(v) for v in items]
        if not self.validations:
            raise ValueError("give validations, or a plan YAML that has some")
        return self


@register("validation", ValidationConfig)
class ValidationOracle(Oracle):
    """Reports a ``logic`` bug per failed validation of an action the search played.

    The signature names the action, the actor it was aimed at and the expected change
    (:func:`oracles.action_checks.validation_signature`, the one a plan's failure has); the
    replay handle ends at the step at which the check failed, so a replay judges it again.
    """

    name = "validation"
    requires = frozenset({f"info.{AIM_KEY}", f"info.{EVENTS_KEY}"})

    def __init__(self, spec: GameSpec, config: ValidationConfig, context: Context) -> None:
        unknown = sorted({k for v in config.validations for k in [*v.expect, *v.when]} - set(spec.feature_names))
        if unknown:
            raise ValueError(f"validation oracle: {unknown} are no state features of the game; "
                             f"expected some of {', '.join(spec.feature_names)}")
        self.spec, self.config = spec, config
        self.actions = {v.action for v in config.validations}

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """One bug per failed validation and signature in this batch (the first seen)."""
        bugs: list[Bug] = []
        seen: set[str] = set()
        aims, events = rollouts.info[AIM_KEY], rollouts.info[EVENTS_KEY]
        for i in range(len(rollouts)):
            rollout = rollouts[i]
            validator = Validator(self.config.validations, self.spec.feature_names, self.config.categories)
            for t in range(rollout.length):
                if t > 0:
                    self._report(rollout, validator.after(events[i, t - 1] or (), rollout.features[t], t), seen, bugs)
                action, _, target = str(aims[i, t] or "").partition(":")
                if action in self.actions:
                    validator.before(action, target or None, rollout.features[t], t)
            if rollout.length and validator.pending:
                t = rollout.length
                self._report(rollout, validator.after(events[i, t - 1] or (), rollout.features[t], t), seen, bugs)
        return bugs

    def _report(self, rollout: Rollout, verdicts: list[Verdict], seen: set[str], bugs: list[Bug]) -> None:
        """Append a bug per failed verdict whose signature this batch has not reported yet."""
        for v in verdicts:
            if v.passed or v.signature in seen:
                continue
            seen.add(v.signature)
            at = int(np.clip(v.step - 1, 0, rollout.length - 1))  # the last step the verdict saw
            bugs.append(Bug.at_step(rollout, at, kind="logic", oracle=self.name, signature=v.signature,
                                    message=v.text, data={"action": v.action, "target": v.target,
                                                          "action_step": v.action_step}))
