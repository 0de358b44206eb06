"""Oracles: what counts as a bug, seen from rollouts alone.

Importing this package registers the built-in oracles (``balance``, ``crash``, ``logic``, ``stuck``,
``performance``, ``validation``, ``visual``, and the ``objects`` scorer); :func:`build_oracles` makes them from
the YAML's ``oracles:`` list.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from games.core.base import GameSpec
from games.core.record import RolloutBatch
from oracles import balance, crash, logic, objects_tested, performance, stuck, validation, visual
from oracles.archive import ArchivedBug, BugArchive, append_jsonl, from_record, to_record
from oracles.base import REGISTRY, Bug, Oracle, OracleConfig, register
from oracles.component import Component, Context, check_component, contexts

BUILT_IN = (balance, crash, logic, objects_tested, performance, stuck, validation, visual)
"""The built-in oracles' modules: importing them registered each in ``REGISTRY``."""


def build_oracles(
    entries: Sequence[tuple[str, Mapping[str, Any] | None]], spec: GameSpec,
    context: Context | None = None,
) -> list[Oracle]:
    """Make the oracles an experiment lists, in its order.

    Args:
        entries: ``(name, kwargs)`` per oracle; the kwargs are checked against the oracle's
            registered pydantic config (unknown keys and wrong types are errors).
        spec: the game's spec, which oracles read for actions and feature buckets.
        context: the experiment's context (``seed`` the experiment's); each oracle gets its
            own (:meth:`Context.for_component`). Default: seed 0, cpu, no run directory.

    Raises:
        KeyError: for a name nobody registered; the message lists the known names.
        pydantic.ValidationError: for bad kwargs.
    """
    for name, _ in entries:
        if name not in REGISTRY:
            known = ", ".join(sorted(REGISTRY))
            raise KeyError(f"unknown oracle {name!r}; known oracles: {known}")
    names = [name for name, _ in entries]
    oracles: list[Oracle] = []
    for (name, kwargs), ctx in zip(entries, contexts(context or Context(), "oracles", names)):
        config_cls, factory = REGISTRY[name]
        config = config_cls.model_validate(dict(kwargs or {}))
        oracles.append(check_component(factory(spec, config, ctx), "oracle", name))
    return oracles


def resolved_kwargs(name: str, kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """An oracle's kwargs with every default filled in (for ``config.yaml``)."""
    return REGISTRY[name][0].model_validate(dict(kwargs or {})).model_dump(mode="json")


def calibrate_all(components: Sequence[Component], rollouts: RolloutBatch) -> None:
    """Give the warm-up rollouts to every component (objectives and oracles alike)."""
    for component in components:
        component.calibrate(rollouts)


def check_all(oracles: Sequence[Oracle], rollouts: RolloutBatch) -> list[Bug]:
    """Every oracle's bugs for this batch, oracle by oracle in the given order."""
    bugs: list[Bug] = []
    for oracle in oracles:
        bugs.extend(oracle.check(rollouts))
    return bugs


__all__ = [
    "REGISTRY", "ArchivedBug", "Bug", "BugArchive", "Component", "Context", "Oracle",
    "OracleConfig", "append_jsonl", "build_oracles", "calibrate_all", "check_all", "from_record",
    "register", "resolved_kwargs", "to_record",
]

from games.core.moved import install as install_moved  # noqa: E402

# Modules that moved (0.2, issue 27): old names in YAMLs, entry points and run directories
# still import, with a DeprecationWarning (games/core/moved.py).
install_moved({
    "oracles.validator": "oracles.action_checks",
})
