"""Explicit plans on the dungeon: the article's three steps pass, the rules plan passes, every
injected logic bug fails its validation with a message naming the action and the expected
change, and bad plans are one-line errors with exit code 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evo.cli.main import main
from evo.run.config import ConfigError
from evo.plans import Plan, load_plan, parse_plan, run_plan
from evo.plans.base import Validation
from oracles.action_checks import Validator
from games import GameFactory

PLANS = Path(__file__).resolve().parents[3] / "plans" / "dungeon"


def dungeon(bugs: list[str] | None = None, level_seed: int = 0) -> GameFactory:
    return GameFactory(name="dungeon", kwargs=(("bugs", bugs or []), ("level_seed", level_seed)))


@pytest.mark.parametrize("level_seed", [0, 1, 2])
def test_the_articles_three_steps_pass_on_the_dungeon(level_seed: int) -> None:
    plan = load_plan(PLANS / "article.yaml")
    assert [(n.target, n.action) for n in plan.nodes] == [
        ("switch_1", "interact"), ("lava", "jump"), ("shrine", "interact")]
    result = run_plan(plan, dungeon(level_seed=level_seed))
    assert result.passed, result.failure
    texts = [text for _, text in result.lines]
    assert texts[-1] == "all nodes done"
    assert sum(t.startswith("validation passed") for t in texts) == 3
    assert "validation passed: jump on lava_1" in "\n".join(texts)


def test_the_collect_and_attack_rules_interrupt_the_nodes_and_the_plan_passes() -> None:
    plan = load_plan(PLANS / "rules.yaml")
    assert [r.name for r in plan.rules] == ["attack any enemies", "collect any collectables"]
    result = run_plan(plan, dungeon())
    assert result.passed, result.failure
    texts = [text for _, text in result.lines]
    killed = {t.split()[4] for t in texts if t.startswith("validation passed: attack on") and "kills +1" in t}
    assert {"goblin_1", "skeleton_1", "ogre_1"} <= killed  # room A is cleared
    assert any(t.startswith("rule 'collect any collectables'") for t in texts)
    assert any(t.startswith("resume node") for t in texts)  # the nodes go on where they stopped
    assert texts.index("node 1 done") < texts.index("node 2 done") < texts.index("node 3 done")


@pytest.mark.parametrize("plan_file, bug_arg, action, expected", [
    ("article.yaml", "moved_switch", "interact on switch_1", "event door_opened within 2 steps and door_open +1"),
    ("article.yaml", "dead_jump", "jump on lava_1", "x +2 after 1 steps; got x +0"),
    ("rules.yaml", "uncounted_kill", "attack on goblin_1", "event enemy_killed within 1 steps and kills +1; got kills +0"),
])
def test_each_injected_bug_fails_its_validation(plan_file: str, bug_arg: str, action: str, expected: str) -> None:
    plan = load_plan(PLANS / plan_file)
    assert run_plan(plan, dungeon()).passed  # the released game passes the same plan
    result = run_plan(plan, dungeon([bug_arg]))
    assert not result.passed
    assert result.failure is not None
    assert result.failure.startswith(f"validation failed: {action} at step ")
    assert expected in result.failure
    # The failure is a logic bug of the validation oracle that replays to the failed action,
    # and the game's ground truth knows it.
    bug = result.bug
    assert bug is not None and (bug.kind, bug.oracle) == ("logic", "validation")
    assert bug.signature.startswith(f"validation:{action.split()[0]}:{action.split()[-1]}:")
    game = dungeon([bug_arg]).make_vector(1)
    assert game.match(bug) == 0 and game.injected_bugs[0].description == bug_arg
    game.reset([bug.episode_seed])
    for a in bug.actions:
        out = game.step(np.array([a]))
    assert tuple(out.features[0]) == bug.next_state
    assert run_plan(plan, dungeon()).bug is None


def test_the_highest_priority_rule_acts_first() -> None:
    raw = yaml.safe_load((PLANS / "rules.yaml").read_text())
    first = run_plan(parse_plan(raw), dungeon()).lines[0][1]
    assert first.startswith("rule 'attack any enemies' (priority 2)")
    raw["rules"][1]["priority"] = 3
    raw["rules"][1]["when"][0]["within"] = 30
    first = run_plan(parse_plan(raw), dungeon()).lines[0][1]
    assert first.startswith("rule 'collect any collectables' (priority 3)")


def test_a_feature_rule_acts_in_place_and_a_place_is_reached_in_a_straight_line() -> None:
    plan = Plan.model_validate({
        "nodes": [{"location": [5, 1], "movement": "straight", "wait": 2}],
        "rules": [{"name": "rest", "when": [{"feature": "health", "above": 19}], "action": "wait", "repeat": 3}],
    })
    result = run_plan(plan, dungeon())
    assert result.passed, result.failure
    texts = [text for _, text in result.lines]
    assert texts[:4] == ["rule 'rest' (priority 0) -> here", "wait", "wait", "wait"]
    assert "node 1 reached: go to (5, 1)" in texts


def test_a_node_waits_for_its_precondition_while_the_rules_still_act() -> None:
    door = {"target": "door", "when": [{"feature": "door_open", "above": 0.5}]}
    waits = run_plan(parse_plan({"nodes": [door], "max_steps": 40}), dungeon())
    assert not waits.passed and "node 1 (go to door) not done: 40 steps were not enough" in (waits.failure or "")
    opened = run_plan(parse_plan({"nodes": [{"target": "switch_1", "action": "interact"}, door]}), dungeon())
    assert opened.passed and opened.nodes_done == 2


def validator(**kwargs: Any) -> Validator:
    return Validator([Validation(**kwargs)], ("x", "kills"), {"enemy": ("goblin", "ogre")})


def test_validations_bound_to_an_event_or_a_delay_with_a_timeout() -> None:
    before = np.array([3.0, 0.0])
    v = validator(action="attack", target_type="enemy", event="enemy_killed", timeout=2, expect={"kills": 1})
    assert v.before("attack", "coin_1", before, 4) == []  # not an enemy: nothing to check
    assert v.before("attack", "ogre_2", before, 4) != []
    assert v.after((), before, 5) == []  # still waiting
    [verdict] = v.after(("enemy_killed:ogre_2",), np.array([3.0, 1.0]), 6)
    assert verdict.passed and verdict.step == 6
    v.before("attack", "goblin_1", before, 7)
    [late] = v.after(("enemy_hit:goblin_1",), before, 9)
    assert not late.passed and late.text.endswith("no enemy_killed event came")
    optional = validator(action="attack", event="enemy_killed", timeout=1, optional=True)
    optional.before("attack", "goblin_1", before, 0)
    assert optional.after((), before, 1) == [] and optional.pending == []
    moved = validator(action="jump", delay=1, expect={"x": "changed"})
    moved.before("jump", None, before, 0)
    [still] = moved.after((), before, 1)
    assert not still.passed and "expected x changed after 1 steps; got x +0" in still.text
    waiting = validator(action="interact", event="door_opened", timeout=5)
    waiting.before("interact", "switch_1", before, 0)
    [ended] = waiting.end((), before, 2)
    assert not ended.passed and "the episode ended before any door_opened event" in ended.text


@pytest.mark.parametrize("raw, key", [
    ({"nodes": [{"target": "switch_1", "actoin": "interact"}]}, "nodes.0.actoin: unknown key"),
    ({"nodes": [{"action": "jump"}]}, "give a target or a location"),
    ({"nodes": [{"target": "switch_1", "location": [1, 1]}]}, "both a location and a target needs an action"),
    ({"nodes": [{"target": "switch_1", "movement": "straight"}]}, "movement straight needs a location"),
    ({"nodes": []}, "a plan needs nodes, or rules and max_steps"),
    ({"rules": [{"when": [{"near": "enemy"}]}]}, "a plan needs nodes, or rules and max_steps"),
    ({"nodes": [{"target": "shrine"}], "rules": [{"when": [{"feature": "health"}]}]}, "needs below or above"),
    ({"nodes": [{"target": "shrine"}], "validations": [{"action": "jump"}]}, "exactly one of event and delay"),
    ([1, 2], "expected a mapping"),
])
def test_bad_plans_are_one_line_config_errors(raw: Any, key: str) -> None:
    with pytest.raises(ConfigError, match=key) as info:
        parse_plan(raw)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("raw, key", [
    ({"nodes": [{"target": "switch_1", "action": "dance"}]}, "nodes\\[0\\].action: 'dance' is not an action of dungeon"),
    ({"nodes": [{"target": "dragon"}]}, "nodes\\[0\\].target: 'dragon' is not an actor"),
    ({"nodes": [{"target": "shrine"}], "validations": [{"action": "jump", "delay": 1, "expect": {"z": 1}}]},
     "validations\\[0\\].expect: 'z' is not a state feature"),
    ({"nodes": [{"target": "door", "when": [{"feature": "lever_on", "above": 0.5}]}]},
     "nodes\\[0\\].when\\[0\\].feature: 'lever_on' is not a state feature"),
])
def test_names_the_game_does_not_know_are_config_errors(raw: Any, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        run_plan(parse_plan(raw), dungeon())


def test_plan_run_exits_0_when_passed_1_when_failed_and_2_on_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "run", str(PLANS / "article.yaml")]) == 0
    out = capsys.readouterr().out
    assert "node 1: interact switch_1" in out and "validation passed: interact on switch_1" in out
    assert "PASSED" in out
    assert main(["plan", "run", str(PLANS / "article.yaml"), "--kwarg", "bugs=[moved_switch]"]) == 1
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1].startswith("FAILED validation failed: interact on switch_1")
    assert main(["plan", "run", str(tmp_path / "none.yaml")]) == 2
    assert "no such plan file" in capsys.readouterr().err
    assert main(["plan", "run", str(PLANS / "article.yaml"), "--game", "cartpole_perf"]) == 2
    assert "offers no navigator" in capsys.readouterr().err
    assert main(["plan", "run", str(PLANS / "article.yaml"), "--game", "block_maze"]) == 2
    assert "'switch_1' is not an actor, actor type or category of block_maze, which names none" in capsys.readouterr().err
    assert main(["plan", "run", str(PLANS / "article.yaml"), "--kwarg", "bugs=[nope]"]) == 2
    assert "unknown dungeon bugs" in capsys.readouterr().err
    bare = tmp_path / "bare.yaml"
    bare.write_text("nodes: [{target: shrine}]\n")
    assert main(["plan", "run", str(bare)]) == 2
    assert "give --game NAME" in capsys.readouterr().err
