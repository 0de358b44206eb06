"""What every objective and oracle is built with and answers to: the component contract.

Objectives and oracles are both *components* of an experiment: made by a factory from the
game's spec, their validated config and a :class:`Context`; calibrated on the warm-up
rollouts, updated once per generation, checkpointed, and able to hand tables to the run
directory. :class:`Component` gives each of these hooks a default that does nothing, so the
generation loop calls them on every component alike, with no name looked up and no
``hasattr``.

This module lives in ``oracles/`` because both packages can reach it without importing
``evo/``: objectives already import from oracles (the slow-frame threshold of
:mod:`oracles.frame_threshold`), oracles import nothing of objectives, and ``games/`` knows
no components. It imports neither torch nor pandas at module level, so the CLI starts fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from games.core.record import OPTIONAL_COLUMNS, Rollout, RolloutBatch, unknown_columns
from games.core.seeds import component_seed

if TYPE_CHECKING:
    import pandas as pd

    from games.core.scene import Scene
    from oracles.reporting import ComponentRun, MapMarks, ReportSection


Replay = Callable[[int, Sequence[int], int], RolloutBatch]
"""``replay(seed, actions, copies)``: a report's actions played again from its episode seed in
``copies`` copies of the run's game (:class:`evo.run.replays.Replays`), one episode each."""


@dataclass(frozen=True)
class Context:
    """What a component's factory gets besides the game's spec and its config.

    Attributes:
        seed: The component's own seed (:func:`games.core.seeds.component_seed`); draw every random number
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
    """Base of every objective and oracle: the hooks the loop calls, each a no-op here.

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

    Hooks of one section, declared by its contract and defaulted here so that every component
    has them: an objective's ``step_rewards``, ``rescores_parents``, ``ranks_players`` and
    ``scores_on_threads``
    (:class:`objectives.base.Objective`), an oracle's ``statistical`` and ``confirm``
    (:class:`oracles.base.Oracle`).
    """

    requires: frozenset[str] = frozenset()

    rescores_parents: bool = False
    """Default of :attr:`objectives.base.Objective.rescores_parents`: scores that do not drift."""
    ranks_players: bool = False
    """Default of :attr:`objectives.base.Objective.ranks_players`."""
    scores_on_threads: bool = False
    """Default of :attr:`objectives.base.Objective.scores_on_threads`: scored in turn."""
    statistical: bool = False
    """Default of :attr:`oracles.base.Oracle.statistical`: one replay can show the bug."""

    def confirm(self, bugs: list[Any], replay: Replay) -> list[Any]:
        """Default of :meth:`oracles.base.Oracle.confirm`: one showing is enough."""
        return bugs

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        """Default of :meth:`objectives.base.Objective.step_rewards`: zeros, no dense reward."""
        return np.zeros(rollout.length, dtype=np.float64)

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
    def report_section(cls, run: "ComponentRun") -> "ReportSection | None":
        """Its section of the run's HTML page, read from the run directory; none by default."""
        return None

    @classmethod
    def map_marks(cls, run: "ComponentRun") -> "MapMarks | None":
        """What it draws on the scene map of the run's game; nothing by default."""
        return None


def check_component(built: Any, section: str, name: str) -> Any:
    """``built`` itself when it is a :class:`Component`.

    Raises:
        TypeError: a factory that made something else (names it and the fix), or one that
            requires a record column that does not exist.
    """
    if not isinstance(built, Component):
        raise TypeError(
            f"{section} {name!r} built a {type(built).__name__}, which does not derive from "
            f"oracles.component.Component (the hooks the loop calls)"
        )
    unknown = unknown_columns(built.requires)
    if unknown:
        raise TypeError(
            f"{section} {name!r} requires record columns {unknown}; the record has "
            f"{', '.join(OPTIONAL_COLUMNS)}"
        )
    return built
