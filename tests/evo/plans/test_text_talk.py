"""Talk no pass knows, left out by the classifier trained on how testers write (evo.plans.talk):
a text refused for a sentence of talk is read without it, and the plan names what it left out;
a sentence that may hold a step is never left out. Every text here is in words of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.cli.main import main
from evo.plans.from_text import _facts, _plan_from_text, plan_from_text
from evo.plans.talk import SHIPPED, _data_hash, still_a_step, talk_in, units, without
from evo.run.config import ConfigError
from tests.evo.plans.heldout.score import plan_words
from tests.evo.plans.text_games import DUNGEON, PARK

MACHINE = "Morning all! The vending machine on the third floor ate my change again.\nPull the lever, then hop over the pit.\nCheers, Bo"


@pytest.mark.parametrize("game, text, plan, left_out", [
    (DUNGEON, MACHINE, ("interact switch", "jump lava"),
     ["Morning all!", "The vending machine on the third floor ate my change again.", "Cheers, Bo"]),
    (DUNGEON, "Kill the troll. Then pray at the altar. Patch notes went out at noon, by the way.",
     ("attack ogre", "interact shrine"), ["Patch notes went out at noon, by the way."]),
])
def test_talk_no_pass_knows_is_left_out_and_named(game, text: str, plan: tuple[str, ...], left_out: list[str], nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError):  # the reader alone refuses it: a word of the talk is like none of the game's
        _plan_from_text(text, game, "", (), nlp, ())
    read, _ = plan_from_text(text, game, nlp=nlp)
    assert plan_words(read) == plan and read.left_out == left_out


def test_a_text_the_reader_reads_leaves_nothing_out(nlp) -> None:  # type: ignore[no-untyped-def]
    read, _ = plan_from_text("Pull the lever and cross the pit. The pit animation stutters on my laptop.", DUNGEON, nlp=nlp)
    assert plan_words(read) == ("interact switch", "jump lava") and read.left_out == []


def test_talk_alone_and_a_step_in_unknown_words_stay_refused(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="no sentence reads as a step"):
        plan_from_text("The build from last night feels slower than usual.", DUNGEON, nlp=nlp)
    with pytest.raises(ConfigError, match="'Zorble'"):  # a step, in a verb the game does not know: not talk
        plan_from_text("Pull the lever.\nZorble the altar.", DUNGEON, nlp=nlp)


def test_a_sentence_that_may_hold_a_step_is_kept(nlp) -> None:  # type: ignore[no-untyped-def]
    plan, _ = plan_from_text("Kill the troll.", DUNGEON, nlp=nlp)
    actions, actors, *_, categories = _facts(DUNGEON)
    assert still_a_step("Thanks, and sorry for the short notice.", plan, actions, actors, categories) is None
    assert still_a_step("The troll hits far too hard since the patch.", plan, actions, actors, categories) is None
    assert still_a_step("An orc would be next, I guess.", plan, actions, actors, categories) == "orc"  # a thing it never goes to
    assert still_a_step("The pit is where it went wrong.", plan, actions, actors, categories) == "pit"
    assert still_a_step("First the player should pray.", plan, actions, actors, categories) == "pray"  # a deed it never does
    assert still_a_step("Let it play for 90 steps.", plan, actions, actors, categories) == "a budget"
    assert still_a_step("Actually no, the other one.", plan, actions, actors, categories) is not None  # a correction
    assert still_a_step("Hug the wall.", plan, actions, actors, categories) == "hug"  # it bids: a step in words the game lacks
    assert still_a_step("Let me know how it goes.", plan, actions, actors, categories) is None
    assert still_a_step("Orc 2 seems fine.", plan, actions, actors, categories) == "Orc 2"  # an instance the plan never goes to
    rules, _ = plan_from_text("Slay any monster for 80 steps.", DUNGEON, nlp=nlp)
    assert still_a_step("The troll hits far too hard.", rules, actions, actors, categories) is None  # a troll is a monster


def test_sentences_are_lines_split_after_their_ends() -> None:
    text = "Hi!\nPull the lever. Then hop the pit.  Thanks."
    assert [text[b:e] for b, e in units(text)] == ["Hi!", "Pull the lever.", "Then hop the pit.", "Thanks."]
    assert without(text, [units(text)[0], units(text)[3]]) == "Pull the lever. Then hop the pit."
    assert talk_in("Thanks!") == []  # a text of talk alone: nothing to read without it


def test_the_classifier_ships_with_the_data_it_was_trained_on() -> None:
    assert (SHIPPED / f"{_data_hash()}-numpy" / "meta.json").exists()  # the same weights on every machine


def test_evo_plan_from_text_says_what_it_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "steps.txt").write_text(MACHINE)
    code = main(["plan", "from-text", str(tmp_path / "steps.txt"), "--game", "dungeon", "--kwarg", "bugs=[]"])
    printed = capsys.readouterr().out
    assert code == 0 and "left out as talk: 'The vending machine on the third floor ate my change again.'" in printed


def test_the_park_leaves_out_talk_too(nlp) -> None:  # type: ignore[no-untyped-def]
    text = "Hello! Payroll ran late this month.\nCircle barrel 2, then look up at lamp 3."
    with pytest.raises(ConfigError):  # "this" read as a thing the step stands for
        _plan_from_text(text, PARK, "", (), nlp, ())
    read, _ = plan_from_text(text, PARK, nlp=nlp)
    assert plan_words(read) == ("circle barrel_2", "look_up lamp_3") and read.left_out == ["Hello!", "Payroll ran late this month."]
