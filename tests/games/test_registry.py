"""Games plug in by name, entry point or Gymnasium id; every registered game conforms."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from evo.search.agents import UniformAgent
from evo.search.play import draw_episodes, play
from games import GameFactory, GameNotFound, register, registered
from games.core.base import VectorGame


@pytest.fixture
def factory_of(request: pytest.FixtureRequest):
    """``factory_of(name)``: the registered game with the kwargs it needs to run here. The
    Unreal adapter needs games to play on: servers speaking UnrealCV's protocol, one per copy
    (tests/games/unreal/server.py)."""
    servers = []

    def make(name: str) -> GameFactory:
        if name != "unreal":
            return GameFactory(name=name)
        from tests.games.unreal.server import serve_block

        servers.extend(serve_block(8))
        kwargs = {"port": servers[0].port, "width": 32, "height": 24, "max_steps": 30,
                  "starts": [[100, 100, 150], [600, 100, 150]], "request_timeout_s": 5.0}
        return GameFactory(name=name, kwargs=tuple(kwargs.items()))

    yield make
    for server in servers:
        server.die()


@pytest.mark.parametrize("name", registered())
def test_every_registered_game_passes_check_env(name: str, factory_of) -> None:
    check_env(factory_of(name).make_env(), skip_render_check=True)


REPEAT_STEPS = 300


@pytest.mark.parametrize("name", registered())
def test_every_registered_game_repeats_under_one_seed(name: str, factory_of) -> None:
    """Same seeds and actions, same episodes: what makes every bug replayable. Four copies, over
    the first :data:`REPEAT_STEPS` steps of each episode: the long ones (ALE's, ViZDoom's) cost
    most of the suite's time to the end, where nothing runs that the first steps did not."""
    factory = factory_of(name)

    def episodes():
        game = factory.make_vector(4)
        try:
            horizon = min(game.game_spec.max_steps, REPEAT_STEPS)
            return play(game, list(range(4)), [0] * 4,
                        UniformAgent(draw_episodes([1], 4, horizon, game.game_spec.n_actions).gumbel), max_steps=horizon)
        finally:
            game.close()

    a, b = episodes(), episodes()
    for ra, rb in zip(a.rollouts, b.rollouts):
        np.testing.assert_array_equal(ra.actions, rb.actions)
        np.testing.assert_array_equal(ra.features, rb.features)
        np.testing.assert_array_equal(ra.rewards, rb.rewards)
        assert ra.error == rb.error and ra.violations == rb.violations


def test_block_maze_uses_its_numpy_vector_form() -> None:
    game = GameFactory(name="block_maze").make_vector(16)
    assert type(game).__name__ == "BlockMazeVector" and isinstance(game, VectorGame)


def test_gym_id_and_entry_point_games_fall_back_to_the_adapter() -> None:
    for factory in (
        GameFactory(gym_id="CartPole-v1"),
        GameFactory(entry_point="tests.games.faulty_envs:LineWalk", kwargs=(("fault", "none"),)),
    ):
        factory.validate()
        game = factory.make_vector(3)
        try:
            assert type(game).__name__ == "GymVectorGame"
            result = play(game, [0, 1, 2], [0, 0, 0], UniformAgent(draw_episodes([0], 3, game.game_spec.max_steps, game.game_spec.n_actions).gumbel))
            assert result.env_steps > 0
        finally:
            game.close()


def test_register_makes_a_game_available_by_name() -> None:
    register("line_walk_test", entry_point="tests.games.faulty_envs:LineWalk")
    assert "line_walk_test" in registered()
    spec = GameFactory(name="line_walk_test").spec()
    assert spec.n_actions >= 2


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        (GameFactory(name="nope"), "game.name: unknown game 'nope'; expected one of "),
        (GameFactory(entry_point="no_colon"), "not of the form 'package.module:Class'"),
        (GameFactory(entry_point="games.maze.block_maze:Nope"), "has no 'Nope'"),
        (GameFactory(gym_id="NoSuchGame-v9"), "is not a Gymnasium id"),
        (GameFactory(name="block_maze", kwargs=(("colour", "red"),)), "game.kwargs do not fit"),
    ],
)
def test_bad_game_references_say_what_is_wrong(factory: GameFactory, message: str) -> None:
    with pytest.raises(GameNotFound, match=message.replace("(", r"\(").replace(")", r"\)")):
        factory.validate()
