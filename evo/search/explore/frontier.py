"""Starting episodes from the frontier: which copies return to which cells, and whether the
game took them there.

The search asks :meth:`Frontier.plan` before it plays a generation's evaluation episodes,
wraps the agents in :class:`evo.search.agents.returning.ReturningSpec` and starts the returning
copies from their cells' episode seeds, then hands every batch it observed to
:meth:`Frontier.observe`. A game that does not always replay to the archived bucket (sticky
inputs, physics on threads) is said in one line at its first missed return; a return that
misses explores from where it landed, as Go-Explore's do in a stochastic game, as long as at
least :data:`LANDING_SHARE` of the returns land. A game where fewer do is said in one more
line, and every later episode starts from the reset, unless its returns restore snapshots: a
restored return lands within its last few replayed steps of the cell whatever they do, and
explores from next to it (a sticky game's returns by snapshot miss many cells by a step or
two; those to cells archived before the first snapshot replay and miss by far). Nothing of it is a bug report: what a
returning episode plays is an ordinary seed and action list.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from evo.search.agents.base import AgentSpec
from evo.search.agents.returning import ReturningSpec
from evo.search.explore.cell_archive import CellArchive
from games.core.base import GameSpec
from games.core.record import RolloutBatch
from games.core.snapshots import SNAPSHOT_FAILED

log = logging.getLogger(__name__)

LANDING_SHARE = 0.5
"""Returns stop once fewer than this share of all of a run's returns reached their cell: below
it, a return's replayed steps buy less than starting from the reset."""


@dataclass(frozen=True)
class Plan:
    """Where each copy of one batch starts.

    Attributes:
        copies: ``[R]`` the copies (policy-major) that return.
        rows: ``[R]`` the archive row each of them returns to.
        seeds: ``[N]`` episode seed per copy: the cell's where it returns, -1 where drawn.
        prefixes: ``[N]`` the actions each copy plays first: the way to its cell from the reset,
            or from its snapshot; empty where it starts from the reset.
        starts: ``[N]`` the snapshot each copy goes on from, None where it starts from the reset.
        heads: ``[N]`` the actions from the reset to that snapshot (empty without one).
    """

    copies: np.ndarray
    rows: np.ndarray
    seeds: np.ndarray
    prefixes: tuple[np.ndarray, ...]
    starts: tuple[bytes | None, ...] = ()
    heads: tuple[np.ndarray, ...] = ()

    def spec(self, inner: AgentSpec, copies: slice) -> ReturningSpec:
        """The agent spec for a chunk of the batch's copies."""
        return ReturningSpec.of(inner, self.prefixes[copies])

    def restores(self, copies: slice) -> tuple[tuple[bytes | None, ...], tuple[np.ndarray, ...]] | None:
        """The snapshots and heads of a chunk's copies, None where none of them restores one."""
        starts = self.starts[copies]
        return (starts, self.heads[copies]) if any(s is not None for s in starts) else None


