"""``evo study ppgta``: PPGTA's evaluation of park testers (:mod:`evo.report.studies.ppgta`).

    evo study ppgta RUN_DIR... [imitation] [random] --episodes 45 --steps 2000 --level-seed 100 --out DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from evo.run.user_paths import ConfigError


def add_study_parser(sub: argparse._SubParsersAction) -> None:
    study = sub.add_parser("study", help="evaluation studies of trained agents (ppgta)")
    kinds = study.add_subparsers(dest="study", required=True)
    p = kinds.add_parser("ppgta", help="PPGTA's protocol on the park: coverage, objects tested, test success")
    p.add_argument("inputs", nargs="+", metavar="RUN_DIR|imitation|random",
                   help="one run directory per agent (ppgta_park, ppgta_park_novelty, ppgta_park_evolved, ...), "
                   "imitation (the shipped path-following imitation policy, on the first run's game) or random")
    p.add_argument("--episodes", type=int, default=45, help="episodes per agent (default 45, as PPGTA)")
    p.add_argument("--steps", type=int, default=2000, help="steps per episode (default 2000, as PPGTA)")
    p.add_argument("--preset", choices=("small", "large"), default="large", help="park size (default large)")
    p.add_argument("--level-seed", type=int, default=100,
                   help="the park level (default 100: no model was trained or demonstrated on it)")
    p.add_argument("--batch", type=int, default=5, help="game copies played at once (default 5)")
    p.add_argument("--tests-weights", type=Path,
                   help="object-test imitation policy: it executes the tests and its meta sets test success "
                        "(default the shipped policy)")
    p.add_argument("--no-tests", action="store_true", help="agents only explore: no object test is executed")
    p.add_argument("--near", type=int, default=12,
                   help="a test starts when a detected box is this many pixels tall (default 12)")
    p.add_argument("--test-steps", type=int, default=100,
                   help="steps the object-test policy plays a test at most (default 100)")
    p.add_argument("--fixed-end", action="store_true",
                   help="every test plays --test-steps (default: a test ends when the test policy's end head "
                        "says done)")
    p.add_argument("--cooldown", type=int, default=50, help="steps of exploring after a test before the next (default 50)")
    p.add_argument("--seed", type=int, default=0, help="seed of the episodes: starts and sampling (default 0)")
    p.add_argument("--out", type=Path, required=True, help="output folder")


def study_command(args: argparse.Namespace, console: Console) -> int:
    import torch

    from evo.report.studies.ppgta import StudyConfig, study
    from evo.run.players import EvaluationError

    torch.set_num_threads(1)
    cfg = StudyConfig(args.episodes, args.steps, args.preset, args.level_seed, args.seed, args.batch,
                      None if args.tests_weights is None else str(args.tests_weights), not args.no_tests,
                      args.near, args.test_steps, args.cooldown, not args.fixed_end)
    try:
        result = study(args.inputs, cfg, args.out, progress=lambda line: console.print(line, markup=False))
    except EvaluationError as exc:
        raise ConfigError(str(exc)) from None
    table = Table(title=f"PPGTA protocol: {args.preset} park, level {args.level_seed}, {args.episodes} episodes "
                  f"of {args.steps} steps from random starts")
    for column in ("agent", "preferred area", "came close to", "objects tested", "within 18 episodes",
                   "any 18, mean", "tested successfully",
                   "tests that succeed", "seconds"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for r in result.table.itertuples():
        table.add_row(r.agent, f"{r.preferred_coverage:.1%}", f"{r.objects_close}",
                      f"{r.objects_tested} of {r.objects}",
                      f"{r.objects_tested_18_share:.1%}", f"{r.objects_tested_any_18_share:.1%}",
                      f"{r.objects_succeeded_share:.1%}",
                      "no test" if r.tests == 0 else f"{r.test_success:.1%} of {r.tests}", f"{r.seconds:.0f}")
    console.print(table)
    console.print(f"wrote {', '.join(p.name for p in result.files)} in {args.out}")
    return 0
