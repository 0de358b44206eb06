"""Text to plan on the held-out texts (``tests/evo/plans/heldout``): by pattern, the share of
texts that give the plan a tester meant, and of those that also pass on the bug-free build.

Prints one table per game and the texts it got wrong. ``--src DIR`` scores another checkout's
pipeline (an export of an older commit) on the same texts, for a before-and-after table.

    python benchmarks/text_plans.py                      # every set
    python benchmarks/text_plans.py --sets dungeon_2     # one set
    python benchmarks/text_plans.py --sets dungeon_dev park_dev  # the development sets (tests/evo/plans/dev)
    python benchmarks/text_plans.py --sets dungeon_dev2 park_dev2  # the second ones (set 6's families)
    python benchmarks/text_plans.py --sets dungeon_dev3 park_dev3  # the third ones (set 7's families)
    python benchmarks/text_plans.py --src /tmp/main-src  # the same texts on main's pipeline

where ``/tmp/main-src`` is an older pipeline: ``mkdir /tmp/main-src && git archive 2d2b22d
| tar -x -C /tmp/main-src`` (the first merge, the "before" of the third set's table in
docs/guides/text-plans.md; ``17cd80f``: main before any of it). Every set, the park's run, takes
about 2 minutes on 2 busy cores.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("dungeon", "park", "dungeon_2", "park_2", "dungeon_3", "park_3", "dungeon_4", "park_4", "dungeon_5", "park_5",
        "dungeon_6", "park_6", "dungeon_7", "park_7", "dungeon_8", "park_8", "dungeon_9", "park_9",
        "dungeon_dev", "park_dev", "dungeon_dev2", "park_dev2",
        "dungeon_dev3", "park_dev3", "dungeon_dev4", "park_dev4",
        "dungeon_dev5", "park_dev5", "dungeon_dev6", "park_dev6", "dungeon_dev7", "park_dev7", "dungeon_dev8", "park_dev8",
        "dungeon_dev9", "park_dev9", "dungeon_dev10", "park_dev10", "dungeon_dev11", "park_dev11", "dungeon_dev12", "park_dev12",
        "dungeon_dev13", "park_dev13", "dungeon_dev14", "park_dev14", "dungeon_dev15", "park_dev15", "dungeon_dev16", "park_dev16",
        "dungeon_dev17", "park_dev17", "dungeon_dev18", "park_dev18", "dungeon_dev19", "park_dev19", "dungeon_dev20", "park_dev20",
        "dungeon_dev21", "park_dev21", "dungeon_dev22", "park_dev22", "dungeon_dev23", "park_dev23",
        "dungeon_dev24", "park_dev24", "dungeon_dev25", "park_dev25", "dungeon_dev26", "park_dev26",
        "dungeon_dev27", "park_dev27", "dungeon_dev28", "park_dev28",
        "dungeon_dev29", "park_dev29", "dungeon_dev30", "park_dev30",
        "dungeon_dev31", "park_dev31", "dungeon_dev32", "park_dev32",
        "dungeon_dev33", "park_dev33", "dungeon_dev34", "park_dev34",
        "dungeon_dev35", "park_dev35", "dungeon_dev36", "park_dev36",
        "dungeon_dev37", "park_dev37", "dungeon_dev38", "park_dev38", "dungeon_dev39", "park_dev39", "dungeon_dev40", "park_dev40",
        "dungeon_dev41", "park_dev41", "dungeon_dev42", "park_dev42",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS, help="held-out sets (default: all)")
    parser.add_argument("--src", type=Path, help="score this checkout's evo and games instead")
    parser.add_argument("--no-run", action="store_true", help="only compare plans, run none")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.evo.plans.heldout.score import score, table  # noqa: E402 - the texts and their scoring: ours

    if args.src is not None:  # the pipeline (evo, games) scored: the other checkout's
        sys.path.insert(0, str(args.src.resolve()))
    from evo.plans.text import load_pipeline  # noqa: E402

    print(f"pipeline: {Path(sys.modules['evo.plans.text'].__file__).parents[2]}")

    nlp = load_pipeline()
    for game in args.sets:
        outcomes = score(game, nlp, run=not args.no_run)
        rows = table(outcomes)
        refused = Counter(o.case.pattern for o in outcomes if o.got[:1] and o.got[0].startswith("refused"))
        print(f"\n{game}: {'pattern':<12} {'texts':>5} {'exact plan':>11} {'and passes':>11} {'refused':>8} {'wrong':>6}")
        total = [0, 0, 0, 0]
        for pattern, (n, exact, passed) in rows.items():
            total = [total[0] + n, total[1] + exact, total[2] + passed, total[3] + refused[pattern]]
            print(f"{'':<{len(game) + 2}}{pattern:<12} {n:>5} {exact / n:>10.0%} {passed / n:>10.0%}"
                  f" {refused[pattern]:>8} {n - exact - refused[pattern]:>6}")
        n, exact, passed, no = total
        print(f"{'':<{len(game) + 2}}{'all':<12} {n:>5} {exact / n:>10.0%} {passed / n:>10.0%} {no:>8} {n - exact - no:>6}")
        for o in outcomes:
            if not (o.exact and (o.passed or args.no_run)):
                print(f"  {o.case.pattern}: {o.case.text!r}\n    meant {list(o.case.plan)}\n    got   {list(o.got)}"
                      + ("" if o.exact else "") + ("  (did not pass)" if o.exact and not o.passed else ""))


if __name__ == "__main__":
    main()
