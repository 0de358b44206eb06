"""Score text-to-plan on the held-out texts: the plan each gives against the plan a tester
meant (in the notation of ``dungeon.yaml``), and whether it passes on the bug-free build.

Used by ``tests/evo/plans/test_heldout.py`` and ``benchmarks/text_plans.py`` (which also
scores an older checkout, so nothing here needs more of a plan than nodes and rules).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
GAMES = {
    "dungeon": ("dungeon", (("bugs", ()),), "plans/dungeon/rules.yaml"),
    "park": ("doom_park", (("level_seed", 0), ("max_steps", 400), ("preset", "small")), "plans/park/visit_objects.yaml"),
}
"""Held-out set -> (registered game, its bug-free keyword arguments, the plan whose validations
the texts' plans are checked by)."""


@dataclass(frozen=True)
class Case:
    pattern: str
    text: str
    plan: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    case: Case
    got: tuple[str, ...]
    """The plan in the same notation, or ``("refused: <why>",)``."""
    exact: bool
    passed: bool


SETS = ("dungeon", "park", "dungeon_2", "park_2", "dungeon_3", "park_3", "dungeon_4", "park_4", "dungeon_5", "park_5",
        "dungeon_6", "park_6", "dungeon_7", "park_7", "dungeon_8", "park_8",
        "dungeon_9", "park_9")
"""The held-out sets: a game's first, its second (written after the second freeze), its third
(after the third), its fourth (after the same freeze, by an independent tester), its fifth
(after the freeze at commit 07ee014, by another independent tester) and its sixth (after the
final freeze, commit 24c563e, by a third independent tester); the seventh after the freeze at
commit ca7edbd, by a fourth, the eighth after the freeze at commit b0fe924, by a fifth; the ninth by a sixth, blind, after
commit 9d8ace9 while set 8's misses were fixed (measured on the fixed pipeline)."""


def game_of(held: str) -> str:
    """The game of a held-out set (``dungeon_2``: dungeon)."""
    return held.split("_")[0]


DEV = ("dungeon_dev", "park_dev", "dungeon_dev2", "park_dev2", "dungeon_dev3", "park_dev3", "dungeon_dev4", "park_dev4",
       "dungeon_dev5", "park_dev5", "dungeon_dev6", "park_dev6",
       "dungeon_dev7", "park_dev7", "dungeon_dev8", "park_dev8", "dungeon_dev9", "park_dev9", "dungeon_dev10", "park_dev10",
       "dungeon_dev11", "park_dev11", "dungeon_dev12", "park_dev12",
       "dungeon_dev13", "park_dev13", "dungeon_dev14", "park_dev14", "dungeon_dev15", "park_dev15", "dungeon_dev16", "park_dev16",
       "dungeon_dev17", "park_dev17", "dungeon_dev18", "park_dev18", "dungeon_dev19", "park_dev19", "dungeon_dev20", "park_dev20",
       "dungeon_dev21", "park_dev21", "dungeon_dev22", "park_dev22",
       "dungeon_dev23", "park_dev23", "dungeon_dev24", "park_dev24",
       "dungeon_dev25", "park_dev25", "dungeon_dev26", "park_dev26",
       "dungeon_dev27", "park_dev27", "dungeon_dev28", "park_dev28",
       "dungeon_dev29", "park_dev29", "dungeon_dev30", "park_dev30",
       "dungeon_dev31", "park_dev31", "dungeon_dev32", "park_dev32", "dungeon_dev33", "park_dev33", "dungeon_dev34", "park_dev34",
       "dungeon_dev35", "park_dev35", "dungeon_dev36", "park_dev36", "dungeon_dev37", "park_dev37", "dungeon_dev38", "park_dev38",
       "dungeon_dev39", "park_dev39", "dungeon_dev40", "park_dev40", "dungeon_dev41", "park_dev41", "dungeon_dev42", "park_dev42",
       "dungeon_dev43", "park_dev43", "dungeon_dev44", "park_dev44", "dungeon_dev45", "park_dev45", "dungeon_dev46", "park_dev46",
       "dungeon_dev47", "park_dev47", "dungeon_dev48", "park_dev48",
       "dungeon_dev49", "park_dev49", "dungeon_dev50", "park_dev50",
       "dungeon_dev51", "park_dev51", "dungeon_dev52", "park_dev52", "dungeon_dev53", "park_dev53", "dungeon_dev54", "park_dev54",
       "dungeon_dev55", "park_dev55", "dungeon_dev56", "park_dev56", "dungeon_dev57", "park_dev57", "dungeon_dev58", "park_dev58",
       "dungeon_dev59", "park_dev59", "dungeon_dev60", "park_dev60", "dungeon_dev61", "park_dev61", "dungeon_dev62", "park_dev62",
       "dungeon_dev63", "park_dev63", "dungeon_dev64", "park_dev64", "dungeon_dev65", "park_dev65", "dungeon_dev66", "park_dev66",
       "dungeon_dev67", "park_dev67", "dungeon_dev68", "park_dev68", "dungeon_dev69", "park_dev69", "dungeon_dev70", "park_dev70",
       "dungeon_dev71", "park_dev71", "dungeon_dev72", "park_dev72", "dungeon_dev73", "park_dev73", "dungeon_dev74", "park_dev74",
       "dungeon_dev75", "park_dev75", "dungeon_dev76", "park_dev76", "dungeon_dev77", "park_dev77", "dungeon_dev78", "park_dev78",
       "dungeon_dev79", "park_dev79", "dungeon_dev80", "park_dev80", "dungeon_dev81", "park_dev81", "dungeon_dev82", "park_dev82",
       "dungeon_dev83", "park_dev83", "dungeon_dev84", "park_dev84", "dungeon_dev85", "park_dev85", "dungeon_dev86", "park_dev86",
       "dungeon_dev87", "park_dev87", "dungeon_dev88", "park_dev88", "dungeon_dev89", "park_dev89", "dungeon_dev90", "park_dev90",
       "dungeon_dev91", "park_dev91", "dungeon_dev92", "park_dev92", "dungeon_dev93", "park_dev93", "dungeon_dev94", "park_dev94",
       "dungeon_dev95", "park_dev95", "dungeon_dev96", "park_dev96", "dungeon_dev97", "park_dev97", "dungeon_dev98", "park_dev98",
       "dungeon_dev99", "park_dev99", "dungeon_dev100", "park_dev100", "dungeon_dev101", "park_dev101", "dungeon_dev102", "park_dev102",
       "dungeon_dev103", "park_dev103", "dungeon_dev104", "park_dev104", "dungeon_dev105", "park_dev105", "dungeon_dev106", "park_dev106",
       "dungeon_dev107", "park_dev107", "dungeon_dev108", "park_dev108", "dungeon_dev109", "park_dev109", "dungeon_dev110", "park_dev110",
       "dungeon_dev111", "park_dev111", "dungeon_dev112", "park_dev112", "dungeon_dev113", "park_dev113", "dungeon_dev114", "park_dev114",
       "dungeon_dev115", "park_dev115", "dungeon_dev116", "park_dev116", "dungeon_dev117", "park_dev117", "dungeon_dev118", "park_dev118",
       "dungeon_dev119", "park_dev119", "dungeon_dev120", "park_dev120", "dungeon_dev121", "park_dev121", "dungeon_dev122", "park_dev122",
       "dungeon_dev123", "park_dev123", "dungeon_dev124", "park_dev124",
       "dungeon_dev125", "park_dev125", "dungeon_dev126", "park_dev126", "dungeon_dev127", "park_dev127", "dungeon_dev128", "park_dev128",
       "dungeon_dev129", "park_dev129", "dungeon_dev130", "park_dev130",
       "dungeon_dev131", "park_dev131", "dungeon_dev132", "park_dev132", "dungeon_dev133", "park_dev133", "dungeon_dev134", "park_dev134",
       "dungeon_dev135", "park_dev135", "dungeon_dev136", "park_dev136", "dungeon_dev137", "park_dev137", "dungeon_dev138", "park_dev138",
       "dungeon_dev139", "park_dev139", "dungeon_dev140", "park_dev140", "dungeon_dev141", "park_dev141", "dungeon_dev142", "park_dev142",
       "dungeon_dev143", "park_dev143", "dungeon_dev144", "park_dev144", "dungeon_dev145", "park_dev145", "dungeon_dev146", "park_dev146",
       "dungeon_dev147", "park_dev147", "dungeon_dev148", "park_dev148", "dungeon_dev149", "park_dev149", "dungeon_dev150", "park_dev150")
"""The development sets (``../dev``): the families of set 5's misses (``*_dev``), of set 6's
(``*_dev2``) and of set 7's (``*_dev3``) in many variants, written before their fixes and fixed
against, so not held out."""


def cases(held: str) -> list[Case]:
    path = HERE / f"{held}.yaml" if held not in DEV else HERE.parent / "dev" / f"{held}.yaml"
    rows = yaml.safe_load(path.read_text())
    return [Case(r["pattern"], r["text"], in_place(r["plan"])) for r in rows]


def in_place(plan: Sequence[str]) -> tuple[str, ...]:
    """A meant plan in the reader's words: a step with no place (``look_down``: "an action with
    no new place is done where the last step ended", as the sets' notation says) at the last
    step's place, or at the start for a first step; its nodes first, then its rules, then its
    budget (a plan's rules are no step of its order: "While you do this, collect every coin: 1)
    ..." lists the rule first)."""
    out: list[str] = []
    for step in plan:
        words = str(step).split()
        if len(words) == 1 and words[0] not in ("budget",):
            steps = [w.split() for w in out if not w.startswith(("rule ", "budget "))]
            words.append(steps[-1][1] if steps else "start")
        out.append(" ".join(words))
    kind = {"rule": 1, "budget": 2}  # a plan's nodes, then its rules, then its budget, however the tester listed them
    return tuple(sorted(out, key=lambda step: kind.get(step.split()[0], 0)))


def plan_words(plan: Any) -> tuple[str, ...]:
    """``interact switch``, ``jump lava if door_open``, ``rule attack enemy``, ``budget 150``."""
    out = []
    for node in plan.nodes:
        where = node.target if node.target is not None else "start"
        cond = [c.feature or c.near for c in getattr(node, "when", [])]
        out.append(f"{node.action or 'go'} {where}" + "".join(f" if {c}" for c in cond))
    out += [f"rule {rule.action or 'go'} {rule.when[0].near}" for rule in plan.rules]
    if not plan.nodes:
        out.append(f"budget {plan.max_steps}")
    return tuple(out)


def factory(game: str) -> Any:
    from games import GameFactory

    name, kwargs, _ = GAMES[game]
    return GameFactory(name=name, kwargs=kwargs)


def score(held: str, nlp: Any, run: bool = True, only: Sequence[Case] | None = None) -> list[Outcome]:
    """Every text of the held-out set ``held`` read (and run on the bug-free build when ``run``)."""
    from evo.plans import load_plan, run_plan
    from evo.plans.from_text import plan_from_text

    made = factory(game_of(held))
    validations = load_plan(ROOT / GAMES[game_of(held)][2]).validations
    out = []
    for case in only if only is not None else cases(held):
        try:
            plan, _ = plan_from_text(case.text, made, validations=validations, nlp=nlp)
        except Exception as exc:  # noqa: BLE001 - a refusal (or, before, a crash) is a wrong plan
            out.append(Outcome(case, (f"refused: {str(exc).splitlines()[0]}",), False, False))
            continue
        got = plan_words(plan)
        try:
            passed = bool(run_plan(plan, made).passed) if run else False
        except Exception:  # noqa: BLE001 - an older pipeline's crash in the run is a failure
            passed = False
        out.append(Outcome(case, got, _alike(got, case.plan, made), passed))
    return out


def _alike(got: Sequence[str], meant: Sequence[str], made: Any) -> bool:
    """The same plan, a thing the game has one of named either way ("interact switch_1" is
    "interact switch": the same actor; testers of wave 61 wrote the type for "switch_1")."""
    import re

    from evo.plans.from_text import _facts

    names = _facts(made)[5]
    counts: dict[str, int] = {}
    for name in names:
        counts[name.rsplit("_", 1)[0]] = counts.get(name.rsplit("_", 1)[0], 0) + 1
    one = re.compile(r"\b(%s)_1\b" % "|".join(sorted(t for t, n in counts.items() if n == 1) or ["(?!)"]))
    return _gone_to([one.sub(r"\1", step) for step in got]) == _gone_to([one.sub(r"\1", step) for step in meant])


def _gone_to(plan: Sequence[str]) -> list[str]:
    """A plan without a walk to a thing that the next step acts on ("go barrel_2", "jump barrel_2":
    "jump barrel_2"): the agent walks to a node's target before its deed, so both are one plan
    (testers of wave 66 wrote "1. go to barrel 2 2. jump" as two steps, earlier ones as one)."""
    out = list(plan)
    return [step for k, step in enumerate(out)
            if not (k + 1 < len(out) and len(step.split()) == 2 and step.split()[0] == "go" and not out[k + 1].startswith(("go ", "rule ", "budget "))
                    and len(out[k + 1].split()) == 2 and out[k + 1].split()[1] == step.split()[1])]


def read_all(sets: Sequence[str], jobs: int | None = None) -> dict[str, list[Outcome]]:
    """Each set's texts read (not run), the sets dealt out to ``jobs`` processes (every core, up to
    four): the suite reads some nine thousand texts, and one process would leave the other cores idle."""
    import joblib

    jobs = max(1, min(jobs or joblib.cpu_count(), 4, len(sets)))
    if jobs == 1:
        return _read(list(sets))
    parts = joblib.Parallel(n_jobs=jobs, backend="loky")(joblib.delayed(_read)(list(sets[k::jobs])) for k in range(jobs))
    return {held: outcomes for part in parts for held, outcomes in part.items()}


def _read(sets: list[str]) -> dict[str, list[Outcome]]:
    from evo.plans.text import load_pipeline

    nlp = load_pipeline()
    return {held: score(held, nlp, run=False) for held in sets}


def measured(held: str, nlp: Any, read: dict[str, list[Outcome]] | None = None) -> tuple[int, list[tuple[str, tuple[str, ...]]]]:
    """A set's texts read as meant, and its wrong plans (text, plan): the rest were refused.
    ``read``: sets read before (:func:`read_all`)."""
    outcomes = read[held] if read and held in read else score(held, nlp, run=False)
    wrong = [(o.case.text, o.got) for o in outcomes if not o.exact and not o.got[0].startswith("refused")]
    return sum(o.exact for o in outcomes), wrong


def table(outcomes: Sequence[Outcome]) -> dict[str, tuple[int, int, int]]:
    """Pattern -> (texts, exact plans, exact plans that pass)."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for o in outcomes:
        row = rows[o.case.pattern]
        row[0] += 1
        row[1] += o.exact
        row[2] += o.exact and o.passed
    return {k: (v[0], v[1], v[2]) for k, v in rows.items()}


def blind_misses(folder: str, game: str, nlp: Any) -> tuple[list[dict], set[int], set[int]]:
    """A blind set's texts (``tests/evo/plans/<folder>/<game>.yaml``), and which of them (by place)
    are not read as meant, and of those which give a wrong plan (the others are refused)."""
    rows = yaml.safe_load((ROOT / "tests" / "evo" / "plans" / folder / f"{game}.yaml").read_text())
    outcomes = score(game, nlp, run=False, only=[Case(r["pattern"], r["text"], in_place(r["plan"])) for r in rows])
    missed = {k for k, o in enumerate(outcomes) if not o.exact}
    return rows, missed, {k for k in missed if not outcomes[k].got[0].startswith("refused")}
