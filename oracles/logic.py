"""Logic oracle: developer assertions and invariants the game reports broken.

Wuji: logical bugs "require specific assertions to reveal". A game states them two ways
(DESIGN.md, Game contract): an ``AssertionError`` raised by ``step`` is fatal and ends the
episode; ``info["violations"]`` lists invariants a step broke without stopping the game.
"""

from __future__ import annotations


from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import RolloutBatch, with_events
from oracles.base import Bug, Oracle, OracleConfig, register
from oracles.crash import at_last_step


class LogicConfig(OracleConfig):
    """The logic oracle has no settings."""


@register("logic", LogicConfig)
class LogicOracle(Oracle):
    """Reports failed assertions (at the last step) and every reported violation."""

    name = "logic"

    def __init__(self, spec: GameSpec, config: LogicConfig, context: Context) -> None:
        self.spec = spec
        self.config = config

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """``logic`` bugs: one per failed assertion, one per ``(step, message)`` violation.

        A violation's signature is its message alone: the game words the invariant, and the
        same broken invariant at another step or place is the same bug.
        """
        bugs: list[Bug] = []
        seen: set[str] = set()  # the archive keeps the first of a signature; so can we
        for i, err, violations in with_events(rollouts):
            signature = "" if err is None else f"logic:assert:{err.where}:{err.message}"
            if err is not None and err.is_assertion and signature not in seen:
                seen.add(signature)
                rollout = rollouts[i]
                step = max(rollout.length - 1, 0)
                bugs.append(at_last_step(
                    rollout,
                    kind="logic",
                    oracle=self.name,
                    signature=signature,
                    message=f"AssertionError at step {rollout.start + step}: {err.message}",
                    data={"type": err.type, "where": err.where},
                ))
            for step, text in violations:
                signature = f"logic:violation:{text}"
                if signature in seen:
                    continue
                rollout = rollouts[i]
                if rollout.length == 0:
                    continue
                seen.add(signature)
                # A step index outside the episode is the adapter's slip, not a reason to lose
                # the report: pin it to the nearest step that exists.
                at = min(max(int(step), 0), rollout.length - 1)
                bugs.append(Bug.at_step(
                    rollout, at,
                    kind="logic",
                    oracle=self.name,
                    signature=signature,
                    message=f"violation at step {rollout.start + at}: {text}",
                ))
        return bugs
