"""Objectives: how a policy's play is scored (winning, state coverage, ...)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from games.common.registry import import_modules
from games.core.base import GameSpec
from games.core.component import Context, build_components
from objectives.base import OBJECTIVES, Objective, step_rewards

import_modules(__name__)  # each module registers its objective


def build_objectives(
    entries: Sequence[tuple[str, Mapping[str, Any] | None]], spec: GameSpec, context: Context | None = None,
) -> list[Objective]:
    """Objectives in YAML order, their kwargs validated by each one's config model
    (:func:`games.core.component.build_components`)."""
    return build_components(OBJECTIVES, Objective, entries, spec, context)


def resolved_kwargs(name: str, kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """An objective's kwargs with every default filled in (for ``config.yaml``)."""
    return OBJECTIVES[name].resolved_kwargs(kwargs)


__all__ = ["OBJECTIVES", "Objective", "build_objectives", "resolved_kwargs", "step_rewards"]
