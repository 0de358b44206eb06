"""The park's navigator: A* over the walkable cells goes around rocks and never cuts a
corner, OOIs are named by type and number whatever their bug, arriving is within the
tolerance in cell moves, and a plan on the engine reaches an OOI and passes."""

from __future__ import annotations

import numpy as np
import pytest

from games.doom.park.layout import CELL, GRASS, OOI, ROCK, ParkLayout, cell_centre
from games.doom.park.navigation import (
    FORWARD, TURN_LEFT, TURN_RIGHT, ParkNavigator, find_path, ooi_names, walkable,
)

ACTIONS = ("forward", "backward", "left", "right", "turn_left", "turn_right", "look_up",
           "look_down", "jump")


def _layout(rocks: list[tuple[int, int]], oois: tuple[OOI, ...] = ()) -> ParkLayout:
    """A 10 x 10 grass park with rocks on the given cells."""
    terrain = np.full((10, 10), GRASS, dtype=np.uint8)
    for cell in rocks:
        terrain[cell] = ROCK
    return ParkLayout("small", 0, terrain, oois, (), (*cell_centre(1, 5), 0.0))


def _at(i: int, j: int, angle: float = 0.0) -> np.ndarray:
    return np.array([*cell_centre(i, j), angle])


# A rock seven cells tall straight east of the player, between it and the place it goes to.
ROCK_CELLS = [(4, j) for j in range(2, 9)]


def test_the_route_goes_around_a_rock_and_first_turns_away_from_it() -> None:
    nav = ParkNavigator(_layout(ROCK_CELLS), ACTIONS)
    free = nav.free
    path = find_path(free, (1, 5), {(7, 5): None})
    assert path is not None and path[0] == (1, 5) and path[-1] == (7, 5)
    assert not set(path) & set(ROCK_CELLS)
    assert len(path) - 1 > 6  # longer than the 6 moves straight through the rock
    for a, b in zip(path, path[1:]):
        assert max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1
        if a[0] != b[0] and a[1] != b[1]:  # a diagonal move never squeezes past a rock's corner
            assert free[b[0], a[1]] and free[a[0], b[1]]
    # Facing the rock (east, angle 0): the first move turns towards the way around it.
    route = nav.route(_at(1, 5), cell_centre(7, 5))
    assert route is not None and route.actor is None
    assert len(route.actions) == len(path) - 1
    assert route.actions[0] in (TURN_LEFT, TURN_RIGHT)
    # Without the rock, the same place is straight ahead: walk forward, 6 moves.
    open_route = ParkNavigator(_layout([]), ACTIONS).route(_at(1, 5), cell_centre(7, 5))
    assert open_route is not None and open_route.actions == (FORWARD,) * 6


def test_a_place_walled_off_by_rocks_has_no_route() -> None:
    ring = [(i, j) for i in range(5, 10) for j in range(5, 10) if i in (5, 9) or j in (5, 9)]
    nav = ParkNavigator(_layout(ring), ACTIONS)
    assert nav.route(_at(1, 1), cell_centre(7, 7)) is None
    assert nav.route(_at(1, 1), cell_centre(7, 7), tolerance=3) is not None  # outside the wall
    assert nav.nearest(_at(1, 1), [cell_centre(7, 7)], within=50) is None


def test_oois_are_named_by_type_and_number_never_by_bug_and_reached_next_to_them() -> None:
    def oois(bugged: bool) -> tuple[OOI, ...]:
        return (OOI(0, "lamp", *cell_centre(8, 2), bugged, "lowres" if bugged else ""),
                OOI(1, "barrel", *cell_centre(2, 8), False, ""),
                OOI(2, "lamp", *cell_centre(8, 8), not bugged, "stretched" if not bugged else ""))

    assert ooi_names(_layout([], oois(True))) == ooi_names(_layout([], oois(False))) == (
        "lamp_1", "barrel_1", "lamp_2")
    nav = ParkNavigator(_layout([], oois(True)), ACTIONS)
    assert nav.actor_types == ("barrel", "pillar", "stump", "lamp")
    assert not walkable(nav_layout := _layout([], oois(True)))[8, 2] and nav_layout.blocked.sum() == 0
    # The default tolerance is one cell move: any neighbour of the OOI's cell is there.
    assert nav.route(_at(7, 3), "lamp_1") == nav.route(_at(7, 2), "lamp_1")
    here = nav.route(_at(7, 3), "lamp_1")
    assert here is not None and here.actions == () and here.actor == "lamp_1"
    far = nav.route(_at(4, 5), "lamp_1", tolerance=0)  # the OOI's own cell cannot be stood on
    assert far is None
    # A type goes to the nearest of its kind; a category to the nearest of any.
    assert nav.route(_at(7, 6), "lamp").actor == "lamp_2"  # type: ignore[union-attr]
    assert nav.route(_at(3, 6), "object").actor == "barrel_1"  # type: ignore[union-attr]
    assert nav.route(_at(7, 6), "lamp", gone=frozenset({"lamp_2"})).actor == "lamp_1"  # type: ignore[union-attr]
    near = nav.nearest(_at(4, 6), ["lamp_1", "barrel_1"], within=10)
    assert near is not None and len(near.actions) == 1 and near.actor == "barrel_1"
    assert nav.nearest(_at(4, 6), ["lamp_1"], within=2) is None  # 3 moves away


def test_a_plan_on_the_park_reaches_an_object_within_its_tolerance() -> None:
    pytest.importorskip("vizdoom")
    from evo.plans.agent import PlanAgent
    from evo.plans.base import Plan
    from evo.search.play import play
    from games.doom.park.doom_park import DoomParkVector

    plan = Plan.model_validate({"nodes": [{"target": "stump_4"}, {"target": "lamp_2", "action": "jump"}]})
    game = DoomParkVector(1, level_seed=0, max_steps=60)
    try:
        lines: list[str] = []
        agent = PlanAgent(plan, game, game.game_spec, 1, log=lambda i, t, text: lines.append(text))
        episode = play(game, [0], [0], agent, max_steps=60, columns=frozenset({"info.events"})).rollouts[0]
        lamp = game.oois[game.actor_names.index("lamp_2")]
    finally:
        game.close()
    result = agent.finish(0, (), episode.features[-1], episode.length, ended=False)
    assert result.passed, result.failure
    assert result.nodes_done == 2 and "jump lamp_2" in lines
    # Where it jumped: within one cell move (the default tolerance) of lamp_2's cell.
    step = next(t for t, text in result.lines if text == "jump lamp_2")
    x, y = episode.features[step, :2]
    assert max(abs(int(x // CELL) - int(lamp.x // CELL)), abs(int(y // CELL) - int(lamp.y // CELL))) <= 1
    # Done, it stays put (the idle action only tilts the view): no walking off at the end.
    assert np.abs(episode.features[-1, :2] - episode.features[-5, :2]).max() < 1.0
