"""Sentences of several steps, conditions, and words matched through WordNet: how the text
pipeline reads what testers really write (the dungeon's vocabulary, no game run)."""

from __future__ import annotations

import pytest

from evo.plans.lexicon import best_match
from evo.plans.text import read_steps
from evo.run.config import ConfigError
from tests.evo.plans.test_text import ACTIONS, ACTOR_TYPES


def read(text: str, nlp) -> list[tuple[str, str | None, str | None]]:  # type: ignore[no-untyped-def]
    return [(s.parsed.kind, s.action, s.actor_type) for s in read_steps(text, ACTIONS, ACTOR_TYPES, nlp)]


def test_two_steps_in_one_sentence_are_two_steps_in_order(nlp) -> None:  # type: ignore[no-untyped-def]
    assert read("Activate the switch, then jump over the ledge.", nlp) == [
        ("node", "interact", "switch"), ("node", "jump", "lava")]
    assert read("Go to the lever and pull it.", nlp) == [("node", None, "switch"), ("node", "interact", None)]


def test_a_condition_in_front_is_a_trigger_or_a_precondition(nlp) -> None:  # type: ignore[no-untyped-def]
    (rule,) = read_steps("Whenever you see a goblin, kill it.", ACTIONS, ACTOR_TYPES, nlp)
    assert (rule.parsed.kind, rule.action, rule.condition_match.name) == ("rule", "attack", "enemy")  # type: ignore[union-attr]
    (node,) = read_steps("Once the switch is on, go to the shrine.", ACTIONS, ACTOR_TYPES, nlp)
    assert (node.parsed.kind, node.actor_type, node.parsed.clause.condition_state) == ("node", "shrine", "on")  # type: ignore[union-attr]


def test_a_relative_clause_on_the_actor_makes_a_rule(nlp) -> None:  # type: ignore[no-untyped-def]
    assert read("Attack skeletons that come near.", nlp) == [("rule", "attack", "enemy")]


def test_words_the_vocabulary_does_not_list_match_through_wordnet() -> None:
    assert best_match("murder", ACTIONS, "v").name == "attack"  # a synonym of slay
    assert best_match("temple", ACTOR_TYPES, "n").name == "shrine"  # both places of worship
    hobgoblin = best_match("hobgoblin", ACTOR_TYPES, "n")
    assert (hobgoblin.name, hobgoblin.how) == ("enemy", "synonym") and hobgoblin.score == pytest.approx(0.9)
    assert best_match("fountain", ACTOR_TYPES, "n").score < 0.7  # a structure, as a shrine is: too far


def test_a_word_below_the_threshold_is_refused_in_one_line(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError) as err:
        read_steps("Activate the switch, then go to the fountain.", ACTIONS, ACTOR_TYPES, nlp)
    assert "'fountain'" in str(err.value) and "\n" not in str(err.value)
