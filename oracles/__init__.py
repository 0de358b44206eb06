"""Oracles: what counts as a bug, seen from rollouts alone.

Importing this package registers the built-in oracles (``crash``, ``logic``, ``stuck``,
``performance``); :func:`build_oracles` makes them from the YAML's ``oracles:`` list.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from games.base import GameSpec, Rollout
from oracles import crash, logic, performance, stuck  # noqa: F401  (register themselves)
from oracles.archive import ArchivedBug, BugArchive, append_jsonl, from_record, to_record
from oracles.base import REGISTRY, Bug, Oracle, OracleConfig, register


def build_oracles(
    entries: Sequence[tuple[str, Mapping[str, Any] | None]], spec: GameSpec,
) -> list[Oracle]:
    """Make the oracles an experiment lists, in its order.

    Args:
        entries: ``(name, kwargs)`` per oracle; the kwargs are checked against the oracle's
            registered pydantic config (unknown keys and wrong types are errors).
        spec: the game's spec, which oracles read for actions and feature buckets.

    Raises:
        KeyError: for a name nobody registered; the message lists the known names.
        pydantic.ValidationError: for bad kwargs.
    """
    oracles: list[Oracle] = []
    for name, kwargs in entries:
        if name not in REGISTRY:
            known = ", ".join(sorted(REGISTRY))
            raise KeyError(f"unknown oracle {name!r}; known oracles: {known}")
        config_cls, factory = REGISTRY[name]
        config = config_cls.model_validate(dict(kwargs or {}))
        oracles.append(factory(spec, config))
    return oracles


def calibrate_all(oracles: Sequence[Oracle], rollouts: Sequence[Rollout]) -> None:
    """Give the warm-up rollouts to every oracle that has thresholds to set."""
    for oracle in oracles:
        fn = getattr(oracle, "calibrate", None)
        if fn is not None:
            fn(rollouts)


def check_all(oracles: Sequence[Oracle], rollouts: Sequence[Rollout]) -> list[Bug]:
    """Every oracle's bugs for this batch, oracle by oracle in the given order."""
    bugs: list[Bug] = []
    for oracle in oracles:
        bugs.extend(oracle.check(rollouts))
    return bugs


__all__ = [
    "REGISTRY", "ArchivedBug", "Bug", "BugArchive", "Oracle", "OracleConfig", "append_jsonl",
    "build_oracles", "calibrate_all", "check_all", "from_record", "register", "to_record",
]
