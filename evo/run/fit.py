"""The default experiment fitted to the game it plays: exploration segments and generation size.

The default experiment was tuned on the Block Maze: 120 episodes a generation, each to the
game's horizon of 40 steps. A game someone else wrote may have 2,560-step episodes at 1,000
steps a second: a generation then took five minutes, and Go-Explore, which should return,
explore and archive many times a minute, made two or three rounds in a budget. Go-Explore
explores 100 steps from a cell (Ecoffet et al., arXiv 1901.10995), so ``explore_steps: auto``
ends an episode there; ``generation_seconds`` fits the number of episodes to the pace the
probe measured. Both are decided once, when the game is built, and the numbers played are what
the run's ``config.yaml`` records, so a replay and a resume play the same.
"""

from __future__ import annotations

import math

from evo.run.config import Experiment
from games.core.base import GameSpec

GO_EXPLORE_STEPS = 100
"""Go-Explore's exploration after a return: 100 steps (of repeated random actions)."""
MIN_POLICIES = 4
"""Fewest policies a fitted generation keeps (selection needs a few to choose from)."""


def fitted(exp: Experiment, spec: GameSpec, steps_per_s: float | None) -> Experiment:
    """``exp`` with ``search.explore_steps: auto`` as its number, and with ``search.
    generation_seconds`` turned into episodes and policies at ``steps_per_s`` (the probe's
    pace; None where no probe played: the sizes stay as configured)."""
    s = exp.search
    update: dict = {}
    explore = s.explore_steps
    if explore == "auto":
        explore = min(int(spec.max_steps), GO_EXPLORE_STEPS)
        update["explore_steps"] = explore
    if s.generation_seconds is not None and steps_per_s:
        # A returning episode replays its cell's way there first: count it as half a segment more.
        length = min(float(spec.max_steps), 1.5 * explore if isinstance(explore, int) else float(spec.max_steps))
        wanted = max(MIN_POLICIES, int(steps_per_s * s.generation_seconds / max(length, 1.0)))
        episodes = max(1, min(s.episodes, wanted // s.population))
        population = max(MIN_POLICIES, min(s.population, math.ceil(wanted / episodes)))
        if (episodes, population) != (s.episodes, s.population):
            offspring = s.offspring if s.offspring == 0 else max(1, min(s.offspring, population))
            update.update(episodes=episodes, population=population, offspring=offspring)
        update["generation_seconds"] = None  # decided: the numbers are the experiment now
    if not update:
        return exp
    return exp.model_copy(update={"search": s.model_copy(update=update)})
