"""What every objective and oracle is built with and answers to: the shared component protocol.

Objectives and oracles are both *components* of an experiment: made by a factory from the
game's spec, their validated config and a :class:`Context`; calibrated on the warm-up
rollouts, updated once per generation, checkpointed, and able to hand tables to the run
directory. :class:`Component` gives each of these hooks a default that does nothing, so the
generation loop calls them on every component alike, with no name looked up and no
``hasattr``. What only an objective has (``score``, ``step_rewards``, ...) is defaulted by
:class:`objectives.base.Objective`, what only an oracle has (``check``, ``confirm``, ...) by
:class:`oracles.base.Oracle`; a component derives from one of the two.

Both sections are registered and built alike (:class:`ComponentEntry`, :func:`build_components`):
a name, a pydantic model of the component's kwargs (unknown keys are errors), and a factory
called as ``factory(spec, config, context)``.

It imports neither torch nor pandas at module level, so the CLI starts fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import pydantic

from games.common.registry import Registry
from games.core.base import GameSpec
from games.core.record import OPTIONAL_COLUMNS, RolloutBatch, unknown_columns
from games.common.seeds import component_seed

if TYPE_CHECKING:
    import pandas as pd

    from games.core.scene import Scene


Replay = Callable[[int, Sequence[int], int], RolloutBatch]
"""``replay(seed, actions, copies)``: a report's actions played again from its episode seed in
``copies`` copies of the run's game (:class:`evo.run.replays.Replays`), one episode each."""


@dataclass(frozen=True)
class Context:
    """What a component's factory gets besides the game's spec and its config.

    Attributes:
        seed: The component's own seed (:func:`games.common.seeds.component_seed`); draw every random number
            from it (``np.random.default_rng(seed)``, ``torch.Generator().manual_seed(seed)``).
        device: The torch device its tensors live on (the experiment's ``device``: ``cpu``,
            ``cuda`` or ``cuda:N``), for ``torch.device(context.device)``.
        run_dir: The run directory, None where there is none (a replay, an evaluation):
            what a component must keep across a resume belongs in its ``state_dict``.
        facts: The game's facts (:class:`evo.run.game_facts.GameFacts`: spec, ground truth, map,
            objects of interest, preferred area), for components that score a run against
            them (the objects oracle); None where no game was built (a component made alone).
            Typed loosely because ``oracles`` does not import ``evo``.
    """

    seed: int = 0
    device: str = "cpu"
    run_dir: Path | None = None
    facts: Any = None

    @property
    def scene(self) -> "Scene | None":
        """The game's scene (:class:`games.core.scene.Scene`: objects of interest, their
        types, the camera, the preferred area) from its facts; None where it has none."""
        return getattr(self.facts, "scene", None)

    def for_component(self, section: str, name: str, occurrence: int) -> "Context":
        """This experiment-level context (``seed`` = the experiment's) for one component."""
        return Context(component_seed(self.seed, section, name, occurrence), self.device, self.run_dir,
                       self.facts)


def contexts(base: Context, section: str, names: Sequence[str]) -> list[Context]:
    """One context per component of a section, in order (see :meth:`Context.for_component`)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        out.append(base.for_component(section, name, seen.get(name, 0)))
        seen[name] = seen.get(name, 0) + 1
    return out


class Component:
    """The hooks the loop calls on every objective and oracle, each a no-op here.

    Override what the component needs:
        ``calibrate(rollouts)``: once, with the run's first rollouts (the warm-up), before
        any bug check: thresholds.
        ``update(rollouts)``: once per generation, with the whole population's evaluation
        rollouts, after scoring: archives, baselines, learned models.
        ``state_dict()`` / ``load_state_dict(state)``: what a resumed run and a replay need;
        JSON types and torch tensors (stored as tensors in the checkpoint).
        ``tables()``: ``{name: DataFrame}`` the run directory keeps as ``<name>.csv``,
        rewritten after every generation.
        ``forget_visits()``: before a replay, drop the evidence gathered from the run's
        episodes but keep what was calibrated, so the replay is judged on its own.
        ``metrics()``: ``{column: number}`` added to each generation's row of
        ``generations.csv`` (read after ``update``; the same keys every generation).
        ``found(bugs)``: the bugs the run's archive kept for the first time, after each
        check of the oracles: for components that report on what the run found.

    and what the component adds to ``evo report`` and ``evo compare``, asked of its class
    (reports read run directories and build no component; :mod:`oracles.reporting`):
        ``report_columns``: columns of its ``metrics()`` that comparisons carry.
        ``report_section(run)``: its section of the run's HTML page.
        ``map_marks(run)``: what it draws on the scene map.

    ``requires`` names the optional record columns the component reads
    (:data:`games.core.record.OPTIONAL_COLUMNS`: ``obs``, ``probs``, ``info.<name>``); play records them only
    when some component requires them, so an unused column costs nothing.

    The hooks of one section are declared and defaulted by its base:
    :class:`objectives.base.Objective` and :class:`oracles.base.Oracle`.
    """

    name: str = ""
    """The name the component is registered under."""
    requires: frozenset[str] = frozenset()

    def calibrate(self, rollouts: RolloutBatch) -> None:
        """Set thresholds from the warm-up rollouts; nothing to set by default."""

    def update(self, rollouts: RolloutBatch) -> None:
        """Learn from a generation's rollouts; nothing to learn by default."""

    def state_dict(self) -> dict[str, Any]:
        """State to checkpoint (JSON types and tensors); none by default."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned; nothing by default."""

    def tables(self) -> dict[str, "pd.DataFrame"]:
        """Tables for the run directory, ``{file stem: DataFrame}``; none by default."""
        return {}

    def forget_visits(self) -> None:
        """Drop per-visit evidence before a replay; nothing kept by default."""

    def metrics(self) -> dict[str, float]:
        """Columns for this generation's row of ``generations.csv``; none by default."""
        return {}

    def found(self, bugs: Sequence[Any]) -> None:
        """Hear of the bugs the archive just kept (:class:`oracles.archive.ArchivedBug`,
        their ``injected_id`` filled in; typed loosely because the archive imports this
        module); nothing to do by default."""

    report_columns: tuple[str, ...] = ()
    """Columns of :meth:`metrics` whose last value per run ``evo compare`` carries into
    ``runs.csv``, and their mean over seeds into ``summary.csv``; none by default."""

    @classmethod
    def report_section(cls, run: Any) -> Any:
        """Its section of the run's HTML page (:class:`oracles.reporting.ReportSection`), read
        from the run (:class:`oracles.reporting.ComponentRun`); none by default."""
        return None

    @classmethod
    def map_marks(cls, run: Any) -> Any:
        """What it draws on the scene map of the run's game (:class:`oracles.reporting.MapMarks`);
        nothing by default."""
        return None


