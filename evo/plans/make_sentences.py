"""Write the annotated sentence set the text-to-plan pipeline trains on.

``python -m evo.plans.make_sentences`` rewrites ``evo/plans/data/sentences.jsonl`` (and ships the
pipeline trained on it, :func:`evo.plans.text.ship`): test steps
as a QA engineer writes them, each labelled ``node`` (do this once, at this thing) or ``rule``
(do this whenever it applies), with the character spans of its action keyword (``ACTION``)
and of the actor it names (``ACTOR``). The sentences come from the phrasings below, crossed
and sampled with a fixed seed, so the file is reproducible and reviewable; the words kept out
of it (see ``tests/evo/test_plan_text.py``) test that the pipeline generalises.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).with_name("data") / "sentences.jsonl"

VERBS: dict[str, list[str]] = {
    "interact": ["activate", "use", "interact with", "pull", "flip", "operate", "open", "touch",
                 "toggle", "trigger", "examine", "talk to"],
    "jump": ["jump over", "leap over", "jump across", "leap across", "vault over", "jump past"],
    "attack": ["attack", "kill", "fight", "hit", "strike", "defeat", "destroy", "shoot"],
    "collect": ["collect", "pick up", "grab", "take", "gather", "loot", "get"],
    "move": ["go to", "walk to", "move to", "head to", "run to", "reach", "approach",
             "navigate to", "return to", "stand next to"],
}
ACTORS = ["switch", "lever", "door", "gate", "shrine", "altar", "ledge", "pit", "lava", "chasm",
          "chest", "coin", "key", "gem", "potion", "goblin", "skeleton", "ogre", "rat", "enemy",
          "monster", "statue", "portal", "bridge", "crate", "barrel", "exit", "wall", "guard",
          "spider", "treasure", "scroll"]
PLURALS = {"switch": "switches", "ledge": "ledges", "pit": "pits", "chest": "chests",
           "coin": "coins", "key": "keys", "gem": "gems", "potion": "potions",
           "goblin": "goblins", "skeleton": "skeletons", "ogre": "ogres", "rat": "rats",
           "enemy": "enemies", "monster": "monsters", "crate": "crates", "barrel": "barrels",
           "spider": "spiders", "treasure": "treasures", "scroll": "scrolls", "guard": "guards",
           "lever": "levers", "door": "doors", "statue": "statues", "portal": "portals"}
RULE_ONLY = ["collectables", "collectibles", "items", "pickups", "foes", "creatures"]
NODE_FORMS = ["{v} the {a}.", "{v} the {a}", "{P}{v} the {a}.", "{P}{v} the {adj} {a}.",
              "{P}{v} the {a} {where}.", "{v} that {a}.", "{P}carefully {v} the {a}."]
RULE_FORMS = ["{v} any {A}.", "{v} all {A}.", "{v} all the {A}.", "{v} every {a}.",
              "Always {v} {A}.", "{v} {A} whenever you see them.", "Whenever you see a {a}, {v} it.",
              "If a {a} is nearby, {v} it.", "{v} any {A} you find.", "{v} each {a} on the way.",
              "Remember to {v} any {A}.", "When a {a} appears, {v} it."]
COMPOUND_FORMS = ["{P}{v} the {a}, then {v2} the {a2}.", "{v} the {a} and {v2} the {a2}.",
                  "{v} the {a}; {v2} the {a2}.", "{P}{v} the {a} and then {v2} the {a2}.",
                  "{P}{m} the {a} and {v} it.", "{m} the {a}, then {v} it.", "{m} the {a} and {v} it there.",
                  "Once the {c} is {s}, {v} the {a}.", "{P}{v} the {a} once the {c} is {s}.",
                  "When the {c} is {s}, {m} the {a}."]
"""Two steps in one sentence, and a node under a precondition (the condition's actor is an
ACTOR too: the clause splitter reads it as the precondition's)."""
RELATIVE_FORMS = ["{v} {A} that come near.", "{v} any {A} that you meet.", "{v} the {A} that approach you.",
                  "{v} every {a} that you find.", "Whenever a {a} comes close, {v} it."]
"""Rules whose trigger is a relative clause on the actor."""
STATES = ["on", "open", "down", "up", "lit", "active"]
PREFIXES = ["", "Then ", "Next, ", "Now ", "After that, ", "First, ", "Finally, ", "Please ",
            "Then, ", "Afterwards ", "Step 2: ", "Once there, "]
ADJECTIVES = ["red", "old", "big", "wooden", "first", "second", "nearest", "small", "stone", "left"]
WHERE = ["in the corner", "near the door", "on the left", "at the end of the hall",
         "by the wall", "behind the gate", "in the next room"]


ACTION_KEYS, ACTOR_KEYS = ("v", "v2", "m"), ("a", "a2", "A", "c")


def _annotate(template: str, fill: dict[str, str]) -> dict:
    """The sentence and the character spans of its verb (``ACTION``) and actor (``ACTOR``)
    fillers."""
    text, spans, i = "", [], 0
    while i < len(template):
        if template[i] == "{":
            j = template.index("}", i)
            key = template[i + 1 : j]
            value = fill[key]
            if key in ACTION_KEYS and not text.strip():
                value = value[0].upper() + value[1:]
            if key in ACTION_KEYS or key in ACTOR_KEYS:
                spans.append([len(text), len(text) + len(value), "ACTION" if key in ACTION_KEYS else "ACTOR"])
            text += value
            i = j + 1
        else:
            text += template[i]
            i += 1
    return {"text": text, "entities": spans}


def sentences(seed: int = 0, per_form: int = 40) -> list[dict]:
    """The annotated sentences, in a seeded order."""
    rng = random.Random(seed)
    out = []
    for form in NODE_FORMS:
        for _ in range(per_form):
            verb = rng.choice(sorted(VERBS))
            fill = {"v": rng.choice(VERBS[verb]), "a": rng.choice(ACTORS), "P": rng.choice(PREFIXES),
                    "adj": rng.choice(ADJECTIVES), "where": rng.choice(WHERE)}
            out.append({**_annotate(form, fill), "kind": "node"})
    for form in RULE_FORMS:
        for _ in range(per_form):
            verb = rng.choice(["interact", "attack", "collect", "jump"])
            plural_actor = rng.choice(sorted(PLURALS))
            plural = rng.choice([PLURALS[plural_actor]] * 3 + RULE_ONLY)
            fill = {"v": rng.choice(VERBS[verb]), "a": plural_actor, "A": plural}
            out.append({**_annotate(form, fill), "kind": "rule"})
    for form, kind in [*((f, "node") for f in COMPOUND_FORMS), *((f, "rule") for f in RELATIVE_FORMS)]:
        for _ in range(per_form):
            verb, verb2 = rng.choice(["interact", "attack", "jump"]), rng.choice(sorted(VERBS))
            plural_actor = rng.choice(sorted(PLURALS))
            fill = {"v": rng.choice(VERBS[verb]), "v2": rng.choice(VERBS[verb2]), "m": rng.choice(VERBS["move"]),
                    "a": rng.choice(ACTORS), "a2": rng.choice(ACTORS), "c": rng.choice(ACTORS),
                    "A": PLURALS[plural_actor], "P": rng.choice(PREFIXES), "s": rng.choice(STATES)}
            out.append({**_annotate(form, fill), "kind": kind})
    unique = {s["text"]: s for s in out}
    result = sorted(unique.values(), key=lambda s: s["text"])
    rng.shuffle(result)
    return result


if __name__ == "__main__":
    rows = sentences()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} sentences -> {OUT}")
    from evo.plans.text import ship

    print(f"pipeline trained on them -> {ship(OUT)}")
