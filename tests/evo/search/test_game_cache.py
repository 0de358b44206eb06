"""A worker makes its game once and reuses it across chunks; a broken one is made again."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from evo.search.game_cache import GameCache, in_lane


class Game:
    def __init__(self, closed: list["Game"]) -> None:
        self.closed = closed

    def close(self) -> None:
        self.closed.append(self)


CLOSED: list[Game] = []


@dataclass(frozen=True)
class Factory:
    """A game factory as a task carries it: a frozen value, kwargs a hash may not take."""

    name: str
    kwargs: tuple[tuple[str, object], ...] = ()

    def make_vector(self, n: int) -> Game:
        return Game(CLOSED)


def test_a_factory_that_reaches_the_worker_as_a_copy_finds_its_game() -> None:
    cache = GameCache()
    factory = Factory("maze", (("rooms", [1, 2]),))
    game = cache.get(factory, 4)
    assert cache.get(pickle.loads(pickle.dumps(factory)), 4) is game  # what a worker receives
    assert cache.get(factory, 2) is not game  # another number of copies is another game
    assert cache.get(Factory("maze", (("rooms", [1, 3]),)), 4) is not game
    assert len(cache) == 3
    cache.close()


def test_a_dropped_game_is_closed_and_made_again_and_close_closes_all() -> None:
    CLOSED.clear()
    cache = GameCache()
    factory = Factory("maze")
    broken = cache.get(factory, 4)
    other = cache.get(factory, 2)
    cache.drop(factory, 4)
    assert CLOSED == [broken] and cache.get(factory, 4) is not broken
    cache.close()
    assert len(cache) == 0 and CLOSED[1] is other and len(CLOSED) == 3


def test_a_game_of_more_copies_closes_the_smaller_ones_so_their_engines_serve_it() -> None:
    CLOSED.clear()
    cache = GameCache()
    factory = Factory("park")
    first = cache.get(factory, 2)  # a first generation
    other = cache.get(Factory("maze"), 1)
    both = cache.get(factory, 4)  # parents again beside their children
    assert CLOSED == [first] and len(cache) == 2
    assert cache.get(factory, 2) is not first and cache.get(factory, 4) is both  # fine-tuning's chunk
    assert CLOSED == [first] and cache.get(Factory("maze"), 1) is other
    cache.close()


def test_each_lane_plays_games_of_its_own() -> None:
    """Two lanes of the serial backend never step one game, and a lane that grows its game
    closes only its own smaller one."""
    CLOSED.clear()
    cache = GameCache()
    factory = Factory("park")
    with in_lane(0):
        first = cache.get(factory, 4)
    with in_lane(1):
        second = cache.get(factory, 4)
        assert second is not first and cache.get(factory, 4) is second
        grown = cache.get(factory, 8)
    assert CLOSED == [second] and cache.get(factory, 4) is first  # outside a lane: lane 0
    with in_lane(1):
        assert cache.get(factory, 8) is grown
    cache.close()
