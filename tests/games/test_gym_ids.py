"""Gymnasium ids of installed packages, written as the packages' READMEs write them (issue 51):
MiniGrid and highway-env register their ids only when imported, and nothing imported them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from games.gym_ids import GymIdNotFound, resolve_gym_id
from games.registry import GameFactory, GameNotFound
from tests.cli.test_cli import ROOT


def _in_a_fresh_process(code: str) -> str:
    """Run ``code`` in a new interpreter, as a worker process starts: Gymnasium's own ids only."""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.parametrize("gym_id", ["MiniGrid-DoorKey-8x8-v0", "minigrid:MiniGrid-DoorKey-8x8-v0", "highway-fast-v0"])
def test_an_id_of_an_installed_package_plays_as_written(gym_id: str) -> None:
    out = _in_a_fresh_process(
        "from games.gym_ids import resolve_gym_id; from games.registry import GameFactory\n"
        f"played = resolve_gym_id({gym_id!r}); print(played)\n"
        "env = GameFactory(gym_id=played).make_env(); env.reset(seed=0); print(env.spec.id)\n"
    )
    played, made = out.split()
    assert made == gym_id.rpartition(":")[2]
    assert ":" in played  # with the module to import, so that a worker process finds it too


def test_the_resolved_form_plays_in_a_process_that_never_searched() -> None:
    played = resolve_gym_id("MiniGrid-Empty-5x5-v0")
    out = _in_a_fresh_process(
        "import gymnasium as gym\n"
        f"print(gym.make({played!r}).spec.id)\n"
    )
    assert out.strip() == "MiniGrid-Empty-5x5-v0"


def test_an_id_imported_before_still_names_its_package() -> None:
    import minigrid  # noqa: F401 - registers MiniGrid's ids in this process only

    assert resolve_gym_id("MiniGrid-Empty-6x6-v0").endswith(":MiniGrid-Empty-6x6-v0")
    assert resolve_gym_id("CartPole-v1") == "CartPole-v1"  # Gymnasium's own: no module


def test_an_id_nobody_registers_names_the_close_ones_and_the_module_form() -> None:
    with pytest.raises(GymIdNotFound) as caught:
        resolve_gym_id("MiniGrid-DoorKey-9x9-v0")
    message = str(caught.value)
    assert "close ids: MiniGrid-DoorKey-8x8-v0" in message and "'package:Id'" in message
    with pytest.raises(GameNotFound, match="not a Gymnasium id"):
        GameFactory(gym_id="MiniGrid-DoorKey-9x9-v0").validate()


def test_a_module_that_is_not_installed_is_named() -> None:
    with pytest.raises(GymIdNotFound, match=r"cannot import module 'no_such_games'"):
        resolve_gym_id("no_such_games:Thing-v0")
