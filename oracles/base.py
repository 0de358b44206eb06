"""Contracts of the oracles: what a bug is and what an oracle does.

An oracle watches rollouts from the outside and reports bugs. It knows rollouts and nothing
of evolution or of a particular game; ground truth (``injected_bugs``) is never read here.

Oracles check a batch of rollouts at once (a generation's, or a bug's replays) because some
decide across visits: the performance oracle reports a place only when most of its visits
were slow, so that one hiccup of the machine is not a bug.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
import abc
import re
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict

from games.core.component import Component, ComponentEntry, Context, Replay, registering
from games.common.registry import Registry
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch


@dataclass(frozen=True)
class Bug:
    """One bug report, with what it takes to replay it.

    Attributes:
        kind: ``crash``, ``stuck``, ``logic``, ``performance``, ``balance`` or ``visual``.
        oracle: Name of the oracle that reported it.
        signature: The dedup key: two reports with one signature are one bug.
        message: What happened, for a human.
        step: Index of the step at which it showed (into ``actions``).
        state: State features before that step (where the agent acted from).
        next_state: State features after that step.
        policy: Id of the policy that played the episode.
        episode_seed: Seed of the episode.
        actions: Actions from reset up to and including ``step``: the replay handle.
        data: Oracle-specific numbers (frame time and threshold, window length...).
    """

    kind: str
    oracle: str
    signature: str
    message: str
    step: int
    state: tuple[float, ...]
    next_state: tuple[float, ...]
    policy: int
    episode_seed: int
    actions: tuple[int, ...]
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def at_step(
        cls, rollout: Rollout, step: int, *, kind: str, oracle: str, signature: str,
        message: str, data: dict[str, Any] | None = None,
    ) -> "Bug":
        """A bug that showed at ``step`` of ``rollout``, with its replay handle filled in."""
        return cls(
            kind=kind,
            oracle=oracle,
            signature=signature,
            message=message,
            step=rollout.start + int(step),  # from the reset, where the record began later
            state=tuple(float(x) for x in rollout.features[step]),
            next_state=tuple(float(x) for x in rollout.features[step + 1]),
            policy=int(rollout.policy),
            episode_seed=int(rollout.episode_seed),
            actions=rollout.replay_actions(step + 1),
            data=dict(data or {}),
        )


_CRASH_AT = re.compile(r"^(crash:[^:]*:[^:]*:[^:]*):\d+:")
"""A crash signature's ``type:file:function:line:`` head (``oracles.crash``)."""


def same_fault(found: str, recorded: str) -> bool:
    """Whether a replay's bug is the recorded one: the same signature, where a crash's may
    have moved to another line of the same function (the game's file edited since, a new
    build under ``evo regress``: before, a block above the raise made an old run's crash
    "not reproduce")."""
    return found == recorded or _CRASH_AT.sub(r"\1:", found) == _CRASH_AT.sub(r"\1:", recorded)


def shown_alone(oracle: "Oracle", episodes: RolloutBatch, signature: str) -> int:
    """In how many of ``episodes`` ``oracle`` reports the bug ``signature`` (:func:`same_fault`),
    each episode judged alone, on its own evidence (:meth:`Component.forget_visits` before each):
    what a bug's replay rate is counted by."""
    shown = 0
    for k in range(len(episodes)):
        oracle.forget_visits()
        shown += any(same_fault(b.signature, signature) for b in oracle.check(episodes[k : k + 1]))
    return shown


class Oracle(Component, abc.ABC):
    """Reports bugs seen in rollouts: the base of every oracle.

    The hooks the loop calls on every component come from
    :class:`games.core.component.Component`: ``calibrate(rollouts)`` (once, with the
    warm-up rollouts, before any check: thresholds), ``update``, ``state_dict`` /
    ``load_state_dict`` (so a resumed run and a replay see the same thresholds and counts) and
    ``tables`` (the performance oracle's ``low_fps_points``). An oracle implements
    :meth:`check` and overrides the defaults below that it needs.
    """

    statistical: bool = False
    """True for an oracle that judges across visits (the performance oracle: a place most of
    whose visits were slow), so that one replay proves nothing: a replay of its bug is played,
    one script at a time, in as many copies as one worker of the run stepped at once (at least
    the replay's repeats), its frames measured under the run's load (:mod:`evo.bugs.reproduce`).
    Default False: the replay's repeats, one showing is enough."""

    @abc.abstractmethod
    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """Bugs shown by these rollouts (duplicates allowed; the archive dedups).

        A run calls it on a thread of its own, batch after batch in the order played, while
        the objectives score and learn from the same batch (:mod:`evo.run.checks`): it reads
        the rollouts and its own state only, and changes nothing but its own state."""

    def confirm(self, bugs: list[Bug], replay: Replay) -> list[Bug]:
        """The reports of :meth:`check` that hold when played again, before the run keeps
        them (the performance oracle: a place slow again in most replays). ``replay(seed,
        actions, copies)`` plays a report's actions from its seed in that many copies.
        Default: every report as it is."""
        return bugs


class OracleConfig(BaseModel):
    """Base of every oracle's keyword arguments; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


OracleFactory = Callable[[GameSpec, Any, Context], Oracle]
"""Builds an oracle from the game's spec, its validated config and its context."""

ORACLES: Registry[ComponentEntry] = Registry("oracle", "evo.oracles")
"""Oracles by the name a YAML gives them; installed packages add theirs through the
``evo.oracles`` entry-point group."""


register = registering(ORACLES)
"""Class decorator ``@register(name, config)``: make an oracle available to YAMLs as
``{name: <name>}``. The class is called as ``cls(spec, config, context)`` (see
:class:`games.core.component.Context`) and must derive from :class:`Oracle`."""
