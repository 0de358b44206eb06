"""Objectives: how a policy's play is scored (winning, state coverage, ...)."""

from __future__ import annotations

from typing import Any, Sequence

from games.base import GameSpec
from objectives import coverage, fps_drop, winning  # noqa: F401  (register themselves)
from objectives.base import REGISTRY, Objective, step_rewards


def build_objectives(entries: Sequence[tuple[str, dict[str, Any]]], spec: GameSpec) -> list[Objective]:
    """Objectives in YAML order, their kwargs validated by each one's config model.

    Raises:
        KeyError: an unknown name (the message lists the known ones).
        pydantic.ValidationError: kwargs of the wrong name or type.
    """
    built = []
    for name, kwargs in entries:
        if name not in REGISTRY:
            raise KeyError(f"unknown objective {name!r}; known: {', '.join(sorted(REGISTRY))}")
        config_model, factory = REGISTRY[name]
        built.append(factory(spec, config_model(**kwargs)))
    return built


__all__ = ["REGISTRY", "Objective", "build_objectives", "step_rewards"]
