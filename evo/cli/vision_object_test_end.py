"""``evo vision train|eval test-end``: the head that ends the object-test policy's tests.

    evo vision train test-end --demos demos/objects --weights games/perception/weights/object_test.pt
    evo vision eval test-end --demos demos/other --weights games/perception/weights/object_test.pt

:mod:`games.perception.training.object_test_end` fits and scores the head, the park saying
where each demonstrated object stands; this prints.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

import torch
from rich.console import Console

from evo.cli.vision import add_scoring_arguments, park_data
from games.perception.demos import Demo, load_demos
from games.perception.imitation import OBJECT_TEST_WEIGHTS, load_policy
from games.perception.object_test_end import load_end
from games.perception.training.object_test_end import add_end, score_end


def fit_and_print(weights: Path, demos: Sequence[Demo], seed: int, console: Console) -> None:
    """Fit the end head of the policy at ``weights`` into its file and print its score."""
    score, tested = add_end(weights, demos, seed, park_data().object_place)
    if score["episodes"]:
        console.print(f"test end on {score['episodes']} test episodes: AUC {score['auc']:.3f}; a test ends "
                      f"{score['lag_median']:+.0f} steps after it completed (median; quartiles "
                      f"{score['lag_quartiles'][0]:+.0f}, {score['lag_quartiles'][1]:+.0f}), before it in "
                      f"{score['early']:.0%}")
    else:
        console.print(f"test end fit; not scored: none of the {tested} test episodes completes its test")


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train test-end``."""
    parser.add_argument("--demos", type=Path, required=True, help="folder of object-test demonstrations")
    parser.add_argument("--weights", type=Path, default=OBJECT_TEST_WEIGHTS,
                        help="the object-test policy; its file gets the head")
    parser.add_argument("--seed", type=int, default=None, help="the split's seed (default: the policy's)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Fit the end head of an object-test policy and write it into the policy's file."""
    torch.set_num_threads(max(1, int(args.threads)))
    _, meta = load_policy(args.weights)
    demos = load_demos(args.demos, "object")
    seed = int(meta.get("seed", 0) if args.seed is None else args.seed)
    fit_and_print(args.weights, demos, seed, console)
    console.print(f"wrote the test end into {args.weights}")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval test-end``."""
    add_scoring_arguments(parser, OBJECT_TEST_WEIGHTS, "the object-test policy",
                          "object-test demonstrations (other levels)")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Score the end head on object-test demonstrations."""
    torch.set_num_threads(max(1, int(args.threads)))
    model, _ = load_policy(args.weights)
    head = load_end(args.weights)
    if head is None:
        raise ValueError(f"{args.weights} has no test end (add one: evo vision train test-end --weights "
                         f"{args.weights} --demos DIR)")
    score = score_end(head, model, load_demos(args.demos, "object"), park_data().object_place)
    if not score["episodes"]:
        raise ValueError(f"{args.demos} holds no object-test demonstration that completes its test")
    console.print(f"{score['episodes']} object tests: AUC {score['auc']:.3f}; a test ends {score['lag_median']:+.0f} "
                  f"steps after it completed (median), before it in {score['early']:.0%}")
    return 0
