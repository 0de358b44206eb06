"""Oracles: what counts as a bug, seen from rollouts alone.

Importing this package registers the built-in oracles (``balance``, ``crash``, ``logic``, ``stuck``,
``performance``, ``validation``, ``visual``, and the ``objects`` scorer); :func:`build_oracles` makes them from
the YAML's ``oracles:`` list.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from games.common.registry import import_modules
from games.core.base import GameSpec
from games.core.component import Component, Context, build_components
from games.core.record import RolloutBatch
from oracles.archive import ArchivedBug, BugArchive, Reproduction, append_jsonl, from_record, to_record
from oracles.base import ORACLES, Bug, Oracle, OracleConfig, register

import_modules(__name__)  # each module registers its oracle


def build_oracles(
    entries: Sequence[tuple[str, Mapping[str, Any] | None]], spec: GameSpec,
    context: Context | None = None,
) -> list[Oracle]:
    """The oracles an experiment lists, in its order, their kwargs validated by each one's
    config model (:func:`games.core.component.build_components`)."""
    return build_components(ORACLES, Oracle, entries, spec, context)


def resolved_kwargs(name: str, kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """An oracle's kwargs with every default filled in (for ``config.yaml``)."""
    return ORACLES[name].resolved_kwargs(kwargs)


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
    "ORACLES", "ArchivedBug", "Bug", "BugArchive", "Context", "Oracle",
    "OracleConfig", "Reproduction", "append_jsonl", "build_oracles", "calibrate_all", "check_all", "from_record",
    "register", "resolved_kwargs", "to_record",
]
