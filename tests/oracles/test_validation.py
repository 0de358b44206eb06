"""The validation oracle: a plan's action validations judge what the search plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

import oracles
from evo.search.agents.uniform import UniformAgent
from evo.plans import load_plan
from evo.plans.agent import PlanAgent
from evo.search.play import play
from games import GameFactory
from games.core.component import Context

ROOT = Path(__file__).resolve().parents[2]
VALIDATIONS = str(ROOT / "plans" / "dungeon" / "validations.yaml")
CATEGORIES = {"enemy": ["goblin", "skeleton", "ogre"]}
EPISODES = 256


def oracle(spec: Any) -> Any:
    kwargs = {"plan": VALIDATIONS, "categories": CATEGORIES}
    return oracles.build_oracles([("validation", kwargs)], spec, Context())[0]


def random_bugs(bugs: list[str]) -> list[Any]:
    game = GameFactory(name="dungeon", kwargs=(("bugs", bugs),)).make_vector(EPISODES)
    spec = game.game_spec
    found = oracle(spec)
    gumbel = np.random.default_rng(0).gumbel(size=(EPISODES, spec.max_steps, spec.n_actions)).astype(np.float32)
    batch = play(game, list(range(EPISODES)), list(range(EPISODES)), UniformAgent(gumbel),
                 columns=found.requires).rollouts
    return found.check(batch)


def test_random_play_on_the_released_dungeon_fails_no_validation() -> None:
    assert random_bugs([]) == []


def test_random_play_fails_the_validations_of_the_injected_bugs_it_runs_into() -> None:
    bugs = random_bugs(["moved_switch", "uncounted_kill"])
    assert sorted(b.signature for b in bugs) == [
        "validation:attack:goblin_1:event enemy_killed within 1 steps and kills +1",
        "validation:interact:switch_1:event door_opened within 2 steps and door_open +1",
    ]
    assert {b.kind for b in bugs} == {"logic"} and {b.oracle for b in bugs} == {"validation"}
    game = GameFactory(name="dungeon", kwargs=(("bugs", ["moved_switch", "uncounted_kill"]),)).make_vector(1)
    assert sorted(game.match(b) for b in bugs) == [0, 1]  # each is its injected bug
    kill = next(b for b in bugs if "goblin_1" in b.signature)
    assert "got kills +0" in kill.message and kill.actions[-1] == 5  # ends with the attack


def test_the_dead_jump_is_caught_when_a_plan_plays_the_jump_and_the_oracle_watches() -> None:
    plan = load_plan(ROOT / "plans" / "dungeon" / "article.yaml").model_copy(update={"validations": []})
    game = GameFactory(name="dungeon", kwargs=(("bugs", ["dead_jump"]),)).make_vector(1)
    found = oracle(game.game_spec)
    agent = PlanAgent(plan, game, game.game_spec, 1)
    batch = play(game, [0], [0], agent, max_steps=60, columns=found.requires).rollouts
    bugs = found.check(batch)
    assert [b.signature for b in bugs] == ["validation:jump:lava_1:event jumped within 1 steps"]
    assert game.match(bugs[0]) == 0


def tiny_search(tmp_path: Path, write_yaml: Any, bugs: list[str]) -> Path:
    from evo.cli.main import main

    config = yaml.safe_load((ROOT / "experiments" / "dungeon_balance.yaml").read_text())
    config["game"]["kwargs"]["bugs"] = bugs
    config["network"] = {"hidden": [16]}
    config["search"].update(population=8, offspring=8, episodes=4)
    config["budget"] = {"generations": 3}
    config["oracles"] = [{"name": "validation", "kwargs": {"plan": VALIDATIONS, "categories": CATEGORIES}}]
    config["parallel"] = {"backend": "serial"}
    out = tmp_path / ("run-" + "-".join(bugs or ["none"]))
    assert main(["run", str(write_yaml(config)), "--out", str(out), "--quiet"]) == 0
    return out


def test_a_tiny_search_reports_the_validation_bug_and_it_replays(tmp_path: Path, write_yaml: Any) -> None:
    from evo.bugs.replay import replay
    from evo.report.tables import load_run

    run = tiny_search(tmp_path, write_yaml, ["uncounted_kill"])
    bugs = load_run(run).bugs
    assert list(bugs["signature"]) == ["validation:attack:goblin_1:event enemy_killed within 1 steps and kills +1"]
    assert replay(run, int(bugs["id"].iloc[0])).reproduced
    clean = tiny_search(tmp_path, write_yaml, [])
    assert load_run(clean).bugs.empty


def test_validations_it_cannot_run_are_refused() -> None:
    spec = GameFactory(name="dungeon").make_vector(1).game_spec
    with pytest.raises(ValidationError, match="give validations"):
        oracles.build_oracles([("validation", {})], spec, Context())
    with pytest.raises(ValidationError, match="no such plan file"):
        oracles.build_oracles([("validation", {"plan": "nowhere.yaml"})], spec, Context())
    bad = {"validations": [{"action": "jump", "delay": 1, "expect": {"altitude": 1}}]}
    with pytest.raises(ValueError, match="altitude"):
        oracles.build_oracles([("validation", bad)], spec, Context())


def test_a_feature_the_game_lacks_is_one_line_exit_2(bad_input: Any, tmp_path: Path) -> None:
    config = yaml.safe_load((tmp_path / "exp.yaml").read_text())
    config["oracles"] = [{"name": "validation", "kwargs": {"validations": [{"action": "N", "delay": 1, "expect": {"x": 1}}]}}]
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(config))
    line = bad_input(["run", "exp.yaml"])
    assert "validation oracle" in line and "'x'" in line
