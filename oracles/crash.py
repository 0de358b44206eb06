"""Crash oracle: the game raised something other than an assertion, died or hung.

Wuji: "the crash bugs can be automatically captured by monitoring whether the game process is
terminated". Here the adapter turns that into data: the rollout ends with a
:class:`games.core.base.GameError` whose type is the exception's name, or ``GameHang`` /
``GameProcessDied`` for a game process that stopped answering or exited. Assertions are
developer checks and belong to the logic oracle.
"""

from __future__ import annotations

from typing import Any

from games.core.component import Context
from games.core.base import GameError, GameSpec
from games.core.record import Rollout, RolloutBatch, with_events
from oracles.base import Bug, Oracle, OracleConfig, register


class CrashConfig(OracleConfig):
    """The crash oracle has no settings."""


def at_last_step(
    rollout: Rollout, *, kind: str, oracle: str, signature: str, message: str,
    data: dict[str, Any] | None = None,
) -> Bug:
    """A bug at the step that ended ``rollout`` (the one that raised).

    A rollout whose game failed before any step (``length == 0``) has no step to point at;
    its bug sits at step 0 with the reset state on both sides and no actions, so that the
    replay handle (seed, no actions) still reproduces it.
    """
    if rollout.length == 0:
        start = tuple(float(x) for x in rollout.features[0])
        return Bug(
            kind=kind, oracle=oracle, signature=signature, message=message, step=rollout.start,
            state=start, next_state=start, policy=int(rollout.policy),
            episode_seed=int(rollout.episode_seed), actions=rollout.replay_actions(0), data=dict(data or {}),
        )
    return Bug.at_step(
        rollout, rollout.length - 1, kind=kind, oracle=oracle, signature=signature,
        message=message, data=data,
    )


@register("crash", CrashConfig)
class CrashOracle(Oracle):
    """Reports every rollout that ended in an error that is not an ``AssertionError``."""

    name = "crash"

    def __init__(self, spec: GameSpec, config: CrashConfig, context: Context) -> None:
        self.spec = spec
        self.config = config

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """One ``crash`` bug per rollout whose game raised, died or hung.

        The signature is :func:`crash_signature`.
        """
        bugs: list[Bug] = []
        seen: set[str] = set()  # the archive keeps the first of a signature; so can we
        for i, err, _ in with_events(rollouts):
            if err is None or err.is_assertion:
                continue
            signature = crash_signature(err)
            if signature in seen:
                continue
            seen.add(signature)
            rollout = rollouts[i]
            bugs.append(at_last_step(rollout, kind="crash", oracle=self.name, signature=signature,
                                     **_told(err, rollout.start + max(rollout.length - 1, 0))))
        return bugs

    def report(self, err: GameError, *, step: int, state: tuple[float, ...], next_state: tuple[float, ...],
               policy: int, episode_seed: int, actions: tuple[int, ...]) -> Bug:
        """The bug :meth:`check` reports for an episode that ended with ``err`` at ``step``,
        from the episode's parts alone: a fault told the moment it happened
        (:mod:`evo.search.faults`), before its batch is over."""
        return Bug(kind="crash", oracle=self.name, signature=crash_signature(err), step=int(step),
                   state=state, next_state=next_state, policy=int(policy), episode_seed=int(episode_seed),
                   actions=tuple(actions), **_told(err, step))


def crash_signature(err: GameError) -> str:
    """The exception type, where it was raised and its message: one fault reached by many
    policies is one bug while two faults are two (``detail`` varies and is left out)."""
    return f"crash:{err.type}:{err.where}:{err.message}"


def _told(err: GameError, step: int) -> dict[str, Any]:
    """A crash bug's message and data."""
    return {
        "message": f"{err.type} at step {step}: {err.message}" + (f" ({err.detail})" if err.detail else ""),
        "data": {"type": err.type, "where": err.where, **({"detail": err.detail} if err.detail else {})},
    }
