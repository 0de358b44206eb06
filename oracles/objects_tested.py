"""Objects oracle: which objects of interest the run saw, tested and reported, and how much of
the preferred area it walked (PPGTA's two test metrics).

PPGTA (Section V; ``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) scores a
park tester by the share of the preferred area (pathways) it covered and by the objects of
interest (OOIs) it tested, an object being tested when the agent circled it, looking at it
from all around ("360-degree test"). This component measures both from the record; it reports
no bugs (its ``check`` returns none): it is a scorer, and reads ground truth to score:

- ``info.visible`` (the ids of the OOIs in each frame, from the game's labels buffer: the
  park's ``visible``) and the first two state features, the map position in the units of the
  objects' places;
- the game's scene from its context (:attr:`games.core.component.Context.scene`,
  :class:`games.core.scene.Scene`): the OOIs (id, type, place) and the preferred area (a grid
  of cells indexed by the buckets of the first two state features);
- the game's ground truth from its facts (``injected``): an OOI is bugged when an injected
  bug is located at it (:func:`games.core.scene.objects_with_bugs`).

An OOI is *seen* once it was in a frame. It is *tested* once, within one episode, the agent
saw it from directions covering at least ``degrees`` (270 by default) while standing within
``radius`` map units of it: the direction is the bearing from the object to the agent,
counted in ``sectors`` equal sectors, so the count is exact to one sector (30 degrees by
default); circling half way round never counts. An OOI is *reported* once a visual bug of the
run is about it: the OOI of the injected bug it matched (a bugged OOI), or the OOI of the
report's type nearest its place within the scene's ``match_radius``
(:func:`games.core.scene.object_near`: a normal OOI then, a false report).

What a tester reads: ``objects.csv`` (one row per OOI), and in each row of
``generations.csv`` the preferred-area coverage of the generation and of the run so far
(``preferred_coverage``, ``preferred_coverage_total``) and the OOIs seen, tested and reported
so far; its report hooks (:mod:`oracles.objects_report`) add the final counts to comparisons,
a section to the run's page, and the latest traces, visits and statuses kept here to the
scene map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from pydantic import Field

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import RolloutBatch
from games.core.scene import object_near, objects_with_bugs, report_place
from oracles import objects_report
from oracles.archive import ArchivedBug
from oracles.base import Bug, Oracle, OracleConfig, register
from oracles.executed_tests import close_views

if TYPE_CHECKING:
    import pandas as pd

    from oracles.reporting import ComponentRun, MapMarks, ReportSection

OBJECT_COLUMNS = [
    "id", "type", "x", "y", "bugged", "bug", "seen", "tested", "generation_seen",
    "generation_tested", "degrees", "reported", "generation_reported",
]
"""Columns of ``objects.csv``; ``bugged``: an injected bug is on the object, ``bug``: that
bug's description; ``degrees``: the most directions (degrees) one episode saw the object from
within ``radius``."""


class ObjectsConfig(OracleConfig):
    """Settings of the objects oracle."""

    radius: float = Field(default=384.0, gt=0.0)
    """Map units within which a view counts towards the test: six park cells, close enough
    that the object fills a good part of a 160x120 frame (a pillar 32 units wide is then
    about 10 pixels wide), far enough to walk round it between rocks and trees."""

    degrees: float = Field(default=270.0, gt=0.0, le=360.0)
    """Directions (degrees of bearing from the object) an episode must see it from to test
    it: PPGTA's 360-degree test, with a quarter left for what an agent cannot reach."""

    sectors: int = Field(default=12, ge=4, le=360)
    """Equal sectors the directions are counted in (12: 30 degrees each)."""

    traces: int = Field(default=8, ge=0)
    """Episodes of the latest generation kept for the park map: those that walked the most
    cells of the preferred area."""


