"""Contracts of the oracles: what a bug is and what an oracle does.

An oracle watches rollouts from the outside and reports bugs. It knows rollouts and nothing
of evolution or of a particular game; ground truth (``injected_bugs``) is never read here.

Oracles check a batch of rollouts at once (a generation's, or a bug's replays) because some
decide across visits: the performance oracle reports a place only when most of its visits
were slow, so that one hiccup of the machine is not a bug.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from oracles.component import Context, Replay


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


@runtime_checkable
class Oracle(Protocol):
    """Reports bugs seen in rollouts.

    Every built oracle derives from :class:`oracles.component.Component`, whose hooks the
    loop calls on all of them: ``calibrate(rollouts)`` (once, with the warm-up rollouts,
    before any check: thresholds), ``update``, ``state_dict`` / ``load_state_dict`` (so a
    resumed run and a replay see the same thresholds and counts) and ``tables`` (the
    performance oracle's ``low_fps_points``).
    """

    name: str
    statistical: bool
    """True for an oracle that judges across visits (the performance oracle: a place most of
    whose visits were slow), so that one replay proves nothing: a replay of its bug is played,
    one script at a time, in as many copies as one worker of the run stepped at once (at least
    the replay's repeats), its frames measured under the run's load (:mod:`evo.bugs.reproduce`).
    Default False (:class:`oracles.component.Component`): the replay's repeats."""

    def confirm(self, bugs: list[Bug], replay: Replay) -> list[Bug]:
        """The reports of :meth:`check` that hold when played again, before the run keeps
        them (the performance oracle: a place slow again in most replays). ``replay(seed,
        actions, copies)`` plays a report's actions from its seed in that many copies.
        Default (:class:`oracles.component.Component`): every report as it is."""
        ...

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """Bugs shown by these rollouts (duplicates allowed; the archive dedups).

        A run calls it on a thread of its own, batch after batch in the order played, while
        the objectives score and learn from the same batch (:mod:`evo.run.checks`): it reads
        the rollouts and its own state only, and changes nothing but its own state."""
        ...


class OracleConfig(BaseModel):
    """Base of every oracle's keyword arguments; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


OracleFactory = Callable[[GameSpec, Any, Context], Oracle]
"""Builds an oracle from the game's spec, its validated config and its context."""

REGISTRY: dict[str, tuple[type[OracleConfig], OracleFactory]] = {}


def register(name: str, config: type[OracleConfig]) -> Callable[[OracleFactory], OracleFactory]:
    """Class decorator: make an oracle available to YAMLs as ``{name: <name>}``.

    The oracle class is called as ``cls(spec, config, context)`` (see
    :class:`oracles.component.Context`) and must derive from
    :class:`oracles.component.Component`.
    """

    def wrap(factory: OracleFactory) -> OracleFactory:
        REGISTRY[name] = (config, factory)
        return factory

    return wrap
