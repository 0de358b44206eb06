"""Phrasings the pipeline reads, in sentences of our own (none is in a held-out set): a step that leaves out its verb, movement phrases of several words, meeting an
actor as a trigger, "a" thing as one step, a noun inside "in front of", a state in the
passive, verbs one step under the game's verb in WordNet, a budget's verb, "turn to the left",
and the last word of a text with its full stop."""

from __future__ import annotations


from evo.plans.budgets import BUDGET
from evo.plans.lexicon import best_match
from evo.plans.text import parse, read_steps
from tests.evo.plans.test_text import ACTIONS, ACTOR_TYPES
from tests.evo.plans.test_text_clauses import read


def test_a_step_without_a_verb_takes_the_verb_before(nlp) -> None:  # type: ignore[no-untyped-def]
    assert read("Smash the bat, then the zombie.", nlp) == [("node", "attack", "enemy")] * 2
    assert read("Run to the gem and then to the door.", nlp) == [("node", None, "collectable"), ("node", None, "door")]


def test_a_movement_phrase_of_several_words_is_one_move(nlp) -> None:  # type: ignore[no-untyped-def]
    assert read("Find your way to the gem and grab it.", nlp) == [
        ("node", None, "collectable"), ("node", "collect", None)]


def test_meeting_an_actor_is_a_trigger(nlp) -> None:  # type: ignore[no-untyped-def]
    (rule,) = read_steps("If you bump into a bat, hit it.", ACTIONS, ACTOR_TYPES, nlp)
    assert (rule.parsed.kind, rule.action, rule.condition_match.name) == ("rule", "attack", "enemy")  # type: ignore[union-attr]


def test_a_thing_after_a_is_one_step_not_a_rule(nlp) -> None:  # type: ignore[no-untyped-def]
    assert read("Walk to a gate. Then walk to the lever.", nlp) == [("node", None, "door"), ("node", None, "switch")]


def test_the_noun_inside_a_place_phrase_is_the_actor(nlp) -> None:  # type: ignore[no-untyped-def]
    steps = parse(["Kneel in front of the altar.", "Wait to the right of the gate."], nlp)
    assert [s.actor_word for s in steps] == ["altar", "gate"]


def test_a_state_in_the_passive_is_the_state(nlp) -> None:  # type: ignore[no-untyped-def]
    (step,) = parse(["Once the lever has been switched on, walk to the gate."], nlp)
    assert (step.kind, step.clause.condition_state) == ("node", "on")  # type: ignore[union-attr]


def test_a_verb_one_step_under_the_games_verb_matches_it() -> None:
    assert best_match("butcher", ACTIONS, "v").name == "attack"  # kill (animals): a kind of kill
    assert best_match("amble to", ACTIONS, "v").name == "move"
    assert best_match("throw", ACTIONS, "v").name != "move"  # under "cause to move", not "go"


def test_a_budget_with_its_verb_is_no_step(nlp) -> None:  # type: ignore[no-untyped-def]
    text = BUDGET.sub("", "Attack any goblins, and carry on for 40 turns.")
    assert read(text, nlp) == [("rule", "attack", "enemy")]


def test_turn_to_the_left_is_a_turn_not_an_actor(nlp) -> None:  # type: ignore[no-untyped-def]
    steps = parse(["Go to the gate.", "Turn to the left."], nlp)
    assert (steps[1].action_word, steps[1].actor_word) == ("Turn left", None)


def test_the_last_word_keeps_no_full_stop(nlp) -> None:  # type: ignore[no-untyped-def]
    assert read("Run to the gap and jump.", nlp) == [("node", None, "lava"), ("node", "jump", None)]
