"""The first episodes of a game that declares no bounds for its state features: seeded
uniform random play that sets the size of their cells.

A game plugged in by ``entry_point`` or ``gym_id`` often says nothing of where its state
features range (``GameSpec.feature_open``). The cells they are cut into must be small enough
to tell places apart and must not end where the first episodes happened to stop: the size is
taken from these episodes (:func:`games.adapter.spec.with_learned_cells`) and the cells go on
past them. These episodes are play like any other: a fault is recorded on its copy, and the
run's oracles check the batch in its first generation, so a crash here is a crash bug with
a replay handle, never a failure of the run's start.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evo.search.agents.uniform import UniformAgent
from evo.search.play import draw_episodes, play
from games.core.base import GameSpec
from games.adapter.spec import with_learned_cells
from games.core.record import RolloutBatch
from games.common.seeds import probe_seed

PROBE_EPISODES = 8
"""Episodes of uniform random play, played as one batch of copies."""
PROBE_STEPS = 250
"""Steps each of them plays at most (the game's horizon if shorter): 2,000 in all."""
PROBE_POLICY = -1
"""The policy id the record gives these episodes (the population's ids start at 0)."""


def play_probe(factory: Any, spec: GameSpec, seed: int, columns: frozenset[str] = frozenset()) -> RolloutBatch:
    """Play the probe's episodes on ``factory``'s game and return their record.

    Args:
        factory: The game's :class:`games.registry.GameFactory` (with the spec it knows so
            far, so that its copies do not derive one again).
        spec: The game's spec as its vector form reports it (wrappers included).
        seed: The experiment's seed: the same seed plays the same probe.
        columns: Optional record columns to keep (what the run's components require).
    """
    horizon = min(int(spec.max_steps), PROBE_STEPS)
    draws = draw_episodes([probe_seed(seed)], PROBE_EPISODES, horizon, spec.n_actions)
    game = factory.make_vector(PROBE_EPISODES)
    try:
        result = play(game, draws.seeds, [PROBE_POLICY] * PROBE_EPISODES, UniformAgent(draws.gumbel),
                      max_steps=horizon, columns=columns)
    finally:
        game.close()
    return result.rollouts


def reached_states(batch: RolloutBatch) -> np.ndarray:
    """``[S, F]`` the states the episodes really reached: an episode whose reset failed
    (its error at the first step) holds placeholder zeros, not a state of the game."""
    mask = batch.state_mask()
    for i, _ in batch.errors.items():
        if batch.lengths[i] <= 1:
            mask[i] = False
    return batch.features[mask]


def learn_cells(factory: Any, spec: GameSpec, seed: int,
                columns: frozenset[str] = frozenset()) -> tuple[RolloutBatch, GameSpec]:
    """The probe's record and ``spec`` with the cell size of its open features learned."""
    batch = play_probe(factory, spec, seed, columns)
    return batch, with_learned_cells(spec, reached_states(batch))


FEW_PLACES = 2
"""At most this many cells in the probe's whole play: the features tell no places apart."""


def few_places(batch: RolloutBatch, spec: GameSpec, label: str) -> str | None:
    """A warning with the fix where the probe's episodes, in all their steps, reached at most
    :data:`FEW_PLACES` cells of the state features (``spec``, its cells learned): coverage,
    novelty, the archive of cells and the stuck oracle would then see one place all run long,
    and nothing would say why the search finds no more than random play. None otherwise."""
    states = reached_states(batch)
    if len(states) <= FEW_PLACES:  # the probe hardly played (faults): nothing to judge
        return None
    cells = np.unique(spec.bucket_keys(states)).size
    if cells > FEW_PLACES:
        return None
    return (f"game {label}: {len(states):,} steps of random play reached {cells} cell"
            f"{'s' if cells > 1 else ''} of its {spec.n_features} state features; coverage, novelty "
            "and the stuck oracle cannot tell its places apart. Give it state_features that say "
            "where the player is (a gymnasium.Wrapper may add them: docs/guides/add-a-game.md)")
