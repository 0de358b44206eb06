"""Objectives: how a policy's play is scored (winning, state coverage, ...)."""

from __future__ import annotations

from typing import Any, Sequence

from games.core.base import GameSpec
from objectives import coverage, fps_drop, novelty, preference_kl, rnd_novelty, winning  # noqa: F401  (register themselves)
from objectives.base import REGISTRY, Objective, step_rewards
from oracles.component import Context, check_component, contexts


def build_objectives(
    entries: Sequence[tuple[str, dict[str, Any]]], spec: GameSpec, context: Context | None = None,
) -> list[Objective]:
    """Objectives in YAML order, their kwargs validated by each one's config model.

    Args:
        entries: ``(name, kwargs)`` per objective.
        spec: The game's spec.
        context: The experiment's context (``seed`` the experiment's); each objective gets
            its own (:meth:`Context.for_component`). Default: seed 0, cpu, no run directory.

    Raises:
        KeyError: an unknown name (the message lists the known ones).
        pydantic.ValidationError: kwargs of the wrong name or type.
        ValueError: kwargs that do not fit the game, named ``objectives[i].kwargs``.
    """
    for name, _ in entries:
        if name not in REGISTRY:
            raise KeyError(f"unknown objective {name!r}; known: {', '.join(sorted(REGISTRY))}")
    names = [name for name, _ in entries]
    built = []
    for i, ((name, kwargs), ctx) in enumerate(zip(entries, contexts(context or Context(), "objectives", names))):
        config_model, factory = REGISTRY[name]
        config = config_model(**kwargs)
        try:
            objective = factory(spec, config, ctx)
        except ValueError as exc:  # options that do not fit this game (intervals per feature)
            raise ValueError(f"objectives[{i}].kwargs: {exc}") from None
        built.append(check_component(objective, "objective", name))
    return built


def resolved_kwargs(name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """An objective's kwargs with every default filled in (for ``config.yaml``)."""
    return REGISTRY[name][0](**kwargs).model_dump(mode="json")


__all__ = ["REGISTRY", "Objective", "build_objectives", "resolved_kwargs", "step_rewards"]
