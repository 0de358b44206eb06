"""The objects oracle on hand-made walks: an object circled three quarters round close by is
tested, half round (or far away, or over two episodes) it is not; the preferred area's share
walked per generation and so far; reports marked on the object they are about; its state
survives a checkpoint; and a game without objects is one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from evo.run.built import Built
from evo.run.config import ConfigError, load_experiment
from evo.run.game_facts import GameFacts
from games.core.component import Context
from games.core.base import GameSpec, InjectedBug
from games.core.record import Rollout, RolloutBatch
from games.core.scene import Scene, SceneObject
from oracles import build_oracles
from oracles.archive import ArchivedBug
from oracles.base import Bug
from oracles.objects_tested import OBJECT_COLUMNS

SPEC = GameSpec(obs_shape=(3, 8, 8), n_actions=9, feature_names=("x", "y", "angle"),
                feature_low=(0.0, 0.0, 0.0), feature_high=(2048.0, 2048.0, 360.0),
                feature_bins=(32, 32, 8), max_steps=500, obs_dtype="uint8")
BARREL = SceneObject(0, "barrel", 1024.0, 1024.0)
LAMP = SceneObject(1, "lamp", 320.0, 320.0)
PREFERRED = np.zeros((32, 32), dtype=bool)
PREFERRED[:, 2] = True  # a pathway along y = 128..192: 32 cells
TRUTH = (InjectedBug(0, "visual", (1024.0, 1024.0, 0.0), "barrel with a lowres texture"),)
"""The barrel is bugged: its injected bug is located at it."""
FACTS = GameFacts("park", SPEC, True, TRUTH, None, Scene(objects=(BARREL, LAMP), preferred=PREFERRED,
                                                        match_radius=128.0))


def oracle(**kwargs: object):
    return build_oracles([("objects", kwargs)], SPEC, Context(seed=0, facts=FACTS))[0]


def circling(ooi: SceneObject, degrees: float, radius: float = 200.0, start: float = 0.0,
             in_view: bool = True) -> Rollout:
    """An episode that walks round ``ooi`` from bearing ``start`` through ``degrees``, 10
    degrees a step, looking at it (in view) all the way."""
    bearings = np.arange(start, start + degrees + 1e-9, 10.0)
    xy = np.stack([ooi.x + radius * np.cos(np.radians(bearings)),
                   ooi.y + radius * np.sin(np.radians(bearings))], axis=1)
    features = np.concatenate([xy[:1], xy])  # reset state, then one per step
    features = np.concatenate([features, np.zeros((len(features), 1))], axis=1)
    return episode(features, (ooi.id,) if in_view else ())


def episode(features: np.ndarray, in_view: tuple[int, ...]) -> Rollout:
    """An episode through ``features`` (reset state first) with ``in_view`` after every step."""
    steps = len(features) - 1
    visible = np.full(steps, None, dtype=object)
    for t in range(steps):
        visible[t] = in_view
    return Rollout(policy=0, episode_seed=0, actions=np.zeros(steps, dtype=np.int64), rewards=np.zeros(steps),
                   features=features, frame_ms=np.zeros(steps), terminated=False, truncated=True,
                   info={"visible": visible})


def table(o) -> dict[int, dict]:
    return {row["id"]: row for row in o.tables()["objects"].to_dict("records")}


def test_circling_three_quarters_round_close_by_tests_the_object() -> None:
    o = oracle()
    assert o.check(RolloutBatch.from_rollouts([circling(BARREL, 270.0, start=40.0)])) == []
    row = table(o)[0]
    assert row["seen"] and row["tested"] and row["degrees"] >= 270.0
    assert row["generation_seen"] == 0 and row["generation_tested"] == 0
    assert not table(o)[1]["seen"]  # the lamp was never in view


def test_half_round_far_away_unseen_or_over_two_episodes_is_not_tested() -> None:
    for walk in ([circling(BARREL, 180.0)], [circling(BARREL, 360.0, radius=600.0)],
                 [circling(BARREL, 360.0, in_view=False)],
                 [circling(BARREL, 180.0), circling(BARREL, 170.0, start=190.0)]):
        o = oracle()
        o.check(RolloutBatch.from_rollouts(walk))
        row = table(o)[0]
        assert not row["tested"], walk
        assert row["degrees"] < 270.0
    assert table(o)[0]["seen"]  # seen, though not all round, in the last walk


def test_a_looser_rule_tests_half_round() -> None:
    o = oracle(degrees=180.0)
    o.check(RolloutBatch.from_rollouts([circling(BARREL, 180.0)]))
    assert table(o)[0]["tested"]


def walk_along_pathway(cells: int) -> Rollout:
    xs = np.arange(cells) * 64.0 + 32.0
    return episode(np.stack([xs, np.full(cells, 160.0), np.zeros(cells)], axis=1), ())


def test_preferred_area_coverage_per_generation_and_so_far() -> None:
    o = oracle()
    batch = RolloutBatch.from_rollouts([walk_along_pathway(8)])
    o.check(batch)
    o.update(batch)
    first = o.metrics()
    assert first["preferred_coverage"] == first["preferred_coverage_total"] == 8 / 32
    batch = RolloutBatch.from_rollouts([walk_along_pathway(16)])
    o.check(batch)
    o.update(batch)
    second = o.metrics()
    assert second["preferred_coverage"] == 16 / 32 and second["preferred_coverage_total"] == 16 / 32
    assert set(second) == {"preferred_coverage", "preferred_coverage_total", "objects_seen",
                           "objects_tested", "objects_reported"}
    assert len(o.traces) == 1 and len(o.traces[0]) == 2 * 16  # the best walker's x, y per state


def visual(x: float, y: float, type_: str, injected: int | None, bug_id: int, kind: str = "visual") -> ArchivedBug:
    bug = Bug(kind=kind, oracle="visual", signature=f"s{bug_id}", message="m", step=0, state=(0.0, 0.0, 0.0),
              next_state=(0.0, 0.0, 0.0), policy=0, episode_seed=0, actions=(0,),
              data={"x": x, "y": y, "type": type_})
    return ArchivedBug(bug_id, bug, generation=3, env_steps=10, wall_s=1.0, injected_id=injected)


def test_reports_mark_the_object_they_are_about_normal_ones_included() -> None:
    o = oracle()
    o.found([visual(1050.0, 1000.0, "barrel", 0, 0)])
    assert table(o)[0]["reported"] and table(o)[0]["generation_reported"] == 3
    assert not table(o)[1]["reported"]
    o.found([visual(330.0, 300.0, "lamp", None, 1, kind="stuck"), visual(330.0, 300.0, "barrel", None, 2)])
    assert not table(o)[1]["reported"]  # not visual, or of another type
    o.found([visual(330.0, 300.0, "lamp", None, 3)])  # a false report on the normal lamp
    assert table(o)[1]["reported"] and o.metrics()["objects_reported"] == 2


def test_the_table_has_its_columns_and_the_state_survives_a_checkpoint() -> None:
    o = oracle()
    batch = RolloutBatch.from_rollouts([circling(BARREL, 300.0), walk_along_pathway(5)])
    o.check(batch)
    o.update(batch)
    o.found([visual(1024.0, 1024.0, "barrel", 0, 0)])
    assert list(o.tables()["objects"].columns) == OBJECT_COLUMNS
    assert [(r["bugged"], r["bug"]) for r in table(o).values()] == [
        (True, "barrel with a lowres texture"), (False, "")]  # ground truth: the injected bug on it
    again = oracle()
    again.load_state_dict(yaml.safe_load(yaml.safe_dump(o.state_dict())))  # plain data only
    assert again.tables()["objects"].equals(o.tables()["objects"])
    assert again.metrics() == o.metrics()


def test_a_game_without_objects_is_one_line(tmp_path: Path) -> None:
    exp = {
        "name": "maze", "game": {"name": "block_maze"}, "search": {"population": 2, "offspring": 2},
        "objectives": [{"name": "winning"}], "oracles": [{"name": "objects"}], "budget": {"generations": 1},
    }
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(exp))
    with pytest.raises(ConfigError) as caught:
        Built.from_experiment(load_experiment(tmp_path / "exp.yaml"))
    line = str(caught.value)
    assert line.startswith("oracles[0] (objects): the game places no objects of interest") and "\n" not in line
