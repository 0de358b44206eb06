"""Plans from recordings: a played episode becomes nodes that the plan agent follows back
through the same moves, on the dungeon and on Block Maze (which now offers a navigator)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evo.search.agents.uniform import UniformAgent
from evo.cli.main import main
from evo.plans import PlanAgent, load_plan, run_plan
from evo.plans.record import record_plan
from evo.search.play import play
from games import GameFactory

ROOT = Path(__file__).resolve().parents[3]
GAMES = {
    "dungeon": GameFactory(name="dungeon", kwargs=(("bugs", []),)),
    "block_maze": GameFactory(name="block_maze", kwargs=(("inject_bugs", False), ("preset", "small"))),
}


def random_episodes(factory: GameFactory, n: int, seed: int) -> list[list[int]]:
    game = factory.make_vector(n)
    spec = game.game_spec
    gumbel = np.random.default_rng(seed).gumbel(size=(n, spec.max_steps, spec.n_actions)).astype(np.float32)
    batch = play(game, [0] * n, list(range(n)), UniformAgent(gumbel)).rollouts
    return [[int(a) for a in batch[i].actions] for i in range(n)]


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("every", [1, 10])
def test_a_recorded_play_becomes_a_plan_that_plays_the_same_moves(name: str, every: int) -> None:
    factory = GAMES[name]
    for actions in random_episodes(factory, 6, seed=every):
        plan, recorded = record_plan(factory, 0, actions, every=every)
        assert len(plan.nodes) <= len(actions)
        game = factory.make_vector(1)
        followed = play(game, [0], [0], PlanAgent(plan, game, game.game_spec, 1), max_steps=plan.max_steps).rollouts[0]
        assert [int(a) for a in followed.actions] == actions
        assert np.array_equal(followed.features, recorded.features)
        assert run_plan(plan, factory).passed


def test_sampling_places_less_often_gives_fewer_nodes_and_actions_keep_their_place_and_aim() -> None:
    factory = GAMES["dungeon"]
    article = load_plan(ROOT / "plans" / "dungeon" / "article.yaml")
    game = factory.make_vector(1)
    episode = play(game, [0], [0], PlanAgent(article, game, game.game_spec, 1), max_steps=60).rollouts[0]
    actions = [int(a) for a in episode.actions[: episode.length]]
    dense, _ = record_plan(factory, 0, actions, every=1)
    sparse, _ = record_plan(factory, 0, actions, every=20)
    assert len(sparse.nodes) < len(dense.nodes)
    acting = [(n.target, n.action) for n in sparse.nodes if n.action in ("interact", "jump")]
    assert acting == [("switch_1", "interact"), ("lava_1", "jump"), ("shrine_1", "interact")]
    result = run_plan(sparse, factory)
    assert result.passed and result.steps == len(actions)


def test_block_maze_navigates_by_bfs_over_its_blocks() -> None:
    game = GAMES["block_maze"].make_vector(1)
    _, features = game.reset([0])
    here = features[0]
    goal = game.layout.goal
    found = game.route(here, goal)
    assert found is not None and found.actor is None and len(found.actions) >= abs(goal[0] - here[0]) + abs(goal[1] - here[1])
    assert game.navigate(here, goal) == found.actions[0]
    assert game.route(here, (int(here[0]), int(here[1]))).actions == ()
    assert game.route(here, "goal") is None  # no actors in the maze
    for a in found.actions:  # the route really gets there
        step = game.step(np.array([a]))
    assert tuple(int(v) for v in step.features[0]) == goal and step.terminated[0]


def test_evo_plan_record_turns_a_validation_bug_into_a_failing_plan(tmp_path: Path, write_yaml: Any,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = yaml.safe_load((ROOT / "experiments" / "dungeon_validation.yaml").read_text())
    config["game"]["kwargs"]["bugs"] = ["uncounted_kill"]
    config["oracles"][-1]["kwargs"]["plan"] = str(ROOT / "plans" / "dungeon" / "validations.yaml")
    config.update(network={"hidden": [16]}, budget={"generations": 3}, parallel={"backend": "serial"})
    config["search"].update(population=8, offspring=8)
    run = tmp_path / "run"
    assert main(["run", str(write_yaml(config)), "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()
    out = tmp_path / "bug.yaml"
    assert main(["plan", "record", str(run), "0", "--every", "5", "--out", str(out)]) == 0
    assert "shows the bug again" in capsys.readouterr().out
    plan = load_plan(out)
    assert plan.bug is not None and plan.bug.oracle == "validation"
    assert [v.action for v in plan.validations] == ["attack"]
    assert main(["plan", "run", str(out)]) == 1
    assert "FAILED validation failed: attack on goblin_1" in capsys.readouterr().out
    assert main(["plan", "run", str(out), "--kwarg", "bugs=[]"]) == 0  # fixed: the test passes


def test_recording_bad_input_is_one_line_exit_2(bad_input: Any, tmp_path: Path) -> None:
    assert "not a run directory" in bad_input(["plan", "record", str(tmp_path), "0"])


def test_a_persons_play_from_a_file_of_action_names_becomes_a_passing_plan(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    play_file = tmp_path / "play.txt"
    play_file.write_text("east east east south south interact\nwest, north\n")
    out = tmp_path / "play.yaml"
    assert main(["plan", "record", "--actions", str(play_file), "--game", "dungeon", "--kwarg", "bugs=[]",
                 "--every", "3", "--out", str(out)]) == 0
    assert "8 actions ->" in capsys.readouterr().out
    plan = load_plan(out)
    assert plan.max_steps == 8 and any(n.action == "interact" for n in plan.nodes)
    assert main(["plan", "run", str(out)]) == 0


def test_a_play_file_naming_no_action_is_one_line_exit_2(bad_input: Any, tmp_path: Path) -> None:
    (tmp_path / "play.txt").write_text("east dance\n")
    assert "'dance' is no action of dungeon" in bad_input(["plan", "record", "--actions", "play.txt", "--game", "dungeon"])
    assert "give RUN_DIR BUG_ID, or --actions" in bad_input(["plan", "record"])


def test_a_plan_recorded_in_wrappers_plays_in_them_again(tmp_path: Path) -> None:
    """What a run's agents saw through (a detector's crops, stacked frames) is what a plan
    recorded from it plays in, so the bug's oracle finds the columns it reads."""
    from evo.cli.plans import game_factory
    from evo.plans.record import plan_yaml

    wrappers = (("frame_stack", (("k", 2),)),)
    factory = GameFactory(name="block_maze", kwargs=(("inject_bugs", False), ("preset", "small")), wrappers=wrappers)
    plan, _ = record_plan(factory, 0, random_episodes(factory, 1, seed=3)[0], every=10)
    (tmp_path / "plan.yaml").write_text(plan_yaml(plan))
    assert yaml.safe_load((tmp_path / "plan.yaml").read_text())["game"]["wrappers"] == [
        {"name": "frame_stack", "kwargs": {"k": 2}}]
    again = game_factory(load_plan(tmp_path / "plan.yaml"), None, ["preset=small"])
    assert again.wrappers == wrappers
    assert again.make_vector(1).game_spec.obs_shape == factory.make_vector(1).game_spec.obs_shape
    assert game_factory(plan, "block_maze", []).wrappers == ()  # --game names a game as it is
