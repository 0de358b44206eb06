"""``evo vision train|eval imitation``: the imitation policy on demonstrations (PPGTA).

    evo demos make --out demos/park --levels 1-4 --path 8 --object 8 --steps 300
    evo vision train imitation --demos demos/park --set path --out games/perception/weights/imitation.pt
    evo vision eval imitation --weights games/perception/weights/imitation.pt --demos demos/other

:mod:`games.perception.training.imitation` trains and scores, the park saying where each
demonstrated object stands; this prints. Training an object-test policy (``--set object``)
fits the head that ends its tests too (:mod:`evo.cli.vision_object_test_end`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from rich.console import Console

from evo.cli.vision import add_scoring_arguments, park_data, say_written
from evo.cli.vision_object_test_end import fit_and_print
from games.perception.demos import SETS, action_names, load_demos, split_demos
from games.perception.execution_quality import action_distribution
from games.perception.imitation import DEFAULT_WEIGHTS, load_policy, save_policy
from games.perception.training.imitation import accuracy, executed_divergence, success_threshold, train


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train imitation``."""
    parser.add_argument("--demos", type=Path, required=True, help="folder of demonstrations (evo demos make)")
    parser.add_argument("--set", choices=SETS, default="path", help="which demonstrations to imitate")
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="where to write the weights")
    parser.add_argument("--epochs", type=int, default=40, help="passes over the training episodes at most (PPGTA: 40)")
    parser.add_argument("--batch-size", type=int, default=4, help="episodes per gradient step")
    parser.add_argument("--lr", type=float, default=2e-3, help="peak AdamW learning rate")
    parser.add_argument("--patience", type=int, default=10, help="epochs without a better validation accuracy before stopping")
    parser.add_argument("--seed", type=int, default=0, help="seeds the split, initial weights and order")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Split, train, report action accuracy on the 70/10/20 split and the success threshold."""
    torch.set_num_threads(max(1, int(args.threads)))
    start = time.perf_counter()
    demos = load_demos(args.demos, args.set)
    names = action_names(args.demos)
    train_d, val_d, test_d = split_demos(demos, args.seed)
    console.print(f"{len(demos)} {args.set} demonstrations: {len(train_d)} train, {len(val_d)} validation, "
                  f"{len(test_d)} test episodes")

    def log(epoch: int, loss: float, acc: float, val: float) -> None:
        console.print(f"epoch {epoch + 1}/{args.epochs}: loss {loss:.3f}, train accuracy {acc:.3f}, "
                      f"validation {val:.3f}, {time.perf_counter() - start:.0f} s")

    model = train(train_d, val_d, epochs=args.epochs, seed=args.seed, batch_size=args.batch_size, lr=args.lr,
                  patience=args.patience, n_actions=len(names), log=log)
    demonstrated = action_distribution(np.concatenate([d.actions for d in train_d]), len(names))
    scores = {part: accuracy(model, ds) for part, ds in (("train", train_d), ("validation", val_d), ("test", test_d))}
    threshold = success_threshold(model, val_d, demonstrated, park_data().object_place)
    majority = float(demonstrated.max())
    console.print("action accuracy: " + ", ".join(f"{k} {v:.3f}" for k, v in scores.items())
                  + f" (always the commonest action: {majority:.3f})")
    console.print(f"success threshold (mean JS divergence on validation, over the steps that execute "
                  f"a test for object tests): {threshold:.4f}")
    meta = {"demos": str(args.demos), "set": args.set, "episodes": [len(train_d), len(val_d), len(test_d)],
            "accuracy": scores, "majority": majority, "js_threshold": threshold,
            "demonstrated": demonstrated.tolist(), "action_names": list(names), "epochs": args.epochs,
            "lr": args.lr, "seed": args.seed, "seconds": round(time.perf_counter() - start, 1)}
    save_policy(model, args.out, meta)
    if args.set == "object":  # its tests end when the policy's state says done
        fit_and_print(args.out, demos, args.seed, console)
    say_written(console, args.out, start)
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval imitation``."""
    add_scoring_arguments(parser, DEFAULT_WEIGHTS, "the imitation policy to score",
                          "demonstrations to score it on (other levels)")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Action accuracy and test success on demonstrations of the policy's set."""
    model, meta = load_policy(args.weights)
    torch.set_num_threads(max(1, int(args.threads)))
    demos = load_demos(args.demos, meta.get("set"))
    if not demos:
        raise ValueError(f"{args.demos} holds no {meta.get('set')} demonstrations")
    demonstrated = np.asarray(meta["demonstrated"])
    threshold = float(meta["js_threshold"])
    place = park_data().object_place
    passed = [executed_divergence(model, d, demonstrated, place) <= threshold for d in demos]
    console.print(f"{len(demos)} {meta.get('set')} episodes: action accuracy {accuracy(model, demos):.3f}, "
                  f"executed like the demonstrations (JS <= {threshold:.4f}) in {np.mean(passed):.0%}")
    return 0