@register("objects", ObjectsConfig)
class ObjectsTested(Oracle):
    """Seen, tested and reported per OOI; preferred-area coverage per generation (see module)."""

    name = "objects"
    requires = frozenset({"info.visible"})
    report_columns = objects_report.COLUMNS

    def __init__(self, spec: GameSpec, config: ObjectsConfig, context: Context) -> None:
        scene = context.scene
        objects = tuple(scene.objects) if scene is not None else ()
        if not objects:
            raise ValueError(
                "the game places no objects of interest (its scene has no "
                "objects, games.core.scene); it scores games that do, such as doom_park"
            )
        if spec.n_features < 2:
            raise ValueError(f"needs the map position as the first two state features; "
                             f"the game has {spec.n_features}")
        self.spec, self.config, self.objects = spec, config, objects
        self.match_radius = scene.match_radius
        self.bugs = objects_with_bugs(objects, getattr(context.facts, "injected", ()) or ())
        """Object id -> the injected bug on it (ground truth, for ``objects.csv`` and reports)."""
        self.object_of = {bug.id: k for k, bug in self.bugs.items()}
        """Injected bug id -> the id of the object it is on."""
        self.shape = (int(spec.feature_bins[0]), int(spec.feature_bins[1]))
        preferred = scene.preferred
        if preferred is not None and tuple(np.shape(preferred)) != self.shape:
            raise ValueError(f"oracle objects: the preferred area is {np.shape(preferred)} cells; the map "
                             f"of the first two state features is {self.shape}")
        self.preferred = None if preferred is None else np.asarray(preferred, dtype=bool)
        self.index = {o.id: k for k, o in enumerate(objects)}
        self.xy = np.array([(o.x, o.y) for o in objects], dtype=np.float64)
        self.forget_visits()

    # ----------------------------------------------------------------- evidence
    def forget_visits(self) -> None:
        """Start over: nothing seen, tested, visited or reported yet."""
        n = len(self.objects)
        self.generation = 0
        self.first_seen = np.full(n, -1, dtype=np.int64)
        self.first_tested = np.full(n, -1, dtype=np.int64)
        self.first_reported = np.full(n, -1, dtype=np.int64)
        self.degrees = np.zeros(n, dtype=np.float64)
        self.visits = np.zeros(self.shape, dtype=np.int64)
        self.cells_now = np.zeros(self.shape, dtype=bool)  # this generation's
        self.last_share = float("nan")
        self.traces: list[list[int]] = []

    def _cells(self, features: np.ndarray) -> np.ndarray:
        """``[T, 2]`` map cells of ``[T, F]`` states."""
        return self.spec.buckets(features)[:, :2]

    def _test(self, xy: np.ndarray, visible: np.ndarray) -> dict[int, set[int]]:
        """Per OOI in view in one episode, the sectors of direction it was seen from within
        ``radius``. ``xy``: ``[T, 2]`` positions after each step; ``visible``: ``[T]`` id
        tuples (None where the copy did not step)."""
        for ids in visible:
            for ooi in ids or ():
                k = self.index.get(int(ooi))
                if k is not None and self.first_seen[k] < 0:
                    self.first_seen[k] = self.generation
        sectors: dict[int, set[int]] = {}
        for _, k, sector in close_views(xy, visible, self.index, self.xy, self.config.radius, self.config.sectors):
            sectors.setdefault(k, set()).add(sector)
        return sectors

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """Record what these episodes saw, tested and walked; no bug is reported."""
        visible = rollouts.info["visible"]
        width = 360.0 / self.config.sectors
        for i in range(len(rollouts)):
            n = int(rollouts.lengths[i])
            cells = self._cells(rollouts.features[i, : n + 1])
            np.add.at(self.visits, (cells[:, 0], cells[:, 1]), 1)
            self.cells_now[cells[:, 0], cells[:, 1]] = True
            for k, seen in self._test(rollouts.features[i, 1 : n + 1, :2], visible[i, :n]).items():
                self.degrees[k] = max(self.degrees[k], len(seen) * width)
                if self.first_tested[k] < 0 and len(seen) * width >= self.config.degrees - 1e-9:
                    self.first_tested[k] = self.generation
        return []

    def update(self, rollouts: RolloutBatch) -> None:
        """End of a generation: its preferred-area share, the traces of its best walkers."""
        self.last_share = self._share(self.cells_now)
        if self.config.traces:
            scores = []
            for i in range(len(rollouts)):
                cells = self._cells(rollouts.features[i, : int(rollouts.lengths[i]) + 1])
                on = cells if self.preferred is None else cells[self.preferred[cells[:, 0], cells[:, 1]]]
                scores.append(len({(int(a), int(b)) for a, b in on}))
            best = sorted(range(len(rollouts)), key=lambda i: (-scores[i], i))[: self.config.traces]
            self.traces = [
                np.rint(rollouts.features[i, : int(rollouts.lengths[i]) + 1, :2]).astype(np.int64).ravel().tolist()
                for i in best
            ]
        self.cells_now[:] = False
        self.generation += 1

    def found(self, bugs: Sequence[ArchivedBug]) -> None:
        """Mark the OOIs the run's new visual reports are about (see the module)."""
        for archived in bugs:
            place = report_place(archived.bug)
            if place is None:
                continue
            k = self.index.get(self.object_of.get(archived.injected_id, -1))
            if k is None:
                near = object_near(self.objects, *place, within=self.match_radius)
                k = None if near is None else self.index[near.id]
            if k is not None and self.first_reported[k] < 0:
                self.first_reported[k] = archived.generation

    def _share(self, cells: np.ndarray) -> float:
        if self.preferred is None or not self.preferred.any():
            return float("nan")
        return float((cells & self.preferred).sum() / self.preferred.sum())

    # ----------------------------------------------------------------- what is read
    def metrics(self) -> dict[str, float]:
        """Columns of ``generations.csv``: preferred-area coverage of this generation and of
        the run so far (share of its cells visited; only for a game with a preferred area),
        and the OOIs seen, tested and reported so far."""
        out: dict[str, float] = {}
        if self.preferred is not None:
            out["preferred_coverage"] = round(self.last_share, 4)
            out["preferred_coverage_total"] = round(self._share(self.visits > 0), 4)
        out["objects_seen"] = int((self.first_seen >= 0).sum())
        out["objects_tested"] = int((self.first_tested >= 0).sum())
        out["objects_reported"] = int((self.first_reported >= 0).sum())
        return out

    def tables(self) -> dict[str, "pd.DataFrame"]:
        """``objects``: one row per OOI (:data:`OBJECT_COLUMNS`); generations are empty where
        it never was."""
        import pandas as pd

        def when(first: np.ndarray) -> Any:
            return pd.array([int(g) if g >= 0 else None for g in first], dtype="Int64")

        o = self.objects
        table = pd.DataFrame({
            "id": [x.id for x in o], "type": [x.type for x in o], "x": [x.x for x in o],
            "y": [x.y for x in o], "bugged": [x.id in self.bugs for x in o],
            "bug": [self.bugs[x.id].description if x.id in self.bugs else "" for x in o],
            "seen": self.first_seen >= 0, "tested": self.first_tested >= 0,
            "generation_seen": when(self.first_seen), "generation_tested": when(self.first_tested),
            "degrees": self.degrees, "reported": self.first_reported >= 0,
            "generation_reported": when(self.first_reported),
        })
        return {"objects": table[OBJECT_COLUMNS]}

    def state_dict(self) -> dict[str, Any]:
        """Everything gathered, as JSON lists (a resumed run goes on from it)."""
        return {
            "generation": self.generation, "first_seen": self.first_seen.tolist(),
            "first_tested": self.first_tested.tolist(), "first_reported": self.first_reported.tolist(),
            "degrees": self.degrees.tolist(), "visits": self.visits.tolist(),
            "cells_now": self.cells_now.astype(np.uint8).tolist(), "last_share": self.last_share,
            "traces": self.traces,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.generation = int(state["generation"])
        for name in ("first_seen", "first_tested", "first_reported"):
            setattr(self, name, np.asarray(state[name], dtype=np.int64))
        self.degrees = np.asarray(state["degrees"], dtype=np.float64)
        self.visits = np.asarray(state["visits"], dtype=np.int64).reshape(self.shape)
        self.cells_now = np.asarray(state["cells_now"], dtype=bool).reshape(self.shape)
        self.last_share = float(state["last_share"])
        self.traces = [list(map(int, t)) for t in state["traces"]]

    @classmethod
    def report_section(cls, run: "ComponentRun") -> "ReportSection | None":
        """The objects section of the run's page (:func:`oracles.objects_report.section`)."""
        return objects_report.section(run)

    @classmethod
    def map_marks(cls, run: "ComponentRun") -> "MapMarks | None":
        """Visits, traces and statuses on the scene map (:func:`oracles.objects_report.marks`)."""
        return objects_report.marks(run)
