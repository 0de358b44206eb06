"""The park's ground truth: one visual injected bug per bugged object, and a report matched to
the bugged object it is about (its type, within 128 map units), never to a normal one; the
live game hands both on, and every step says which objects were in view."""

from __future__ import annotations

import importlib.util
import numpy as np
import pytest

from games.doom.park.layout import OOI, park_layout
from games.doom.park.truth import MATCH_RADIUS, injected_bugs, match, ooi_near
from oracles.base import Bug

LAYOUT = park_layout("small", 0)
BUGGED = [o for o in LAYOUT.oois if o.bugged]
NORMAL = [o for o in LAYOUT.oois if not o.bugged]


def report(kind: str = "visual", **data: object) -> Bug:
    """A bug as an oracle would report it, with ``data`` as given."""
    return Bug(kind=kind, oracle="visual", signature="s", message="m", step=0, state=(0.0, 0.0, 0.0),
               next_state=(0.0, 0.0, 0.0), policy=0, episode_seed=0, actions=(0,), data=dict(data))


def test_one_visual_injected_bug_per_bugged_object_with_its_id_and_place() -> None:
    bugs = injected_bugs(LAYOUT.oois)
    assert len(bugs) == len(BUGGED) == len(LAYOUT.oois) // 2
    for bug, ooi in zip(bugs, BUGGED):
        assert (bug.id, bug.kind, bug.location) == (ooi.id, "visual", (ooi.x, ooi.y, 0.0))
        assert ooi.type in bug.description and ooi.bug in bug.description


def test_a_report_at_a_bugged_object_matches_it_even_a_little_off() -> None:
    for ooi in BUGGED:
        assert match(LAYOUT.oois, report(type=ooi.type, x=ooi.x, y=ooi.y)) == ooi.id
        assert match(LAYOUT.oois, report(type=ooi.type, x=ooi.x + 90.0, y=ooi.y - 60.0)) == ooi.id


def test_a_report_at_a_normal_object_or_far_away_or_of_the_wrong_type_matches_nothing() -> None:
    for ooi in NORMAL:  # a false report: the object is fine
        assert match(LAYOUT.oois, report(type=ooi.type, x=ooi.x, y=ooi.y)) is None
    ooi = BUGGED[0]
    far = MATCH_RADIUS + 10.0
    assert match(LAYOUT.oois, report(type=ooi.type, x=ooi.x + far, y=ooi.y)) is None
    other = next(t for t in ("barrel", "pillar", "stump", "lamp") if t != ooi.type)
    assert match(LAYOUT.oois, report(type=other, x=ooi.x, y=ooi.y)) is None
    assert match(LAYOUT.oois, report("stuck", type=ooi.type, x=ooi.x, y=ooi.y)) is None
    assert match(LAYOUT.oois, report(x=ooi.x, y=ooi.y)) is None  # no type named
    assert match(LAYOUT.oois, report(type=ooi.type)) is None  # no place named


def test_the_nearest_bugged_object_of_the_type_is_the_one_a_report_is_about() -> None:
    oois = (OOI(0, "barrel", 0.0, 0.0, True, "lowres"), OOI(1, "barrel", 200.0, 0.0, True, "stretched"),
            OOI(2, "barrel", 100.0, 10.0, False, ""))
    assert match(oois, report(type="barrel", x=110.0, y=0.0)) == 1  # 90 units against 110
    assert match(oois, report(type="barrel", x=90.0, y=0.0)) == 0
    near = ooi_near(oois, "barrel", 110.0, 0.0)  # among all objects: the normal one is nearest
    assert near is not None and near.id == 2


@pytest.mark.skipif(importlib.util.find_spec("vizdoom") is None, reason="needs vizdoom")
def test_the_live_park_hands_on_its_truth_and_says_what_is_in_view() -> None:
    from games.doom.park.doom_park import ACTIONS, VISIBLE, DoomPark, DoomParkVector

    env = DoomPark(level_seed=0, max_steps=40)
    try:
        assert [b.id for b in env.injected_bugs] == [o.id for o in BUGGED]
        ooi = BUGGED[1]
        assert env.match(report(type=ooi.type, x=ooi.x, y=ooi.y)) == ooi.id
    finally:
        env.close()
    game = DoomParkVector(2, level_seed=0, max_steps=40)
    try:
        game.reset([1, 2])
        turn = ACTIONS.index("turn_left")
        seen: set[int] = set()
        for _ in range(12):  # a full turn on the spot
            step = game.step(np.array([turn, turn]))
            ids = step.info[VISIBLE]
            assert ids.dtype == object and ids.shape == (2,)
            for i in range(2):
                assert ids[i] == tuple(v.ooi for v in game.visible[i] if v.ooi >= 0)
                seen.update(ids[i])
    finally:
        game.close()
    assert seen and seen <= {o.id for o in LAYOUT.oois}
