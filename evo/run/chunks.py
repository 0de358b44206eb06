"""How a batch is cut into the workers' tasks: contiguous chunks of the population, and for an
isolated game (whose every copy is a process) tasks small enough to reuse the copies started."""

from __future__ import annotations

from typing import Any

import numpy as np


def chunks(n: int, parts: int) -> list[slice]:
    """``parts`` contiguous, near-equal slices of ``range(n)`` (fewer if ``n`` is small)."""
    parts = max(1, min(parts, n))
    bounds = np.linspace(0, n, parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


ISOLATED_COPIES_PER_TASK = 16
"""Most copies of an isolated game one play task steps together. Each copy is a process: a
generation of 120 copies in two tasks started 120 of them (highway-env on 2 cores: 103 s for
its first generation's 1,237 steps; 49.7 s in tasks of 16), where 16 a task keep two cores
busy. The rest of the batch plays in further tasks, on the copies the workers already started."""


def play_chunks(policies: int, episodes: int, parts: int, isolated: bool) -> list[slice]:
    """The policies of each play task: :func:`chunks` over the workers' ``parts``, and for an
    isolated game as many more (a multiple of ``parts``, so that every worker gets as many) as
    keep each task within :data:`ISOLATED_COPIES_PER_TASK` copies. A policy's episodes stay in
    one task, and what a policy plays does not depend on its task."""
    if not isolated:
        return chunks(policies, parts)
    tasks = -(-policies // max(1, ISOLATED_COPIES_PER_TASK // max(1, episodes)))
    return chunks(policies, max(parts, -(-tasks // parts) * parts))


def run_batch(exp: Any) -> int:
    """Copies one worker of the run stepped at once: the larger of the population's and the
    offspring's episodes, cut into the run's chunks."""
    episodes = max(exp.search.population, exp.search.offspring) * exp.search.episodes
    parts = exp.parallel.lanes if exp.parallel.backend == "serial" else exp.parallel.n_jobs
    return -(-episodes // parts)
