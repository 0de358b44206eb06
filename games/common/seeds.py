"""The seed streams of an experiment: every random draw of a run comes from one of them.

One experiment seed makes a run repeatable; each use of randomness draws from a stream of its
own, derived from that seed by numpy's ``SeedSequence`` spawn keys, so that changing one part
(say, the fine-tuning steps) leaves every other part's draws as they were. The streams are
numbered here and nowhere else; a new use of randomness takes the next free number.

This lives in ``games/core`` so that ``objectives``, ``oracles`` and ``evo`` all reach it (a
component's seed is one of these streams) without ``games`` knowing anything of evolution.
"""

from __future__ import annotations

import zlib
from enum import IntEnum

import numpy as np


class Stream(IntEnum):
    """The first spawn key of each stream of ``np.random.SeedSequence(experiment_seed)``.

    Keys 0-3 are the children ``SeedSequence.spawn(4)`` gave the search before the streams
    were named, so a run draws what it drew then.
    """

    VARIATION = 0
    """Parent selection, crossover, mutation and survival (:mod:`evo.search.operators`)."""
    PLAY = 1
    """The policy seeds of every evaluation: episode seeds and action noise derive from them."""
    FINETUNE = 2
    """The policy seeds of fine-tuning (A2C, PPO): their episodes and minibatch orders."""
    INIT = 3
    """Initial weights, and the fresh agents of a search that does not evolve (random testing)."""
    COMPONENTS = 4
    """Objectives and oracles, one stream each below this key (:func:`component_seed`)."""
    EXPLORE = 5
    """Which cells of the frontier the returning episodes start from (``search.strategy``)."""


EPISODE_SEED_MAX = 2**31 - 1
"""Episode seeds, what a game's ``reset`` gets, are drawn in ``[0, EPISODE_SEED_MAX)``: a
signed 32-bit int, the widest seed some engines take. A finished run's evaluation draws its
policies' seeds in this range too (:mod:`evo.run.players`), as it always has, so that an
evaluation repeats."""

POLICY_SEED_MAX = 2**63 - 1
"""The seeds of the per-policy generators a search hands to play and fine-tuning tasks (and
of DEAP's ``random``) are drawn in ``[0, POLICY_SEED_MAX)``: any non-negative int64."""

PROBE_ENTROPY = 0x70726F6265
"""Mixed into the experiment seed's entropy for the probe's episodes (:mod:`evo.search.probe`):
a stream of its own, older than the spawn keys and derived as it was then."""


def stream(experiment_seed: int, which: Stream, *key: int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of one stream (``key``: further spawn-key entries below it)."""
    return np.random.SeedSequence(int(experiment_seed), spawn_key=(int(which), *key))


def stream_rng(experiment_seed: int, which: Stream) -> np.random.Generator:
    """The generator of one stream: equal to ``default_rng`` of the ``which``-th child of
    ``SeedSequence(experiment_seed).spawn(...)``."""
    return np.random.default_rng(stream(experiment_seed, which))


def component_seed(experiment_seed: int, section: str, name: str, occurrence: int) -> int:
    """The seed of one objective or oracle, from the :attr:`Stream.COMPONENTS` stream.

    The stream is keyed by what the component is (its section, registered name, and how many
    components of that name come before it in the section), not by its position in the YAML,
    so adding or removing a component leaves every other component's draws as they were.

    Args:
        experiment_seed: The experiment's ``seed``.
        section: ``objectives`` or ``oracles``.
        name: The registered name.
        occurrence: 0 for the first component of that name in the section, 1 for the next...

    Returns:
        A non-negative int below 2**63 (fits ``torch.manual_seed`` and numpy).
    """
    seq = stream(experiment_seed, Stream.COMPONENTS, zlib.crc32(section.encode()), zlib.crc32(name.encode()),
                 occurrence)
    return int(seq.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def probe_seed(experiment_seed: int) -> int:
    """The policy seed of the probe's episodes (:data:`PROBE_ENTROPY`)."""
    return int(np.random.SeedSequence([int(experiment_seed), PROBE_ENTROPY]).generate_state(1)[0])
