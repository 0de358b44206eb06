"""``evo vision train|eval texture``: the texture judge on crops of the park's objects.

    evo vision train texture --out games/perception/weights/texture.pt --levels 1-8 --seed 0
    evo vision eval texture --weights games/perception/weights/texture.pt --level-seed 0

The park cuts the crops from circling walks around its objects, labelled by their true bugs;
:mod:`games.perception.training.texture` trains and scores; this prints.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from rich.console import Console

from evo.cli.vision import park_data, parse_levels
from games.perception.texture import DEFAULT_WEIGHTS, MIN_HEIGHT, load_texture_judge, save_texture_judge
from games.perception.training.texture import JITTER, concat, crop_scores, part, train_judge



def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train texture``."""
    parser.add_argument("--out", default=str(DEFAULT_WEIGHTS), help="where to write the weights")
    parser.add_argument("--levels", default="1-8", help="park level seeds to train on (1-8 or 1,3,5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of walks, jitter and training")
    parser.add_argument("--steps", type=int, default=2000, help="steps of circling walk per level")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--width", type=int, default=16, help="channels of the first conv layer")
    parser.add_argument("--jitter", type=float, default=JITTER,
                        help="move training boxes' edges by up to this share of their size")
    parser.add_argument("--preset", default="small", choices=sorted(park_data().presets))


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Collect crops from ``--levels``, train, write ``--out``, print the training scores."""
    levels = parse_levels(args.levels)
    if args.steps < 1 or args.epochs < 1 or args.width < 1:
        raise ValueError("--steps, --epochs and --width must be at least 1")
    if not 0.0 <= args.jitter < 0.5:
        raise ValueError(f"--jitter must be in [0, 0.5), got {args.jitter}")
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    park = park_data()
    t0 = time.perf_counter()
    sets = []
    for level in levels:
        sets.append(park.crops(level, args.steps, rng, preset=args.preset, jitter=args.jitter))
        console.print(f"level {level}: {len(sets[-1].crops)} crops")
    data = concat(sets)
    judge = train_judge(data, args.epochs, args.seed, width=args.width)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_texture_judge(judge, args.out)
    scores = crop_scores(judge, data)
    console.print(f"trained on {len(data.crops)} crops of levels {args.levels} in "
                  f"{time.perf_counter() - t0:.0f} s; training accuracy {scores['accuracy']:.3f}; "
                  f"wrote {args.out} ({Path(args.out).stat().st_size / 1024:.0f} KiB)")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval texture``."""
    parser.add_argument("--weights", default=str(DEFAULT_WEIGHTS), help="the judge to score")
    parser.add_argument("--level-seed", type=int, default=0, help="the (unseen) level scored")
    parser.add_argument("--seed", type=int, default=0, help="seed of the circling walk")
    parser.add_argument("--steps", type=int, default=2000, help="steps of circling walk")
    parser.add_argument("--preset", default="small", choices=sorted(park_data().presets))


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Crop-level accuracy, precision and recall of "bugged" on one level, by crop height."""
    if args.level_seed < 0 or args.steps < 1:
        raise ValueError("--level-seed must be non-negative and --steps at least 1")
    torch.set_num_threads(1)
    judge = load_texture_judge(args.weights)
    data = park_data().crops(args.level_seed, args.steps, np.random.default_rng(args.seed), preset=args.preset)
    heights = np.array([c.shape[1] for c in data.crops])
    console.print(f"texture judge {args.weights} on level {args.level_seed} ({args.preset}), "
                  f"crops at least {MIN_HEIGHT} px tall")
    console.print("| crops | height px | accuracy | class accuracy | precision | recall |")
    console.print("|---|---|---:|---:|---:|---:|")
    for name, low, high in (("all", 0, 10**6), ("small", 0, 16), ("large", 16, 10**6)):
        keep = np.flatnonzero((heights >= low) & (heights < high))
        s = crop_scores(judge, part(data, keep))
        span = f"{max(low, MIN_HEIGHT)}+" if high > 10**5 else f"{max(low, MIN_HEIGHT)}-{high - 1}"
        console.print(f"| {name} ({int(s['crops'])}) | {span} | {s['accuracy']:.3f} | "
                      f"{s['class_accuracy']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} |")
    return 0
