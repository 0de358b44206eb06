"""``evo vision train|eval encoder``: the masked inverse-dynamics encoder on the park's frames.

    evo vision train encoder --out games/perception/weights/encoder.pt --levels 1-6 --steps 2000 --seed 0
    evo vision eval encoder --level-seed 0

The park plays the transitions (:func:`games.doom.park.data.transitions.collect`);
:mod:`games.perception.training.encoder` trains and scores; this prints.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from evo.cli.vision import park_data, parse_levels, say_written
from games.perception.encoder import DEFAULT_WEIGHTS, load_model, save_model
from games.perception.training.data import EVAL_LEVEL
from games.perception.training.encoder import accuracy, predict, split, train




def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train encoder``."""
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="where to write the weights")
    parser.add_argument("--levels", default="1-6", help="park level seeds to play, e.g. 1-6 (not 0: the evaluation level); the last is held out")
    parser.add_argument("--steps", type=int, default=2000, help="transitions played per level")
    parser.add_argument("--copies", type=int, default=4, help="engines per level, stepped together")
    parser.add_argument("--epochs", type=int, default=20, help="passes over the training transitions")
    parser.add_argument("--batch-size", type=int, default=64, help="transitions per gradient step")
    parser.add_argument("--lr", type=float, default=1e-3, help="AdamW learning rate")
    parser.add_argument("--preset", default="small", help="park size: small or large")
    parser.add_argument("--seed", type=int, default=0, help="seeds play, initial weights, batches and masks")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Collect, train, report held-out accuracy against chance, write the weights."""
    levels = parse_levels(args.levels)
    if EVAL_LEVEL in levels:
        raise ValueError(f"--levels must not include {EVAL_LEVEL}, the level the encoder is scored on, got {args.levels!r}")
    torch.set_num_threads(max(1, int(args.threads)))
    start = time.perf_counter()
    data = park_data().transitions(levels, args.steps, args.copies, args.seed, args.preset)
    train_rows, held = split(data)
    console.print(f"collected {len(data)} transitions on levels {args.levels} in {time.perf_counter() - start:.1f} s; "
                  f"training on {train_rows.size}, holding out {held.size}")

    def log(epoch: int, loss: float, acc: float) -> None:
        console.print(f"epoch {epoch + 1}/{args.epochs}: loss {loss:.3f}, train accuracy {acc:.3f}, "
                      f"{time.perf_counter() - start:.0f} s")

    model = train(data, train_rows, epochs=args.epochs, seed=args.seed, batch_size=args.batch_size, lr=args.lr, log=log)
    chance = 1.0 / model.n_actions
    held_acc = accuracy(model, data, held, args.seed + 1)
    console.print(f"held-out action accuracy {held_acc:.3f} (one frame masked; chance {chance:.3f}), "
                  f"{held.size} transitions")
    meta = {"levels": args.levels, "steps": args.steps, "copies": args.copies, "epochs": args.epochs,
            "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed, "preset": args.preset,
            "held_out_accuracy": held_acc, "seconds": round(time.perf_counter() - start, 1)}
    save_model(model, args.out, meta)
    say_written(console, args.out, start)
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval encoder``."""
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="the encoder to score")
    parser.add_argument("--level-seed", type=int, default=EVAL_LEVEL, help="park level to play")
    parser.add_argument("--steps", type=int, default=2000, help="transitions to play")
    parser.add_argument("--copies", type=int, default=4, help="engines, stepped together")
    parser.add_argument("--preset", default="small", help="park size: small or large")
    parser.add_argument("--seed", type=int, default=0, help="seeds play and masks")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Inverse-dynamics accuracy on an unseen level, overall and per action."""
    if args.level_seed < 0:
        raise ValueError(f"--level-seed must be a non-negative integer, got {args.level_seed}")
    model, meta = load_model(args.weights)
    torch.set_num_threads(max(1, int(args.threads)))
    park = park_data()
    data = park.transitions((args.level_seed,), args.steps, args.copies, args.seed, args.preset)
    rows = np.arange(len(data))
    masked = predict(model, data, rows, np.random.default_rng(args.seed + 1))
    plain = predict(model, data, rows, None)
    table = Table(title=f"inverse dynamics on level {args.level_seed} ({len(data)} transitions, "
                        f"trained on levels {meta.get('levels', '?')})")
    for column in ("action", "transitions", "accuracy (one masked)", "accuracy (unmasked)"):
        table.add_column(column, justify="left" if column == "action" else "right")
    for k, name in enumerate(park.actions):
        mine = data.actions == k
        table.add_row(name, str(int(mine.sum())), f"{(masked[mine] == k).mean():.3f}", f"{(plain[mine] == k).mean():.3f}")
    table.add_row("all", str(len(data)), f"{(masked == data.actions).mean():.3f}", f"{(plain == data.actions).mean():.3f}")
    console.print(table)
    console.print(f"chance {1.0 / model.n_actions:.3f}")
    return 0