class Frontier:
    """The run's cell archive and the returns to it.

    Args:
        spec: The game's spec.
        share: Share of each policy's episodes that return (1 for go_explore).
        rng: The exploration generator (the experiment's ``Stream.EXPLORE``,
            :func:`games.common.seeds.stream_rng`).
        snapshot_every: See the attribute.
        check: What says it where it is None
            (:func:`evo.search.explore.snapshot_check.snapshot_every`).
    """

    def __init__(self, spec: GameSpec, share: float, rng: np.random.Generator, snapshot_every: int | None = 0,
                 check: Callable[[], int] | None = None) -> None:
        self.archive = CellArchive(spec)
        self.share = share
        self.rng = rng
        self.replays = True
        """False once fewer than :data:`LANDING_SHARE` of the returns reached their cell: every
        episode starts from the reset."""
        self.returns = 0
        self.landings = 0
        """Returns played and those that reached their cell, over the run."""
        self.snapshot_every = snapshot_every
        """Steps between the snapshots episodes take (:mod:`games.core.snapshots`); 0: returns
        replay; None: ``check()`` says, before the first return (a run over in its first
        generation never pays for it; until then, none are taken)."""
        self._check = check

    def returning(self, episodes: int) -> int:
        """How many of a policy's ``episodes`` return (at least one when the share is above 0)."""
        if not self.share:
            return 0
        return min(episodes, max(1, int(round(self.share * episodes))))

    def plan(self, policies: int, episodes: int) -> Plan | None:
        """Choose cells for the last :meth:`returning` episodes of each policy; None when
        nothing returns (no open cell yet, or a game that does not replay)."""
        k = self.returning(episodes)
        if not k or not self.replays or not self.archive.columns["open"].any():
            return None
        if self.snapshot_every is None:
            self.snapshot_every = self._check() if self._check is not None else 0
        n = policies * episodes
        copies = (np.arange(policies)[:, None] * episodes + np.arange(episodes - k, episodes)[None, :]).reshape(-1)
        rows = self.archive.select(copies.size, self.rng)
        seeds = np.full(n, -1, dtype=np.int64)
        seeds[copies] = self.archive.columns["seed"][rows]
        none = np.zeros(0, dtype=np.int32)
        prefixes, heads = [none] * n, [none] * n
        starts: list[bytes | None] = [None] * n
        for c, r in zip(copies.tolist(), rows.tolist()):
            start, at = self.archive.start_of(r) if self.snapshot_every else (None, 0)
            way = self.archive.prefixes[r]
            starts[c], heads[c], prefixes[c] = start, way[:at], way[at:]
        return Plan(copies, rows, seeds, tuple(prefixes), tuple(starts), tuple(heads))

    def observe(self, batch: RolloutBatch, generation: int, env_steps: int, plan: Plan | None = None) -> int:
        """Add a batch's cells; for a planned batch, check the returns and credit the cells
        whose exploration found something new. Returns the archive's size."""
        if batch.snapshots is not None and self.snapshot_every and any(
                b == SNAPSHOT_FAILED for taken in batch.snapshots for b in taken.values()):
            self.snapshot_every = 0
            log.warning("the game could not be snapshotted during play; returns replay from the reset from now on")
        if plan is not None:
            self._count(self.archive.landed(batch, plan.rows, plan.copies))
        found = self.archive.update(batch, generation, env_steps)
        if plan is not None:
            self.archive.credit(plan.rows, found[plan.copies])
        return len(self.archive)

    def _count(self, landed: np.ndarray) -> None:
        """Count a batch's returns; say the first miss, and stop returning below the share."""
        missed_before = self.returns - self.landings
        self.returns += int(landed.size)
        self.landings += int(landed.sum())
        if not self.replays or self.returns == self.landings:
            return
        if self.landings < LANDING_SHARE * self.returns and not self.snapshot_every:
            self.replays = False
            log.warning(
                "the game did not replay to its archived cell in %d of %d returns (not deterministic "
                "under the same seed and actions); every episode starts from the reset from now on",
                self.returns - self.landings, self.returns,
            )
        elif not missed_before:
            log.warning(
                "the game did not replay to its archived cell in %d of %d returns (sticky inputs or "
                "physics that do not replay); such returns explore from where they landed",
                self.returns - self.landings, self.returns,
            )

    def state_dict(self) -> dict[str, Any]:
        return {
            "archive": self.archive.state_dict(),
            "rng": self.rng.bit_generator.state,
            "replays": self.replays,
            "returns": self.returns,
            "landings": self.landings,
            "snapshot_every": self.snapshot_every,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.archive.load_state_dict(state["archive"])
        self.rng.bit_generator.state = state["rng"]
        self.replays = bool(state["replays"])
        self.returns, self.landings = int(state.get("returns", 0)), int(state.get("landings", 0))
        every = state.get("snapshot_every", 0)  # 0: a run begun before returns by snapshot replays
        self.snapshot_every = None if every is None else int(every)
