"""``evo check GAME``: what the engine sees of a game, in a few seconds, before a run.

    evo check MiniGrid-DoorKey-8x8-v0
    evo check my_package.my_game:MyGame game.isolated=false
    evo check experiments/my_experiment.yaml

A game someone else wrote can look fine to Gymnasium and be nearly blind to the engine: a coded
image read as one cell, a wrapper's features ignored, a copy that takes a minute to start. The
check builds the game as a run would (with the default experiment's components, or those of
the experiment given), plays the probe's seeded random episodes, and prints one table: the
game's features and where they come from, the cells its random play reached, the time a copy
takes to start and a step to play, how it is isolated, and what a generation of the default
experiment would cost. Faults in the probe are listed as they would be bugs.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from evo.run.user_paths import ConfigError

DEFAULT_EXPERIMENT: dict[str, Any] = {
    "name": "check",
    "search": {"agent": "random", "strategy": "go_explore", "population": 30, "offspring": 30, "episodes": 4,
               "explore_steps": "auto", "generation_seconds": 15},
    "budget": {"generations": 1},
    "objectives": [{"name": "winning"}, {"name": "coverage"}],
    "oracles": [{"name": "crash"}, {"name": "stuck", "kwargs": {"window": 8}}, {"name": "logic"},
                {"name": "performance", "kwargs": {"floor_ms": 1.0}}],
    "finetune": {"algorithm": "none"},
}
"""The components and search of the default experiment (``experiments/block_maze.yaml``),
which a game named alone is checked with."""


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="what the engine sees of a game: features, cells, start and step time")
    p.add_argument("game", metavar="GAME|EXP.yaml",
                   help="a registered game, a Gymnasium id (plain or module:id), package.module:Class, "
                        "or an experiment YAML (its game and settings)")
    p.add_argument("overrides", nargs="*", metavar="key=value",
                   help="overrides of the experiment's keys, e.g. game.isolated=false")


def game_section(game: str) -> dict[str, Any]:
    """The ``game:`` section ``game`` names: a registered name, else a Gymnasium id that some
    installed package registers, else an entry point.

    Raises:
        ConfigError: It is none of them (one line naming what was tried).
    """
    from games.gym_ids import GymIdNotFound, resolve_gym_id
    from games.registry import registered

    if game in registered():
        return {"name": game}
    try:
        resolve_gym_id(game)
        return {"gym_id": game}
    except GymIdNotFound as exc:
        if ":" in game:  # not an id's module: a class's
            return {"entry_point": game}
        raise ConfigError(f"check: {game!r} is no registered game, nor package.module:Class, nor a Gymnasium id: "
                          f"{exc}") from None


def check_command(args: argparse.Namespace, console: Console) -> int:
    from evo.run.config import load_experiment, parse_experiment, validate_names
    from evo.run.game_check import check_game
    from evo.run.raw_experiment import apply_overrides

    if args.game.endswith((".yaml", ".yml")):
        exp = load_experiment(args.game, args.overrides)
    else:
        raw = apply_overrides({**DEFAULT_EXPERIMENT, "game": game_section(args.game)}, args.overrides)
        exp = parse_experiment(raw, "check")
    validate_names(exp)
    rows = check_game(exp, lambda line: console.print(line, style="dim"))
    console.print(f"[bold]evo check[/bold] {args.game}")
    width = max(len(what) for what, _ in rows)
    for what, seen in rows:  # one line a row, never wrapped: a reader greps it
        console.print(f"  {what:<{width}}  {seen}", markup=False, soft_wrap=True)
    return 0
