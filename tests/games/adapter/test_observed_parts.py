"""A game someone else wrote, as Gymnasium hands it over: text beside numbers in its
observation, and what the user adds in a ``gymnasium.Wrapper`` around it (issue 51)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from gymnasium import spaces

from evo.search.probe import few_places, play_probe
from games.adapter.observation_parts import numeric_parts
from games.adapter.spec import with_learned_cells
from games.adapter.vector_game import GymVectorGame
from games.adapter.wrapper_attrs import WrappedGame, game_attr
from games.core.base import GameSpecError
from games.registry import GameFactory
from tests.games.plugin_envs import TRAP, Briefed, OwnFeatures, PixelWalkWithPosition, Sequenced


@pytest.mark.parametrize("step_timeout_s", [None, 30.0], ids=["in_process", "isolated"])
def test_text_parts_are_kept_out_of_features_and_observations(step_timeout_s: float | None) -> None:
    with GymVectorGame(Briefed, 2, step_timeout_s=step_timeout_s) as game:
        spec = game.game_spec
        # pos (2 numbers) and the Tuple's Discrete(3) one-hot; both texts left out
        assert spec.obs_shape == (5,) and spec.feature_names == ("obs0", "obs1", "obs2", "obs3", "obs4")
        obs, feats = game.reset([0, 1])
        np.testing.assert_array_equal(obs[0], [0, 0, 1, 0, 0])
        for _ in range(4):
            step = game.step(np.array([0, 2]))
        assert step.errors == {} or not any(step.errors.values())
        assert step.obs[0, 1] > 0 and step.obs[1, 0] > 0  # each moved along its own axis


def test_the_text_parts_are_named() -> None:
    parts = numeric_parts(Briefed().observation_space)
    assert parts.dropped == ("mission", "seen.1")
    assert isinstance(parts.space, spaces.Dict) and list(parts.space.spaces) == ["pos", "seen"]


def test_a_part_with_no_fixed_size_is_one_line_naming_it() -> None:
    with pytest.raises(GameSpecError, match=r"observation part 'trail' is Sequence\(Discrete\(4\).*"
                                            r"gymnasium.wrappers.FilterObservation"):
        GymVectorGame(Sequenced, 1)


def test_a_wrapper_adds_what_the_engine_reads_of_a_game() -> None:
    """``state_features``, ``game_spec``, ``injected_bugs`` and ``match`` on the user's wrapper,
    none on the game inside: the engine reads the wrapper's (it read ``env.unwrapped``'s)."""
    with GymVectorGame(PixelWalkWithPosition, 2) as game:
        spec = game.game_spec
        assert spec.feature_names == ("row", "col")  # not the frame's 88 cells
        _, start = game.reset([0, 1])
        np.testing.assert_array_equal(start, 0.0)
        moved = start
        for _ in range(3):
            moved = game.step(np.array([0, 2])).features  # right, down
        assert moved[0, 1] > 0 and moved[1, 0] > 0
    env = PixelWalkWithPosition()
    game = WrappedGame(env)
    assert game.injected_bugs[0].location == (float(TRAP[0]), float(TRAP[1]))
    assert hasattr(game, "match") and not hasattr(game, "render_map")
    assert game_attr(env, "game_spec") is PixelWalkWithPosition.game_spec
    assert game_attr(env, "no_such_thing", 7) == 7


def test_a_probe_that_tells_no_places_apart_says_so_with_the_fix() -> None:
    factory = GameFactory(entry_point="tests.games.plugin_envs:OwnFeatures")
    spec = factory.spec()
    batch = play_probe(factory, spec, seed=0)
    learned = with_learned_cells(spec, batch.features[batch.state_mask()])
    assert few_places(batch, learned, "OwnFeatures") is None  # the position tells places apart
    blind = dataclasses.replace(batch, features=np.zeros_like(batch.features))  # features that never change
    warning = few_places(blind, learned, "Blind")
    assert warning is not None and "reached 1 cell of its 2 state features" in warning
    assert "state_features" in warning and "gymnasium.Wrapper" in warning
