"""Plans from text that circle an object (the park's manoeuvre), end at a time, and read the
words the first pipeline missed: ordinals, a verb tagged as an actor, "every time"; and rules
alone that act on every step still end with their budget."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evo.plans import run_plan
from evo.plans.base import Condition, Plan, Rule
from evo.plans.budgets import budget_steps
from evo.plans.from_text import plan_from_text
from evo.run.config import ConfigError
from games import GameFactory
from games.doom.park.navigation import CIRCLE_STEPS, Circle
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK


def test_the_issues_park_example_circles_the_second_barrel_and_passes(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text("Walk to the second barrel, circle it, then go to the lamp by the path.", PARK, nlp=nlp)
    assert [(n.target, n.action) for n in plan.nodes] == [("barrel_2", "circle"), ("lamp", None)]
    result = run_plan(plan, PARK)
    assert result.passed, result.failure
    said = [text for _, text in result.lines]
    assert said.index("circle barrel_2") < said.index("node 1 done") < said.index("node 2: go to lamp")


def test_a_circle_is_done_once_the_player_has_gone_round_and_given_up_when_it_cannot() -> None:
    circle = Circle((0.0, 0.0), radius=160.0)
    moves = []
    for k in range(40):  # the player on the circle, a tenth of a turn further each step
        a = math.radians(10.0 * k)
        moves.append(circle.step(np.array([160 * math.cos(a), 160 * math.sin(a), math.degrees(a) + 180.0])))
    assert None not in moves[:36] and moves[37] is None and circle.failure is None
    stuck = Circle((0.0, 0.0))
    while stuck.step(np.array([160.0, 0.0, 180.0])) is not None:
        pass
    assert stuck.steps == CIRCLE_STEPS and "0 of 360 degrees" in (stuck.failure or "")


@pytest.mark.parametrize("text, steps", [
    ("Play for 120 steps.", 120), ("Play for two minutes.", 1050), ("Keep going for 30 seconds", 262),
    ("Stop after half a minute.", 262), ("Go to the lamp.", None),
])
def test_a_budget_in_steps_or_game_time(text: str, steps: int | None) -> None:
    assert budget_steps(text, 4 / 35) == steps  # the park's step: 4 tics of Doom's 35 a second


def test_a_rules_text_with_a_time_is_a_rules_plan_on_the_park_and_refused_on_the_turn_based_dungeon(
        nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text("Jump at any barrel you come near. Stop after 20 seconds.", PARK, nlp=nlp)
    assert plan_words(plan) == ("rule jump barrel", "budget 175")
    assert run_plan(plan, PARK).passed
    with pytest.raises(ConfigError, match=r"'Play for two minutes\.' is a time.*no game time"):
        plan_from_text("Attack any enemies. Play for two minutes.", DUNGEON, nlp=nlp)


def test_a_rule_may_circle_each_actor_it_meets_once(nlp) -> None:  # type: ignore[no-untyped-def]
    # Four independent testers wrote circling as a standing order ("Circle any barrel you come near.
    # Two minutes."); it was refused before. Each barrel met is circled once, then the rule leaves it.
    plan, _ = plan_from_text("Circle every barrel you pass. Stop after 40 seconds.", PARK, nlp=nlp)
    assert plan_words(plan) == ("rule circle barrel", "budget 350")
    result = run_plan(plan, PARK)
    circled = [text for _, text in result.lines if text.startswith("circle ")]
    assert result.passed and len(circled) >= 3 and len(set(circled)) == len(circled)


@pytest.mark.parametrize("game, text, plan", [
    (PARK, "Walk to the fourth barrel and jump.", ("jump barrel_4",)),  # the ordinal is no actor
    (PARK, "Go to the stump and look down at it.", ("look_down stump",)),  # "look" tagged as an actor
    (PARK, "Head to the pillar. Look down at the lamp.", ("go pillar", "look_down lamp")),
    (PARK, "First, walk to the lamp.", ("go lamp",)),  # a lead word is no step
    (PARK, "Walk around the third lamp.", ("circle lamp_3",)),
    # A path around said as a noun: no actor ("circle", "loop" were tagged as actors).
    (PARK, "Head to a barrel, make a circle around it, and then look up.", ("circle barrel", "look_up barrel")),
    (PARK, "Do a full loop round the pillar.", ("circle pillar",)),
    (PARK, "Run a full circle around the 3rd barrel.", ("circle barrel_3",)),
    (DUNGEON, "Every time you meet an ogre, hit it. Use the switch.", ("interact switch", "rule attack ogre")),
    (DUNGEON, "Switch on the lever.", ("interact switch",)),
    (DUNGEON, "Grab any gold.", ("rule go coin", "budget 150")),
])
def test_words_the_first_pipeline_missed(game: GameFactory, text: str, plan: tuple[str, ...], nlp) -> None:  # type: ignore[no-untyped-def]
    assert plan_words(plan_from_text(text, game, nlp=nlp)[0]) == plan


def test_rules_alone_that_act_every_step_end_with_the_budget() -> None:
    short = GameFactory(name="doom_park", kwargs=(("level_seed", 0), ("max_steps", 40), ("preset", "small")))
    rule = Rule(name="look up at any object", when=[Condition(near="object", within=64)], action="look_up", repeat=1000)
    result = run_plan(Plan(rules=[rule], max_steps=40), short)  # the rule holds to the end: nodes never run
    assert result.passed and result.steps == 40 and result.lines[-1][1] == "look_up barrel_1"
