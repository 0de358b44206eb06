"""``evo vision train|eval detector``: the object detector on frames of generated parks.

    evo vision train detector --out games/perception/weights/detector.pt --levels 1-16,18-25 \\
        --frames 500 --epochs 30 --seed 0
    evo vision eval detector --level-seed 0 --frames 960 --seed 1

The park takes the labelled frames (:func:`games.doom.park.data.frames.park_frames`, on parks
generated with the ``--levels`` seeds); :mod:`games.perception.training.detector` trains and
scores; this prints.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from evo.cli.vision import park_data, parse_levels
from games.perception.detector import WEIGHTS, load_detector, save_detector
from games.perception.training.detector import (IOU, MIN_HEIGHT, TrainConfig, detect_all, pick_threshold, score,
                                                train)



def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """``evo vision train detector``'s options."""
    parser.add_argument("--out", default=str(WEIGHTS), help="where to write the weights")
    parser.add_argument("--levels", default="1-16,18-25", help="park level seeds to train on, e.g. 1-12")
    parser.add_argument("--frames", type=int, default=500, help="frames taken per level")
    parser.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    parser.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    parser.add_argument("--lr", type=float, default=TrainConfig.lr)
    parser.add_argument("--width", type=int, default=TrainConfig.width, help="channels at stride 4")
    parser.add_argument("--val-level", type=int, default=17,
                        help="held-out park on which the score threshold is chosen")
    parser.add_argument("--val-frames", type=int, default=240, help="frames taken on it")
    parser.add_argument("--seed", type=int, default=0)


def _positive(name: str, value: int) -> int:
    if value < 1:
        raise ValueError(f"--{name} must be at least 1, got {value}")
    return value


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Take frames of the training parks, train, write the weights; exit code 0."""
    levels = parse_levels(args.levels)
    if args.val_level in levels or args.val_level < 0:
        raise ValueError(f"--val-level must be a park seed not in --levels, got {args.val_level}")
    config = TrainConfig(epochs=_positive("epochs", args.epochs),
                         batch_size=_positive("batch-size", args.batch_size), lr=float(args.lr),
                         width=_positive("width", args.width), seed=int(args.seed))
    park = park_data()
    t0 = time.perf_counter()
    data = park.frames(levels, _positive("frames", args.frames), seed=config.seed)
    objects = sum(int((b[:, 3] >= MIN_HEIGHT).sum()) for b in data.boxes)
    console.print(f"{len(data)} frames of {len(levels)} parks, {objects} objects at least "
                  f"{MIN_HEIGHT} px tall ({time.perf_counter() - t0:.0f} s)")

    def log(epoch: int, heat: float, box: float, seconds: float) -> None:
        console.print(f"epoch {epoch + 1}/{config.epochs}: heatmap loss {heat:.3f}, "
                      f"box loss {box:.3f} ({seconds:.0f} s)")

    model = train(data, config, log)
    held_out = park.frames([args.val_level], _positive("val-frames", args.val_frames), seed=config.seed)
    threshold = pick_threshold(model, held_out)
    save_detector(args.out, model, data.type_names, config.width, threshold)
    console.print(f"threshold {threshold} (best F1 on park {args.val_level}); wrote {args.out}")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """``evo vision eval detector``'s options."""
    parser.add_argument("--weights", default=None, help="weights to score (default: the shipped ones)")
    parser.add_argument("--level-seed", type=int, default=0, help="the park to score on (unseen in training)")
    parser.add_argument("--frames", type=int, default=960, help="frames taken on it")
    parser.add_argument("--threshold", type=float, default=None, help="score threshold (default: the saved one)")
    parser.add_argument("--min-height", type=int, default=MIN_HEIGHT, help="pixels an object must be tall to count")
    parser.add_argument("--seed", type=int, default=1, help="seeds the walks on the park")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Print precision and recall at IoU 0.5 per type on the park; exit code 0."""
    if args.level_seed < 0:
        raise ValueError(f"--level-seed must be a non-negative integer, got {args.level_seed}")
    detector = load_detector(args.weights, args.threshold)
    data = park_data().frames([args.level_seed], _positive("frames", args.frames), seed=int(args.seed))
    t0 = time.perf_counter()
    found = detect_all(detector, data.frames)
    seconds = time.perf_counter() - t0
    table = Table(title=f"detector on park {args.level_seed}: {len(data)} frames, objects at "
                        f"least {args.min_height} px tall, IoU {IOU}, threshold {detector.threshold}")
    for column in ("type", "objects", "found", "false alarms", "precision", "recall"):
        table.add_column(column, justify="left" if column == "type" else "right")
    for name, s in score(found, data, _positive("min-height", args.min_height)).items():
        table.add_row(name, str(s.tp + s.fn), str(s.tp), str(s.fp), f"{s.precision:.3f}", f"{s.recall:.3f}")
    console.print(table)
    console.print(f"detect: {len(data) / seconds:.0f} frames/s in batches of 64")
    return 0
