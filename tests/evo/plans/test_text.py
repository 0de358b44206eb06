"""Text to plan: steps written for people become nodes and rules matched to a game's names,
with a pipeline trained here (spaCy, nothing downloaded), on sentences it was not trained on."""

from __future__ import annotations

import json

import pytest

from evo.run.config import ConfigError

from evo.plans.text import DATA, match_name, parse, read_steps, split_sentences

ACTIONS = {
    "interact": ("activate", "use", "press", "open", "pull", "talk to", "examine"),
    "jump": ("jump over", "leap", "hop", "vault"),
    "attack": ("kill", "fight", "hit", "slay", "smash", "kick"),
    "collect": ("pick up", "grab", "take", "gather", "loot"),
    "move": ("go to", "walk to", "head to", "reach", "climb"),
}
ACTOR_TYPES = {
    "switch": ("lever", "button"),
    "lava": ("ledge", "pit", "gap", "chasm"),
    "shrine": ("altar", "statue"),
    "enemy": ("monster", "goblin", "skeleton", "ogre", "zombie", "bat", "foe"),
    "collectable": ("coin", "gem", "item", "pickup", "ruby", "treasure"),
    "door": ("gate", "trapdoor"),
}

# Sentences whose words (verbs and actors) do not occur in the training set, with what they say.
HELD_OUT = [
    ("Press the button.", "node", "Press", "button"),
    ("Hop across the gap.", "node", "Hop across", "gap"),
    ("Open the trapdoor.", "node", "Open", "trapdoor"),
    ("Kick the barrel.", "node", "Kick", "barrel"),
    ("Talk to the merchant.", "node", "Talk to", "merchant"),
    ("Then climb the ladder.", "node", "climb", "ladder"),
    ("Slay every zombie.", "rule", "Slay", "zombie"),
    ("Whenever you spot a bat, smash it.", "rule", "smash", "bat"),
    ("Pick up all the rubies.", "rule", "Pick up", "rubies"),
    ("Loot any caskets.", "rule", "Loot", "caskets"),
]


def test_the_held_out_words_really_are_not_in_the_training_set() -> None:
    text = " ".join(json.loads(line)["text"].lower() for line in DATA.read_text().splitlines())
    words = set(text.replace(".", " ").replace(",", " ").split())
    for word in ("press", "button", "hop", "gap", "trapdoor", "kick", "merchant", "climb", "ladder",
                 "slay", "zombie", "spot", "bat", "smash", "rubies", "caskets"):
        assert word not in words, word


def test_the_articles_three_steps_become_three_nodes(nlp) -> None:  # type: ignore[no-untyped-def]
    text = "1. Activate the switch.\n2. Jump over the ledge.\n3. Interact with the shrine."
    steps = read_steps(text, ACTIONS, ACTOR_TYPES, nlp)
    assert [(s.parsed.kind, s.action, s.actor_type) for s in steps] == [
        ("node", "interact", "switch"), ("node", "jump", "lava"), ("node", "interact", "shrine")]


def test_rules_are_told_from_nodes(nlp) -> None:  # type: ignore[no-untyped-def]
    steps = read_steps("Collect any collectables. Attack any enemies.", ACTIONS, ACTOR_TYPES, nlp)
    assert [(s.parsed.kind, s.action, s.actor_type) for s in steps] == [
        ("rule", "collect", "collectable"), ("rule", "attack", "enemy")]


def test_sentences_it_was_not_trained_on_are_read(nlp) -> None:  # type: ignore[no-untyped-def]
    parsed = parse([text for text, *_ in HELD_OUT], nlp)
    right = [(p.kind, p.action_word, p.actor_word) == (kind, action, actor)
             for p, (_, kind, action, actor) in zip(parsed, HELD_OUT)]
    assert sum(right) >= 9, [(p.text, p.kind, p.action_word, p.actor_word) for p in parsed]


def test_a_word_like_none_of_the_games_names_is_refused_not_guessed(nlp) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=r"actor 'fountain' in 'Walk to the fountain' is like none of the game's actors"):
        read_steps("Walk to the fountain.", ACTIONS, ACTOR_TYPES, nlp)
    with pytest.raises(ConfigError, match=r"action 'Juggle' .* is like none of the game's actions"):
        read_steps("Juggle the switch.", ACTIONS, ACTOR_TYPES, nlp)


def test_a_step_that_names_no_actor_keeps_none(nlp) -> None:  # type: ignore[no-untyped-def]
    (jump,) = read_steps("Jump.", ACTIONS, ACTOR_TYPES, nlp)
    assert jump.action == "jump" and jump.actor_type is None


def test_keywords_match_names_and_synonyms_by_similarity() -> None:
    assert match_name("Activates", ACTIONS, "v") == "interact"
    assert match_name("enemies", ACTOR_TYPES) == "enemy"
    assert match_name("Jump over", ACTIONS, "v") == "jump"
    assert match_name("collectibles", ACTOR_TYPES) == "collectable"
    assert match_name("gate", {"goblin": ()}) is None
    assert match_name(None, ACTIONS) is None


def test_steps_are_split_from_lists_and_lines() -> None:
    text = "1. Activate the switch. Then go to the door.\n- Jump over the ledge\nStep 4: Open it!"
    assert split_sentences(text) == ["Activate the switch.", "Then go to the door.", "Jump over the ledge",
                                     "Open it!"]


def test_the_shipped_pipeline_is_the_one_trained_on_the_shipped_sentences(nlp) -> None:  # type: ignore[no-untyped-def]
    """Every machine reads with the same weights: the pipeline in the package is named by the hash of
    the sentences it was trained on, so sentences changed without ``python -m evo.plans.make_sentences``
    (which ships the retrained pipeline) fail here, not on another machine's reading."""
    from evo.plans.text import OPS, SHIPPED, _data_hash

    shipped = SHIPPED / f"{_data_hash(DATA)}-{OPS}"
    assert (shipped / "meta.json").exists(), f"{shipped} is missing: run python -m evo.plans.make_sentences"
    assert sorted(p.name for p in SHIPPED.iterdir()) == [shipped.name]
    assert nlp.pipe_names == ["textcat", "ner"]
