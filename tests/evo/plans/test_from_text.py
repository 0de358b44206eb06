"""Plans from text on the dungeon: the article's three lines and its two rules become plans of
the same type a YAML gives, which pass on the released game and fail on a bugged build."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.cli.main import main
from evo.plans import load_plan, run_plan
from evo.plans.from_text import plan_from_text
from games import GameFactory

ROOT = Path(__file__).resolve().parents[3]
ARTICLE = "1. Activate the switch.\n2. Jump over the ledge.\n3. Interact with the shrine.\n"
RULES = "Collect any collectables.\nAttack any enemies.\n" + ARTICLE


def dungeon(*bugs: str) -> GameFactory:
    return GameFactory(name="dungeon", kwargs=(("bugs", tuple(bugs)),))


def checks() -> list:  # type: ignore[type-arg]
    return load_plan(ROOT / "plans" / "dungeon" / "rules.yaml").validations


def test_the_articles_three_lines_become_a_plan_that_passes(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text(ARTICLE, dungeon(), validations=checks(), nlp=nlp)
    assert [(n.target, n.action) for n in plan.nodes] == [("switch", "interact"), ("lava", "jump"),
                                                           ("shrine", "interact")]
    assert run_plan(plan, dungeon()).passed


def test_the_articles_rules_read_from_text_pass(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text(RULES, dungeon(), validations=checks(), nlp=nlp)
    assert [(r.when[0].near, r.action) for r in plan.rules] == [("collectable", None), ("enemy", "attack")]
    result = run_plan(plan, dungeon())
    assert result.passed, result.failure


def test_a_text_plan_catches_a_bugged_jump(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text(ARTICLE, dungeon(), validations=checks(), nlp=nlp)
    result = run_plan(plan, dungeon("dead_jump"))
    assert not result.passed and "jump on lava_1" in (result.failure or "")


def test_a_step_that_names_no_actor_acts_where_the_last_node_was(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, steps = plan_from_text("Activate the switch. Wait.", dungeon(), nlp=nlp)
    assert steps[1].actor_type is None
    assert [(n.target, n.action) for n in plan.nodes] == [("switch", "interact"), ("switch", "wait")]


def test_evo_plan_from_text_writes_the_plan_and_runs_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        nlp) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "steps.txt").write_text(ARTICLE)
    out = tmp_path / "plan.yaml"
    code = main(["plan", "from-text", str(tmp_path / "steps.txt"), "--game", "dungeon", "--kwarg", "bugs=[]",
                 "--validations", str(ROOT / "plans" / "dungeon" / "article.yaml"), "--out", str(out), "--run"])
    printed = capsys.readouterr().out
    assert code == 0 and "Jump over the ledge  ->  jump lava  ('Jump over'~jump" in printed and "PASSED" in printed
    assert load_plan(out).nodes[2].target == "shrine"  # the written plan loads as any plan does
    code = main(["plan", "from-text", str(tmp_path / "steps.txt"), "--game", "dungeon", "--kwarg",
                 "bugs=[moved_switch]", "--validations", str(ROOT / "plans" / "dungeon" / "article.yaml"), "--run"])
    assert code == 1 and "FAILED" in capsys.readouterr().out


def test_evo_plan_from_text_with_no_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "from-text", str(tmp_path / "missing.txt"), "--game", "dungeon"])
    err = capsys.readouterr().err
    assert code == 2 and "missing.txt: no such text file" in err and "Traceback" not in err


def test_the_articles_rules_text_alone_is_a_rules_plan_that_runs(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text("Collect any collectables. Attack any enemies. Play for 120 steps.", dungeon(),
                             validations=checks(), nlp=nlp)
    assert plan.nodes == [] and plan.max_steps == 120
    assert [(r.when[0].near, r.action) for r in plan.rules] == [("collectable", None), ("enemy", "attack")]
    result = run_plan(plan, dungeon())
    assert result.passed, result.failure
    said = [text for _, text in result.lines]
    assert "attack goblin_1" in said and any(text.endswith("-> coin_1") for text in said)


def test_a_precondition_waits_and_the_plan_says_which_word_matched_what(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text("Toggle the switch, then hop across the gap. Once the door is open, pray at the altar.",
                             dungeon(), validations=checks(), nlp=nlp)
    assert [(n.target, n.action) for n in plan.nodes] == [("switch", "interact"), ("lava", "jump"),
                                                           ("shrine", "interact")]
    assert plan.nodes[2].when[0].feature == "door_open"
    gap = plan.read_from[1].actor
    assert gap is not None and (gap.word, gap.name, gap.score) == ("gap", "lava", 1.0)
    assert run_plan(plan, dungeon()).passed


def test_evo_plan_from_text_refuses_an_unknown_word_in_one_line(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "steps.txt").write_text("Activate the switch.\nGo to the fountain.\n")
    code = main(["plan", "from-text", str(tmp_path / "steps.txt"), "--game", "dungeon"])
    err = capsys.readouterr().err
    assert code == 2 and "'fountain'" in err and "Traceback" not in err


def test_park_steps_read_into_instances(nlp) -> None:  # type: ignore[no-untyped-def]
    park = GameFactory(name="doom_park", kwargs=(("level_seed", 0), ("preset", "small")))
    plan, _ = plan_from_text("Walk to the second barrel, then go to the lamp by the path.", park, nlp=nlp)
    assert [(n.target, n.action) for n in plan.nodes] == [("barrel_2", None), ("lamp", None)]
