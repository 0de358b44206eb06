"""``evo vision``: train and score the small models that let agents see objects in frames.

    evo vision train detector --out games/perception/weights/detector.pt ...
    evo vision eval detector --weights ... --level-seed 0

Each model kind has its own command module here (``evo.cli.vision_<kind>``) that exposes
``add_train_arguments(parser)``, ``train_command(args, console) -> int`` and, when it can be
scored, ``add_eval_arguments(parser)`` and ``eval_command(args, console) -> int``; it prints
what the kind's training module (:mod:`games.perception.training`) returns. The models learn
from the park's frames, which the park lends through its registry entry (:func:`park_data`).
The modules load torch and the park, so they are imported only when their command is parsed:
neither ``evo --help`` nor ``evo run`` loads them.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Sequence

from rich.console import Console

from evo.run.user_paths import ConfigError
from games.registry import GAMES, load_entry_point

if TYPE_CHECKING:
    from games.perception.training.data import GameData

KINDS: dict[str, str] = {
    "detector": "evo.cli.vision_detector",
    "encoder": "evo.cli.vision_encoder",
    "imitation": "evo.cli.vision_imitation",
    "texture": "evo.cli.vision_texture",
    "test-end": "evo.cli.vision_object_test_end",
}
"""Model kind -> the command module that trains and scores it."""
PARK = "doom_park"
"""The game whose levels the shipped models learn from and are scored on."""


def park_data() -> "GameData":
    """What the park lends the perception commands: its frames, play, crops and
    demonstrations (the ``perception_data`` of its registry entry)."""
    return load_entry_point(GAMES[PARK].perception_data)


def parse_levels(text: str) -> list[int]:
    """``"1-12"``, ``"0"`` or ``"1,3,5-7"`` -> level seeds, each once, in order.

    Raises:
        ValueError: not such a list of non-negative integers.
    """
    levels: list[int] = []
    try:
        for part in str(text).split(","):
            lo, sep, hi = part.strip().partition("-")
            first, last = int(lo), int(hi) if sep else int(lo)
            if first < 0 or last < first:
                raise ValueError
            levels += [s for s in range(first, last + 1) if s not in levels]
    except ValueError:
        raise ValueError(f"--levels must be level seeds such as 1-12 or 1,3,5-7 (non-negative, ascending ranges), "
                         f"got {text!r}") from None
    return levels


def add_scoring_arguments(parser: argparse.ArgumentParser, weights: Path, what: str, demos: str) -> None:
    """``--weights`` (default ``weights``, ``what`` it is), ``--demos`` (``demos``: what they
    hold) and ``--threads``: the options of scoring a policy on demonstrations."""
    parser.add_argument("--weights", type=Path, default=weights, help=what)
    parser.add_argument("--demos", type=Path, required=True, help=demos)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def say_written(console: Console, path: Path, start: float) -> None:
    """One line: the weights written, their size, and the seconds since ``start`` (``time.perf_counter()``)."""
    console.print(f"wrote {path} ({Path(path).stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - start:.0f} s")


def _module(kind: str) -> ModuleType:
    return importlib.import_module(KINDS[kind])


class _KindParsers(argparse._SubParsersAction):
    """The ``KIND`` of ``train`` or ``eval``: each kind's options are added by its module
    (``add_train_arguments``, ``add_eval_arguments``) once that kind is chosen."""

    def __init__(self, *args: Any, adds: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.adds = adds
        self.filled: set[str] = set()

    def fill(self, kind: str, parser: argparse.ArgumentParser) -> None:
        """Add ``kind``'s options to its parser, once (imports its module)."""
        if kind in self.filled:
            return
        self.filled.add(kind)
        add = getattr(_module(kind), self.adds, None)
        if add is None:
            parser.error(f"the {kind} has no {parser.prog.split()[-1]} command")
        add(self._name_parser_map[kind])

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Sequence[Any], option_string: str | None = None) -> None:
        if values and values[0] in self._name_parser_map:
            self.fill(values[0], parser)
        super().__call__(parser, namespace, values, option_string)


def with_every_kind(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` (``evo``'s, or any below it) with every model kind's options added now, as
    a reference page lists them; imports every kind's module (torch)."""
    for action in parser._actions:  # argparse keeps its actions private; there is no public list
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if isinstance(action, _KindParsers):
                    action.fill(name, parser)
                with_every_kind(sub)
    return parser


def add_vision_parser(sub: argparse._SubParsersAction) -> None:
    """The ``vision`` command: ``train KIND`` and ``eval KIND``."""
    vision = sub.add_parser("vision", help="train and score the detector, encoder, texture judge, imitation policy "
                            "and test end")
    actions = vision.add_subparsers(dest="vision_action", required=True)
    train = actions.add_parser("train", help="train a model on frames of generated levels")
    evaluate = actions.add_parser("eval", help="score a trained model on an unseen level")
    train_kinds = train.add_subparsers(dest="kind", required=True, action=_KindParsers, adds="add_train_arguments")
    eval_kinds = evaluate.add_subparsers(dest="kind", required=True, action=_KindParsers, adds="add_eval_arguments")
    for kind, module in KINDS.items():
        if importlib.util.find_spec(module) is None:  # a kind not built yet in this checkout
            continue
        train_kinds.add_parser(kind, help=f"train the {kind.replace('-', ' ')}")
        eval_kinds.add_parser(kind, help=f"score the {kind.replace('-', ' ')}")


def vision_command(args: argparse.Namespace, console: Console) -> int:
    """Run ``evo vision train|eval KIND``; returns the exit code.

    A ``ValueError`` from the model's module is bad input (a level range, a missing weights
    file): one line and exit code 2, as every input error."""
    module = _module(args.kind)
    command = module.train_command if args.vision_action == "train" else module.eval_command
    try:
        return int(command(args, console))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
