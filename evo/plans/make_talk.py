"""Write the talk-or-step sentence set the talk classifier trains on, and ship the classifier.

``python -m evo.plans.make_talk`` (from a checkout: it reads the development and held-out texts
under ``tests/evo/plans``) reads every text, and for each one read as its tester meant, labels
each sentence by what leaving it out does (:mod:`evo.plans.talk`); it rewrites
``evo/plans/data/talk.jsonl`` and ships the classifier trained on it. ``--sets`` limits the texts
(the sets measured unread are left out of what a classifier is trained on before it is measured).
Some 13,000 texts take about 25 minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[2]


def label(rows: Sequence[tuple[str, str, tuple[str, ...]]]) -> list[dict[str, str]]:
    """(set, text, meant plan) -> each sentence of the texts read as meant, labelled."""
    sys.path.insert(0, str(ROOT))
    from tests.evo.plans.heldout.score import GAMES, factory, plan_words  # the texts' scoring: ours
    from evo.plans import load_plan
    from evo.plans.from_text import _plan_from_text
    from evo.plans.talk import units, without
    from evo.plans.text import load_pipeline

    nlp = load_pipeline()
    made = {game: factory(game) for game in GAMES}
    checks = {game: load_plan(ROOT / GAMES[game][2]).validations for game in GAMES}

    def read(text: str, game: str) -> tuple[str, ...] | None:
        try:  # the reader alone, without the classifier this trains
            return plan_words(_plan_from_text(text, made[game], "", checks[game], nlp, ())[0])
        except Exception:  # noqa: BLE001 - a refusal: no plan
            return None

    out = []
    for held, text, meant in rows:
        game = held.split("_")[0]
        spans = units(text)
        for span in spans:
            sentence = text[span[0]:span[1]].strip()
            if len(spans) == 1 or read(without(text, [span]), game) != meant:
                out.append({"text": sentence, "label": "step"})
            elif read(sentence, game) is None:
                out.append({"text": sentence, "label": "talk"})
    return out


def _read_right(sets: Sequence[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    sys.path.insert(0, str(ROOT))
    from tests.evo.plans.heldout.score import read_all

    return [(held, o.case.text, o.case.plan) for held, outcomes in read_all(sets).items() for o in outcomes if o.exact]


def main(argv: Sequence[str] | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.evo.plans.heldout.score import DEV, SETS
    import joblib

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=[*SETS, *DEV], help="the sets whose texts are labelled (default: all)")
    args = parser.parse_args(argv)
    rows = _read_right(args.sets)
    parts: list[Any] = joblib.Parallel(n_jobs=2, backend="loky")(joblib.delayed(label)(rows[k::8]) for k in range(8))
    labelled = sorted({json.dumps(row, sort_keys=True) for part in parts for row in part})
    from evo.plans.talk import DATA, ship

    DATA.write_text("".join(line + "\n" for line in labelled))
    talk = sum('"talk"' in line for line in labelled)
    print(f"{len(labelled)} sentences ({talk} talk) from {len(rows)} texts read as meant -> {DATA}")
    print(f"classifier trained on them -> {ship()}")


if __name__ == "__main__":
    main()
