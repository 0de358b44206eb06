"""The components of a run, asked what they add to its report (:mod:`oracles.reporting`).

A run's ``config.yaml`` lists its objectives and oracles by name; their registered classes
(:class:`games.core.component.Component`) answer for them: the columns comparisons carry, a
section of the run's page, marks on the scene map. A name nobody registered now (a plug-in
no longer installed) or a factory that is not a component class adds nothing. No component
is built: a report needs neither the game nor torch's networks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

from games.core.component import Component
from oracles.reporting import ComponentRun

SECTIONS = ("objectives", "oracles")
"""The config's component lists, in the order a checkpoint keeps their states."""


def _registries() -> dict[str, Any]:
    from objectives import OBJECTIVES
    from oracles import ORACLES

    return {"objectives": OBJECTIVES, "oracles": ORACLES}


def component_classes(config: dict[str, Any]) -> Iterator[tuple[str, int, type[Component], dict[str, Any]]]:
    """``(section, index in it, class, resolved kwargs)`` of every component a run's config
    lists whose registered factory is a :class:`Component` class, objectives first."""
    registries = _registries()
    for section in SECTIONS:
        for index, entry in enumerate(config.get(section) or ()):
            name = entry.get("name")
            factory = registries[section][name].factory if name in registries[section] else None
            if isinstance(factory, type) and issubclass(factory, Component):
                yield section, index, factory, dict(entry.get("kwargs") or {})


def report_columns(config: dict[str, Any]) -> list[str]:
    """The columns the run's components have comparisons carry, in order, each once."""
    columns: dict[str, None] = {}
    for _, _, cls, _ in component_classes(config):
        columns.update(dict.fromkeys(cls.report_columns))
    return list(columns)


def known_report_columns() -> set[str]:
    """Every column some registered component has comparisons carry."""
    return {c for registry in _registries().values() for entry in registry.values()
            if isinstance(entry.factory, type) and issubclass(entry.factory, Component)
            for c in entry.factory.report_columns}


def _state_loader(path: Path) -> Callable[[str, int], dict[str, Any] | None]:
    """A component's state at the run's latest checkpoint, the checkpoint read once."""
    meta: dict[str, Any] = {}

    def load(section: str, index: int) -> dict[str, Any] | None:
        if "meta" not in meta:
            from evo.run.checkpoint import latest_checkpoint, load_checkpoint

            ckpt = latest_checkpoint(path)
            meta["meta"] = None if ckpt is None else load_checkpoint(ckpt).meta
        states = (meta["meta"] or {}).get(section) or []
        return states[index] if index < len(states) else None
    return load


def component_runs(run: Any, facts: Any) -> list[tuple[type[Component], ComponentRun]]:
    """Every component class of a run (:class:`evo.report.tables.RunData`, whose game's facts
    are ``facts``) with the run as its report hooks read it."""
    load = _state_loader(run.path)
    return [
        (cls, ComponentRun(run.path, kwargs, run.generations, run.bugs, facts,
                           lambda s=section, i=index: load(s, i)))
        for section, index, cls, kwargs in component_classes(run.config)
    ]
