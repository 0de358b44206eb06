"""Shrink a bug's action trace to a short one that still reproduces it (delta debugging).

A bug found by the search comes with the whole episode up to it: hundreds of steps, most of
them wandering. Zeller and Hildebrandt's ``ddmin`` ("Simplifying and isolating
failure-inducing input", TSE 2002) removes chunks of the trace while the bug still shows,
refining the chunks until no single action can go: the result is 1-minimal. Every candidate
is verified the way ``evo replay`` verifies a bug, by playing it from the episode's seed and
asking the bug's own oracle (:class:`evo.bugs.reproduce.Reproducer`); the candidates of one round
are played as one batch of copies of the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from evo.bugs.reproduce import Reproducer

MAX_PLAYS = 20_000
"""Candidate episodes one shrink may play before it settles for what it has."""


@dataclass(frozen=True)
class ShrinkResult:
    """A bug's trace before and after shrinking.

    Attributes:
        bug: The bug's ``bugs.jsonl`` record.
        original: The actions the run recorded, up to the bug's step.
        shrunk: The shortest trace found that still shows the bug (the original when the
            bug did not reproduce at all: ``reproduced`` is then False).
        reproduced: The original trace reproduced the bug.
        plays: Candidate episodes played.
    """

    bug: dict[str, Any]
    original: tuple[int, ...]
    shrunk: tuple[int, ...]
    reproduced: bool
    plays: int


def _split(trace: Sequence[int], n: int) -> list[tuple[int, int]]:
    """``n`` near-equal contiguous ``(start, stop)`` chunks of ``trace``."""
    size = len(trace)
    edges = [size * k // n for k in range(n + 1)]
    return [(edges[k], edges[k + 1]) for k in range(n) if edges[k] < edges[k + 1]]


def ddmin(trace: Sequence[int], reproduces: Callable[[list[list[int]]], list[bool]],
          max_plays: int = MAX_PLAYS, progress: Callable[[int, int], None] | None = None) -> tuple[list[int], int]:
    """A 1-minimal sub-sequence of ``trace`` for which ``reproduces`` holds (Zeller's ddmin).

    Args:
        trace: A sequence that reproduces (not checked here).
        reproduces: Takes candidate sequences, returns for each whether it reproduces; all of
            one round's candidates come in one call, so the caller can play them as a batch.
        max_plays: Stop refining once this many candidates were tried.
        progress: Told ``(current length, candidates tried)`` after each round.

    Returns:
        The shrunk sequence and the number of candidates tried.
    """
    current = list(trace)
    n, plays = 2, 0
    while len(current) >= 2 and plays < max_plays:
        chunks = _split(current, n)
        subsets = [current[a:b] for a, b in chunks]
        complements = [current[:a] + current[b:] for a, b in chunks] if n > 2 else []
        candidates = subsets + complements
        results = reproduces(candidates)
        plays += len(candidates)
        if any(results[: len(subsets)]):
            current, n = subsets[results.index(True)], 2
        elif any(results[len(subsets):]):
            current = complements[results[len(subsets):].index(True)]
            n = max(n - 1, 2)
        elif n >= len(current):
            break
        else:
            n = min(2 * n, len(current))
        if progress is not None:
            progress(len(current), plays)
    if progress is not None:
        progress(len(current), plays)
    return current, plays


def shrink_bug(reproducer: Reproducer, record: Mapping[str, Any], max_plays: int = MAX_PLAYS,
               progress: Callable[[int, int], None] | None = None) -> ShrinkResult:
    """Shrink one bug: its trace first cut after the earliest step at which the bug shows,
    then reduced by :func:`ddmin`, each candidate verified by its oracle (``progress``: as
    :func:`ddmin`'s)."""
    original = tuple(int(a) for a in record["actions"])
    first = reproducer.first_step(record, list(original))
    if first is None:
        return ShrinkResult(dict(record), original, original, False, 1)
    prefix = list(original[: first + 1])
    shrunk, plays = ddmin(prefix, lambda scripts: reproducer.reproduces(record, scripts), max_plays, progress)
    if not reproducer.reproduces(record, [shrunk])[0]:  # the last word is the oracle's, once more
        shrunk = prefix
    return ShrinkResult(dict(record), original, tuple(shrunk), True, plays + 2)


def shrink(run_dir: str | Path, bug_id: int, max_plays: int = MAX_PLAYS) -> ShrinkResult:
    """Shrink bug ``bug_id`` of a run (:func:`shrink_bug`), each script played once."""
    with Reproducer(run_dir, repeats=1) as reproducer:
        return shrink_bug(reproducer, reproducer.bug(bug_id), max_plays)
