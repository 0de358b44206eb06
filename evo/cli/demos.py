"""``evo demos make`` and ``evo record``: demonstrations of the style a tester prefers.

    evo demos make --out demos/park --levels 1-4 --path 8 --object 8 --steps 300
    evo record --out demos/mine --level-seed 3 --set path --steps 500

``demos make`` plays PPGTA's two sets on the park by its navigator; ``record`` opens the
park in a window for a person. Both come from what the park lends the perception commands
(:func:`evo.cli.vision.park_data`) and add episodes to the folder's manifest
(:mod:`games.perception.demos` describes the format). The park and torch load only when one
of them runs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console

from evo.cli.vision import park_data
from evo.run.user_paths import ConfigError


def add_demos_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``demos`` command (``demos make``) and the ``record`` command."""
    demos = sub.add_parser("demos", help="make demonstrations of a preferred style (PPGTA) by plans on the park")
    actions = demos.add_subparsers(dest="demos_action", required=True)
    make = actions.add_parser("make", help="play path-following and object-test episodes on park levels")
    make.add_argument("--out", type=Path, required=True, help="folder of demonstrations (created or added to)")
    make.add_argument("--levels", default="1-4", help="park level seeds, e.g. 1-4 (not 0: the evaluation level)")
    make.add_argument("--path", type=int, default=8, help="path-following episodes per level")
    make.add_argument("--object", type=int, default=8, help="object-test episodes per level")
    make.add_argument("--steps", type=int, default=300, help="actions per episode")
    make.add_argument("--region", default="0,0,0.5,0.5",
                      help="where paths are followed: x0,y0,x1,y1 shares of the park (default its first quarter)")
    make.add_argument("--preset", default="small", help="park size: small or large")
    make.add_argument("--anywhere", action="store_true",
                      help="path demos start on any walkable cell and first walk onto the pathway")
    make.add_argument("--corrections", type=Path, default=None,
                      help="an imitation policy that plays the episodes while the navigator labels them (DAgger)")
    make.add_argument("--beta", type=float, default=0.0,
                      help="with --corrections: share of steps the navigator plays instead (default 0)")
    make.add_argument("--masks", choices=("labels", "detector"), default="labels",
                      help="OD masks from the labels buffer's exact boxes (default) or from the shipped detector, "
                           "as the detect wrapper masks what a policy plays on")
    make.add_argument("--seed", type=int, default=0, help="seeds starts, goals and which objects are tested")
    rec = sub.add_parser("record", help="play the park in a window; your play is written as a demonstration")
    rec.add_argument("--out", type=Path, required=True, help="folder of demonstrations (created or added to)")
    rec.add_argument("--level-seed", type=int, default=1, help="park level to play (not 0: the evaluation level)")
    rec.add_argument("--set", choices=("path", "object"), default="path", help="what you demonstrate")
    rec.add_argument("--target", default=None, help="the object an object test is about, e.g. barrel_2")
    rec.add_argument("--steps", type=int, default=500, help="actions to record at most")
    rec.add_argument("--preset", default="small", help="park size: small or large")


def demos_command(args: argparse.Namespace, console: Console) -> int:
    """Run ``evo demos make`` or ``evo record``; a ValueError is bad input (exit code 2)."""
    try:
        return _record(args, console) if args.command == "record" else _make(args, console)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def parse_region(text: str) -> tuple[float, float, float, float]:
    """``"0,0,0.5,0.5"`` -> ``(x0, y0, x1, y1)`` shares of the park's side.

    Raises:
        ValueError: not four numbers with 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1.
    """
    try:
        x0, y0, x1, y1 = (float(v) for v in str(text).split(","))
        if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
            raise ValueError
    except ValueError:
        raise ValueError(f"--region must be x0,y0,x1,y1 shares of the park with 0 <= x0 < x1 <= 1 and "
                         f"0 <= y0 < y1 <= 1, got {text!r}") from None
    return x0, y0, x1, y1


def _make(args: argparse.Namespace, console: Console) -> int:
    from games.perception.demos import save_demo
    from evo.cli.vision import parse_levels
    import numpy as np

    park = park_data()
    levels = parse_levels(args.levels)
    region = parse_region(args.region)
    start = time.perf_counter()
    count = 0
    corrector = None
    if args.corrections is not None:
        corrector = park.corrector(args.corrections, args.beta, np.random.default_rng([args.seed, 0xDA66]))
    detector = None
    if args.masks == "detector":
        from games.perception.detector import load_detector

        detector = load_detector()
    for demo in park.demos(levels, args.path, args.object, args.steps, args.seed, region, args.preset, args.anywhere,
                           corrector, detector):
        save_demo(args.out, demo, park.actions)
        count += 1
    console.print(f"wrote {count} demonstrations to {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


def _record(args: argparse.Namespace, console: Console) -> int:
    from games.perception.demos import save_demo
    from games.perception.training.data import EVAL_LEVEL

    park = park_data()
    if args.level_seed == EVAL_LEVEL or args.level_seed < 0:
        raise ValueError(f"--level-seed must be a non-negative level other than {EVAL_LEVEL} (the evaluation level), "
                         f"got {args.level_seed}")
    source = park.spectator(args.level_seed, args.preset)
    console.print("keys: W/S or up/down walk, A/D strafe, left/right arrows or the mouse turn, "
                  "Page Up/Down look, space jumps; close the window to stop")
    demo = park.record(source, args.steps, set=args.set, level_seed=args.level_seed, preset=args.preset,
                       target=args.target)
    path = save_demo(args.out, demo, park.actions)
    console.print(f"recorded {demo.steps} actions to {path}")
    return 0