@dataclass(frozen=True)
class ComponentEntry:
    """A registered objective or oracle: the pydantic model of its kwargs and its factory,
    called as ``factory(spec, config, context)`` (its class, as a rule)."""

    config: type[pydantic.BaseModel]
    factory: Callable[[GameSpec, Any, Context], Any]

    def resolved_kwargs(self, kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
        """``kwargs`` validated, with every default filled in (for ``config.yaml``).

        Raises:
            pydantic.ValidationError: a key the component does not take, or a wrong type.
        """
        return self.config.model_validate(dict(kwargs or {})).model_dump(mode="json")


def registering(registry: Registry[ComponentEntry]) -> Callable[[str, type[pydantic.BaseModel]], Callable[[Any], Any]]:
    """The class decorator ``register(name, config)`` of one section (objectives, oracles):
    it registers the decorated class with its config model in ``registry``."""

    def register(name: str, config: type[pydantic.BaseModel]) -> Callable[[Any], Any]:
        return registry.register(name, lambda cls: ComponentEntry(config, cls))

    return register


def build_components(
    registry: Registry[ComponentEntry], base: type, entries: Sequence[tuple[str, Mapping[str, Any] | None]],
    spec: GameSpec, context: Context | None = None,
) -> list[Any]:
    """The components of one section of an experiment (``objectives``, ``oracles``), in order.

    Every name is checked before any is built; each component gets its own context
    (:meth:`Context.for_component`) and is checked to derive from the section's ``base``.

    Args:
        registry: The section's registry (:data:`objectives.base.OBJECTIVES`, :data:`oracles.base.ORACLES`).
        base: The section's base class (:class:`objectives.base.Objective`, :class:`oracles.base.Oracle`).
        entries: ``(name, kwargs)`` per component.
        spec: The game's spec.
        context: The experiment's context; default: seed 0, cpu, no run directory.

    Raises:
        UnknownName: a name nobody registered (the message lists the known ones).
        pydantic.ValidationError: kwargs of the wrong name or type.
        ValueError: kwargs or a game that do not fit a component, named ``<section>[i] (<name>)``.
        TypeError: a factory that built something else than the section's base.
    """
    section = f"{registry.kind}s"
    for name, _ in entries:
        registry.check(name)
    names = [name for name, _ in entries]
    built = []
    for i, ((name, kwargs), ctx) in enumerate(zip(entries, contexts(context or Context(), section, names))):
        entry = registry[name]
        config = entry.config.model_validate(dict(kwargs or {}))
        try:
            component = entry.factory(spec, config, ctx)
        except ValueError as exc:  # options or a game that do not fit the component
            raise ValueError(f"{section}[{i}] ({name}): {exc}") from None
        built.append(check_component(component, registry.kind, name, base))
    return built


def check_component(built: Any, section: str, name: str, base: type = Component) -> Any:
    """``built`` itself when it derives from ``base`` (the section's: ``Objective``, ``Oracle``).

    Raises:
        TypeError: a factory that made something else (names it and the fix), or one that
            requires a record column that does not exist.
    """
    if not isinstance(built, base):
        raise TypeError(
            f"{section} {name!r} built a {type(built).__name__}, which does not derive from "
            f"{base.__module__}.{base.__qualname__} (the hooks the loop calls)"
        )
    unknown = unknown_columns(built.requires)
    if unknown:
        raise TypeError(
            f"{section} {name!r} requires record columns {unknown}; the record has "
            f"{', '.join(OPTIONAL_COLUMNS)}"
        )
    return built
